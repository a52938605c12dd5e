/* Fp12 arithmetic: Karatsuba and "complex" squaring over Fp6 (Devegili et al. 2006),
 * Granger-Scott squaring in the cyclotomic subgroup ("Faster Squaring in the Cyclotomic
 * Subgroup of Sixth Degree Extensions", PKC 2010). */
#include "fp12.h"

/* FROB_W[k-1] = xi^((p^k - 1)/6), k = 1..5: w^(p^k) = FROB_W[k-1] * w. Canonical
 * little-endian limbs {c0, c1}, derived with BigInt arithmetic in node using
 * @noble/curves' Fp2.pow(xi, e); tests/test_tower.c checks them against a^(p^k).
 * Powers 6..11 need no table: w^(p^6) = -w, so frob_(k+6) = conj o frob_k. */
static const uint64_t FROB_W[5][2][6] = {
    {{0x8d0775ed92235fb8, 0xf67ea53d63e7813d, 0x7b2443d784bab9c4,
      0x0fd603fd3cbd5f4f, 0xc231beb4202c0d1f, 0x1904d3bf02bb0667},
     {0x2cf78a126ddc4af3, 0x282d5ac14d6c7ec2, 0xec0c8ec971f63c5f,
      0x54a14787b6c7b36f, 0x88e9e902231f9fb8, 0x00fc3e2b36c4e032}},
    {{0x2e01fffffffeffff, 0xde17d813620a0002, 0xddb3a93be6f89688,
      0xba69c6076a0f77ea, 0x5f19672fdf76ce51, 0x0000000000000000},
     {0}},
    {{0xf1ee7b04121bdea2, 0x304466cf3e67fa0a, 0xef396489f61eb45e,
      0x1c3dedd930b1cf60, 0xe2e9c448d77a2cd9, 0x135203e60180a68e},
     {0xc81084fbede3cc09, 0xee67992f72ec05f4, 0x77f76e17009241c5,
      0x48395dabc2d3435e, 0x6831e36d6bd17ffe, 0x06af0e0437ff400b}},
    {{0x2e01fffffffefffe, 0xde17d813620a0002, 0xddb3a93be6f89688,
      0xba69c6076a0f77ea, 0x5f19672fdf76ce51, 0x0000000000000000},
     {0}},
    {{0x1ee605167ff82995, 0x5871c1908bd478cd, 0xdb45f3536814f0bd,
      0x70df3560e77982d0, 0x6bd3ad4afa99cc91, 0x144e4211384586c1},
     {0x9b18fae980078116, 0xc63a3e6e257f8732, 0x8beadf4d8e9c0566,
      0xf39816240c0b8fee, 0xdf47fa6b48b1e045, 0x05b2cfd9013a5fd8}},
};

void fp12_zero(fp12_t *r)
{
    fp6_zero(&r->c0);
    fp6_zero(&r->c1);
}

void fp12_one(fp12_t *r)
{
    fp6_one(&r->c0);
    fp6_zero(&r->c1);
}

bool fp12_is_zero(const fp12_t *a) { return fp6_is_zero(&a->c0) & fp6_is_zero(&a->c1); }

bool fp12_is_one(const fp12_t *a) { return fp6_is_one(&a->c0) & fp6_is_zero(&a->c1); }

bool fp12_equal(const fp12_t *a, const fp12_t *b)
{
    return fp6_equal(&a->c0, &b->c0) & fp6_equal(&a->c1, &b->c1);
}

void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6_add(&r->c0, &a->c0, &b->c0);
    fp6_add(&r->c1, &a->c1, &b->c1);
}

void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6_sub(&r->c0, &a->c0, &b->c0);
    fp6_sub(&r->c1, &a->c1, &b->c1);
}

void fp12_neg(fp12_t *r, const fp12_t *a)
{
    fp6_neg(&r->c0, &a->c0);
    fp6_neg(&r->c1, &a->c1);
}

void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    /* Karatsuba: (a0 + a1 w)(b0 + b1 w) = a0b0 + v a1b1 + ((a0+a1)(b0+b1) - a0b0 - a1b1) w */
    fp6_t t0, t1, s, u;
    fp6_mul(&t0, &a->c0, &b->c0);
    fp6_mul(&t1, &a->c1, &b->c1);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_add(&u, &b->c0, &b->c1);
    fp6_mul(&s, &s, &u);
    fp6_sub(&s, &s, &t0);
    fp6_sub(&r->c1, &s, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&r->c0, &t0, &t1);
}

