/* Boolean and word gadgets (gadgets.h). */
#include "gadgets.h"

/* --- bits ------------------------------------------------------------------------------------ */

cs_bit cs_bit_const(bool value)
{
    cs_bit r = {CS_ONE, CS_BIT_CONST, value ? 1 : 0};
    return r;
}

static bool is_const(cs_bit a) { return a.kind == CS_BIT_CONST; }

/* A wire holding a bit whose booleanity the caller's constraint implies. */
static cs_bit alloc_implied(cs_t *cs, bool value)
{
    cs_bit r = {cs_alloc(cs, value ? cs_pow2(cs, 0) : NULL), CS_BIT_VAR, value ? 1 : 0};
    return r;
}

cs_bit cs_bit_alloc(cs_t *cs, bool value)
{
    cs_bit r = alloc_implied(cs, value);
    CS_LC(a, cs, 1);
    CS_LC(b, cs, 2);
    CS_LC(c, cs, 1);
    cs_lc_add_var(&a, r.var);
    cs_lc_add_var(&b, CS_ONE);
    cs_lc_sub_var(&b, r.var);
    cs_enforce(cs, &a, &b, &c, "boolean");
    return r;
}

cs_bit cs_bit_not(cs_bit a)
{
    if (a.kind != CS_BIT_CONST)
        a.kind = a.kind == CS_BIT_VAR ? CS_BIT_NOT : CS_BIT_VAR;
    a.value ^= 1;
    return a;
}

static void lc_add_bit2(cs_lc *lc, cs_bit bit, const fr_t *coeff, const fr_t *neg_coeff)
{
    switch (bit.kind) {
    case CS_BIT_CONST:
        if (bit.value)
            cs_lc_add(lc, CS_ONE, coeff);
        break;
    case CS_BIT_VAR:
        cs_lc_add(lc, bit.var, coeff);
        break;
    default:
        cs_lc_add(lc, CS_ONE, coeff);
        cs_lc_add(lc, bit.var, neg_coeff);
        break;
    }
}

void cs_lc_add_bit(cs_lc *lc, cs_bit bit, const fr_t *coeff)
{
    fr_t neg;
    fr_neg(&neg, coeff);
    lc_add_bit2(lc, bit, coeff, &neg);
}

void cs_lc_add_bits(cs_lc *lc, const cs_bit *bits, unsigned n, unsigned shift)
{
    for (unsigned i = 0; i < n && shift + i < 256; i++)
        lc_add_bit2(lc, bits[i], cs_pow2(lc->cs, shift + i), cs_neg_pow2(lc->cs, shift + i));
}

cs_bit cs_bit_and(cs_t *cs, cs_bit a, cs_bit b)
{
    if (is_const(a))
        return a.value ? b : a;
    if (is_const(b))
        return b.value ? a : b;
    if (a.var == b.var)
        return a.kind == b.kind ? a : cs_bit_const(false);
    cs_bit r = alloc_implied(cs, a.value & b.value);
    CS_LC(la, cs, 2);
    CS_LC(lb, cs, 2);
    CS_LC(lc, cs, 1);
    lc_add_bit2(&la, a, cs_pow2(cs, 0), cs_neg_pow2(cs, 0));
    lc_add_bit2(&lb, b, cs_pow2(cs, 0), cs_neg_pow2(cs, 0));
    cs_lc_add_var(&lc, r.var);
    cs_enforce(cs, &la, &lb, &lc, "and");
    return r;
}

