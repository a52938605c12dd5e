/* The optimal ate pairing: the final exponentiation against plain exponentiation by
 * 3(p^12 - 1)/r (our convention, shared with noble, blst, zkcrypto and snarkjs: see
 * curve/pairing.h), differential vectors from @noble/curves (tools/noble/gen_pairing.mjs),
 * bilinearity, infinity, non-degeneracy, and the multi-pairing against products of
 * single pairings, on both arithmetic paths. The `plainpow` vectors are computed in
 * noble by plain BigInt exponentiation of its Miller loop, independent of any hard-part
 * formula. */
#include <stdlib.h>
#include <string.h>

#include "curve/pairing.h"
#include "field/cpu.h"
#include "harness.h"

/* d = (p^4 - p^2 + 1)/r, the hard part of the final exponentiation, little-endian limbs;
 * computed with BigInt in node. test_exponents checks d * r = p^4 - p^2 + 1. */
static const uint64_t HARD_D[20] = {
    0xe516c3f438e3ba79ull, 0xfa9912aae208ccf1ull, 0x905ce937335d5b68ull, 0xc71a2629b0dea236ull,
    0x83774940996754c8ull, 0x21d160aeb6a1e799ull, 0x2ed0b283ed237db4ull, 0x915c97f36c6f1821ull,
    0x67f17fcbde783765ull, 0x2378b9039096d1b7ull, 0x7988f8761bdc51dcull, 0x2076995003fc77a1ull,
    0x827eca0ba621315bull, 0xe5a72bce8d63cb9full, 0xf68f7764c28b6f8aull, 0x2f230063cf081517ull,
    0x94506632528d6a9aull, 0xd3cde88eeb996ca3ull, 0xc0bd38c3195c899eull, 0x000f686b3d807d01ull,
};

/* r, the order of G1, G2 and GT. */
static const uint64_t R_ORDER[4] = {
    0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull,
};

/* (p^12 - 1)/r = (p^6 - 1)(p^2 + 1) d: 72 limbs suffice (about 4,300 bits). */
enum { FULL_LIMBS = 72 };
static uint64_t g_full[FULL_LIMBS];

static void big_mul(uint64_t *out, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    memset(out, 0, (na + nb) * sizeof *out);
    for (size_t i = 0; i < na; i++) {
        unsigned __int128 carry = 0;
        for (size_t j = 0; j < nb; j++) {
            unsigned __int128 t = (unsigned __int128)a[i] * b[j] + out[i + j] + carry;
            out[i + j] = (uint64_t)t;
            carry = t >> 64;
        }
        out[i + nb] = (uint64_t)carry;
    }
}

/* a += s (s signed, small), in place over n limbs. */
static void big_add_small(uint64_t *a, size_t n, int64_t s)
{
    uint64_t add = s < 0 ? ~(uint64_t)0 : 0; /* sign extension */
    unsigned __int128 carry = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 t = (unsigned __int128)a[i] + (i == 0 ? (uint64_t)s : add) + carry;
        a[i] = (uint64_t)t;
        carry = t >> 64;
    }
}

/* Checks HARD_D and builds g_full from p. */
static void test_exponents(void)
{
    uint64_t p2[12], p4[24], p6[36], lhs[24], rhs[24];
    big_mul(p2, FP_MODULUS, 6, FP_MODULUS, 6);
    big_mul(p4, p2, 12, p2, 12);
    big_mul(p6, p4, 24, p2, 12);

    /* p^4 - p^2 + 1 = d r */
    memcpy(lhs, p4, sizeof lhs);
    uint64_t borrow = 0;
    for (size_t i = 0; i < 24; i++) {
        uint64_t s = i < 12 ? p2[i] : 0;
        unsigned __int128 t = (unsigned __int128)lhs[i] - s - borrow;
        lhs[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 64) & 1;
    }
    big_add_small(lhs, 24, 1);
    big_mul(rhs, HARD_D, 20, R_ORDER, 4);
    CHECK(memcmp(lhs, rhs, sizeof lhs) == 0);

    uint64_t p6m1[36], p2p1[12], easy[48], full[68];
    memcpy(p6m1, p6, sizeof p6m1);
    big_add_small(p6m1, 36, -1);
    memcpy(p2p1, p2, sizeof p2p1);
    big_add_small(p2p1, 12, 1);
    big_mul(easy, p6m1, 36, p2p1, 12);
    big_mul(full, easy, 48, HARD_D, 20);
    memset(g_full, 0, sizeof g_full);
    memcpy(g_full, full, sizeof full);
}

