/* Fp6 arithmetic. Formulas: Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication and
 * Squaring on Pairing-Friendly Fields" (2006) for Karatsuba multiplication and inversion;
 * Chung and Hasan, "Asymmetric Squaring Formulae" (2007), CH-SQR2, for squaring. */
#include "fp6.h"

/* Frobenius constants, canonical (not Montgomery) little-endian limbs, {c0, c1}:
 *   FROB_V1[k-1] = xi^((p^k - 1)/3)   (v^(p^k) = FROB_V1[k] * v)
 *   FROB_V2[k-1] = xi^(2(p^k - 1)/3)  (v^(2p^k) = FROB_V2[k] * v^2)
 * for k = 1..5, xi = u + 1. Derived with BigInt arithmetic in node using
 * @noble/curves' Fp2.pow(xi, e); tests/test_tower.c checks them against a^(p^k).
 * Powers of p that are even give values in Fp (c1 = 0). */
static const uint64_t FROB_V1[5][2][6] = {
    {{0},
     {0x8bfd00000000aaac, 0x409427eb4f49fffd, 0x897d29650fb85f9b,
      0xaa0d857d89759ad4, 0xec02408663d4de85, 0x1a0111ea397fe699}},
    {{0x2e01fffffffefffe, 0xde17d813620a0002, 0xddb3a93be6f89688,
      0xba69c6076a0f77ea, 0x5f19672fdf76ce51, 0x0000000000000000},
     {0}},
    {{0}, {0x0000000000000001}},
    {{0x8bfd00000000aaac, 0x409427eb4f49fffd, 0x897d29650fb85f9b,
      0xaa0d857d89759ad4, 0xec02408663d4de85, 0x1a0111ea397fe699},
     {0}},
    {{0},
     {0x2e01fffffffefffe, 0xde17d813620a0002, 0xddb3a93be6f89688,
      0xba69c6076a0f77ea, 0x5f19672fdf76ce51, 0x0000000000000000}},
};
static const uint64_t FROB_V2[5][2][6] = {
    {{0x8bfd00000000aaad, 0x409427eb4f49fffd, 0x897d29650fb85f9b,
      0xaa0d857d89759ad4, 0xec02408663d4de85, 0x1a0111ea397fe699},
     {0}},
    {{0x8bfd00000000aaac, 0x409427eb4f49fffd, 0x897d29650fb85f9b,
      0xaa0d857d89759ad4, 0xec02408663d4de85, 0x1a0111ea397fe699},
     {0}},
    {{0xb9feffffffffaaaa, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
      0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a},
     {0}},
    {{0x2e01fffffffefffe, 0xde17d813620a0002, 0xddb3a93be6f89688,
      0xba69c6076a0f77ea, 0x5f19672fdf76ce51, 0x0000000000000000},
     {0}},
    {{0x2e01fffffffeffff, 0xde17d813620a0002, 0xddb3a93be6f89688,
      0xba69c6076a0f77ea, 0x5f19672fdf76ce51, 0x0000000000000000},
     {0}},
};

void fp6_zero(fp6_t *r)
{
    fp2_zero(&r->c0);
    fp2_zero(&r->c1);
    fp2_zero(&r->c2);
}

void fp6_one(fp6_t *r)
{
    fp2_one(&r->c0);
    fp2_zero(&r->c1);
    fp2_zero(&r->c2);
}

bool fp6_is_zero(const fp6_t *a)
{
    return fp2_is_zero(&a->c0) & fp2_is_zero(&a->c1) & fp2_is_zero(&a->c2);
}

bool fp6_is_one(const fp6_t *a)
{
    return fp2_is_one(&a->c0) & fp2_is_zero(&a->c1) & fp2_is_zero(&a->c2);
}

bool fp6_equal(const fp6_t *a, const fp6_t *b)
{
    return fp2_equal(&a->c0, &b->c0) & fp2_equal(&a->c1, &b->c1) & fp2_equal(&a->c2, &b->c2);
}

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    fp2_add(&r->c0, &a->c0, &b->c0);
    fp2_add(&r->c1, &a->c1, &b->c1);
    fp2_add(&r->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    fp2_sub(&r->c0, &a->c0, &b->c0);
    fp2_sub(&r->c1, &a->c1, &b->c1);
    fp2_sub(&r->c2, &a->c2, &b->c2);
}

