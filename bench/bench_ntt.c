/* CPU NTT and H benchmarks: forward NTT, inverse NTT, change of coset (inverse + coset
 * forward, no permutation) and the whole snarkjs H computation, at 2^16..2^22.
 *
 *   bench_ntt [--threads T] [--min-log A] [--max-log B] [--reps R] [--leaf F --tile K]
 *
 * --leaf/--tile choose the pass plan's limits (in-cache blocks of 2^F points, column
 * passes of at most K stages) instead of the default, for tuning.
 * Prints the best of R runs (default 3) in ms and points per second; for H the count is
 * the n output points (each needs 6 transforms of n points). The first lines are the
 * single-thread baseline the transforms are made of: fr_mul throughput and one radix-2
 * butterfly (in-cache block of 2^12, all levels) in ns, and where the CPU has AVX-512 IFMA
 * the leaf pass over such a block per butterfly on both paths. G16_CPU_IFMA=0 runs the
 * transforms on the scalar path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field/cpu.h"
#include "groth16/h_poly.h"
#include "ntt/ntt.h"
#include "ntt/ntt_internal.h"
#include "util/parallel.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void fill(fr_t *x, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        fr_from_u64(&x[i], seed);
    }
}

/* Single thread, CPU time: 8 independent product chains, then in-cache butterflies. */
static void baseline(void)
{
    enum { LOG = 12, N = 1 << LOG };
    static fr_t x[N], tab[N];
    fill(x, N, 7);
    fr_t w, one;
    fr_root_of_unity(&w, LOG);
    fr_one(&one);
    ntt_table_build(tab, LOG, &w, &one);
    fr_t acc[8], m = x[1];
    memcpy(acc, x, sizeof acc);
    double t = now_ms();
    for (int i = 0; i < 1 << 18; i++)
        for (int k = 0; k < 8; k++)
            fr_mul(&acc[k], &acc[k], &m);
    double mul_ns = (now_ms() - t) * 1e6 / (8.0 * (1 << 18));
    t = now_ms();
    int reps = 64;
    for (int r = 0; r < reps; r++)
        ntt_dif_block(x, LOG, 0, tab);
    double bf_ns = (now_ms() - t) * 1e6 / ((double)reps * LOG * N / 2);
    printf("baseline (1 thread): fr_mul %.2f ns, butterfly in cache %.2f ns (%llx)\n", mul_ns,
           bf_ns, (unsigned long long)(acc[0].l[0] ^ x[3].l[0]));

    /* The leaf pass on one block (DIF only: loads, butterflies, canonical form, stores)
     * on both paths, alternating, best of the rounds: the IFMA butterfly against the
     * scalar one with the conversions counted. */
    if (!cpu_ifma_available())
        return;
    bool was = cpu_use_ifma;
    double best[2] = {1e300, 1e300};
    ntt_leaf_pass p = {.x = x, .log_n = LOG, .leaf = LOG, .dif_tab = tab};
    for (int round = 0; round < 5; round++)
        for (int ifma = 0; ifma < 2; ifma++) {
            cpu_set_ifma(ifma);
            t = now_ms();
            for (int r = 0; r < 16; r++)
                ntt_leaf_pass_run(&p);
            double ns = (now_ms() - t) * 1e6 / (16.0 * LOG * N / 2);
            best[ifma] = ns < best[ifma] ? ns : best[ifma];
        }
    cpu_set_ifma(was);
    printf("leaf pass 2^%d (1 thread), per butterfly: scalar %.2f ns, IFMA %.2f ns\n", LOG,
           best[0], best[1]);
}

static void row(const char *what, unsigned log2n, double ms, size_t points)
{
    printf("| %-22s | 2^%-2u | %10.2f | %12.3e |\n", what, log2n, ms, points / (ms * 1e-3));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    unsigned threads = 0, min_log = 16, max_log = 22, reps = 3, leaf = 0, tile = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads"))
            threads = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--min-log"))
            min_log = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-log"))
            max_log = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--leaf"))
            leaf = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tile"))
            tile = (unsigned)atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: %s [--threads T] [--min-log A] [--max-log B] [--reps R] "
                            "[--leaf F --tile K]\n",
                    argv[0]);
            return 2;
        }
    }
    if (threads)
        parallel_set_threads(threads);
    if (max_log > NTT_MAX_LOG2N)
        max_log = NTT_MAX_LOG2N;
    if (reps < 1)
        reps = 1;
    printf("bench_ntt: %u threads, assembly %s, IFMA %s, best of %u, plan %s\n",
           parallel_threads(), cpu_use_asm ? "on" : "off", cpu_use_ifma ? "on" : "off", reps,
           leaf || tile ? "custom" : "default");
    baseline();
    printf("| %-22s | size | %10s | %12s |\n", "operation", "ms", "points/s");
    printf("|------------------------|------|------------|--------------|\n");
    for (unsigned L = min_log; L <= max_log; L += 2) {
        size_t n = (size_t)1 << L;
        fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        const ntt_domain *d;
        ntt_domain *own = NULL;
        g16_status st = leaf || tile ? ntt_domain_create_with_plan(&own, L, leaf ? leaf : 13,
                                                                    tile ? tile : 9)
                                     : ntt_domain_get(&d, L);
        if (own)
            d = own;
        if (!a || !b || !c || st != G16_OK) {
            fprintf(stderr, "bench_ntt: cannot set up 2^%u\n", L);
            return 1;
        }
        fr_t shift;
        h_poly_shift(&shift, L, H_POLY_SNARKJS);
        double best[4] = {1e300, 1e300, 1e300, 1e300};
        for (unsigned r = 0; r < reps; r++) {
            fill(a, n, 1 + r);
            double t = now_ms();
            ntt_forward(d, a, a);
            t = now_ms() - t;
            best[0] = t < best[0] ? t : best[0];
            t = now_ms();
            ntt_inverse(d, a, a);
            t = now_ms() - t;
            best[1] = t < best[1] ? t : best[1];
            t = now_ms();
            ntt_change_coset(d, a, a, NULL, &shift, NULL, NULL);
            t = now_ms() - t;
            best[2] = t < best[2] ? t : best[2];
            fill(a, n, 2 + r), fill(b, n, 3 + r), fill(c, n, 4 + r);
            t = now_ms();
            h_poly_compute_in(d, a, a, b, c, H_POLY_SNARKJS);
            t = now_ms() - t;
            best[3] = t < best[3] ? t : best[3];
        }
        row("forward NTT", L, best[0], n);
        row("inverse NTT", L, best[1], n);
        row("change of coset", L, best[2], n);
        row("H (snarkjs)", L, best[3], n);
        free(a), free(b), free(c);
        ntt_domain_free(own);
    }
    return 0;
}