cs_bit cs_bit_xor(cs_t *cs, cs_bit a, cs_bit b)
{
    if (is_const(a))
        return a.value ? cs_bit_not(b) : b;
    if (is_const(b))
        return b.value ? cs_bit_not(a) : a;
    if (a.var == b.var)
        return cs_bit_const(a.kind != b.kind);
    /* Negations commute with XOR: work on the wires, negate the result once. */
    bool flip = (a.kind == CS_BIT_NOT) != (b.kind == CS_BIT_NOT);
    uint8_t x = a.kind == CS_BIT_NOT ? a.value ^ 1 : a.value;
    uint8_t y = b.kind == CS_BIT_NOT ? b.value ^ 1 : b.value;
    cs_bit r = alloc_implied(cs, x ^ y);
    /* 2x * y = x + y - r, since x xor y = x + y - 2xy */
    CS_LC(la, cs, 1);
    CS_LC(lb, cs, 1);
    CS_LC(lc, cs, 3);
    cs_lc_add(&la, a.var, cs_pow2(cs, 1));
    cs_lc_add_var(&lb, b.var);
    cs_lc_add_var(&lc, a.var);
    cs_lc_add_var(&lc, b.var);
    cs_lc_sub_var(&lc, r.var);
    cs_enforce(cs, &la, &lb, &lc, "xor");
    return flip ? cs_bit_not(r) : r;
}

cs_bit cs_bit_xor3(cs_t *cs, cs_bit a, cs_bit b, cs_bit c)
{
    return cs_bit_xor(cs, cs_bit_xor(cs, a, b), c);
}

static bool same_bit(cs_bit a, cs_bit b)
{
    return a.kind == b.kind && (a.kind == CS_BIT_CONST ? a.value == b.value : a.var == b.var);
}

cs_bit cs_bit_ch(cs_t *cs, cs_bit a, cs_bit b, cs_bit c)
{
    if (is_const(a))
        return a.value ? b : c;
    if (same_bit(b, c))
        return b;
    if (is_const(b) && is_const(c))
        return b.value ? a : cs_bit_not(a); /* b != c here */
    if (is_const(b))
        return b.value ? cs_bit_not(cs_bit_and(cs, cs_bit_not(a), cs_bit_not(c)))
                       : cs_bit_and(cs, cs_bit_not(a), c);
    if (is_const(c))
        return c.value ? cs_bit_not(cs_bit_and(cs, a, cs_bit_not(b))) : cs_bit_and(cs, a, b);
    cs_bit r = alloc_implied(cs, a.value ? b.value : c.value);
    /* a * (b - c) = r - c */
    const fr_t *one = cs_pow2(cs, 0), *minus_one = cs_neg_pow2(cs, 0);
    CS_LC(la, cs, 2);
    CS_LC(lb, cs, 3);
    CS_LC(lc, cs, 3);
    lc_add_bit2(&la, a, one, minus_one);
    lc_add_bit2(&lb, b, one, minus_one);
    lc_add_bit2(&lb, c, minus_one, one);
    cs_lc_add_var(&lc, r.var);
    lc_add_bit2(&lc, c, minus_one, one);
    cs_enforce(cs, &la, &lb, &lc, "ch");
    return r;
}

cs_bit cs_bit_maj(cs_t *cs, cs_bit a, cs_bit b, cs_bit c)
{
    /* A known operand decides between AND and OR of the other two. */
    if (is_const(b)) {
        cs_bit t = a;
        a = b;
        b = t;
    } else if (is_const(c)) {
        cs_bit t = a;
        a = c;
        c = t;
    }
    if (is_const(a))
        return a.value ? cs_bit_not(cs_bit_and(cs, cs_bit_not(b), cs_bit_not(c)))
                       : cs_bit_and(cs, b, c);
    if (same_bit(a, b) || same_bit(a, c))
        return a;
    if (same_bit(b, c))
        return b;
    /* maj = bc + a(b + c - 2bc): one AND and one product. */
    cs_bit t = cs_bit_and(cs, b, c);
    uint8_t v = (uint8_t)((a.value & b.value) | (a.value & c.value) | (b.value & c.value));
    cs_bit r = alloc_implied(cs, v);
    const fr_t *one = cs_pow2(cs, 0), *minus_one = cs_neg_pow2(cs, 0);
    CS_LC(la, cs, 2);
    CS_LC(lb, cs, 5);
    CS_LC(lc, cs, 3);
    lc_add_bit2(&la, a, one, minus_one);
    lc_add_bit2(&lb, b, one, minus_one);
    lc_add_bit2(&lb, c, one, minus_one);
    lc_add_bit2(&lb, t, cs_neg_pow2(cs, 1), cs_pow2(cs, 1));
    cs_lc_add_var(&lc, r.var);
    lc_add_bit2(&lc, t, minus_one, one);
    cs_enforce(cs, &la, &lb, &lc, "maj");
    return r;
}

