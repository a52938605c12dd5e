/* GPU MSM benchmark (issue 5's table): G1 at 2^14 to 2^27 with dense random
 * scalars and with witness-like mixes, G2 at 2^24 and 2^26, bases already on the device
 * (as in the sppark reference figures), median of --reps runs by CUDA events.
 *
 *   bench_gpu_msm [--min-log2 K] [--max-log2 K] [--case NAME] [--reps R] [--quick]
 *
 * --case keeps the cases whose name contains NAME ("G1 dense", "G2", "55/30/15"); the
 * window width can be forced with G16_GPU_MSM_WINDOW=c (4..24) to compare widths, the
 * bucket accumulation with G16_GPU_MSM_AFFINE=0 (XYZZ) or 1 (batch-affine rounds), the
 * run length the rounds stop at with G16_GPU_MSM_TAIL (cuda_msm.cu, msm_batch_affine.cuh),
 * and the endomorphism with G16_GPU_MSM_GLV=0|1: every case gets its bases' GLV table
 * (made before the timed runs, as a key's is once), which MSMs of more than 2^23 others
 * use by default (glv.cuh); and with G16_GPU_MSM_MULT=1 the bases' precomputed multiples
 * (msm_mult.cuh), made before the timed runs (their time is printed) and used at any size,
 * G16_GPU_MSM_MULT_BITS=c (4..26, default 26) their window width. Not by default: run 60
 * measured them slower than the default path (bench/NOTES.md).
 *
 * Inputs: 2^20 distinct bases tiled to the size (an MSM's cost does not depend on the
 * bases being distinct). Every case is checked exactly: by linearity the tiled MSM equals
 * the MSM of the 2^20 distinct bases with the scalars of equal bases summed mod r, which
 * the CPU computes. Exit status 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef G16_HAVE_CUDA
#include "bench_common.h"
#include "backend/backend.h"
#include "msm/msm.h"
#include "util/clock.h"

enum { DISTINCT_LOG2 = 20 };

typedef struct {
    const char *name;
    int group;          /* 1 or 2 */
    unsigned log2n;
    int zeros, ones;    /* percentages; the rest random */
    int same;           /* percentage equal to one fixed value (taken from the random) */
    double goal_ms;     /* issue 5's goal, 0 = none */
    double sppark_ms;   /* the reference on this H200, 0 = none */
} bench_case;

static const bench_case cases[] = {
    /* small MSMs (the XYZZ accumulation): 2^14 others are what the 2^27 partition's A and
     * C have beside their ones (c = 10, 26 windows), 2^17 the widest of c = 13 */
    {"G1 dense", 1, 14, 0, 0, 0, 0, 0},
    {"G1 dense", 1, 17, 0, 0, 0, 0, 0},
    {"G1 dense", 1, 20, 0, 0, 0, 0, 20.9},
    {"G1 dense", 1, 24, 0, 0, 0, 0, 156},
    {"G1 dense", 1, 26, 0, 0, 0, 300, 558},
    {"G1 dense", 1, 27, 0, 0, 0, 600, 1099},
    {"G1 55/30/15", 1, 26, 55, 30, 0, 0, 197},
    {"G1 55/30/15", 1, 27, 55, 30, 0, 150, 369},
    {"G1 45/0/55", 1, 27, 45, 0, 0, 0, 714},
    /* a witness repeating one value: one bucket per window gets 90% of the points */
    {"G1 90% one value", 1, 24, 0, 0, 90, 0, 0},
    {"G2 dense", 2, 24, 0, 0, 0, 0, 449},
    {"G2 dense", 2, 26, 0, 0, 0, 900, 1637},
};

/* Any mix (make_scalars of bench_common.h gives the dense and the 55/30/15 ones). */
static uint8_t *mixed_scalars(size_t n, int zeros, int ones, int same)
{
    if (zeros == 0 && ones == 0 && same == 0)
        return make_scalars(n, false);
    if (zeros == 55 && ones == 30 && same == 0)
        return make_scalars(n, true);
    uint8_t *s = calloc(n, 32);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int u = (int)(rnd() % 100);
        if (u >= zeros + ones + same)
            random_scalar(s + 32 * i);
        else if (u >= zeros + ones)
            memcpy(s + 32 * i, "\x67\x45\x23\x01\x89\xab\xcd\xef", 8);
        else if (u >= zeros)
            s[32 * i] = 1;
    }
    return s;
}

