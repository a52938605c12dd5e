/* The 8-lane AVX-512 IFMA Fr core (field/fr_x8.h) against fr_mul, fr_add and fr_sub:
 * seeded random elements, then every pair of edge values (0, 1, -1, raw limb patterns up
 * to r - 1, values next to the 52- and 64-bit limb boundaries) in rotating lanes; the
 * same operands lifted by multiples of r up to the lazy bounds the NTT relies on
 * (products of operands up to 33r, canonical reduction from up to 17r, butterflies on
 * inputs up to 16r), and aliasing; fr_mul_sub_x8_n (the H computation's a b - c) at
 * every length up to 19 and in place. Skipped (exit 77) on a CPU or build without IFMA. */
#include <string.h>

#include "field/cpu.h"
#include "field/fr_x8.h"
#include "harness.h"

#ifdef G16_HAVE_IFMA

static size_t failures;

static void report(bool ok, const char *what, size_t lane, const fr_t *a, const fr_t *b)
{
    if (CHECK(ok) || failures++ >= 4)
        return;
    fprintf(stderr, "  %s, lane %zu:", what, lane);
    for (int i = 3; i >= 0; i--)
        fprintf(stderr, " %016llx", (unsigned long long)a->l[i]);
    fprintf(stderr, "  and");
    for (int i = 3; i >= 0; i--)
        fprintf(stderr, " %016llx", (unsigned long long)b->l[i]);
    fprintf(stderr, "\n");
}

/* Lifts: lane k of the lazy calls adds lift(k) r, spanning 0 to the maximum. */
static void lifts(unsigned k[8], unsigned max, size_t salt)
{
    for (size_t i = 0; i < 8; i++)
        k[i] = i == salt % 8 ? max : (unsigned)((test_rand64() + salt) % (max + 1));
}

static void check_mul(const fr_t a[8], const fr_t b[8], size_t salt)
{
    fr_t got[8], want;
    fr_mul_x8(got, a, b);
    for (size_t k = 0; k < 8; k++) {
        fr_mul(&want, &a[k], &b[k]);
        report(memcmp(&got[k], &want, sizeof want) == 0, "fr_mul_x8", k, &a[k], &b[k]);
    }
    unsigned ka[8];
    lifts(ka, 32, salt);
    fr_mul_x8_lazy(got, a, ka, b);
    for (size_t k = 0; k < 8; k++) {
        fr_mul(&want, &a[k], &b[k]);
        report(memcmp(&got[k], &want, sizeof want) == 0, "fr_mul_x8_lazy", k, &a[k], &b[k]);
    }
    lifts(ka, 16, salt + 3);
    fr_canonical_x8_lazy(got, a, ka);
    for (size_t k = 0; k < 8; k++)
        report(memcmp(&got[k], &a[k], sizeof a[k]) == 0, "fr_canonical_x8_lazy", k, &a[k],
               &a[k]);
}

/* The butterflies against the scalar field operations, on lifted inputs. */
static void check_butterflies(const fr_t a[8], const fr_t b[8], const fr_t t[8], size_t salt)
{
    static const char *names[] = {"DIF", "DIT", "twiddle 1"};
    for (int kind = FR_X8_DIF; kind <= FR_X8_ONE; kind++) {
        fr_t x0[8], x1[8];
        unsigned k0[8], k1[8];
        memcpy(x0, a, sizeof x0);
        memcpy(x1, b, sizeof x1);
        lifts(k0, 15, salt + (size_t)kind);
        lifts(k1, 15, salt + 5 + (size_t)kind);
        fr_butterfly_x8(x0, x1, t, k0, k1, (fr_x8_butterfly)kind);
        for (size_t k = 0; k < 8; k++) {
            fr_t w0, w1, v;
            if (kind == FR_X8_DIF) {
                fr_add(&w0, &a[k], &b[k]);
                fr_sub(&w1, &a[k], &b[k]);
                fr_mul(&w1, &w1, &t[k]);
            } else {
                if (kind == FR_X8_DIT)
                    fr_mul(&v, &b[k], &t[k]);
                else
                    v = b[k];
                fr_add(&w0, &a[k], &v);
                fr_sub(&w1, &a[k], &v);
            }
            bool ok = memcmp(&x0[k], &w0, sizeof w0) == 0 && memcmp(&x1[k], &w1, sizeof w1) == 0;
            report(ok, names[kind], k, &a[k], &b[k]);
        }
    }
}