void cs_num_to_bits(cs_t *cs, cs_bit *bits, cs_var x, unsigned n)
{
    if (n > 254) {
        cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "decomposition into %u bits is not unique", n);
        for (unsigned i = 0; i < n; i++)
            bits[i] = cs_bit_const(false);
        return;
    }
    uint64_t limbs[4];
    fr_to_limbs(limbs, cs_value(cs, x));
    for (unsigned i = 0; i < n; i++)
        bits[i] = cs_bit_alloc(cs, (limbs[i / 64] >> (i % 64)) & 1);
    CS_LC(la, cs, 255);
    CS_LC(lb, cs, 1);
    CS_LC(lc, cs, 1);
    cs_lc_add_bits(&la, bits, n, 0);
    cs_lc_add_var(&lb, CS_ONE);
    cs_lc_add_var(&lc, x);
    cs_enforce(cs, &la, &lb, &lc, "pack");
}

cs_var cs_bits_pack(cs_t *cs, const cs_bit *bits, unsigned n)
{
    if (n > 254) {
        cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "packing %u bits does not fit Fr", n);
        return CS_ONE;
    }
    uint64_t limbs[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < n; i++)
        limbs[i / 64] |= (uint64_t)bits[i].value << (i % 64);
    fr_t v;
    fr_from_limbs(&v, limbs);
    cs_var r = cs_alloc(cs, &v);
    CS_LC(la, cs, 255);
    CS_LC(lb, cs, 1);
    CS_LC(lc, cs, 1);
    cs_lc_add_bits(&la, bits, n, 0);
    cs_lc_add_var(&lb, CS_ONE);
    cs_lc_add_var(&lc, r);
    cs_enforce(cs, &la, &lb, &lc, "pack");
    return r;
}

/* --- words ------------------------------------------------------------------------------------ */

cs_word cs_word_const(uint32_t value)
{
    cs_word w;
    for (unsigned i = 0; i < 32; i++)
        w.b[i] = cs_bit_const((value >> i) & 1);
    return w;
}

cs_word cs_word_alloc(cs_t *cs, uint32_t value)
{
    cs_word w;
    for (unsigned i = 0; i < 32; i++) {
        cs_push(cs, "bit %u", i);
        w.b[i] = cs_bit_alloc(cs, (value >> i) & 1);
        cs_pop(cs);
    }
    return w;
}

uint32_t cs_word_value(const cs_word *w)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < 32; i++)
        v |= (uint32_t)w->b[i].value << i;
    return v;
}

cs_word cs_word_rotr(const cs_word *w, unsigned n)
{
    cs_word r;
    for (unsigned i = 0; i < 32; i++)
        r.b[i] = w->b[(i + n) % 32];
    return r;
}

cs_word cs_word_shr(const cs_word *w, unsigned n)
{
    cs_word r;
    for (unsigned i = 0; i < 32; i++)
        r.b[i] = i + n < 32 ? w->b[i + n] : cs_bit_const(false);
    return r;
}

cs_word cs_word_not(const cs_word *w)
{
    cs_word r;
    for (unsigned i = 0; i < 32; i++)
        r.b[i] = cs_bit_not(w->b[i]);
    return r;
}

#define WORD_BITWISE(name, call)                \
    do {                                        \
        cs_word r;                              \
        cs_push(cs, "%s", name);                \
        for (unsigned i = 0; i < 32; i++) {     \
            cs_push(cs, "bit %u", i);           \
            r.b[i] = call;                      \
            cs_pop(cs);                         \
        }                                       \
        cs_pop(cs);                             \
        return r;                               \
    } while (0)

