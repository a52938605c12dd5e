/* The constraint system and its bit/word gadgets, against plain C on seeded random inputs:
 * every circuit here runs in SETUP, PROVE and CHECK modes (cs_roundtrip), and a planted
 * wrong witness value must be reported by CHECK under the right constraint name. */
#include <stdlib.h>
#include <string.h>

#include "circuit/gadgets.h"
#include "harness.h"

/* --- helpers ------------------------------------------------------------------------------- */

static bool roundtrip(const char *label, cs_circuit_fn f, const void *params, size_t n_public)
{
    cs_stats s;
    g16_status st = cs_roundtrip(&s, NULL, f, params, n_public);
    if (!CHECK(st == G16_OK)) {
        printf("  %s: %s\n", label ? label : "circuit", g16_last_error());
        return false;
    }
    if (label)
        printf("  %-28s %6zu constraints %6zu wires (A-aux %zu, B-aux %zu of %zu)\n", label,
               s.n_constraints, s.n_vars, s.density_a, s.density_b, s.n_aux);
    return true;
}

/* CHECK with value planted at wire must fail at a constraint whose name ends in suffix. */
static void expect_planted(cs_circuit_fn f, const void *params, size_t n_public, cs_var wire,
                           uint64_t value, const char *suffix)
{
    cs_t *cs;
    if (!CHECK(cs_create(&cs, CS_CHECK, n_public, NULL) == G16_OK))
        return;
    fr_t v;
    fr_from_u64(&v, value);
    cs_check_plant(cs, wire, &v);
    g16_status st = cs_synthesize(cs, f, params);
    const char *name = cs_check_failure(cs, NULL);
    if (CHECK(st == G16_ERR_VERIFY_FAILED) && CHECK(name != NULL)) {
        size_t ln = strlen(name), ls = strlen(suffix);
        if (!CHECK(ln >= ls && strcmp(name + ln - ls, suffix) == 0))
            printf("  planted wire %u = %llu: failure '%s', expected '...%s'\n", wire,
                   (unsigned long long)value, name, suffix);
    }
    cs_free(cs);
}

/* --- bits: every combination of constant / wire / negated wire and value ---------------- */

typedef struct {
    int *mismatches;
} bits_params;

static cs_bit make_bit(cs_t *cs, unsigned kind, bool value)
{
    if (kind == 0)
        return cs_bit_const(value);
    cs_bit b = cs_bit_alloc(cs, kind == 1 ? value : !value);
    return kind == 1 ? b : cs_bit_not(b);
}

static g16_status bits_circuit(cs_t *cs, const void *p)
{
    const bits_params *bp = p;
    for (unsigned kinds = 0; kinds < 27; kinds++) {
        for (unsigned vals = 0; vals < 8; vals++) {
            bool x = vals & 1, y = (vals >> 1) & 1, z = (vals >> 2) & 1;
            cs_push(cs, "case %u/%u", kinds, vals);
            cs_bit a = make_bit(cs, kinds % 3, x);
            cs_bit b = make_bit(cs, kinds / 3 % 3, y);
            cs_bit c = make_bit(cs, kinds / 9, z);
            cs_bit r[6] = {cs_bit_and(cs, a, b), cs_bit_xor(cs, a, b), cs_bit_xor3(cs, a, b, c),
                           cs_bit_ch(cs, a, b, c), cs_bit_maj(cs, a, b, c), cs_bit_not(a)};
            bool want[6] = {x & y, x ^ y, x ^ y ^ z, x ? y : z, (x + y + z) >= 2, !x};
            /* Same-wire operands exercise the folding paths. */
            cs_bit s[4] = {cs_bit_and(cs, a, a), cs_bit_xor(cs, a, cs_bit_not(a)),
                           cs_bit_maj(cs, a, b, a), cs_bit_ch(cs, c, b, b)};
            bool want_s[4] = {x, true, x, y};
            for (int i = 0; i < 6; i++)
                *bp->mismatches += r[i].value != want[i];
            for (int i = 0; i < 4; i++)
                *bp->mismatches += s[i].value != want_s[i];
            /* The cached value must equal the wire's: pack all into one wire and compare. */
            cs_bit all[10];
            memcpy(all, r, sizeof r);
            memcpy(all + 6, s, sizeof s);
            cs_var packed = cs_bits_pack(cs, all, 10);
            uint64_t limbs[4];
            fr_to_limbs(limbs, cs_value(cs, packed));
            uint64_t w = 0;
            for (int i = 0; i < 6; i++)
                w |= (uint64_t)want[i] << i;
            for (int i = 0; i < 4; i++)
                w |= (uint64_t)want_s[i] << (6 + i);
            *bp->mismatches += limbs[0] != w;
            cs_pop(cs);
        }
    }
    return G16_OK;
}