void fp12_sqr(fp12_t *r, const fp12_t *a)
{
    /* Complex squaring: with t = a0 a1,
     * (a0 + a1 w)^2 = (a0 + a1)(a0 + v a1) - t - v t + 2t w: two Fp6 products. */
    fp6_t t, s, u;
    fp6_mul(&t, &a->c0, &a->c1);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_mul_by_nonresidue(&u, &a->c1);
    fp6_add(&u, &u, &a->c0);
    fp6_mul(&s, &s, &u);
    fp6_sub(&s, &s, &t);
    fp6_mul_by_nonresidue(&u, &t);
    fp6_sub(&r->c0, &s, &u);
    fp6_dbl(&r->c1, &t);
}

bool fp12_inv(fp12_t *r, const fp12_t *a)
{
    /* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2): one Fp6 inversion. */
    fp6_t n, t;
    fp6_sqr(&n, &a->c0);
    fp6_sqr(&t, &a->c1);
    fp6_mul_by_nonresidue(&t, &t);
    fp6_sub(&n, &n, &t);
    bool ok = fp6_inv(&n, &n);
    fp6_mul(&r->c0, &a->c0, &n);
    fp6_mul(&t, &a->c1, &n);
    fp6_neg(&r->c1, &t);
    return ok;
}

void fp12_conj(fp12_t *r, const fp12_t *a)
{
    r->c0 = a->c0;
    fp6_neg(&r->c1, &a->c1);
}

void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned power)
{
    unsigned k = power % 12;
    bool conj = k >= 6;
    if (conj)
        k -= 6;
    if (k == 0) {
        if (conj)
            fp12_conj(r, a);
        else
            *r = *a;
        return;
    }
    /* (c0 + c1 w)^(p^k) = frob(c0) + frob(c1) xi^((p^k-1)/6) w */
    fp2_t g;
    (void)fp_from_limbs(&g.c0, FROB_W[k - 1][0]);
    (void)fp_from_limbs(&g.c1, FROB_W[k - 1][1]);
    fp6_frobenius(&r->c0, &a->c0, k);
    fp6_frobenius(&r->c1, &a->c1, k);
    fp6_mul_by_fp2(&r->c1, &r->c1, &g);
    if (conj)
        fp12_conj(r, r);
}

void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *l0, const fp2_t *l1,
                     const fp2_t *l4)
{
    /* The line is L0 + L1 w with L0 = l0 + l1 v and L1 = l4 v. Karatsuba as in fp12_mul,
     * each Fp6 product sparse: 5 + 3 + 5 Fp2 products. */
    fp6_t t0, t1, s;
    fp2_t l14;
    fp6_mul_by_01(&t0, &a->c0, l0, l1);
    fp6_mul_by_1(&t1, &a->c1, l4);
    fp2_add(&l14, l1, l4);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_mul_by_01(&s, &s, l0, &l14);
    fp6_sub(&s, &s, &t0);
    fp6_sub(&r->c1, &s, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&r->c0, &t0, &t1);
}

/* (x0 + x1 W)^2 in Fp4 = Fp2[W]/(W^2 - xi): returns (x0^2 + xi x1^2, 2 x0 x1) with three
 * Fp2 squarings. */
static void fp4_sqr(fp2_t *r0, fp2_t *r1, const fp2_t *x0, const fp2_t *x1)
{
    fp2_t t0, t1, s;
    fp2_sqr(&t0, x0);
    fp2_sqr(&t1, x1);
    fp2_add(&s, x0, x1);
    fp2_sqr(&s, &s);
    fp2_sub(&s, &s, &t0);
    fp2_sub(r1, &s, &t1);
    fp2_mul_by_nonresidue(&t1, &t1);
    fp2_add(r0, &t0, &t1);
}

/* r = 3x - 2y and r = 3x + 2y with additions only. */
static void three_minus_two(fp2_t *r, const fp2_t *x, const fp2_t *y)
{
    fp2_t t;
    fp2_sub(&t, x, y);
    fp2_dbl(&t, &t);
    fp2_add(r, &t, x);
}

static void three_plus_two(fp2_t *r, const fp2_t *x, const fp2_t *y)
{
    fp2_t t;
    fp2_add(&t, x, y);
    fp2_dbl(&t, &t);
    fp2_add(r, &t, x);
}