cs_word cs_word_and(cs_t *cs, const cs_word *a, const cs_word *b)
{
    WORD_BITWISE("and", cs_bit_and(cs, a->b[i], b->b[i]));
}

cs_word cs_word_xor(cs_t *cs, const cs_word *a, const cs_word *b)
{
    WORD_BITWISE("xor", cs_bit_xor(cs, a->b[i], b->b[i]));
}

cs_word cs_word_xor3(cs_t *cs, const cs_word *a, const cs_word *b, const cs_word *c)
{
    WORD_BITWISE("xor3", cs_bit_xor3(cs, a->b[i], b->b[i], c->b[i]));
}

cs_word cs_word_ch(cs_t *cs, const cs_word *a, const cs_word *b, const cs_word *c)
{
    WORD_BITWISE("ch", cs_bit_ch(cs, a->b[i], b->b[i], c->b[i]));
}

cs_word cs_word_maj(cs_t *cs, const cs_word *a, const cs_word *b, const cs_word *c)
{
    WORD_BITWISE("maj", cs_bit_maj(cs, a->b[i], b->b[i], c->b[i]));
}

cs_word cs_word_add(cs_t *cs, const cs_word *const *words, unsigned n, uint32_t constant)
{
    if (n == 0 || n > CS_WORD_ADD_MAX) {
        cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "word addition of %u operands", n);
        return cs_word_const(0);
    }
    /* Known bits join the constant; max bounds the sum to size the carry. */
    uint64_t known = constant, max = constant, sum = constant;
    bool any_var = false;
    for (unsigned k = 0; k < n; k++) {
        for (unsigned i = 0; i < 32; i++) {
            cs_bit b = words[k]->b[i];
            uint64_t w = 1ull << i;
            sum += b.value ? w : 0;
            if (b.kind == CS_BIT_CONST)
                known += b.value ? w : 0;
            else
                any_var = true;
            max += (b.kind != CS_BIT_CONST || b.value) ? w : 0;
        }
    }
    if (!any_var)
        return cs_word_const((uint32_t)sum);
    unsigned n_carry = 0;
    while ((max >> 32) >> n_carry)
        n_carry++;

    cs_push(cs, "add");
    cs_word r;
    for (unsigned i = 0; i < 32; i++) {
        cs_push(cs, "bit %u", i);
        r.b[i] = cs_bit_alloc(cs, (sum >> i) & 1);
        cs_pop(cs);
    }
    cs_bit carry[CS_WORD_ADD_MAX];
    for (unsigned j = 0; j < n_carry; j++) {
        cs_push(cs, "carry %u", j);
        carry[j] = cs_bit_alloc(cs, (sum >> (32 + j)) & 1);
        cs_pop(cs);
    }
    CS_LC(la, cs, 32 * CS_WORD_ADD_MAX + 1);
    CS_LC(lb, cs, 1);
    CS_LC(lc, cs, 32 + CS_WORD_ADD_MAX);
    for (unsigned k = 0; k < n; k++)
        for (unsigned i = 0; i < 32; i++)
            if (words[k]->b[i].kind != CS_BIT_CONST)
                lc_add_bit2(&la, words[k]->b[i], cs_pow2(cs, i), cs_neg_pow2(cs, i));
    if (known) {
        fr_t k;
        fr_from_u64(&k, known);
        cs_lc_add(&la, CS_ONE, &k);
    }
    cs_lc_add_var(&lb, CS_ONE);
    cs_lc_add_bits(&lc, r.b, 32, 0);
    cs_lc_add_bits(&lc, carry, n_carry, 32);
    cs_enforce(cs, &la, &lb, &lc, "sum");
    cs_pop(cs);
    return r;
}

cs_word cs_word_from_be_bits(const cs_bit *bits)
{
    cs_word w;
    for (unsigned i = 0; i < 32; i++)
        w.b[31 - i] = bits[i];
    return w;
}

void cs_word_to_be_bits(cs_bit *bits, const cs_word *w)
{
    for (unsigned i = 0; i < 32; i++)
        bits[i] = w->b[31 - i];
}