static void test_bits(void)
{
    int mism = 0;
    bits_params p = {&mism};
    roundtrip("bit ops, all 27x8 cases", bits_circuit, &p, 0);
    CHECK(mism == 0);
}

/* --- single-gadget circuits for costs and planted errors --------------------------------- */

typedef struct {
    int op; /* 0 and, 1 xor, 2 ch, 3 maj, 4 xor3, 5 word add, 6 decomposition */
    uint32_t x[6];
    unsigned n; /* operands of the addition, bits of the decomposition */
    uint32_t constant;
    cs_var *mark; /* receives the first wire the gadget creates */
    uint64_t *out;
} gadget_params;

static g16_status gadget_circuit(cs_t *cs, const void *p)
{
    const gadget_params *g = p;
    cs_word w[6];
    for (unsigned i = 0; i < 6; i++) {
        cs_push(cs, "in %u", i);
        w[i] = cs_word_alloc(cs, g->x[i]);
        cs_pop(cs);
    }
    cs_push(cs, "gadget");
    *g->mark = (cs_var)cs_num_vars(cs);
    cs_word r;
    switch (g->op) {
    case 0: r = cs_word_and(cs, &w[0], &w[1]); break;
    case 1: r = cs_word_xor(cs, &w[0], &w[1]); break;
    case 2: r = cs_word_ch(cs, &w[0], &w[1], &w[2]); break;
    case 3: r = cs_word_maj(cs, &w[0], &w[1], &w[2]); break;
    case 4: r = cs_word_xor3(cs, &w[0], &w[1], &w[2]); break;
    case 5: {
        const cs_word *ops[6] = {&w[0], &w[1], &w[2], &w[3], &w[4], &w[5]};
        r = cs_word_add(cs, ops, g->n, g->constant);
        break;
    }
    default: {
        fr_t v;
        fr_from_u64(&v, (uint64_t)g->x[0] << 32 | g->x[1]);
        cs_var x = cs_alloc(cs, &v);
        *g->mark = (cs_var)cs_num_vars(cs);
        cs_bit bits[64];
        cs_num_to_bits(cs, bits, x, g->n);
        uint64_t back = 0;
        for (unsigned i = 0; i < g->n; i++)
            back |= (uint64_t)bits[i].value << i;
        cs_var packed = cs_bits_pack(cs, bits, g->n);
        fr_t pv;
        fr_from_u64(&pv, back);
        if (!fr_equal(cs_value(cs, packed), &pv))
            back = ~back;
        cs_pop(cs);
        *g->out = back;
        return G16_OK;
    }
    }
    cs_pop(cs);
    *g->out = cs_word_value(&r);
    return G16_OK;
}

static uint32_t ref_op(const gadget_params *g)
{
    const uint32_t *x = g->x;
    switch (g->op) {
    case 0: return x[0] & x[1];
    case 1: return x[0] ^ x[1];
    case 2: return (x[0] & x[1]) ^ (~x[0] & x[2]);
    case 3: return (x[0] & x[1]) ^ (x[0] & x[2]) ^ (x[1] & x[2]);
    case 4: return x[0] ^ x[1] ^ x[2];
    default: {
        uint32_t s = g->constant;
        for (unsigned i = 0; i < g->n; i++)
            s += x[i];
        return s;
    }
    }
}

static void test_words(void)
{
    static const char *names[] = {"word and", "word xor", "word ch", "word maj", "word xor3",
                                  "word add"};
    size_t reps = test_count(4);
    for (int op = 0; op < 6; op++) {
        for (size_t rep = 0; rep < reps; rep++) {
            cs_var mark;
            uint64_t out;
            gadget_params g = {op, {0}, 2 + (unsigned)(rep % 5), (uint32_t)test_rand64(),
                               &mark, &out};
            for (int i = 0; i < 6; i++)
                g.x[i] = (uint32_t)test_rand64();
            char label[64];
            if (op == 5)
                snprintf(label, sizeof label, "%s of %u + const", names[op], g.n);
            else
                snprintf(label, sizeof label, "%s", names[op]);
            /* Counts include the 192 booleanity constraints of the six input words. */
            if (!roundtrip(rep == 0 || op == 5 ? label : NULL, gadget_circuit, &g, 0))
                continue;
            CHECK(out == ref_op(&g));
        }
    }
}