static void random_fp12(fp12_t *r)
{
    test_random_fp(&r->c0.c0.c0);
    test_random_fp(&r->c0.c0.c1);
    test_random_fp(&r->c0.c1.c0);
    test_random_fp(&r->c0.c1.c1);
    test_random_fp(&r->c0.c2.c0);
    test_random_fp(&r->c0.c2.c1);
    test_random_fp(&r->c1.c0.c0);
    test_random_fp(&r->c1.c0.c1);
    test_random_fp(&r->c1.c1.c0);
    test_random_fp(&r->c1.c1.c1);
    test_random_fp(&r->c1.c2.c0);
    test_random_fp(&r->c1.c2.c1);
}

/* final_exponentiation(f) = (f^((p^12 - 1)/r))^3 for random f: the definition, no
 * formula. */
static void test_final_exponentiation_exact(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fp12_t f, x, y;
        do
            random_fp12(&f);
        while (fp12_is_zero(&f));
        final_exponentiation(&x, &f);
        fp12_pow(&y, &f, g_full, FULL_LIMBS);
        fp12_t y3;
        fp12_sqr(&y3, &y);
        fp12_mul(&y3, &y3, &y);
        CHECK(fp12_equal(&x, &y3));
        /* The value lies in GT: order r. */
        fp12_cyclotomic_pow(&y, &x, R_ORDER, 4);
        CHECK(fp12_is_one(&y));
    }
}

/* --- points -------------------------------------------------------------------------- */

/* zcash uncompressed encodings; the flag bits (compression, infinity, sign) are masked
 * off and infinity becomes x = y = 0. Counts a failed check for a malformed input. */
static bool parse_g1(g1_affine_t *r, const char *hex)
{
    uint8_t b[96];
    if (!CHECK(test_hex_decode(b, sizeof b, hex) == (long)sizeof b))
        return false;
    bool infinity = b[0] & 0x40;
    b[0] &= 0x1f;
    if (infinity) {
        fp_zero(&r->x);
        fp_zero(&r->y);
        return true;
    }
    return CHECK(fp_from_bytes_be(&r->x, b)) && CHECK(fp_from_bytes_be(&r->y, b + 48));
}

static bool parse_g2(g2_affine_t *r, const char *hex)
{
    uint8_t b[192];
    if (!CHECK(test_hex_decode(b, sizeof b, hex) == (long)sizeof b))
        return false;
    bool infinity = b[0] & 0x40;
    b[0] &= 0x1f;
    if (infinity) {
        fp2_zero(&r->x);
        fp2_zero(&r->y);
        return true;
    }
    return CHECK(fp_from_bytes_be(&r->x.c1, b)) && CHECK(fp_from_bytes_be(&r->x.c0, b + 48)) &&
           CHECK(fp_from_bytes_be(&r->y.c1, b + 96)) && CHECK(fp_from_bytes_be(&r->y.c0, b + 144));
}

static bool parse_gt(uint8_t out[FP12_BYTES], const char *hex)
{
    return CHECK(test_hex_decode(out, FP12_BYTES, hex) == (long)FP12_BYTES);
}

static void expect_gt(const fp12_t *got, const uint8_t want[FP12_BYTES], const char *what)
{
    uint8_t g[FP12_BYTES];
    fp12_to_bytes(g, got);
    CHECK_BYTES(g, want, FP12_BYTES, what);
}

/* --- vectors --------------------------------------------------------------------------- */

typedef struct {
    char **lines;
    size_t n, cap;
} lines_t;

static void read_vectors(lines_t *v, size_t count)
{
    memset(v, 0, sizeof *v);
    FILE *f = test_noble_open("gen_pairing.mjs", count);
    if (!f)
        return;
    static char line[1 << 16];
    while (fgets(line, sizeof line, f)) {
        if (v->n == v->cap) {
            v->cap = v->cap ? 2 * v->cap : 64;
            char **grown = realloc(v->lines, v->cap * sizeof *grown);
            if (!CHECK(grown != NULL))
                break;
            v->lines = grown;
        }
        v->lines[v->n] = strdup(line);
        if (!CHECK(v->lines[v->n] != NULL))
            break;
        v->n++;
    }
    test_noble_close(f);
}

