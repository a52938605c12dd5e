#include "fp2.h"

void fp2_zero(fp2_t *r)
{
    fp_zero(&r->c0);
    fp_zero(&r->c1);
}

void fp2_one(fp2_t *r)
{
    fp_one(&r->c0);
    fp_zero(&r->c1);
}

bool fp2_is_zero(const fp2_t *a) { return fp_is_zero(&a->c0) & fp_is_zero(&a->c1); }

bool fp2_is_one(const fp2_t *a) { return fp_is_one(&a->c0) & fp_is_zero(&a->c1); }

bool fp2_equal(const fp2_t *a, const fp2_t *b)
{
    return fp_equal(&a->c0, &b->c0) & fp_equal(&a->c1, &b->c1);
}

void fp2_cmov(fp2_t *r, const fp2_t *a, bool flag)
{
    fp_cmov(&r->c0, &a->c0, flag);
    fp_cmov(&r->c1, &a->c1, flag);
}

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_add(&r->c0, &a->c0, &b->c0);
    fp_add(&r->c1, &a->c1, &b->c1);
}

void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_sub(&r->c0, &a->c0, &b->c0);
    fp_sub(&r->c1, &a->c1, &b->c1);
}

void fp2_dbl(fp2_t *r, const fp2_t *a)
{
    fp_dbl(&r->c0, &a->c0);
    fp_dbl(&r->c1, &a->c1);
}

void fp2_neg(fp2_t *r, const fp2_t *a)
{
    fp_neg(&r->c0, &a->c0);
    fp_neg(&r->c1, &a->c1);
}

void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    /* Karatsuba: three Fp products. (a0 + a1 u)(b0 + b1 u) = a0b0 - a1b1 + ((a0+a1)(b0+b1) - a0b0 - a1b1) u */
    fp_t t0, t1, s0, s1;
    fp_mul(&t0, &a->c0, &b->c0);
    fp_mul(&t1, &a->c1, &b->c1);
    fp_add(&s0, &a->c0, &a->c1);
    fp_add(&s1, &b->c0, &b->c1);
    fp_mul(&s0, &s0, &s1);
    fp_sub(&s0, &s0, &t0);
    fp_sub(&r->c1, &s0, &t1);
    fp_sub(&r->c0, &t0, &t1);
}

void fp2_sqr(fp2_t *r, const fp2_t *a)
{
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two Fp products. */
    fp_t s, d, p;
    fp_add(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_mul(&p, &a->c0, &a->c1);
    fp_mul(&r->c0, &s, &d);
    fp_dbl(&r->c1, &p);
}

void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *k)
{
    fp_mul(&r->c0, &a->c0, k);
    fp_mul(&r->c1, &a->c1, k);
}

void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a)
{
    /* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
    fp_t t;
    fp_sub(&t, &a->c0, &a->c1);
    fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

void fp2_conj(fp2_t *r, const fp2_t *a)
{
    r->c0 = a->c0;
    fp_neg(&r->c1, &a->c1);
}

/* fp2_inv with the Fp inversion `fp_inverse`. */
static bool fp2_inv_by(fp2_t *r, const fp2_t *a, bool (*fp_inverse)(fp_t *, const fp_t *))
{
    /* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    fp_t n, t;
    fp_sqr(&n, &a->c0);
    fp_sqr(&t, &a->c1);
    fp_add(&n, &n, &t);
    bool ok = fp_inverse(&n, &n);
    fp_mul(&r->c0, &a->c0, &n);
    fp_mul(&t, &a->c1, &n);
    fp_neg(&r->c1, &t);
    return ok;
}

bool fp2_inv(fp2_t *r, const fp2_t *a) { return fp2_inv_by(r, a, fp_inv); }

bool fp2_inv_vartime(fp2_t *r, const fp2_t *a) { return fp2_inv_by(r, a, fp_inv_vartime); }

void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *e, size_t e_limbs)
{
    fp2_t acc, base = *a;
    fp2_one(&acc);
    for (size_t i = e_limbs; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            fp2_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1)
                fp2_mul(&acc, &acc, &base);
        }
    *r = acc;
}

bool fp2_sqrt(fp2_t *r, const fp2_t *a)
{
    /* Algorithm 9 of Adj and Rodriguez-Henriquez (p = 3 mod 4):
     * a1 = a^((p-3)/4), alpha = a1^2 a, x0 = a1 a;
     * alpha = -1: root = u x0; else root = (1 + alpha)^((p-1)/2) x0. */
    static const uint64_t p_minus_3_over_4[6] = {
        0xee7fbfffffffeaaa, 0x07aaffffac54ffff, 0xd9cc34a83dac3d89,
        0xd91dd2e13ce144af, 0x92c6e9ed90d2eb35, 0x0680447a8e5ff9a6,
    };
    static const uint64_t p_minus_1_over_2[6] = {
        0xdcff7fffffffd555, 0x0f55ffff58a9ffff, 0xb39869507b587b12,
        0xb23ba5c279c2895f, 0x258dd3db21a5d66b, 0x0d0088f51cbff34d,
    };
    fp2_t a1, alpha, x0, root, check, minus_one;
    fp2_pow(&a1, a, p_minus_3_over_4, 6);
    fp2_sqr(&alpha, &a1);
    fp2_mul(&alpha, &alpha, a);
    fp2_mul(&x0, &a1, a);
    fp2_one(&minus_one);
    fp2_neg(&minus_one, &minus_one);
    if (fp2_equal(&alpha, &minus_one)) {
        /* u * (x0 + x1 u) = -x1 + x0 u */
        fp_neg(&root.c0, &x0.c1);
        root.c1 = x0.c0;
    } else {
        fp2_t b;
        fp2_one(&b);
        fp2_add(&b, &b, &alpha);
        fp2_pow(&b, &b, p_minus_1_over_2, 6);
        fp2_mul(&root, &b, &x0);
    }
    fp2_sqr(&check, &root);
    if (!fp2_equal(&check, a))
        return false;
    *r = root;
    return true;
}

bool fp2_is_lexicographically_largest(const fp2_t *a)
{
    if (!fp_is_zero(&a->c1))
        return fp_is_lexicographically_largest(&a->c1);
    return fp_is_lexicographically_largest(&a->c0);
}
