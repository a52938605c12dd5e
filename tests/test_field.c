/* Fp and Fr: laws, edge cases, and portable against assembly arithmetic. Differential
 * tests against @noble/curves live in test_noble.c. */
#include <string.h>

#include "field/cpu.h"
#include "field/fp2.h"
#include "field/inv_vartime.h"
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

/* Inversion in variable time: the safegcd of inv_vartime.c against the Fermat inversion,
 * result for result. The divsteps read the stored (Montgomery) limbs, so the edge cases
 * are set both as stored limbs and as canonical values. */
static void check_fp_inv_vartime(const fp_t *a)
{
    fp_t want, got, t;
    bool ok_want = fp_inv(&want, a), ok = fp_inv_vartime(&got, a);
    CHECK(ok == ok_want);
    CHECK(fp_equal(&got, &want));
    if (ok) {
        fp_mul(&t, &got, a);
        CHECK(fp_is_one(&t));
    }
    t = *a; /* r aliasing a */
    CHECK(fp_inv_vartime(&t, &t) == ok && fp_equal(&t, &want));
}

static void check_fr_inv_vartime(const fr_t *a)
{
    fr_t want, got, t;
    bool ok_want = fr_inv(&want, a), ok = fr_inv_vartime(&got, a);
    CHECK(ok == ok_want);
    CHECK(fr_equal(&got, &want));
    if (ok) {
        fr_mul(&t, &got, a);
        CHECK(fr_is_one(&t));
    }
    t = *a;
    CHECK(fr_inv_vartime(&t, &t) == ok && fr_equal(&t, &want));
}

/* Edge value number k (0 <= k < inv_edge_count(n)) below m: small integers, powers of two,
 * 2^j - 1, m - 2^j, m - 1, (m - 1) / 2, (m + 1) / 2, and random values with every number of
 * leading zero limbs. Returns false past the last one, or when the value is not below m. */
static size_t inv_edge_count(size_t n) { return 64 + 3 * 64 * n + 3 + n; }

static bool inv_edge(uint64_t *x, const uint64_t *m, size_t n, size_t k)
{
    memset(x, 0, n * 8);
    size_t bits = 64 * n;
    if (k < 64) {
        x[0] = k; /* 0 included: must be refused */
    } else if ((k -= 64) < 3 * bits) {
        size_t j = k % bits;
        x[j / 64] = (uint64_t)1 << (j % 64); /* 2^j */
        if (k / bits >= 1) {                  /* 2^j - 1 */
            uint64_t borrow = 1;
            for (size_t i = 0; i < n; i++)
                x[i] = mont_sbb(x[i], 0, &borrow);
            if (borrow)
                return false;
        }
        if (k / bits == 2) { /* m - 2^j = m - (2^j - 1) - 1 */
            uint64_t borrow = 1;
            for (size_t i = 0; i < n; i++)
                x[i] = mont_sbb(m[i], x[i], &borrow);
            if (borrow)
                return false;
        }
    } else if ((k -= 3 * bits) < 3) {
        memcpy(x, m, n * 8);
        x[0] -= 1; /* m - 1 */
        if (k > 0) { /* (m - 1) / 2, then + 1 */
            for (size_t i = 0; i < n; i++)
                x[i] = x[i] >> 1 | (i + 1 < n ? x[i + 1] << 63 : 0);
            x[0] += k - 1;
        }
    } else if ((k -= 3) < n) {
        for (size_t i = 0; i < n - k; i++)
            x[i] = test_rand64(); /* k leading zero limbs */
    } else
        return false;
    return mont_is_canonical(x, m, n);
}

