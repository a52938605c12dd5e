/* Arithmetic benchmark: ns per operation for field, curve and pairing operations on this
 * CPU, single-threaded, each timed as a dependent chain (each result feeds the next
 * operation, so latency is measured, as blst's benchmarks do) and reported as the median
 * of several runs. `--quick` runs fewer iterations (for `make demo`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "curve/pairing.h"
#include "field/cpu.h"
#include "field/fp.h"
#include "field/fp12.h"
#include "field/fp_x8.h"
#include "field/fr.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every benchmark body runs `iters` dependent operations on a shared state. */
typedef struct {
    fp_t fa, fb;
    fr_t ra, rb;
    g1_jac_t p1, q1;
    g1_affine_t a1;
    g2_jac_t p2, q2;
    g1_affine_t pa1;
    g2_affine_t pa2;
    fp12_t f;
    fr_t k;
    fp_t xa[8], xb[8];
} bench_state;

typedef void (*bench_fn)(bench_state *s, long iters);

static void b_fp_mul(bench_state *s, long n) { for (long i = 0; i < n; i++) fp_mul(&s->fa, &s->fa, &s->fb); }
static void b_fp_sqr(bench_state *s, long n) { for (long i = 0; i < n; i++) fp_sqr(&s->fa, &s->fa); }
static void b_fp_add(bench_state *s, long n) { for (long i = 0; i < n; i++) fp_add(&s->fa, &s->fa, &s->fb); }
static void b_fp_inv(bench_state *s, long n) { for (long i = 0; i < n; i++) { fp_inv(&s->fa, &s->fa); fp_add(&s->fa, &s->fa, &s->fb); } }
static void b_fp_inv_vartime(bench_state *s, long n) { for (long i = 0; i < n; i++) { fp_inv_vartime(&s->fa, &s->fa); fp_add(&s->fa, &s->fa, &s->fb); } }
static void b_fr_inv(bench_state *s, long n) { for (long i = 0; i < n; i++) { fr_inv(&s->ra, &s->ra); fr_add(&s->ra, &s->ra, &s->rb); } }
static void b_fr_inv_vartime(bench_state *s, long n) { for (long i = 0; i < n; i++) { fr_inv_vartime(&s->ra, &s->ra); fr_add(&s->ra, &s->ra, &s->rb); } }
/* Eight independent chains, ns per product: the throughput the MSM's batches see. */
static void b_fp_mul_8(bench_state *s, long n)
{
    for (long i = 0; i < n; i += 8)
        for (int k = 0; k < 8; k++)
            fp_mul(&s->xa[k], &s->xa[k], &s->xb[k]);
}
#ifdef G16_HAVE_IFMA
static void b_fp_mul_x8(bench_state *s, long n)
{
    for (long i = 0; i < n; i += 8)
        fp_mul_x8(s->xa, s->xa, s->xb);
}
#endif
static void b_fr_mul(bench_state *s, long n) { for (long i = 0; i < n; i++) fr_mul(&s->ra, &s->ra, &s->rb); }
static void b_g1_add(bench_state *s, long n) { for (long i = 0; i < n; i++) g1_add(&s->p1, &s->p1, &s->q1); }
static void b_g1_add_mixed(bench_state *s, long n) { for (long i = 0; i < n; i++) g1_add_mixed(&s->p1, &s->p1, &s->a1); }
static void b_g1_dbl(bench_state *s, long n) { for (long i = 0; i < n; i++) g1_dbl(&s->p1, &s->p1); }
static void b_g2_add(bench_state *s, long n) { for (long i = 0; i < n; i++) g2_add(&s->p2, &s->p2, &s->q2); }
static void b_g2_dbl(bench_state *s, long n) { for (long i = 0; i < n; i++) g2_dbl(&s->p2, &s->p2); }
static void b_g1_mul(bench_state *s, long n) { for (long i = 0; i < n; i++) g1_mul(&s->p1, &s->p1, &s->k); }
static void b_g1_mul_vartime(bench_state *s, long n) { for (long i = 0; i < n; i++) g1_mul_vartime(&s->p1, &s->p1, &s->k); }
static void b_g2_mul(bench_state *s, long n) { for (long i = 0; i < n; i++) g2_mul(&s->p2, &s->p2, &s->k); }
static void b_g2_mul_vartime(bench_state *s, long n) { for (long i = 0; i < n; i++) g2_mul_vartime(&s->p2, &s->p2, &s->k); }
static void b_pairing(bench_state *s, long n) { for (long i = 0; i < n; i++) pairing(&s->f, &s->pa1, &s->pa2); }
static void b_final_exp(bench_state *s, long n) { for (long i = 0; i < n; i++) final_exponentiation(&s->f, &s->f); }

typedef struct {
    const char *name;
    bench_fn fn;
    long iters; /* per run at full length */
    bool both_paths; /* field ops: time the portable path too */
} bench_case;