/* A few points that later tests reuse (e.g. to fill more than PAIRING_BATCH pairs). */
enum { POOL = 2 * PAIRING_BATCH + 3 };
static g1_affine_t g_pool_p[POOL];
static g2_affine_t g_pool_q[POOL];
static size_t g_pool_n;

static void check_pairing_line(char **t, size_t n, bool exact)
{
    g1_affine_t p;
    g2_affine_t q;
    uint8_t want[FP12_BYTES];
    if (n != 4 || !parse_g1(&p, t[1]) || !parse_g2(&q, t[2]) || !parse_gt(want, t[3]))
        return;
    fp12_t e, f, x;
    pairing(&e, &p, &q);
    expect_gt(&e, want, exact ? "pairing = (Miller loop)^(3(p^12-1)/r) (noble, plain pow)"
                              : "pairing = noble's bls.pairing");
    CHECK(!fp12_is_one(&e)); /* non-degenerate */
    miller_loop(&f, &p, &q, 1);
    final_exponentiation(&x, &f);
    CHECK(fp12_equal(&x, &e));
    if (!exact && g_pool_n < POOL) {
        g_pool_p[g_pool_n] = p;
        g_pool_q[g_pool_n] = q;
        g_pool_n++;
    }
}

static void check_bilinear_line(char **t, size_t n)
{
    g1_affine_t p, ap;
    g2_affine_t q, bq;
    uint8_t abb[32];
    if (n != 6 || !parse_g1(&p, t[1]) || !parse_g2(&q, t[2]) || !parse_g1(&ap, t[3]) ||
        !parse_g2(&bq, t[4]) || !CHECK(test_hex_decode(abb, 32, t[5]) == 32))
        return;
    uint64_t ab[4] = {0};
    for (size_t k = 0; k < 32; k++)
        ab[k / 8] |= (uint64_t)abb[31 - k] << (8 * (k % 8));
    fp12_t e, x, y;
    pairing(&e, &p, &q);
    pairing(&x, &ap, &bq);
    fp12_cyclotomic_pow(&y, &e, ab, 4);
    CHECK(fp12_equal(&x, &y)); /* e(aP, bQ) = e(P, Q)^(ab) */
    /* and e(P, Q)^r = 1 */
    fp12_cyclotomic_pow(&y, &e, R_ORDER, 4);
    CHECK(fp12_is_one(&y));
}

static void check_product_line(char **t, size_t n)
{
    g1_affine_t p[2];
    g2_affine_t q[2];
    if (n != 5 || !parse_g1(&p[0], t[1]) || !parse_g2(&q[0], t[2]) || !parse_g1(&p[1], t[3]) ||
        !parse_g2(&q[1], t[4]))
        return;
    /* e(aP, Q) e(-P, aQ) = 1 */
    CHECK(pairing_product_is_one(p, q, 2));
    fp12_t e;
    multi_pairing(&e, p, q, 2);
    CHECK(fp12_is_one(&e));
    /* ... but not with P for -P, nor with a single pair. */
    fp_neg(&p[1].y, &p[1].y);
    CHECK(!pairing_product_is_one(p, q, 2));
    CHECK(!pairing_product_is_one(p, q, 1));
}

static void check_multi_line(char **t, size_t n)
{
    enum { MAX = 8 };
    g1_affine_t p[MAX + 2];
    g2_affine_t q[MAX + 2];
    uint8_t want[FP12_BYTES];
    if (!CHECK(n >= 2))
        return;
    size_t k = (size_t)atoi(t[1]);
    if (!CHECK(k >= 1 && k <= MAX && n == 3 + 2 * k))
        return;
    for (size_t i = 0; i < k; i++)
        if (!parse_g1(&p[i], t[2 + 2 * i]) || !parse_g2(&q[i], t[3 + 2 * i]))
            return;
    if (!parse_gt(want, t[2 + 2 * k]))
        return;
    fp12_t e, x, prod;
    multi_pairing(&e, p, q, k);
    expect_gt(&e, want, "multi_pairing = noble's pairingBatch");
    fp12_one(&prod);
    for (size_t i = 0; i < k; i++) {
        pairing(&x, &p[i], &q[i]);
        fp12_mul(&prod, &prod, &x);
    }
    CHECK(fp12_equal(&e, &prod));
    /* Pairs with an infinite point change nothing. */
    memmove(&p[1], &p[0], k * sizeof p[0]);
    memmove(&q[1], &q[0], k * sizeof q[0]);
    fp_zero(&p[0].x);
    fp_zero(&p[0].y);
    p[k + 1] = p[1];
    fp2_zero(&q[k + 1].x);
    fp2_zero(&q[k + 1].y);
    multi_pairing(&x, p, q, k + 2);
    CHECK(fp12_equal(&x, &e));
}

