/* The 8-lane AVX-512 IFMA products (field/fp_x8.h) against fp_mul and fp_mul_portable:
 * seeded random elements, then every pair of edge values (0, 1, -1, raw limb patterns up
 * to p - 1, values next to 2^380 and to the 52- and 64-bit limb boundaries) in every
 * lane, partial groups that must leave the elements past n untouched, and aliasing; the
 * batch inversion against fp_inv. The Fp2 lanes (fp2_mul_x8, fp2_sqr_x8, fp2_batch_inv_x8)
 * against fp2_mul, fp2_sqr and fp2_inv the same way: random elements, then every pair of
 * edge values as components, in rotating lanes.
 * Skipped (exit 77) on a CPU or build without IFMA. */
#include <stdlib.h>
#include <string.h>

#include "field/cpu.h"
#include "field/fp_x8.h"
#include "harness.h"

#ifdef G16_HAVE_IFMA

static size_t failures;

static void check_lanes(const fp_t *got, const fp_t *a, const fp_t *b, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        fp_t want, portable;
        fp_mul(&want, &a[k], &b[k]);
        fp_mul_portable(&portable, &a[k], &b[k]);
        bool ok = fp_equal(&got[k], &want) && fp_equal(&want, &portable);
        if (!CHECK(ok) && failures++ < 4) {
            fprintf(stderr, "  lane %zu:", k);
            for (int i = 5; i >= 0; i--)
                fprintf(stderr, " %016llx", (unsigned long long)a[k].l[i]);
            fprintf(stderr, "  *");
            for (int i = 5; i >= 0; i--)
                fprintf(stderr, " %016llx", (unsigned long long)b[k].l[i]);
            fprintf(stderr, "\n");
        }
    }
}

/* Raw limbs (the Montgomery form itself), which must be below p. */
static size_t edge_values(fp_t *e)
{
    size_t n = 0;
    fp_zero(&e[n++]);
    fp_one(&e[n++]);
    fp_one(&e[n]);
    fp_neg(&e[n], &e[n]);
    n++;
    memset(&e[n], 0, sizeof e[n]);
    e[n++].l[0] = 1;                           /* raw 1: 1 / R */
    memcpy(e[n].l, FP_MODULUS, sizeof e[n].l); /* p - 1, p - 2 */
    e[n++].l[0] -= 1;
    memcpy(e[n].l, FP_MODULUS, sizeof e[n].l);
    e[n++].l[0] -= 2;
    memset(&e[n], 0, sizeof e[n]);             /* 2^380 and 2^380 - 1 */
    e[n++].l[5] = 1ull << 60;
    memset(&e[n], 0xff, sizeof e[n]);
    e[n++].l[5] = (1ull << 60) - 1;
    /* 2^k - 1 and 2^k at the 52-bit limb boundaries the vector code splits at, and the
     * 64-bit ones it joins at. */
    static const unsigned bits[] = {52, 64, 104, 128, 156, 192, 208, 256, 260, 312, 320, 364};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        memset(&e[n], 0, sizeof e[n]);
        e[n++].l[bits[i] / 64] = 1ull << (bits[i] % 64);
        memset(&e[n], 0, sizeof e[n]);
        for (unsigned b = 0; b < bits[i]; b++)
            e[n].l[b / 64] |= 1ull << (b % 64);
        n++;
    }
    return n;
}

static void test_random(size_t rounds)
{
    for (size_t r = 0; r < rounds; r++) {
        fp_t a[8], b[8], got[8];
        for (int k = 0; k < 8; k++) {
            test_random_fp(&a[k]);
            test_random_fp(&b[k]);
        }
        fp_mul_x8(got, a, b);
        check_lanes(got, a, b, 8);
        /* Squares and aliasing: r = a * a in place, by both schedules. */
        memcpy(got, a, sizeof got);
        fp_mul_x8(got, got, got);
        check_lanes(got, a, a, 8);
        memcpy(got, a, sizeof got);
        fp_sqr_x8(got, got);
        check_lanes(got, a, a, 8);
    }
}

static void test_edges(void)
{
    fp_t e[40];
    size_t n = edge_values(e);
    /* Every ordered pair, each pair in a rotating lane beside random neighbours. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            fp_t a[8], b[8], got[8];
            for (int k = 0; k < 8; k++) {
                test_random_fp(&a[k]);
                test_random_fp(&b[k]);
            }
            size_t lane = (i * n + j) % 8;
            a[lane] = e[i];
            b[lane] = e[j];
            fp_mul_x8(got, a, b);
            check_lanes(got, a, b, 8);
            if (j == 0) {
                fp_sqr_x8(got, a);
                check_lanes(got, a, a, 8);
            }
        }
}

static void test_partial(void)
{
    enum { MAX = 19 };
    for (size_t n = 0; n <= MAX; n++) {
        fp_t a[MAX + 1], b[MAX + 1], got[MAX + 1], sentinel;
        for (size_t k = 0; k <= MAX; k++) {
            test_random_fp(&a[k]);
            test_random_fp(&b[k]);
        }
        memset(&sentinel, 0x5a, sizeof sentinel);
        for (size_t k = 0; k <= MAX; k++)
            got[k] = sentinel;
        fp_mul_x8_n(got, a, b, n);
        check_lanes(got, a, b, n);
        bool untouched = true;
        for (size_t k = n; k <= MAX; k++)
            untouched &= memcmp(&got[k], &sentinel, sizeof sentinel) == 0;
        CHECK(untouched);
    }
}

/* fp_batch_inv_x8 against fp_inv, element by element, for every partial group. */
static void test_batch_inv(void)
{
    static const size_t sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 65, 1000, 2049};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t m = sizes[s];
        fp_t *a = malloc(m * sizeof *a), *want = malloc(m * sizeof *want);
        void *scratch = aligned_alloc(64, FP_X8_SCRATCH(m));
        fp_t e[40];
        size_t ne = edge_values(e);
        for (size_t i = 0; i < m; i++) {
            do {
                if (i % 5 == 0)
                    a[i] = e[test_rand64() % ne];
                else
                    test_random_fp(&a[i]);
            } while (fp_is_zero(&a[i]));
            fp_inv(&want[i], &a[i]);
        }
        fp_batch_inv_x8(a, m, scratch);
        bool ok = true;
        for (size_t i = 0; i < m; i++)
            ok &= fp_equal(&a[i], &want[i]);
        if (!CHECK(ok))
            fprintf(stderr, "  fp_batch_inv_x8, m = %zu\n", m);
        free(a);
        free(want);
        free(scratch);
    }
}

