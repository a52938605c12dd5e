/* Fp and Fr: laws, edge cases, and portable against assembly arithmetic. Differential
 * tests against @noble/curves live in test_noble.c. */
#include <string.h>

#include "field/cpu.h"
#include "field/mont.h"
#include "field/mont_x86.h"
#include "harness.h"

/* A deliberately naive reference: schoolbook product then reduction by repeated
 * subtraction of shifted moduli, on canonical integers. Slow and obviously right. */
static void naive_mulmod(uint64_t *r, const uint64_t *a, const uint64_t *b,
                         const uint64_t *m, size_t n)
{
    uint64_t prod[12] = {0};
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 carry = 0;
        for (size_t j = 0; j < n; j++) {
            unsigned __int128 t = (unsigned __int128)a[i] * b[j] + prod[i + j] + carry;
            prod[i + j] = (uint64_t)t;
            carry = t >> 64;
        }
        prod[i + n] = (uint64_t)carry;
    }
    /* Reduce: for bit = 64*2n-1 down to 0, subtract m << bit when possible. */
    for (int bit = (int)(128 * n) - 1; bit >= 0; bit--) {
        /* shifted = m << bit, compared on 2n limbs */
        uint64_t sh[13] = {0};
        int ls = bit / 64, bs = bit % 64;
        int fits = 1;
        for (size_t i = 0; i < n; i++) {
            size_t k = i + (size_t)ls;
            uint64_t lo = m[i] << bs, hi = bs ? m[i] >> (64 - bs) : 0;
            if (k < 2 * n) sh[k] |= lo; else if (lo) fits = 0;
            if (k + 1 < 2 * n) sh[k + 1] |= hi; else if (hi) fits = 0;
        }
        if (!fits)
            continue;
        int ge = 1;
        for (size_t i = 2 * n; i-- > 0;) {
            if (prod[i] != sh[i]) {
                ge = prod[i] > sh[i];
                break;
            }
        }
        if (!ge)
            continue;
        uint64_t borrow = 0;
        for (size_t i = 0; i < 2 * n; i++) {
            unsigned __int128 t = (unsigned __int128)prod[i] - sh[i] - borrow;
            prod[i] = (uint64_t)t;
            borrow = (uint64_t)(t >> 64) & 1;
        }
    }
    memcpy(r, prod, n * 8);
}

static void test_fp_against_naive(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fp_t a, b, c;
        uint64_t la[6], lb[6], lc[6], want[6];
        test_random_fp(&a);
        test_random_fp(&b);
        fp_mul(&c, &a, &b);
        fp_to_limbs(la, &a);
        fp_to_limbs(lb, &b);
        fp_to_limbs(lc, &c);
        naive_mulmod(want, la, lb, FP_MODULUS, 6);
        CHECK(memcmp(lc, want, sizeof want) == 0);
        fp_mul_portable(&c, &a, &b);
        fp_to_limbs(lc, &c);
        CHECK(memcmp(lc, want, sizeof want) == 0);
        fp_sqr(&c, &a);
        fp_to_limbs(lc, &c);
        naive_mulmod(want, la, la, FP_MODULUS, 6);
        CHECK(memcmp(lc, want, sizeof want) == 0);
    }
}

static void test_fr_against_naive(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fr_t a, b, c;
        uint64_t la[4], lb[4], lc[4], want[4];
        test_random_fr(&a);
        test_random_fr(&b);
        fr_mul(&c, &a, &b);
        fr_to_limbs(la, &a);
        fr_to_limbs(lb, &b);
        fr_to_limbs(lc, &c);
        naive_mulmod(want, la, lb, FR_MODULUS, 4);
        CHECK(memcmp(lc, want, sizeof want) == 0);
        fr_sqr(&c, &a);
        fr_to_limbs(lc, &c);
        naive_mulmod(want, la, la, FR_MODULUS, 4);
        CHECK(memcmp(lc, want, sizeof want) == 0);
    }
}