static void test_decomposition(void)
{
    size_t reps = test_count(8);
    for (size_t rep = 0; rep < reps; rep++) {
        cs_var mark;
        uint64_t out;
        unsigned n = 1 + (unsigned)(test_rand64() % 64);
        uint64_t v = test_rand64() & (n == 64 ? ~0ull : (1ull << n) - 1);
        gadget_params g = {6, {(uint32_t)(v >> 32), (uint32_t)v}, n, 0, &mark, &out};
        if (roundtrip(rep == 0 ? "decompose+pack" : NULL, gadget_circuit, &g, 0))
            CHECK(out == v);
        /* A value that does not fit n bits breaks the packing equality. */
        if (n < 64) {
            uint64_t big = v | 1ull << n;
            gadget_params h = {6, {(uint32_t)(big >> 32), (uint32_t)big}, n, 0, &mark, &out};
            cs_t *cs;
            CHECK(cs_create(&cs, CS_CHECK, 0, NULL) == G16_OK);
            CHECK(cs_synthesize(cs, gadget_circuit, &h) == G16_ERR_VERIFY_FAILED);
            const char *name = cs_check_failure(cs, NULL);
            CHECK(name && strcmp(name, "gadget/pack") == 0);
            cs_free(cs);
        }
    }
}

static void test_planted(void)
{
    cs_var mark;
    uint64_t out;
    gadget_params g = {0, {0}, 5, 0x12345678, &mark, &out};
    for (int i = 0; i < 6; i++)
        g.x[i] = (uint32_t)test_rand64();
    /* Input bit 3 of word 1 set to 2: its booleanity constraint. */
    expect_planted(gadget_circuit, &g, 0, 1 + 32 + 3, 2, "in 1/bit 3/boolean");
    for (int op = 0; op < 4; op++) {
        g.op = op;
        CHECK(roundtrip(NULL, gadget_circuit, &g, 0));
        /* The first wire the gadget creates is bit 0's result; flip it. */
        static const char *want[] = {"gadget/and/bit 0/and", "gadget/xor/bit 0/xor",
                                     "gadget/ch/bit 0/ch", "gadget/maj/bit 0/and"};
        expect_planted(gadget_circuit, &g, 0, mark, 7, want[op]);
    }
    g.op = 5;
    CHECK(roundtrip(NULL, gadget_circuit, &g, 0));
    /* Result bit 4 of the addition: 2 breaks its booleanity; a flip breaks the sum. */
    expect_planted(gadget_circuit, &g, 0, mark + 4, 2, "gadget/add/bit 4/boolean");
    uint32_t flipped = (uint32_t)((ref_op(&g) >> 4) & 1) ^ 1;
    expect_planted(gadget_circuit, &g, 0, mark + 4, flipped, "gadget/add/sum");
}

/* --- public inputs allocated after private variables ----------------------------------------- */

typedef struct {
    uint32_t x, y;
    bool wrong_public;
} public_params;

static g16_status public_circuit(cs_t *cs, const void *p)
{
    const public_params *pp = p;
    cs_word a = cs_word_alloc(cs, pp->x), b = cs_word_alloc(cs, pp->y);
    const cs_word *ops[2] = {&a, &b};
    cs_word s = cs_word_add(cs, ops, 2, 0);
    /* The sum becomes the public input, allocated last yet numbered wire 1. */
    fr_t v;
    fr_from_u64(&v, cs_word_value(&s) ^ (pp->wrong_public ? 1u : 0u));
    cs_var pub = cs_alloc_public(cs, &v);
    if (pub != 1)
        return cs_fail(cs, G16_ERR_INTERNAL, "public input got wire %u", pub);
    CS_LC(la, cs, 32);
    CS_LC(lb, cs, 1);
    CS_LC(lc, cs, 1);
    cs_lc_add_bits(&la, s.b, 32, 0);
    cs_lc_add_var(&lb, CS_ONE);
    cs_lc_add_var(&lc, pub);
    cs_enforce(cs, &la, &lb, &lc, "output %u", 0u);
    return G16_OK;
}