void fp6_dbl(fp6_t *r, const fp6_t *a)
{
    fp2_dbl(&r->c0, &a->c0);
    fp2_dbl(&r->c1, &a->c1);
    fp2_dbl(&r->c2, &a->c2);
}

void fp6_neg(fp6_t *r, const fp6_t *a)
{
    fp2_neg(&r->c0, &a->c0);
    fp2_neg(&r->c1, &a->c1);
    fp2_neg(&r->c2, &a->c2);
}

void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    /* Karatsuba over the three coefficients: six Fp2 products instead of nine.
     * v^3 = xi folds the v^3 and v^4 terms back into c0 and c1. */
    fp2_t t0, t1, t2, s, u, c0, c1, c2;
    fp2_mul(&t0, &a->c0, &b->c0);
    fp2_mul(&t1, &a->c1, &b->c1);
    fp2_mul(&t2, &a->c2, &b->c2);

    /* c0 = t0 + xi * ((a1 + a2)(b1 + b2) - t1 - t2) */
    fp2_add(&s, &a->c1, &a->c2);
    fp2_add(&u, &b->c1, &b->c2);
    fp2_mul(&s, &s, &u);
    fp2_sub(&s, &s, &t1);
    fp2_sub(&s, &s, &t2);
    fp2_mul_by_nonresidue(&s, &s);
    fp2_add(&c0, &s, &t0);

    /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi * t2 */
    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&u, &b->c0, &b->c1);
    fp2_mul(&s, &s, &u);
    fp2_sub(&s, &s, &t0);
    fp2_sub(&s, &s, &t1);
    fp2_mul_by_nonresidue(&u, &t2);
    fp2_add(&c1, &s, &u);

    /* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
    fp2_add(&s, &a->c0, &a->c2);
    fp2_add(&u, &b->c0, &b->c2);
    fp2_mul(&s, &s, &u);
    fp2_sub(&s, &s, &t0);
    fp2_sub(&s, &s, &t2);
    fp2_add(&c2, &s, &t1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void fp6_sqr(fp6_t *r, const fp6_t *a)
{
    /* CH-SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2;
     * c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4.
     * Three squarings and two products (12 Fp products against 18 for fp6_mul). */
    fp2_t s0, s1, s2, s3, s4, t;
    fp2_sqr(&s0, &a->c0);
    fp2_mul(&s1, &a->c0, &a->c1);
    fp2_dbl(&s1, &s1);
    fp2_sub(&t, &a->c0, &a->c1);
    fp2_add(&t, &t, &a->c2);
    fp2_sqr(&s2, &t);
    fp2_mul(&s3, &a->c1, &a->c2);
    fp2_dbl(&s3, &s3);
    fp2_sqr(&s4, &a->c2);

    fp2_add(&t, &s1, &s2);
    fp2_add(&t, &t, &s3);
    fp2_sub(&t, &t, &s0);
    fp2_sub(&r->c2, &t, &s4);
    fp2_mul_by_nonresidue(&t, &s3);
    fp2_add(&r->c0, &s0, &t);
    fp2_mul_by_nonresidue(&t, &s4);
    fp2_add(&r->c1, &s1, &t);
}

void fp6_mul_by_fp2(fp6_t *r, const fp6_t *a, const fp2_t *k)
{
    fp2_mul(&r->c0, &a->c0, k);
    fp2_mul(&r->c1, &a->c1, k);
    fp2_mul(&r->c2, &a->c2, k);
}

void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a)
{
    /* (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2 */
    fp2_t t;
    fp2_mul_by_nonresidue(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
    /* fp6_mul with b2 = 0: five Fp2 products. */
    fp2_t t0, t1, s, u, c0, c1;
    fp2_mul(&t0, &a->c0, b0);
    fp2_mul(&t1, &a->c1, b1);

    /* c0 = t0 + xi a2 b1 = t0 + xi ((a1 + a2) b1 - t1) */
    fp2_add(&s, &a->c1, &a->c2);
    fp2_mul(&s, &s, b1);
    fp2_sub(&s, &s, &t1);
    fp2_mul_by_nonresidue(&s, &s);
    fp2_add(&c0, &s, &t0);

    /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 */
    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&u, b0, b1);
    fp2_mul(&s, &s, &u);
    fp2_sub(&s, &s, &t0);
    fp2_sub(&c1, &s, &t1);

    /* c2 = a2 b0 + a1 b1 = (a0 + a2) b0 - t0 + t1 */
    fp2_add(&s, &a->c0, &a->c2);
    fp2_mul(&s, &s, b0);
    fp2_sub(&s, &s, &t0);
    fp2_add(&r->c2, &s, &t1);

    r->c0 = c0;
    r->c1 = c1;
}