static void test_inv_vartime(size_t count)
{
    printf("inv_vartime: %zu random elements per field\n", count);
    for (size_t i = 0; i < count; i++) {
        fp_t a;
        fr_t b;
        test_random_fp(&a);
        test_random_fr(&b);
        check_fp_inv_vartime(&a);
        check_fr_inv_vartime(&b);
    }
    for (size_t k = 0; k < inv_edge_count(6); k++) {
        fp_t a;
        if (!inv_edge(a.l, FP_MODULUS, 6, k))
            continue;
        check_fp_inv_vartime(&a); /* as stored limbs */
        uint64_t v[6];
        memcpy(v, a.l, sizeof v);
        CHECK(fp_from_limbs(&a, v));
        check_fp_inv_vartime(&a); /* as the canonical value */
    }
    for (size_t k = 0; k < inv_edge_count(4); k++) {
        fr_t a;
        if (!inv_edge(a.l, FR_MODULUS, 4, k))
            continue;
        check_fr_inv_vartime(&a);
        uint64_t v[4];
        memcpy(v, a.l, sizeof v);
        CHECK(fr_from_limbs(&a, v));
        check_fr_inv_vartime(&a);
    }
    /* Montgomery-form edge cases: 1 and -1 are stored as R and p - R. */
    fp_t one, minus_one;
    fp_one(&one);
    fp_neg(&minus_one, &one);
    check_fp_inv_vartime(&one);
    check_fp_inv_vartime(&minus_one);
    fp_t z, r;
    fp_zero(&z);
    r = one;
    CHECK(!fp_inv_vartime(&r, &z) && fp_is_zero(&r));
    /* Batches (zeros map to zero) and Fp2. */
    for (size_t n = 0; n < 20; n++) {
        fp_t a[20], want[20], got[20];
        for (size_t i = 0; i < n; i++) {
            test_random_fp(&a[i]);
            if (test_rand64() % 5 == 0)
                fp_zero(&a[i]);
        }
        fp_batch_inv(want, a, n);
        fp_batch_inv_vartime(got, a, n);
        for (size_t i = 0; i < n; i++)
            CHECK(fp_equal(&got[i], &want[i]));
    }
    for (size_t i = 0; i < count / 100 + 2; i++) {
        fp2_t a, want, got;
        test_random_fp(&a.c0);
        test_random_fp(&a.c1);
        if (i == 0)
            fp_zero(&a.c1);
        if (i == 1)
            fp2_zero(&a);
        CHECK(fp2_inv(&want, &a) == fp2_inv_vartime(&got, &a));
        CHECK(fp2_equal(&got, &want));
    }
}

/* mod_div_vartime alone, over odd moduli of 1 to 6 full limbs (not prime): r a = b mod m
 * against the naive product, and no result when gcd(a, m) != 1. */
static void test_mod_div_vartime(size_t count)
{
    for (size_t n = 1; n <= 6; n++)
        for (size_t i = 0; i < count; i++) {
            uint64_t m[6], a[6], b[6], r[6], t[6];
            for (size_t j = 0; j < n; j++)
                m[j] = test_rand64();
            m[0] |= 1;
            if (i % 2)
                m[n - 1] |= (uint64_t)1 << 63; /* the full 64n bits */
            if (i % 8 == 1) {                  /* an odd multiple of 3 (2^64 = 1 mod 3) */
                uint64_t rem = 0;
                m[0] |= 0x100; /* no borrow below */
                for (size_t j = 0; j < n; j++)
                    rem = (rem + m[j] % 3) % 3;
                m[0] -= rem;
                if (m[0] % 2 == 0)
                    m[0] -= 3;
            }
            for (size_t j = 0; j < n; j++) {
                a[j] = test_rand64();
                b[j] = test_rand64();
            }
            a[n - 1] %= m[n - 1];
            b[n - 1] %= m[n - 1];
            if (i % 8 == 1) { /* then a shares the factor 3 */
                memset(a, 0, n * 8);
                a[0] = 3 * (test_rand64() >> 2);
                if (n == 1)
                    a[0] %= m[0];
                a[0] -= a[0] % 3;
            }
            bool ok = mod_div_vartime(r, b, a, m, n);
            if (i % 8 == 1) {
                CHECK(!ok);
                continue;
            }
            if (!ok) /* a random gcd(a, m) != 1: rare */
                continue;
            CHECK(mont_is_canonical(r, m, n));
            naive_mulmod(t, r, a, m, n);
            CHECK(memcmp(t, b, n * 8) == 0);
        }
    uint64_t m[1] = {0xffffffffffffffc5}, z[1] = {0}, one[1] = {1}, r[1];
    CHECK(!mod_div_vartime(r, one, z, m, 1));
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
    test_inv_vartime(test_count(100000));
    test_mod_div_vartime(count);
    return test_finish();
}