static void test_public(void)
{
    public_params p = {(uint32_t)test_rand64(), (uint32_t)test_rand64(), false};
    constraint_matrices m;
    cs_stats s;
    if (CHECK(cs_roundtrip(&s, &m, public_circuit, &p, 1) == G16_OK)) {
        CHECK(m.n_public == 1);
        CHECK(s.n_aux + 2 == m.n_vars);
        constraint_matrices_free(&m);
    }
    p.wrong_public = true;
    cs_t *cs;
    CHECK(cs_create(&cs, CS_CHECK, 1, NULL) == G16_OK);
    CHECK(cs_synthesize(cs, public_circuit, &p) == G16_ERR_VERIFY_FAILED);
    const char *name = cs_check_failure(cs, NULL);
    CHECK(name && strcmp(name, "output 0") == 0);
    cs_free(cs);
    /* Declaring a public input and never allocating it is an error. */
    p.wrong_public = false;
    CHECK(cs_create(&cs, CS_SETUP, 2, NULL) == G16_OK);
    CHECK(cs_synthesize(cs, public_circuit, &p) == G16_ERR_INVALID_ARGUMENT);
    cs_free(cs);
}

/* --- errors: capacity, PROVE buffers, unbalanced namespaces ----------------------------------- */

static g16_status overflow_circuit(cs_t *cs, const void *p)
{
    (void)p;
    cs_var v[3];
    for (int i = 0; i < 3; i++)
        v[i] = cs_alloc(cs, NULL);
    CS_LC(la, cs, 2);
    CS_LC(lb, cs, 1);
    for (int i = 0; i < 3; i++)
        cs_lc_add_var(&la, v[i]);
    cs_lc_add_var(&lb, CS_ONE);
    cs_enforce(cs, &la, &lb, &lb, "too long");
    return G16_OK;
}

static g16_status unbalanced_circuit(cs_t *cs, const void *p)
{
    (void)p;
    cs_push(cs, "open");
    return G16_OK;
}

static void test_errors(void)
{
    cs_t *cs;
    CHECK(cs_create(&cs, CS_SETUP, 0, NULL) == G16_OK);
    CHECK(cs_synthesize(cs, overflow_circuit, NULL) == G16_ERR_INVALID_ARGUMENT);
    /* At the top level there is no namespace to name; inside one, its path is named. */
    CHECK(strstr(g16_last_error(), "linear combination") && !strstr(g16_last_error(), "(at"));
    cs_free(cs);
    CHECK(cs_create(&cs, CS_CHECK, 0, NULL) == G16_OK);
    CHECK(cs_synthesize(cs, unbalanced_circuit, NULL) == G16_ERR_INVALID_ARGUMENT);
    CHECK(strstr(g16_last_error(), "(at 'open')") != NULL);
    cs_free(cs);
    /* PROVE buffers one constraint short. */
    public_params p = {1, 2, false};
    cs_stats s;
    if (!CHECK(cs_roundtrip(&s, NULL, public_circuit, &p, 1) == G16_OK))
        return;
    fr_t *z = malloc(s.n_vars * sizeof *z), *abc = malloc(3 * s.n_constraints * sizeof *abc);
    cs_prove_buffers b = {z, s.n_vars, abc, abc + s.n_constraints, abc + 2 * s.n_constraints,
                          s.n_constraints - 1};
    CHECK(cs_create(&cs, CS_PROVE, 1, &b) == G16_OK);
    CHECK(cs_synthesize(cs, public_circuit, &p) == G16_ERR_INVALID_ARGUMENT);
    cs_free(cs);
    b.abc_cap = s.n_constraints;
    b.z_cap = s.n_vars - 1;
    CHECK(cs_create(&cs, CS_PROVE, 1, &b) == G16_OK);
    CHECK(cs_synthesize(cs, public_circuit, &p) == G16_ERR_INVALID_ARGUMENT);
    cs_free(cs);
    free(z);
    free(abc);
}

int main(void)
{
    test_init("test_circuit");
    test_bits();
    test_words();
    test_decomposition();
    test_planted();
    test_public();
    test_errors();
    return test_finish();
}