static void test_random(size_t rounds)
{
    for (size_t r = 0; r < rounds; r++) {
        fr_t a[8], b[8], t[8], got[8];
        for (int k = 0; k < 8; k++) {
            test_random_fr(&a[k]);
            test_random_fr(&b[k]);
            test_random_fr(&t[k]);
        }
        check_mul(a, b, r);
        check_butterflies(a, b, t, r);
        /* Aliasing: r = a * a in place. */
        memcpy(got, a, sizeof got);
        fr_mul_x8(got, got, got);
        for (size_t k = 0; k < 8; k++) {
            fr_t want;
            fr_sqr(&want, &a[k]);
            report(memcmp(&got[k], &want, sizeof want) == 0, "in place", k, &a[k], &a[k]);
        }
    }
}

static void test_edges(void)
{
    fr_t e[TEST_FR_EDGES];
    size_t n = test_fr_edge_values(e);
    /* Every ordered pair, each pair in a rotating lane beside random neighbours; the
     * twiddle lane an edge value too. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            fr_t a[8], b[8], t[8];
            for (int k = 0; k < 8; k++) {
                test_random_fr(&a[k]);
                test_random_fr(&b[k]);
                test_random_fr(&t[k]);
            }
            size_t lane = (i * n + j) % 8;
            a[lane] = e[i];
            b[lane] = e[j];
            t[lane] = e[(i + j) % n];
            check_mul(a, b, i * n + j);
            check_butterflies(a, b, t, i * n + j);
        }
}

/* fr_mul_sub_x8_n at every length up to 19 (partial groups go to the scalar tail), into a
 * separate array and in place over each input; elements past n stay untouched. */
static void test_mul_sub(void)
{
    enum { MAX = 19 };
    fr_t e[TEST_FR_EDGES];
    size_t ne = test_fr_edge_values(e);
    for (size_t n = 0; n <= MAX; n++)
        for (int alias = 0; alias < 4; alias++) {
            fr_t in[3][MAX + 1], out[MAX + 1], want[MAX + 1], sentinel;
            for (int v = 0; v < 3; v++)
                for (size_t i = 0; i <= MAX; i++) {
                    if ((i + (size_t)v) % 3 == 0)
                        in[v][i] = e[(i * 5 + n + (size_t)v) % ne];
                    else
                        test_random_fr(&in[v][i]);
                }
            for (size_t i = 0; i < n; i++) {
                fr_mul(&want[i], &in[0][i], &in[1][i]);
                fr_sub(&want[i], &want[i], &in[2][i]);
            }
            memset(&sentinel, 0x5a, sizeof sentinel);
            fr_t *h = alias ? in[alias - 1] : out;
            for (size_t i = n; i <= MAX; i++)
                h[i] = sentinel;
            fr_mul_sub_x8_n(h, in[0], in[1], in[2], n);
            bool ok = memcmp(h, want, n * sizeof *h) == 0;
            for (size_t i = n; i <= MAX; i++)
                ok &= memcmp(&h[i], &sentinel, sizeof sentinel) == 0;
            if (!CHECK(ok))
                fprintf(stderr, "  fr_mul_sub_x8_n, n = %zu, output %d\n", n, alias);
        }
}

int main(void)
{
    test_init("test_fr_x8");
    if (!cpu_ifma_available())
        test_skip("this CPU (or OS) has no AVX-512 IFMA: the 8-lane path is not tested");
    test_random(test_count(5000));
    test_edges();
    test_mul_sub();
    /* With the assembly path off, fr_mul is the portable C one: compare with it too. */
    bool asm_was = cpu_use_asm;
    cpu_set_asm(false);
    test_random(test_count(500));
    cpu_set_asm(asm_was);
    return test_finish();
}

#else

int main(void)
{
    test_init("test_fr_x8");
    test_skip("built without the AVX-512 IFMA path (not x86-64, or G16_ASM=OFF)");
}

#endif
