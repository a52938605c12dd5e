/* The G1 MSM with its batch affine additions on AVX-512 IFMA (msm_g1_ifma_x86.c) against
 * the same MSM on the scalar field code (cpu_set_ifma(false), as G16_CPU_IFMA=0 does):
 * the sums must be the same points, and the same bytes in affine form. Sizes 0, 1, 2, 3,
 * odd ones, powers of two and 2^16 + 1; dense, zero, one, repeated and mixed scalars;
 * distinct, repeated and infinity bases; batch affine forced down to tiny inputs; window
 * widths up to 17 (the larger batches the IFMA path takes from 2^15 buckets on); 1 and 2
 * threads. Skipped (exit 77) where the CPU, the OS or the build lacks IFMA. */
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "field/cpu.h"
#include "harness.h"
#include "msm/msm.h"
#include "util/parallel.h"

enum { MIX_DENSE, MIX_ZERO, MIX_ONE, MIX_REPEATED, MIX_WITNESS, MIXES };
enum { BASES_DISTINCT, BASES_INFINITY, BASES_REPEATED, BASE_KINDS };

static uint8_t *bases_all; /* MAX_N distinct points [k0 + i] G, affine */
enum { MAX_N = (1 << 16) + 1 };

static void make_bases(void)
{
    g1_jac_t *jac = malloc(MAX_N * sizeof *jac), g;
    bases_all = malloc(MAX_N * sizeof(g1_affine_t));
    fr_t k;
    test_random_fr(&k);
    g1_generator(&g);
    g1_mul_vartime(&jac[0], &g, &k);
    for (size_t i = 1; i < MAX_N; i++)
        g1_add(&jac[i], &jac[i - 1], &g);
    g1_batch_to_affine((g1_affine_t *)bases_all, jac, MAX_N);
    free(jac);
}

static void scalar_bytes(uint8_t out[32], int mix, const uint8_t repeated[32])
{
    fr_t k;
    uint64_t u = test_rand64() % 100;
    switch (mix) {
    case MIX_ZERO:
        memset(out, 0, 32);
        return;
    case MIX_ONE:
        memset(out, 0, 32);
        out[0] = 1;
        return;
    case MIX_REPEATED:
        memcpy(out, repeated, 32);
        return;
    case MIX_WITNESS: /* 55% zeros, 30% ones, 15% random */
        if (u < 85) {
            memset(out, 0, 32);
            out[0] = u >= 55;
            return;
        }
        break;
    default:
        break;
    }
    test_random_fr(&k);
    fr_to_bytes_le(out, &k);
}

/* r = the MSM with the IFMA path on or off. */
static void run(g1_affine_t *r, bool ifma, const uint8_t *bases, const msm_scalars *s,
                const msm_options *opts)
{
    cpu_set_ifma(ifma);
    g1_jac_t j;
    CHECK(msm_g1_run_with(&j, bases, s, opts) == G16_OK);
    g1_to_affine(r, &j);
    cpu_set_ifma(true);
}

static void check_case(size_t n, int mix, int kind, unsigned window, msm_accumulate acc,
                       unsigned threads)
{
    uint8_t *scalars = malloc(n * 32 + 1), *bases = malloc(n * sizeof(g1_affine_t) + 1);
    uint8_t repeated[32];
    scalar_bytes(repeated, MIX_DENSE, NULL);
    size_t start = n < MAX_N ? test_rand64() % (MAX_N - n) : 0;
    memcpy(bases, bases_all + start * sizeof(g1_affine_t), n * sizeof(g1_affine_t));
    for (size_t i = 0; i < n; i++) {
        scalar_bytes(scalars + 32 * i, mix, repeated);
        uint8_t *b = bases + i * sizeof(g1_affine_t);
        uint64_t u = test_rand64() % 100;
        if (kind == BASES_INFINITY && u < 10)
            memset(b, 0, sizeof(g1_affine_t));
        else if (kind == BASES_REPEATED && i > 0 && u < 50) /* P + P in batches */
            memcpy(b, bases + (u % i) * sizeof(g1_affine_t), sizeof(g1_affine_t));
    }
    msm_scalars *s = NULL;
    CHECK(msm_scalars_prepare_window(&s, scalars, n, window) == G16_OK);
    msm_options opts = {.accumulate = acc};
    parallel_set_threads(threads);
    g1_affine_t with, without;
    run(&with, true, bases, s, &opts);
    run(&without, false, bases, s, &opts);
    uint8_t a[96], b[96];
    fp_to_bytes_le(a, &with.x);
    fp_to_bytes_le(a + 48, &with.y);
    fp_to_bytes_le(b, &without.x);
    fp_to_bytes_le(b + 48, &without.y);
    if (!CHECK_BYTES(a, b, sizeof a, "IFMA against scalar MSM"))
        fprintf(stderr, "  n=%zu mix=%d bases=%d window=%u accumulate=%d threads=%u\n", n,
                mix, kind, window, (int)acc, threads);
    msm_scalars_free(s);
    free(scalars);
    free(bases);
}

int main(void)
{
    test_init("test_msm_ifma");
    if (!cpu_ifma_available())
        test_skip("this CPU (or OS, or build) has no AVX-512 IFMA: nothing to compare");
    make_bases();
#ifdef NDEBUG
    bool full = true;
#else
    bool full = test_count(1) > 1; /* sanitizer builds: the big case once, dense */
#endif
    static const size_t sizes[] = {0,  1,   2,   3,   5,   7,    8,    9,    15,   16,
                                   17, 63,  64,  65,  255, 256,  257,  1000, 1023, 1024,
                                   1025, 4095, 4096, 4097, 16384, 16385};
    size_t rounds = test_count(1);
    for (size_t round = 0; round < rounds; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t n = sizes[i];
            if (!full && n > 4097)
                break;
            int mix = (int)((i + round) % MIXES), kind = (int)((i + round) % BASE_KINDS);
            /* Batch affine even where AUTO would take XYZZ: the vector path at every
             * batch length, including partial lane groups. */
            check_case(n, mix, kind, 0, MSM_ACCUMULATE_BATCH_AFFINE, 1);
            check_case(n, MIX_DENSE, kind, 0, MSM_ACCUMULATE_AUTO, 2);
        }
        for (int mix = 0; mix < MIXES; mix++)
            for (int kind = 0; kind < BASE_KINDS; kind++)
                check_case(777 + (size_t)mix, mix, kind, 0, MSM_ACCUMULATE_BATCH_AFFINE, 1);
        /* Wide windows: 2^15 and 2^16 buckets, the IFMA path's larger batches. */
        for (unsigned c = 10; c <= 17; c++)
            check_case(full ? 20000 : 3000, MIX_DENSE, (int)(c % BASE_KINDS), c,
                       MSM_ACCUMULATE_BATCH_AFFINE, 2);
        check_case(MAX_N, MIX_DENSE, BASES_DISTINCT, 0, MSM_ACCUMULATE_AUTO, 2);
        if (full)
            check_case(MAX_N, MIX_WITNESS, BASES_INFINITY, 0, MSM_ACCUMULATE_AUTO, 2);
    }
    return test_finish();
}