/* K_j = sum over tiles t of k[t 2^20 + j] mod r, canonical bytes. */
static uint8_t *fold_scalars(const uint8_t *s, size_t n, size_t distinct)
{
    fr_t *acc = calloc(distinct, sizeof *acc);
    uint8_t *out = malloc(distinct * 32);
    for (size_t i = 0; i < n; i++) {
        fr_t k;
        fr_from_bytes_le(&k, s + 32 * i);
        fr_add(&acc[i % distinct], &acc[i % distinct], &k);
    }
    for (size_t j = 0; j < distinct; j++)
        fr_to_bytes_le(out + 32 * j, &acc[j]);
    free(acc);
    return out;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    unsigned min_log2 = 0, max_log2 = 27, reps = 5;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-log2") && i + 1 < argc)
            max_log2 = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--min-log2") && i + 1 < argc)
            min_log2 = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--case") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            max_log2 = 24, reps = 2;
        else {
            fprintf(stderr, "usage: bench_gpu_msm [--min-log2 K] [--max-log2 K] [--case NAME] "
                            "[--reps R] [--quick]\n");
            return 2;
        }
    }
    backend *be;
    g16_status st = backend_open(&be, "cuda");
    if (st) {
        printf("bench_gpu_msm: no GPU: %s\n", g16_last_error());
        return 77;
    }
    cuda_ctx *ctx = backend_cuda_ctx(be);
    printf("bench_gpu_msm: %s, median of %u runs, bases on the device\n", be->description, reps);
    size_t distinct = (size_t)1 << DISTINCT_LOG2;
    uint8_t *b1 = g1_make_bases(distinct), *b2 = g2_make_bases(distinct);

    /* The arithmetic ceilings first: register-resident chains, no memory traffic. */
    static const char *rate_names[] = {"Fr mul", "Fp mul", "Fp2 mul", "G1 add (XYZZ+affine)",
                                       "G2 add (XYZZ+affine)"};
    printf("\n| arithmetic | per second |\n|---|---|\n");
    for (int w = 0; w < 5; w++) {
        double rate = 0;
        const void *pts = w == 4 ? (const void *)b2 : (const void *)b1;
        if (cuda_arith_rate(ctx, &rate, w, pts) == G16_OK)
            printf("| %s | %.3g |\n", rate_names[w], rate);
        else
            printf("| %s | failed: %s |\n", rate_names[w], g16_last_error());
    }
    /* The same chains at fewer warps an SM: the round kernels run 12 (G1) and 8 (G2). */
    static const unsigned warps[] = {4, 8, 12, 16, 32};
    printf("\n| products per second at W warps an SM | W = 4 | 8 | 12 | 16 | 32 |\n"
           "|---|---|---|---|---|---|\n");
    for (int field = 1; field <= 2; field++) {
        printf("| %s mul |", field == 1 ? "Fp" : "Fp2");
        for (size_t k = 0; k < sizeof warps / sizeof warps[0]; k++) {
            double rate = 0;
            if (cuda_product_rate_at(ctx, &rate, field, warps[k]) == G16_OK)
                printf(" %.3g |", rate);
            else
                printf(" failed: %s |", g16_last_error());
        }
        printf("\n");
    }

    printf("\n| MSM | n | ms | sppark ms | goal ms | others | c | pieces | classify | ones | sort | "
           "accumulate | reduce | exact |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int failures = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const bench_case *c = &cases[ci];
        if (c->log2n > max_log2 || c->log2n < min_log2 || (only && !strstr(c->name, only)))
            continue;
        size_t n = (size_t)1 << c->log2n, psize = c->group == 1 ? 96 : 192;
        size_t d = n < distinct ? n : distinct;
        const uint8_t *pool = c->group == 1 ? b1 : b2;
        void *dbases = NULL, *dscalars = NULL, *dphi = NULL, *dmult = NULL;
        const char *mult_env = getenv("G16_GPU_MSM_MULT"), *bits_env = getenv("G16_GPU_MSM_MULT_BITS");
        bool with_mult = mult_env && !strcmp(mult_env, "1");
        unsigned mult_bits = bits_env ? (unsigned)atoi(bits_env) : CUDA_MSM_MULT_BITS;
        size_t mult_bytes = with_mult ? cuda_msm_mult_count(n, mult_bits) * psize : 0;
        uint8_t *scalars = mixed_scalars(n, c->zeros, c->ones, c->same);
        if (!scalars || (st = cuda_ctx_alloc(ctx, &dbases, n * psize)) ||
            (st = cuda_ctx_alloc(ctx, &dscalars, n * 32)) ||
            (st = cuda_ctx_alloc(ctx, &dphi, n * psize / 2)) ||
            (with_mult && (st = cuda_ctx_alloc(ctx, &dmult, mult_bytes)))) {
            printf("| %s | 2^%u | failed: %s |\n", c->name, c->log2n, g16_last_error());
            failures++;
            free(scalars);
            cuda_ctx_release(ctx, dbases);
            cuda_ctx_release(ctx, dscalars);
            cuda_ctx_release(ctx, dphi);
            continue;
        }
        for (size_t off = 0; off < n; off += d)
            cuda_ctx_upload(ctx, (uint8_t *)dbases + off * psize, pool, d * psize);
        cuda_ctx_upload(ctx, dscalars, scalars, n * 32);
        /* The bases' GLV table, made once as a key's would be (not timed). */
        st = cuda_msm_phi_table(ctx, c->group, dphi, dbases, n);
        /* The multiples likewise, timed on the host (the call waits for the device). */
        double mult_s = 0;
        cuda_msm_mult mult = {dmult, mult_bits};
        if (!st && with_mult) {
            double t0 = clock_ms();
            st = cuda_msm_mult_table(ctx, c->group, dmult, dbases, n, mult_bits);
            mult_s = (clock_ms() - t0) / 1000;
        }

        double ms[16];
        cuda_msm_info info;
        g1_jac_t r1;
        g2_jac_t r2;
        unsigned runs = reps < 16 ? reps : 16;
        for (unsigned rep = 0; rep <= runs && !st; rep++) { /* run 0 warms up */
            st = c->group == 1 ? backend_cuda_msm_g1(ctx, &r1, &info, dbases, dphi, with_mult ? &mult : NULL, dscalars, n, false)
                               : backend_cuda_msm_g2(ctx, &r2, &info, dbases, dphi, with_mult ? &mult : NULL, dscalars, n, false);
            if (rep)
                ms[rep - 1] = info.ms_total;
        }
        bool exact = false;
        if (!st) {
            uint8_t *folded = fold_scalars(scalars, n, d);
            if (c->group == 1) {
                g1_jac_t want;
                exact = msm_g1(&want, pool, folded, d) == G16_OK && g1_equal(&want, &r1);
            } else {
                g2_jac_t want;
                exact = msm_g2(&want, pool, folded, d) == G16_OK && g2_equal(&want, &r2);
            }
            free(folded);
        }
        if (st) {
            printf("| %s | 2^%u | failed: %s |\n", c->name, c->log2n, g16_last_error());
            failures++;
        } else {
            qsort(ms, runs, sizeof ms[0], cmp_double);
            char goal[32] = "-", ref[32] = "-";
            if (c->goal_ms)
                snprintf(goal, sizeof goal, "%.0f", c->goal_ms);
            if (c->sppark_ms)
                snprintf(ref, sizeof ref, "%.1f", c->sppark_ms);
            char acc[128];
            if (info.mult)
                snprintf(acc, sizeof acc, "affine, %zu rounds, GLV, multiples (%u windows, made in %.1f s)",
                         info.affine_rounds, info.windows, mult_s);
            else if (info.affine_rounds) {
                char sl[32] = "";
                if (info.slices > 1)
                    snprintf(sl, sizeof sl, ", %u slices", info.slices);
                snprintf(acc, sizeof acc, "affine, %zu rounds%s%s%s", info.affine_rounds,
                         info.split ? ", split sums" : "", info.glv ? ", GLV" : "", sl);
            }
            else
                snprintf(acc, sizeof acc, "XYZZ, %zu pieces", info.pieces);
            printf("| %s | 2^%u | %.1f | %s | %s | %zu | %u | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %s |\n",
                   c->name, c->log2n, ms[runs / 2], ref, goal, info.others, info.window_bits,
                   acc, info.ms_classify, info.ms_ones, info.ms_sort, info.ms_accumulate,
                   info.ms_reduce, exact ? "yes" : "NO");
            failures += !exact;
        }
        fflush(stdout);
        st = G16_OK;
        free(scalars);
        cuda_ctx_release(ctx, dbases);
        cuda_ctx_release(ctx, dscalars);
        cuda_ctx_release(ctx, dphi);
        cuda_ctx_release(ctx, dmult);
    }
    free(b1);
    free(b2);
    backend_close(be);
    return failures ? 1 : 0;
}

#else

int main(void)
{
    printf("bench_gpu_msm: this build has no CUDA backend\n");
    return 77;
}

#endif