static size_t run_vectors(const lines_t *v)
{
    size_t cases = 0;
    static char line[1 << 16];
    for (size_t i = 0; i < v->n; i++) {
        snprintf(line, sizeof line, "%s", v->lines[i]);
        char *t[16];
        size_t n = test_split(line, t, 16);
        if (n < 2)
            continue;
        cases++;
        if (!strcmp(t[0], "pairing"))
            check_pairing_line(t, n, false);
        else if (!strcmp(t[0], "plainpow"))
            check_pairing_line(t, n, true);
        else if (!strcmp(t[0], "bilinear"))
            check_bilinear_line(t, n);
        else if (!strcmp(t[0], "product"))
            check_product_line(t, n);
        else if (!strcmp(t[0], "multi"))
            check_multi_line(t, n);
        else
            CHECK(!"known pairing op");
    }
    return cases;
}

/* Infinity, empty products, and more pairs than one Miller-loop batch holds. */
static void test_edges(void)
{
    fp12_t e, x, prod;
    g1_affine_t inf1;
    g2_affine_t inf2;
    fp_zero(&inf1.x);
    fp_zero(&inf1.y);
    fp2_zero(&inf2.x);
    fp2_zero(&inf2.y);

    multi_pairing(&e, NULL, NULL, 0);
    CHECK(fp12_is_one(&e));
    miller_loop(&e, NULL, NULL, 0);
    CHECK(fp12_is_one(&e));
    CHECK(pairing_product_is_one(NULL, NULL, 0));
    pairing(&e, &inf1, &inf2);
    CHECK(fp12_is_one(&e));
    if (g_pool_n == 0)
        return;
    pairing(&e, &inf1, &g_pool_q[0]);
    CHECK(fp12_is_one(&e));
    pairing(&e, &g_pool_p[0], &inf2);
    CHECK(fp12_is_one(&e));

    /* e(G1, G2) is 0x1250ebd871... in every library (the first vector is a = b = 1). */
    static const uint8_t want_prefix[8] = {0x12, 0x50, 0xeb, 0xd8, 0x71, 0xfc, 0x0a, 0x92};
    uint8_t bytes[FP12_BYTES];
    pairing(&e, &g_pool_p[0], &g_pool_q[0]);
    fp12_to_bytes(bytes, &e);
    CHECK_BYTES(bytes, want_prefix, sizeof want_prefix, "e(G1, G2) starts 0x1250ebd871fc0a92");

    /* Chunked multi-pairing: n > PAIRING_BATCH, mixing pool points (any pairing of
     * them is a valid input). */
    size_t n = g_pool_n;
    g1_affine_t p[POOL];
    g2_affine_t q[POOL];
    for (size_t i = 0; i < POOL; i++) {
        p[i] = g_pool_p[i % n];
        q[i] = g_pool_q[(i * 7 + 3) % n];
    }
    size_t sizes[] = {PAIRING_BATCH, PAIRING_BATCH + 1, POOL};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        fp12_one(&prod);
        for (size_t i = 0; i < sizes[s]; i++) {
            pairing(&x, &p[i], &q[i]);
            fp12_mul(&prod, &prod, &x);
        }
        multi_pairing(&e, p, q, sizes[s]);
        CHECK(fp12_equal(&e, &prod));
    }
}

int main(void)
{
    test_init("test_pairing");
    test_exponents();
    bool paths[2] = {false, true};
    for (size_t i = 0; i < 2; i++)
        if (cpu_set_asm(paths[i]) == paths[i])
            test_final_exponentiation_exact(test_count(2));

    /* Everything below needs noble (the test is skipped without it). */
    size_t count = test_count(32);
    lines_t v;
    read_vectors(&v, count);
    size_t cases = 0;
    for (size_t i = 0; i < 2; i++) {
        if (cpu_set_asm(paths[i]) != paths[i])
            continue;
        g_pool_n = 0;
        cases += run_vectors(&v);
        test_edges();
    }
    for (size_t i = 0; i < v.n; i++)
        free(v.lines[i]);
    free(v.lines);
    printf("%zu noble cases\n", cases);
    CHECK(cases >= count);
    return test_finish();
}