void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1)
{
    /* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
    fp2_t t0, t1, t2;
    fp2_mul(&t0, &a->c2, b1);
    fp2_mul(&t1, &a->c0, b1);
    fp2_mul(&t2, &a->c1, b1);
    fp2_mul_by_nonresidue(&r->c0, &t0);
    r->c1 = t1;
    r->c2 = t2;
}

bool fp6_inv(fp6_t *r, const fp6_t *a)
{
    /* 1/a = adj(a) / N(a) with adj(a) = (a0^2 - xi a1 a2, xi a2^2 - a0 a1, a1^2 - a0 a2)
     * and N(a) = a0 t0 + xi (a2 t1 + a1 t2) in Fp2: one Fp2 inversion. */
    fp2_t t0, t1, t2, s, n;
    fp2_sqr(&t0, &a->c0);
    fp2_mul(&s, &a->c1, &a->c2);
    fp2_mul_by_nonresidue(&s, &s);
    fp2_sub(&t0, &t0, &s);

    fp2_sqr(&t1, &a->c2);
    fp2_mul_by_nonresidue(&t1, &t1);
    fp2_mul(&s, &a->c0, &a->c1);
    fp2_sub(&t1, &t1, &s);

    fp2_sqr(&t2, &a->c1);
    fp2_mul(&s, &a->c0, &a->c2);
    fp2_sub(&t2, &t2, &s);

    fp2_mul(&n, &a->c2, &t1);
    fp2_mul(&s, &a->c1, &t2);
    fp2_add(&n, &n, &s);
    fp2_mul_by_nonresidue(&n, &n);
    fp2_mul(&s, &a->c0, &t0);
    fp2_add(&n, &n, &s);

    bool ok = fp2_inv(&n, &n);
    fp2_mul(&r->c0, &t0, &n);
    fp2_mul(&r->c1, &t1, &n);
    fp2_mul(&r->c2, &t2, &n);
    return ok;
}

static void load_fp2(fp2_t *r, const uint64_t c[2][6])
{
    (void)fp_from_limbs(&r->c0, c[0]);
    (void)fp_from_limbs(&r->c1, c[1]);
}

void fp6_frobenius(fp6_t *r, const fp6_t *a, unsigned power)
{
    /* (sum a_i v^i)^(p^k) = sum frob_k(a_i) (v^(p^k))^i, and v^(p^k) = xi^((p^k-1)/3) v.
     * On Fp2 the map is conjugation for odd k and the identity for even k. */
    unsigned k = power % 6;
    if (k == 0) {
        *r = *a;
        return;
    }
    fp2_t c0, c1, c2, g;
    if (k & 1) {
        fp2_conj(&c0, &a->c0);
        fp2_conj(&c1, &a->c1);
        fp2_conj(&c2, &a->c2);
    } else {
        c0 = a->c0;
        c1 = a->c1;
        c2 = a->c2;
    }
    load_fp2(&g, FROB_V1[k - 1]);
    fp2_mul(&r->c1, &c1, &g);
    load_fp2(&g, FROB_V2[k - 1]);
    fp2_mul(&r->c2, &c2, &g);
    r->c0 = c0;
}

void fp6_to_bytes(uint8_t out[FP6_BYTES], const fp6_t *a)
{
    const fp2_t *c[3] = {&a->c0, &a->c1, &a->c2};
    for (size_t i = 0; i < 3; i++) {
        fp_to_bytes_be(out + (2 * i) * fp_BYTES, &c[i]->c0);
        fp_to_bytes_be(out + (2 * i + 1) * fp_BYTES, &c[i]->c1);
    }
}

bool fp6_from_bytes(fp6_t *r, const uint8_t in[FP6_BYTES])
{
    fp2_t *c[3] = {&r->c0, &r->c1, &r->c2};
    bool ok = true;
    for (size_t i = 0; i < 3; i++) {
        ok &= fp_from_bytes_be(&c[i]->c0, in + (2 * i) * fp_BYTES);
        ok &= fp_from_bytes_be(&c[i]->c1, in + (2 * i + 1) * fp_BYTES);
    }
    return ok;
}
