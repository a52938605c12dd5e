/* GPU NTT and H benchmarks (backend/cuda/cuda_ntt.h) on device-resident data: forward,
 * inverse, coset forward and coset inverse transforms, and H in both conventions (h in
 * a's buffer, as a prover runs it), at 2^20, 2^24, 2^26 and 2^27.
 *
 *   bench_gpu_ntt [--sizes 20,24,26,27] [--reps R] [--check]
 *
 * Each operation runs once to warm up (the first one builds the size's twiddle table),
 * then R times (default 7); the table gives the median by CUDA events, the traffic the
 * design moves over that time (GB/s) and the Montgomery products per second, and the
 * ratio to the H200 floor: max(bytes / 4.3 TB/s, products * 256 multiply-adds / 11.8 T
 * per second) (DESIGN.md). Before timing, a round trip per size (forward then inverse on
 * data) must give the input back exactly. --check also compares H, both conventions, with
 * the CPU's (groth16/h_poly.h) at every size, every element, on inputs that are not
 * periodic (the timing's fill repeats 2^20 elements, whose transforms are mostly zeros):
 * the benchmark's own kernel variant (G16_GPU_NTT_* knobs) is then verified at the sizes
 * it times. It needs three host vectors a size (12 GiB at 2^27) and the CPU's H (seconds
 * at 2^27 on 16 cores). A wrong result makes the exit status 1. Exit 77 with "no GPU"
 * when there is no device or the build has no CUDA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "g16.h"
#include "groth16/h_poly.h"

#ifdef G16_HAVE_CUDA
#include "backend/cuda/cuda_ntt.h"

enum { OPS = 6, MAX_REPS = 101, FILL_LOG = 20 };

static const char *op_names[OPS] = {"forward NTT", "inverse NTT", "coset forward NTT",
                                    "coset inverse NTT", "H (snarkjs)", "H (classic)"};

typedef struct {
    double ms[MAX_REPS];
    double h_inverse[MAX_REPS], h_forward[MAX_REPS], h_final[MAX_REPS];
    unsigned passes, launches;
    int h_fused;
} op_runs;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int negacyclic(void)
{
    const char *env = getenv("G16_GPU_NTT_NEGACYCLIC");
    return !(env && strcmp(env, "0") == 0);
}

/* Memory traffic (bytes) and Montgomery products of one operation as designed. */
static void op_cost(int op, unsigned L, unsigned passes, double *bytes, double *muls)
{
    double n = (double)((size_t)1 << L), pass = 2 * n * 32;
    double transform = n / 2 * (L ? L - 1 : 0);
    double bitrev = L >= 2 ? pass : 0;
    switch (op) {
    case 0: *bytes = passes * pass + bitrev, *muls = transform; break;
    case 1: *bytes = passes * pass + bitrev, *muls = transform + n; break;
    case 2:
    case 3: *bytes = passes * pass + bitrev, *muls = transform + 2 * n; break;
    default:
        /* 6 transforms, coset factors (2 products per element) on 3, a b - c in the last;
         * a and b read and h written by the last pass too. snarkjs's shift, unless
         * G16_GPU_NTT_NEGACYCLIC=0: in the forward transforms' twiddles, whose stage b = 0
         * then has n/2 products (its 1/n by div_pow2, ~1/8 of a product, not counted). */
        *bytes = 6 * passes * pass + 3 * n * 32;
        *muls = 6 * transform + 3 * 2 * n + n;
        if (op == 4 && negacyclic())
            *muls = 6 * transform + 3 * n / 2 + n;
        if (op == 5) {
            *bytes += passes * pass + bitrev;
            *muls += transform + 2 * n;
        }
        break;
    }
}