static void test_fp_laws(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fp_t a, b, c, t, u, z, one;
        test_random_fp(&a);
        test_random_fp(&b);
        test_random_fp(&c);
        fp_zero(&z);
        fp_one(&one);
        /* (a + b) * c == a*c + b*c */
        fp_add(&t, &a, &b);
        fp_mul(&t, &t, &c);
        fp_mul(&u, &a, &c);
        fp_t v;
        fp_mul(&v, &b, &c);
        fp_add(&u, &u, &v);
        CHECK(fp_equal(&t, &u));
        /* a - b + b == a, a + (-a) == 0, 2a == a + a */
        fp_sub(&t, &a, &b);
        fp_add(&t, &t, &b);
        CHECK(fp_equal(&t, &a));
        fp_neg(&t, &a);
        fp_add(&t, &t, &a);
        CHECK(fp_is_zero(&t));
        fp_dbl(&t, &a);
        fp_add(&u, &a, &a);
        CHECK(fp_equal(&t, &u));
        /* a * a^-1 == 1 unless a == 0 */
        bool ok = fp_inv(&t, &a);
        CHECK(ok == !fp_is_zero(&a));
        if (ok) {
            fp_mul(&t, &t, &a);
            CHECK(fp_is_one(&t));
        } else
            CHECK(fp_is_zero(&t));
        /* sqrt(a^2)^2 == a^2 */
        fp_sqr(&t, &a);
        CHECK(fp_sqrt(&u, &t));
        fp_sqr(&u, &u);
        CHECK(fp_equal(&u, &t));
        /* bytes round trip, both endians */
        uint8_t be[48], le[48];
        fp_to_bytes_be(be, &a);
        fp_to_bytes_le(le, &a);
        for (int k = 0; k < 48; k++)
            CHECK(be[k] == le[47 - k]);
        CHECK(fp_from_bytes_be(&t, be) && fp_equal(&t, &a));
        CHECK(fp_from_bytes_le(&t, le) && fp_equal(&t, &a));
        fp_to_mont_bytes_le(le, &a);
        CHECK(fp_from_mont_bytes_le(&t, le) && fp_equal(&t, &a));
        (void)z;
        (void)one;
    }
    /* -1 is not a square mod p (p = 3 mod 4) */
    fp_t m1, r;
    fp_one(&m1);
    fp_neg(&m1, &m1);
    CHECK(!fp_sqrt(&r, &m1));
    /* -0 == 0 */
    fp_t z;
    fp_zero(&z);
    fp_neg(&r, &z);
    CHECK(fp_is_zero(&r));
    /* p itself and all-ones are rejected as non-canonical */
    uint8_t le[48];
    for (int k = 0; k < 6; k++)
        for (int j = 0; j < 8; j++)
            le[8 * k + j] = (uint8_t)(FP_MODULUS[k] >> (8 * j));
    CHECK(!fp_from_bytes_le(&r, le));
    CHECK(!fp_from_mont_bytes_le(&r, le));
    memset(le, 0xff, sizeof le);
    CHECK(!fp_from_bytes_le(&r, le));
    /* p - 1 is accepted */
    le[0] = (uint8_t)(FP_MODULUS[0] - 1);
    for (int k = 0; k < 6; k++)
        for (int j = 0; j < 8; j++)
            if (k || j) le[8 * k + j] = (uint8_t)(FP_MODULUS[k] >> (8 * j));
    CHECK(fp_from_bytes_le(&r, le));
    fp_add(&r, &r, &(fp_t){0});
    fp_one(&z);
    fp_add(&r, &r, &z);
    CHECK(fp_is_zero(&r));
}

static void test_fr_roots(void)
{
    fr_t w, t;
    for (unsigned k = 0; k <= FR_TWO_ADICITY; k++) {
        CHECK(fr_root_of_unity(&w, k));
        /* w^(2^k) == 1 and, for k > 0, w^(2^(k-1)) == -1 (primitive) */
        t = w;
        for (unsigned j = 0; j + 1 < k; j++)
            fr_sqr(&t, &t);
        if (k > 0) {
            fr_t m1;
            fr_one(&m1);
            fr_neg(&m1, &m1);
            CHECK(fr_equal(&t, &m1));
            fr_sqr(&t, &t);
        }
        CHECK(fr_is_one(&t));
    }
    CHECK(!fr_root_of_unity(&w, FR_TWO_ADICITY + 1));
}

static void test_batch_inv(size_t count)
{
    for (size_t n = 0; n < 40; n++) {
        fr_t a[40] = {{{0}}}, r[40], t;
        for (size_t i = 0; i < n; i++)
            test_random_fr(&a[i]);
        fr_batch_inv(r, a, n);
        for (size_t i = 0; i < n; i++) {
            fr_inv(&t, &a[i]);
            CHECK(fr_equal(&t, &r[i]));
        }
    }
    (void)count;
}

#ifdef G16_HAVE_X86_ASM
/* -m^-1 mod 2^64 by Newton iteration (each step doubles the correct low bits). */
static uint64_t neg_inv64(uint64_t m0)
{
    uint64_t inv = m0; /* correct to 3 bits for odd m0 */
    for (int i = 0; i < 5; i++)
        inv *= 2 - m0 * inv;
    return (uint64_t)0 - inv;
}

/* A value below m: random, or one of the edge cases picked by kind. */
static void asm_test_value(uint64_t *x, const uint64_t *m, size_t n, unsigned kind)
{
    switch (kind) {
    case 0: /* 0 */
        memset(x, 0, n * 8);
        return;
    case 1: /* 1 */
        memset(x, 0, n * 8);
        x[0] = 1;
        return;
    case 2: /* m - 1 */
    case 3: /* m - 2 */
        memcpy(x, m, n * 8);
        x[0] -= kind - 1; /* m is odd and m[0] > 2 here: no borrow */
        return;
    case 4: /* all-ones low limbs, top limb just below m's */
        memset(x, 0xff, n * 8);
        x[n - 1] = m[n - 1] - 1;
        return;
    case 5: /* all-ones low limb only */
        memset(x, 0, n * 8);
        x[0] = ~(uint64_t)0;
        return;
    case 6: /* all ones except the top limb, which is zero */
        memset(x, 0xff, n * 8);
        x[n - 1] = 0;
        return;
    case 7: /* top limb only */
        memset(x, 0, n * 8);
        x[n - 1] = m[n - 1] - 1;
        return;
    default: /* random below m (rejection sampling on the top limb's range) */
        do {
            for (size_t i = 0; i < n; i++)
                x[i] = test_rand64();
            x[n - 1] %= m[n - 1] + 1;
        } while (!mont_is_canonical(x, m, n));
        return;
    }
}