void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a)
{
    /* View Fp12 as Fp4[w]/(w^3 - W), W = w^3, Fp4 = Fp2[W]/(W^2 - xi):
     *   a = A + B w + C w^2, A = c0.c0 + c1.c1 W, B = c1.c0 + c0.c2 W, C = c0.c1 + c1.c2 W.
     * For a in the cyclotomic subgroup Granger and Scott show
     *   a^2 = (3A^2 - 2 conj A) + (3 W C^2 + 2 conj B) w + (3 B^2 - 2 conj C) w^2,
     * conj(x0 + x1 W) = x0 - x1 W: three Fp4 squarings. */
    fp2_t a0, a1, b0, b1, c0, c1, wc0;
    fp4_sqr(&a0, &a1, &a->c0.c0, &a->c1.c1);
    fp4_sqr(&b0, &b1, &a->c1.c0, &a->c0.c2);
    fp4_sqr(&c0, &c1, &a->c0.c1, &a->c1.c2);
    /* W * C^2 = xi c1 + c0 W */
    fp2_mul_by_nonresidue(&wc0, &c1);

    three_minus_two(&r->c0.c0, &a0, &a->c0.c0);
    three_plus_two(&r->c1.c1, &a1, &a->c1.c1);
    three_plus_two(&r->c1.c0, &wc0, &a->c1.c0);
    three_minus_two(&r->c0.c2, &c0, &a->c0.c2);
    three_minus_two(&r->c0.c1, &b0, &a->c0.c1);
    three_plus_two(&r->c1.c2, &b1, &a->c1.c2);
}

static size_t top_bit_plus_one(const uint64_t *e, size_t e_limbs)
{
    for (size_t i = e_limbs; i-- > 0;)
        if (e[i])
            return 64 * i + 64 - (size_t)__builtin_clzll(e[i]);
    return 0;
}

static unsigned exp_bit(const uint64_t *e, size_t i) { return (unsigned)(e[i / 64] >> (i % 64)) & 1; }

void fp12_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t e_limbs)
{
    size_t bits = top_bit_plus_one(e, e_limbs);
    fp12_t acc, base = *a;
    fp12_one(&acc);
    for (size_t i = bits; i-- > 0;) {
        fp12_sqr(&acc, &acc);
        if (exp_bit(e, i))
            fp12_mul(&acc, &acc, &base);
    }
    *r = acc;
}

void fp12_cyclotomic_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t e_limbs)
{
    /* Left-to-right sliding window of width 4 over the odd powers a, a^3, ..., a^15. */
    enum { WINDOW = 4 };
    fp12_t odd[1 << (WINDOW - 1)], a2, acc;
    odd[0] = *a;
    fp12_cyclotomic_sqr(&a2, a);
    for (size_t i = 1; i < sizeof odd / sizeof odd[0]; i++)
        fp12_mul(&odd[i], &odd[i - 1], &a2);

    fp12_one(&acc);
    bool started = false;
    size_t i = top_bit_plus_one(e, e_limbs);
    while (i-- > 0) {
        if (!exp_bit(e, i)) {
            if (started)
                fp12_cyclotomic_sqr(&acc, &acc);
            continue;
        }
        /* Window [j, i]: at most WINDOW bits, ending in a set bit. */
        size_t j = i >= WINDOW - 1 ? i - (WINDOW - 1) : 0;
        while (!exp_bit(e, j))
            j++;
        unsigned value = 0;
        for (size_t k = i + 1; k-- > j;)
            value = value << 1 | exp_bit(e, k);
        if (started) {
            for (size_t k = j; k <= i; k++)
                fp12_cyclotomic_sqr(&acc, &acc);
            fp12_mul(&acc, &acc, &odd[value >> 1]);
        } else {
            acc = odd[value >> 1];
            started = true;
        }
        i = j;
    }
    *r = acc;
}

void fp12_to_bytes(uint8_t out[FP12_BYTES], const fp12_t *a)
{
    fp6_to_bytes(out, &a->c0);
    fp6_to_bytes(out + FP6_BYTES, &a->c1);
}

bool fp12_from_bytes(fp12_t *r, const uint8_t in[FP12_BYTES])
{
    bool ok = fp6_from_bytes(&r->c0, in);
    ok &= fp6_from_bytes(&r->c1, in + FP6_BYTES);
    return ok;
}