static g16_status run_op(cuda_ctx *ctx, int op, void *a, void *b, void *c, unsigned L,
                         const fr_t *shift, const fr_t *scale, cuda_ntt_info *info)
{
    switch (op) {
    case 0: return cuda_ntt(ctx, CUDA_NTT_FORWARD, a, L, NULL, NULL, info);
    case 1: return cuda_ntt(ctx, CUDA_NTT_INVERSE, a, L, NULL, NULL, info);
    case 2: return cuda_ntt(ctx, CUDA_NTT_COSET_FORWARD, a, L, shift, NULL, info);
    case 3: return cuda_ntt(ctx, CUDA_NTT_COSET_INVERSE, a, L, shift, scale, info);
    default: return cuda_h_poly(ctx, a, a, b, c, L, op - 4, info);
    }
}

/* Fills dev[0..n) with a repeated pattern of 2^FILL_LOG (or n) elements. */
static g16_status fill(cuda_ctx *ctx, void *dev, size_t n, const fr_t *pattern, size_t plen)
{
    g16_status st = G16_OK;
    for (size_t off = 0; off < n && st == G16_OK; off += plen)
        st = cuda_ctx_upload(ctx, (char *)dev + off * sizeof(fr_t), pattern,
                             (n - off < plen ? n - off : plen) * sizeof(fr_t));
    return st;
}

/* Forward then inverse on dev must give the pattern back, every element. */
static bool round_trip(cuda_ctx *ctx, void *dev, unsigned L, const fr_t *pattern, size_t plen,
                       fr_t *tmp)
{
    size_t n = (size_t)1 << L;
    if (fill(ctx, dev, n, pattern, plen) != G16_OK ||
        cuda_ntt(ctx, CUDA_NTT_FORWARD, dev, L, NULL, NULL, NULL) != G16_OK ||
        cuda_ntt(ctx, CUDA_NTT_INVERSE, dev, L, NULL, NULL, NULL) != G16_OK)
        return false;
    for (size_t off = 0; off < n; off += plen) {
        size_t len = n - off < plen ? n - off : plen;
        if (cuda_ctx_download(ctx, tmp, (char *)dev + off * sizeof(fr_t), len * sizeof(fr_t)) !=
                G16_OK ||
            memcmp(tmp, pattern, len * sizeof(fr_t)) != 0)
            return false;
    }
    return true;
}

/* --check: inputs a, b, c of 2^L elements that no short period repeats: the pattern
 * plus or minus the index, b's pattern shifted by half its length. */
static void check_inputs(fr_t *a, fr_t *b, fr_t *c, size_t n, const fr_t *pattern, size_t plen)
{
    fr_t index, one;
    fr_zero(&index);
    fr_one(&one);
    for (size_t i = 0; i < n; i++) {
        fr_add(&a[i], &pattern[i % plen], &index);
        fr_add(&b[i], &pattern[(i + plen / 2) % plen], &index);
        fr_sub(&c[i], &pattern[i % plen], &index);
        fr_add(&index, &index, &one);
    }
}

/* --check: H in `convention` on the device buffers a, b, c equals the CPU's h_poly_compute,
 * every element; ha, hb, hc: host vectors of 2^L; tmp: plen elements. */
static bool h_check(cuda_ctx *ctx, void *a, void *b, void *c, unsigned L, int convention,
                    const fr_t *pattern, size_t plen, fr_t *ha, fr_t *hb, fr_t *hc, fr_t *tmp)
{
    size_t n = (size_t)1 << L;
    check_inputs(ha, hb, hc, n, pattern, plen);
    if (cuda_ctx_upload(ctx, a, ha, n * sizeof(fr_t)) != G16_OK ||
        cuda_ctx_upload(ctx, b, hb, n * sizeof(fr_t)) != G16_OK ||
        cuda_ctx_upload(ctx, c, hc, n * sizeof(fr_t)) != G16_OK ||
        cuda_h_poly(ctx, a, a, b, c, L, convention, NULL) != G16_OK ||
        h_poly_compute(ha, ha, hb, hc, L, (h_poly_convention)convention) != G16_OK) {
        printf("2^%u: H check failed to run: %s\n", L, g16_last_error());
        return false;
    }
    for (size_t off = 0; off < n; off += plen) {
        size_t len = n - off < plen ? n - off : plen;
        if (cuda_ctx_download(ctx, tmp, (char *)a + off * sizeof(fr_t), len * sizeof(fr_t)) !=
            G16_OK)
            return false;
        for (size_t i = 0; i < len; i++)
            if (memcmp(&tmp[i], &ha[off + i], sizeof(fr_t)) != 0) {
                printf("2^%u: H (%s) differs from the CPU's at index %zu\n", L,
                       convention ? "classic" : "snarkjs", off + i);
                return false;
            }
    }
    return true;
}

