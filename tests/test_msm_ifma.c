/* The G1 and G2 MSMs with their batch affine additions and tree inversions on AVX-512
 * IFMA (msm_g1_ifma_x86.c, msm_g2_ifma_x86.c) against the same MSMs on the scalar field
 * code (cpu_set_ifma(false), as G16_CPU_IFMA=0 does): the sums must be the same points,
 * and the same bytes in affine form. Sizes 0, 1, 2, 3, odd ones, powers of two and
 * 2^16 + 1 (G2: 2^14 + 1); dense, zero, one, repeated and mixed scalars; distinct,
 * repeated and infinity bases, at every byte alignment mod 8; batch affine forced down to tiny inputs (small batches);
 * window widths up to 17 (the larger batches the IFMA path takes from 2^15 buckets on);
 * 1 and 2 threads. Skipped (exit 77) where the CPU, the OS or the build lacks IFMA. */
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/cpu.h"
#include "harness.h"
#include "msm/msm.h"
#include "util/parallel.h"

enum { MIX_DENSE, MIX_ZERO, MIX_ONE, MIX_REPEATED, MIX_WITNESS, MIXES };
enum { BASES_DISTINCT, BASES_INFINITY, BASES_REPEATED, BASE_KINDS };

enum { G1, G2, GROUPS };
static uint8_t *bases_all[GROUPS]; /* max_n[g] distinct points [k0 + i] G, affine */
enum { MAX_N = (1 << 16) + 1, MAX_N_G2 = (1 << 14) + 1 };
static const size_t max_n[GROUPS] = {MAX_N, MAX_N_G2};
static const size_t base_bytes[GROUPS] = {sizeof(g1_affine_t), sizeof(g2_affine_t)};

static void make_bases(void)
{
    fr_t k;
    test_random_fr(&k);
    g1_jac_t *j1 = malloc(MAX_N * sizeof *j1), g1;
    bases_all[G1] = malloc(MAX_N * sizeof(g1_affine_t));
    g1_generator(&g1);
    g1_mul_vartime(&j1[0], &g1, &k);
    for (size_t i = 1; i < MAX_N; i++)
        g1_add(&j1[i], &j1[i - 1], &g1);
    g1_batch_to_affine((g1_affine_t *)bases_all[G1], j1, MAX_N);
    free(j1);
    g2_jac_t *j2 = malloc(MAX_N_G2 * sizeof *j2), g2;
    bases_all[G2] = malloc(MAX_N_G2 * sizeof(g2_affine_t));
    g2_generator(&g2);
    g2_mul_vartime(&j2[0], &g2, &k);
    for (size_t i = 1; i < MAX_N_G2; i++)
        g2_add(&j2[i], &j2[i - 1], &g2);
    g2_batch_to_affine((g2_affine_t *)bases_all[G2], j2, MAX_N_G2);
    free(j2);
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

/* out = the affine bytes of the MSM of group `group` with the IFMA path on or off. */
static void run(uint8_t *out, int group, bool ifma, const uint8_t *bases,
                const msm_scalars *s, const msm_options *opts)
{
    cpu_set_ifma(ifma);
    if (group == G1) {
        g1_jac_t j;
        g1_affine_t a;
        CHECK(msm_g1_run_with(&j, bases, s, opts) == G16_OK);
        g1_to_affine(&a, &j);
        fp_to_bytes_le(out, &a.x);
        fp_to_bytes_le(out + 48, &a.y);
    } else {
        g2_jac_t j;
        g2_affine_t a;
        CHECK(msm_g2_run_with(&j, bases, s, opts) == G16_OK);
        g2_to_affine(&a, &j);
        const fp_t *c[4] = {&a.x.c0, &a.x.c1, &a.y.c0, &a.y.c1};
        for (int i = 0; i < 4; i++)
            fp_to_bytes_le(out + 48 * i, c[i]);
    }
    cpu_set_ifma(true);
}

static void check_case(int group, size_t n, int mix, int kind, unsigned window,
                       msm_accumulate acc, unsigned threads)
{
    size_t bb = base_bytes[group], all = max_n[group];
    /* The bases at every alignment mod 8, as a .zkey's sections are (the vector walk
     * reads them in place). */
    size_t offset = (n + (size_t)kind + window) % 8;
    uint8_t *scalars = malloc(n * 32 + 1), *raw = malloc(n * bb + 8), *bases = raw + offset;
    uint8_t repeated[32];
    scalar_bytes(repeated, MIX_DENSE, NULL);
    size_t start = n < all ? test_rand64() % (all - n) : 0;
    memcpy(bases, bases_all[group] + start * bb, n * bb);
    for (size_t i = 0; i < n; i++) {
        scalar_bytes(scalars + 32 * i, mix, repeated);
        uint8_t *b = bases + i * bb;
        uint64_t u = test_rand64() % 100;
        if (kind == BASES_INFINITY && u < 10)
            memset(b, 0, bb);
        else if (kind == BASES_REPEATED && i > 0 && u < 50) /* P + P in batches */
            memcpy(b, bases + (u % i) * bb, bb);
    }
    msm_scalars *s = NULL;
    CHECK(msm_scalars_prepare_window(&s, scalars, n, window) == G16_OK);
    msm_options opts = {.accumulate = acc};
    parallel_set_threads(threads);
    uint8_t with[192], without[192];
    run(with, group, true, bases, s, &opts);
    run(without, group, false, bases, s, &opts);
    if (!CHECK_BYTES(with, without, bb, "IFMA against scalar MSM"))
        fprintf(stderr, "  G%d n=%zu mix=%d bases=%d window=%u accumulate=%d threads=%u\n",
                group + 1, n, mix, kind, window, (int)acc, threads);
    msm_scalars_free(s);
    free(scalars);
    free(raw);
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
    for (size_t round = 0; round < rounds; round++)
        for (int group = 0; group < GROUPS; group++) {
            size_t top = max_n[group];
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                size_t n = sizes[i];
                if (n > top || (!full && n > 4097))
                    break;
                int mix = (int)((i + round) % MIXES), kind = (int)((i + round) % BASE_KINDS);
                /* Batch affine even where AUTO would take XYZZ: the vector path at every
                 * batch length, including partial lane groups. */
                check_case(group, n, mix, kind, 0, MSM_ACCUMULATE_BATCH_AFFINE, 1);
                check_case(group, n, MIX_DENSE, kind, 0, MSM_ACCUMULATE_AUTO, 2);
            }
            for (int mix = 0; mix < MIXES; mix++)
                for (int kind = 0; kind < BASE_KINDS; kind++)
                    check_case(group, 777 + (size_t)mix, mix, kind, 0,
                               MSM_ACCUMULATE_BATCH_AFFINE, 1);
            /* Wide windows: 2^15 and 2^16 buckets, the IFMA path's larger batches. */
            for (unsigned c = 10; c <= 17; c++)
                check_case(group, full ? (group == G1 ? 20000 : 8000) : 3000, MIX_DENSE,
                           (int)(c % BASE_KINDS), c, MSM_ACCUMULATE_BATCH_AFFINE, 2);
            check_case(group, top, MIX_DENSE, BASES_DISTINCT, 0, MSM_ACCUMULATE_AUTO, 2);
            if (full)
                check_case(group, top, MIX_WITNESS, BASES_INFINITY, 0, MSM_ACCUMULATE_AUTO, 2);
        }
    return test_finish();
}
