/* CPU MSM benchmark: G1 at 2^16 (or --min-log2) .. 2^20 and G2 at 2^16, 2^18 with dense random scalars,
 * and G1 at 2^20 with 55% zeros / 30% ones / 15% random (a witness-like mix).
 *
 *   bench_msm [--threads T] [--min-log2 K] [--max-log2 K] [--reps R] [--window C] [--mode auto|xyzz|affine]
 *             [--only g1|g2|mix] [--sweep LO-HI]
 *
 * Prints, per case, the best wall time and the least CPU time over R runs (the process's
 * user + system time: on a loaded machine wall / cpu shows how much of the machine the
 * run had), the window width and the scalar split. --sweep times every window
 * width in LO..HI for the dense cases (to refit the window table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "msm/msm.h"
#include "util/parallel.h"

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double cpu_ms(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-3;
}

#include "bench_common.h"

typedef struct {
    unsigned reps, window;
    msm_options opts;
} settings;

/* Best wall time of reps runs; *cpu is the least CPU time of any run. */
static double run_case(int group, const uint8_t *bases, const uint8_t *scalars, size_t n,
                       const settings *set, unsigned window, double *cpu, msm_scalars **kept)
{
    double best = 0;
    for (unsigned r = 0; r < set->reps; r++) {
        double w0 = wall_ms(), c0 = cpu_ms();
        msm_scalars *s;
        if (msm_scalars_prepare_window(&s, scalars, n, window) != G16_OK) {
            fprintf(stderr, "prepare failed: %s\n", g16_last_error());
            exit(1);
        }
        g16_status st;
        if (group == 1) {
            g1_jac_t res;
            st = msm_g1_run_with(&res, bases, s, &set->opts);
        } else {
            g2_jac_t res;
            st = msm_g2_run_with(&res, bases, s, &set->opts);
        }
        double w = wall_ms() - w0, c = cpu_ms() - c0;
        if (st != G16_OK) {
            fprintf(stderr, "msm failed: %s\n", g16_last_error());
            exit(1);
        }
        if (r == 0 || w < best)
            best = w;
        if (r == 0 || c < *cpu)
            *cpu = c;
        if (kept && r + 1 == set->reps)
            *kept = s;
        else
            msm_scalars_free(s);
    }
    return best;
}

static void report(const char *name, unsigned log2n, int group, const uint8_t *bases,
                   const uint8_t *scalars, const settings *set)
{
    size_t n = (size_t)1 << log2n;
    double cpu = 0;
    msm_scalars *s = NULL;
    double ms = run_case(group, bases, scalars, n, set, set->window, &cpu, &s);
    size_t zeros, ones, others;
    msm_scalars_counts(s, &zeros, &ones, &others);
    printf("%-6s 2^%-3u %10.1f ms  cpu %10.1f ms  c=%-2u  zeros %zu ones %zu others %zu\n",
           name, log2n, ms, cpu, msm_scalars_window_bits(s), zeros, ones, others);
    fflush(stdout);
    msm_scalars_free(s);
}

static void sweep(const char *name, unsigned log2n, int group, const uint8_t *bases,
                  const uint8_t *scalars, const settings *set, unsigned lo, unsigned hi)
{
    size_t n = (size_t)1 << log2n;
    for (unsigned c = lo; c <= hi; c++) {
        double cpu = 0;
        double ms = run_case(group, bases, scalars, n, set, c, &cpu, NULL);
        printf("%-6s 2^%-3u c=%-2u %10.1f ms  cpu %10.1f ms%s\n", name, log2n, c, ms, cpu,
               c == msm_window_bits(n) ? "  (auto)" : "");
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    settings set = {.reps = 1};
    unsigned threads = 0, min_log2 = 16, max_log2 = 20, sweep_lo = 0, sweep_hi = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--threads") && v)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--max-log2") && v)
            max_log2 = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--min-log2") && v)
            min_log2 = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--reps") && v)
            set.reps = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--window") && v)
            set.window = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--only") && v)
            only = argv[++i];
        else if (!strcmp(a, "--sweep") && v && sscanf(argv[++i], "%u-%u", &sweep_lo, &sweep_hi) == 2)
            ;
        else if (!strcmp(a, "--mode") && v) {
            const char *m = argv[++i];
            set.opts.accumulate = !strcmp(m, "xyzz")     ? MSM_ACCUMULATE_XYZZ
                                  : !strcmp(m, "affine") ? MSM_ACCUMULATE_BATCH_AFFINE
                                                         : MSM_ACCUMULATE_AUTO;
        } else {
            fprintf(stderr,
                    "usage: %s [--threads T] [--min-log2 K] [--max-log2 K] [--reps R] [--window C] "
                    "[--mode auto|xyzz|affine] [--only g1|g2|mix] [--sweep LO-HI]\n",
                    argv[0]);
            return 2;
        }
    }
    if (set.reps < 1)
        set.reps = 1;
    if (threads)
        parallel_set_threads(threads);
    printf("bench_msm: %u threads, max 2^%u\n", parallel_threads(), max_log2);

    unsigned g1_top = max_log2 < 20 ? max_log2 : 20;
    double t0 = wall_ms();
    size_t n1 = (size_t)1 << g1_top;
    uint8_t *g1_bases = g1_make_bases(n1);
    uint8_t *dense = make_scalars(n1, false);
    printf("generated 2^%u G1 bases and scalars in %.0f ms\n", g1_top, wall_ms() - t0);

    if (!only || !strcmp(only, "g1"))
        for (unsigned k = min_log2; k <= g1_top; k++) {
            if (sweep_hi)
                sweep("G1", k, 1, g1_bases, dense, &set, sweep_lo, sweep_hi);
            else
                report("G1", k, 1, g1_bases, dense, &set);
        }
    if ((!only || !strcmp(only, "g2")) && max_log2 >= 16) {
        unsigned g2_top = max_log2 < 18 ? max_log2 : 18;
        t0 = wall_ms();
        uint8_t *g2_bases = g2_make_bases((size_t)1 << g2_top);
        printf("generated 2^%u G2 bases in %.0f ms\n", g2_top, wall_ms() - t0);
        for (unsigned k = 16; k <= g2_top; k += 2) {
            if (sweep_hi)
                sweep("G2", k, 2, g2_bases, dense, &set, sweep_lo, sweep_hi);
            else
                report("G2", k, 2, g2_bases, dense, &set);
        }
        free(g2_bases);
    }
    if ((!only || !strcmp(only, "mix")) && max_log2 >= 16) {
        uint8_t *mixed = make_scalars(n1, true);
        report("G1mix", g1_top, 1, g1_bases, mixed, &set);
        free(mixed);
    }
    free(g1_bases);
    free(dense);
    return 0;
}