/* ---- Fp2 lanes ---- */

static void check_fp2_lanes(const fp2_t *got, const fp2_t *a, const fp2_t *b, const char *what)
{
    for (size_t k = 0; k < 8; k++) {
        fp2_t want;
        if (b)
            fp2_mul(&want, &a[k], &b[k]);
        else
            fp2_sqr(&want, &a[k]);
        /* Byte equality, not fp2_equal: canonical limbs, as the scalar path stores. */
        if (!CHECK(memcmp(&got[k], &want, sizeof want) == 0) && failures++ < 4)
            fprintf(stderr, "  %s, lane %zu\n", what, k);
    }
}

static void random_fp2(fp2_t *r)
{
    test_random_fp(&r->c0);
    test_random_fp(&r->c1);
}

static void test_fp2_random(size_t rounds)
{
    for (size_t r = 0; r < rounds; r++) {
        fp2_t a[8], b[8], got[8];
        for (int k = 0; k < 8; k++) {
            random_fp2(&a[k]);
            random_fp2(&b[k]);
        }
        fp2_mul_x8(got, a, b);
        check_fp2_lanes(got, a, b, "fp2_mul_x8");
        fp2_sqr_x8(got, a);
        check_fp2_lanes(got, a, NULL, "fp2_sqr_x8");
        memcpy(got, a, sizeof got); /* aliasing */
        fp2_mul_x8(got, got, got);
        check_fp2_lanes(got, a, a, "fp2_mul_x8 in place");
    }
}

/* Edge elements: every pair of Fp edge values as (c0, c1), against random and edge
 * partners, each in a rotating lane. */
static void test_fp2_edges(void)
{
    fp_t e[40];
    size_t n = edge_values(e);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            fp2_t a[8], b[8], got[8];
            for (int k = 0; k < 8; k++) {
                random_fp2(&a[k]);
                random_fp2(&b[k]);
            }
            size_t lane = (i * n + j) % 8;
            a[lane].c0 = e[i];
            a[lane].c1 = e[j];
            b[lane].c0 = e[(i + j) % n];
            b[lane].c1 = e[(i * 7 + j * 3) % n];
            b[(lane + 1) % 8] = a[lane];
            fp2_mul_x8(got, a, b);
            check_fp2_lanes(got, a, b, "fp2_mul_x8, edges");
            fp2_sqr_x8(got, a);
            check_fp2_lanes(got, a, NULL, "fp2_sqr_x8, edges");
        }
}

/* fp2_batch_inv_x8 against fp2_inv for every partial group. */
static void test_fp2_batch_inv(void)
{
    static const size_t sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 65, 1000, 2049};
    fp_t e[40];
    size_t ne = edge_values(e);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t m = sizes[s];
        fp2_t *a = malloc(m * sizeof *a), *want = malloc(m * sizeof *want);
        void *scratch = aligned_alloc(64, FP2_X8_SCRATCH(m));
        for (size_t i = 0; i < m; i++) {
            do {
                random_fp2(&a[i]);
                if (i % 5 == 0)
                    a[i].c0 = e[test_rand64() % ne];
                if (i % 7 == 0)
                    a[i].c1 = e[test_rand64() % ne];
            } while (fp2_is_zero(&a[i]));
            fp2_inv(&want[i], &a[i]);
        }
        fp2_batch_inv_x8(a, m, scratch);
        bool ok = memcmp(a, want, m * sizeof *a) == 0;
        if (!CHECK(ok))
            fprintf(stderr, "  fp2_batch_inv_x8, m = %zu\n", m);
        free(a);
        free(want);
        free(scratch);
    }
}

int main(void)
{
    test_init("test_fp_x8");
    if (!cpu_ifma_available())
        test_skip("this CPU (or OS) has no AVX-512 IFMA: the 8-lane path is not tested");
    test_random(test_count(20000));
    test_edges();
    test_partial();
    test_batch_inv();
    test_fp2_random(test_count(5000));
    test_fp2_edges();
    test_fp2_batch_inv();
    /* With the assembly path off, fp_mul is the portable C one: compare with it too. */
    bool asm_was = cpu_use_asm;
    cpu_set_asm(false);
    test_random(test_count(2000));
    cpu_set_asm(asm_was);
    return test_finish();
}

#else

int main(void)
{
    test_init("test_fp_x8");
    test_skip("built without the AVX-512 IFMA path (not x86-64, or G16_ASM=OFF)");
}

#endif