static int parse_sizes(const char *s, unsigned *sizes, int max)
{
    int count = 0;
    while (*s && count < max) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v > CUDA_NTT_MAX_LOG2N)
            return -1;
        sizes[count++] = (unsigned)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return count;
}

int main(int argc, char **argv)
{
    unsigned sizes[16] = {20, 24, 26, 27};
    int nsizes = 4;
    unsigned reps = 7;
    bool check = false, bad_args = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = true;
        else if (i + 1 < argc && !strcmp(argv[i], "--sizes"))
            nsizes = parse_sizes(argv[++i], sizes, 16);
        else if (i + 1 < argc && !strcmp(argv[i], "--reps"))
            reps = (unsigned)atoi(argv[++i]);
        else
            bad_args = true;
    }
    if (bad_args || nsizes <= 0 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: %s [--sizes 20,24,26,27] [--reps R (1..%d)] [--check]\n",
                argv[0], MAX_REPS);
        return 2;
    }
    cuda_ctx *ctx;
    g16_status st = cuda_ctx_create(&ctx, 0);
    if (st == G16_ERR_UNSUPPORTED) {
        printf("bench_gpu_ntt: no GPU (%s)\n", g16_last_error());
        return 77;
    }
    if (st != G16_OK) {
        fprintf(stderr, "bench_gpu_ntt: %s\n", g16_last_error());
        return 1;
    }
    printf("bench_gpu_ntt: %s, median of %u runs by CUDA events\n", cuda_ctx_describe(ctx),
           reps);

    size_t plen_max = (size_t)1 << FILL_LOG;
    fr_t *pattern = malloc(plen_max * sizeof(fr_t)), *tmp = malloc(plen_max * sizeof(fr_t));
    if (!pattern || !tmp) {
        fprintf(stderr, "bench_gpu_ntt: no host memory\n");
        return 1;
    }
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < plen_max; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        fr_from_u64(&pattern[i], seed);
        fr_mul(&pattern[i], &pattern[i], &pattern[i]); /* spread over the whole field */
    }
    fr_t shift, scale;
    fr_from_u64(&shift, 7);
    fr_from_u64(&scale, 3);

    char table[64][160];
    int rows = 0;
    int rc = 0;
    for (int si = 0; si < nsizes; si++) {
        unsigned L = sizes[si];
        size_t n = (size_t)1 << L, plen = n < plen_max ? n : plen_max;
        void *a = NULL, *b = NULL, *c = NULL;
        if ((st = cuda_ctx_alloc(ctx, &a, n * sizeof(fr_t))) != G16_OK ||
            (st = cuda_ctx_alloc(ctx, &b, n * sizeof(fr_t))) != G16_OK ||
            (st = cuda_ctx_alloc(ctx, &c, n * sizeof(fr_t))) != G16_OK ||
            (st = cuda_ntt_prepare(ctx, L)) != G16_OK) {
            printf("2^%u: skipped: %s\n", L, g16_last_error());
            cuda_ctx_release(ctx, a), cuda_ctx_release(ctx, b), cuda_ctx_release(ctx, c);
            continue;
        }
        bool ok = round_trip(ctx, a, L, pattern, plen, tmp);
        printf("2^%u: %.2f GiB per vector, twiddle table %.2f GiB, round trip %s\n", L,
               n * sizeof(fr_t) / 1073741824.0, cuda_ntt_table_bytes(L) / 1073741824.0,
               ok ? "exact" : "WRONG");
        if (!ok)
            rc = 1;
        if (check) {
            fr_t *ha = malloc(n * sizeof(fr_t)), *hb = malloc(n * sizeof(fr_t)),
                 *hc = malloc(n * sizeof(fr_t));
            for (int conv = 0; conv < 2; conv++) {
                bool same = ha && hb && hc &&
                            h_check(ctx, a, b, c, L, conv, pattern, plen, ha, hb, hc, tmp);
                printf("2^%u: H (%s) %s the CPU's\n", L, conv ? "classic" : "snarkjs",
                       same ? "equals" : !(ha && hb && hc) ? "(no host memory) unchecked against"
                                                          : "DIFFERS from");
                if (!same)
                    rc = 1;
            }
            free(ha), free(hb), free(hc);
        }
        if (fill(ctx, a, n, pattern, plen) != G16_OK || fill(ctx, b, n, pattern, plen) != G16_OK ||
            fill(ctx, c, n, pattern, plen) != G16_OK) {
            printf("2^%u: upload failed: %s\n", L, g16_last_error());
            rc = 1;
        }
        for (int op = 0; op < OPS; op++) {
            op_runs r;
            memset(&r, 0, sizeof r);
            cuda_ntt_info info;
            st = run_op(ctx, op, a, b, c, L, &shift, &scale, &info); /* warm-up */
            for (unsigned i = 0; i < reps && st == G16_OK; i++) {
                st = run_op(ctx, op, a, b, c, L, &shift, &scale, &info);
                r.ms[i] = info.ms_total;
                r.h_inverse[i] = info.ms_h_inverse;
                r.h_forward[i] = info.ms_h_forward;
                r.h_final[i] = info.ms_h_final;
                r.passes = info.passes;
                r.launches = info.launches;
                r.h_fused = info.h_fused;
            }
            if (st != G16_OK) {
                printf("2^%u %s: %s\n", L, op_names[op], g16_last_error());
                rc = 1;
                continue;
            }
            double ms = median(r.ms, reps), bytes, muls;
            op_cost(op, L, r.passes, &bytes, &muls);
            double floor_ms = bytes / 4.3e9;
            if (muls * 256 / 11.8e9 > floor_ms)
                floor_ms = muls * 256 / 11.8e9;
            if (op >= 4 && r.h_fused)
                printf("2^%u %s: %.3f ms = inverse+forward (fused) %.3f + final %.3f "
                       "(medians)\n",
                       L, op_names[op], ms, median(r.h_forward, reps), median(r.h_final, reps));
            else if (op >= 4)
                printf("2^%u %s: %.3f ms = inverse %.3f + forward %.3f + final %.3f (medians)\n",
                       L, op_names[op], ms, median(r.h_inverse, reps),
                       median(r.h_forward, reps), median(r.h_final, reps));
            if (rows < 64)
                snprintf(table[rows++], sizeof table[0],
                         "| %-18s | 2^%-2u | %9.3f | %8.1f | %7.1f | %6u | %8u | %8.2f |",
                         op_names[op], L, ms, bytes / (ms * 1e6), muls / (ms * 1e6), r.passes,
                         r.launches, ms / floor_ms);
            fflush(stdout);
        }
        cuda_ctx_release(ctx, a), cuda_ctx_release(ctx, b), cuda_ctx_release(ctx, c);
    }
    printf("\n| operation          | size |        ms |     GB/s | Gmul/s | passes | launches | x floor  |\n");
    printf("|--------------------|------|-----------|----------|---------|--------|----------|----------|\n");
    for (int i = 0; i < rows; i++)
        printf("%s\n", table[i]);
    free(pattern), free(tmp);
    cuda_ctx_free(ctx);
    return rc;
}

#else

int main(void)
{
    printf("bench_gpu_ntt: no GPU (this build has no CUDA backend)\n");
    return 77;
}

#endif