static const bench_case CASES[] = {
    {"fp_mul", b_fp_mul, 2000000, true},
    {"fp_sqr", b_fp_sqr, 2000000, true},
    {"fp_mul, 8 chains", b_fp_mul_8, 2000000, true},
#ifdef G16_HAVE_IFMA
    /* Includes the limb conversions fp_t <-> 52-bit lanes; skipped without IFMA. */
    {"fp_mul_x8 (IFMA)", b_fp_mul_x8, 2000000, false},
#endif
    {"fp_add", b_fp_add, 5000000, false},
    {"fp_inv", b_fp_inv, 2000, true},
    {"fp_inv_vartime", b_fp_inv_vartime, 20000, false},
    {"fr_mul", b_fr_mul, 2000000, true},
    {"fr_inv", b_fr_inv, 4000, true},
    {"fr_inv_vartime", b_fr_inv_vartime, 20000, false},
    {"g1_add", b_g1_add, 200000, false},
    {"g1_add_mixed", b_g1_add_mixed, 200000, false},
    {"g1_dbl", b_g1_dbl, 200000, false},
    {"g2_add", b_g2_add, 100000, false},
    {"g2_dbl", b_g2_dbl, 100000, false},
    {"g1_mul (ct)", b_g1_mul, 500, false},
    {"g1_mul_vartime", b_g1_mul_vartime, 500, false},
    {"g2_mul (ct)", b_g2_mul, 200, false},
    {"g2_mul_vartime", b_g2_mul_vartime, 200, false},
    {"final_exponentiation", b_final_exp, 100, false},
    {"pairing", b_pairing, 100, false},
};

static void init_state(bench_state *s)
{
    uint64_t v[6] = {0x0123456789abcdefull, 0xfedcba9876543210ull, 0x1111, 0x2222, 0x3333, 0x4444};
    fp_from_limbs(&s->fa, v);
    v[0] ^= 0x5555;
    fp_from_limbs(&s->fb, v);
    fr_from_limbs(&s->ra, v);
    v[1] ^= 0x7777;
    fr_from_limbs(&s->rb, v);
    uint64_t k[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull, 0x1234567890abcdefull};
    fr_from_limbs(&s->k, k);
    g1_generator(&s->p1);
    g1_dbl(&s->q1, &s->p1);
    g1_to_affine(&s->a1, &s->q1);
    s->pa1 = s->a1;
    g2_generator(&s->p2);
    g2_dbl(&s->q2, &s->p2);
    g2_to_affine(&s->pa2, &s->q2);
    pairing(&s->f, &s->pa1, &s->pa2);
    for (int i = 0; i < 8; i++) {
        fp_add(&s->xa[i], &s->fa, &s->fb);
        s->fa = s->xa[i];
        s->xb[i] = s->fb;
    }
    fp_sub(&s->fa, &s->fa, &s->fb);
}

static double time_case(const bench_case *c, long iters, int runs)
{
    double samples[16];
    bench_state s;
    init_state(&s);
    c->fn(&s, iters / 10 + 1); /* warm-up */
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        c->fn(&s, iters);
        samples[r] = (now_ns() - t0) / iters;
    }
    qsort(samples, (size_t)runs, sizeof samples[0], cmp_double);
    return samples[runs / 2];
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && !strcmp(argv[1], "--quick");
    int runs = quick ? 3 : 7;
    long divisor = quick ? 20 : 1;
    bool asm_ok = cpu_asm_available();
    printf("g16 arithmetic benchmark (single thread, dependent chains, median of %d runs)\n"
           "assembly path (MULX/ADX): %s\n\n", runs, asm_ok ? "available" : "not available");
    printf("%-22s %14s %14s\n", "operation", asm_ok ? "ns/op (asm)" : "ns/op", asm_ok ? "ns/op (C)" : "");
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const bench_case *c = &CASES[i];
        long iters = c->iters / divisor;
        if (iters < 3)
            iters = 3;
#ifdef G16_HAVE_IFMA
        if (c->fn == b_fp_mul_x8 && !cpu_use_ifma)
            continue;
#endif
        cpu_set_asm(true);
        double fast = time_case(c, iters, runs);
        double unit = fast >= 1e6 ? 1e6 : (fast >= 1e4 ? 1e3 : 1);
        const char *suffix = unit == 1e6 ? " ms" : (unit == 1e3 ? " us" : "");
        char buf1[32], buf2[32] = "";
        snprintf(buf1, sizeof buf1, "%.2f%s", fast / unit, suffix);
        if (asm_ok && c->both_paths) {
            cpu_set_asm(false);
            double slow = time_case(c, iters, runs);
            snprintf(buf2, sizeof buf2, "%.2f%s", slow / unit, suffix);
            cpu_set_asm(true);
        }
        printf("%-22s %14s %14s\n", c->name, buf1, buf2);
        fflush(stdout);
    }
    return 0;
}