enum { ASM_EDGE_KINDS = 8 };

/* One comparison of the assembly against mont_mul, limb for limb, including r aliasing
 * a and b. */
static void asm_compare_one(const uint64_t *x, const uint64_t *y, const uint64_t *m,
                            uint64_t minv, size_t n)
{
    uint64_t want[6], got[6], tmp[6];
    typedef void mul_fn(uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *,
                        uint64_t);
    typedef void sqr_fn(uint64_t *, const uint64_t *, const uint64_t *, uint64_t);
    mul_fn *mul = n == 4 ? mont_mul_adx_4 : mont_mul_adx_6;
    sqr_fn *sqr = n == 4 ? mont_sqr_adx_4 : mont_sqr_adx_6;

    mont_mul(want, x, y, m, minv, n);
    mul(got, x, y, m, minv);
    CHECK(memcmp(got, want, n * 8) == 0);
    memcpy(tmp, x, n * 8); /* r == a */
    mul(tmp, tmp, y, m, minv);
    CHECK(memcmp(tmp, want, n * 8) == 0);
    memcpy(tmp, y, n * 8); /* r == b */
    mul(tmp, x, tmp, m, minv);
    CHECK(memcmp(tmp, want, n * 8) == 0);

    mont_mul(want, x, x, m, minv, n);
    sqr(got, x, m, minv);
    CHECK(memcmp(got, want, n * 8) == 0);
    memcpy(tmp, x, n * 8); /* r == a */
    sqr(tmp, tmp, m, minv);
    CHECK(memcmp(tmp, want, n * 8) == 0);
    mul(got, x, x, m, minv);
    CHECK(memcmp(got, want, n * 8) == 0);
}

static void test_asm_direct_mod(const uint64_t *m, size_t n, size_t count)
{
    uint64_t minv = neg_inv64(m[0]), x[6], y[6];
    CHECK(m[0] * ((uint64_t)0 - minv) == 1);
    /* every pair of edge values */
    for (unsigned i = 0; i < ASM_EDGE_KINDS; i++)
        for (unsigned j = 0; j < ASM_EDGE_KINDS; j++) {
            asm_test_value(x, m, n, i);
            asm_test_value(y, m, n, j);
            asm_compare_one(x, y, m, minv, n);
        }
    /* edge against random, and random against random */
    for (size_t k = 0; k < count; k++) {
        asm_test_value(x, m, n, (unsigned)(test_rand64() % (2 * ASM_EDGE_KINDS)));
        asm_test_value(y, m, n, ASM_EDGE_KINDS);
        if (test_rand64() & 1)
            asm_compare_one(x, y, m, minv, n);
        else
            asm_compare_one(y, x, m, minv, n);
    }
}
#endif

/* The assembly routines called directly (whatever cpu_use_asm says) against the portable
 * mont_mul, limb for limb. */
static void test_asm_direct(size_t count)
{
#ifdef G16_HAVE_X86_ASM
    if (!cpu_asm_available())
        return;
    test_asm_direct_mod(FP_MODULUS, 6, 10 * count);
    test_asm_direct_mod(FR_MODULUS, 4, 10 * count);
    /* Odd moduli at the limits of the routines' bounds (they need not be prime): top limb
     * 2^63 - 1 (t < 2m only just fits; the 6-limb squaring falls back to multiplication),
     * and 2^62 - 1 (the largest the dedicated squaring takes). */
    static const uint64_t m383[6] = {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, 0x7fffffffffffffff};
    static const uint64_t m382[6] = {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, 0x3fffffffffffffff};
    static const uint64_t m255[4] = {0xffffffffffffffed, ~0ull, ~0ull, 0x7fffffffffffffff};
    test_asm_direct_mod(m383, 6, count);
    test_asm_direct_mod(m382, 6, count);
    test_asm_direct_mod(m255, 4, count);
#else
    (void)count;
#endif
}

static void run_all(size_t count)
{
    test_fp_against_naive(count);
    test_fr_against_naive(count);
    test_fp_laws(count / 4);
    test_fr_roots();
    test_batch_inv(count);
}

int main(void)
{
    test_init("test_field");
    size_t count = test_count(2000);
    printf("assembly path available: %s\n", cpu_asm_available() ? "yes" : "no");
    cpu_set_asm(false);
    run_all(count);
    if (cpu_set_asm(true))
        run_all(count);
    test_asm_direct(count);
    return test_finish();
}
