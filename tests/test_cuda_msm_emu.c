/* The GPU MSM's batch-affine accumulation (msm_batch_affine.cuh) run on the host
 * (cuda_msm_affine_emulate: the kernels' thread bodies called thread by thread) against
 * the CPU's MSM, in any CUDA build, GPU or not; skipped (exit 77) without CUDA.
 *
 * The emulation returns every window's bucket sums; the test joins them (sum over k of
 * (k + 1) B_k per window, windows by c doublings) and compares the point with msm_g1 /
 * msm_g2 on the same inputs. Cases: sizes 0 .. 3001, window widths 4 to 9 bits, scalars
 * dense random, 90% one repeated value (long runs: many rounds), r - 1 and small values;
 * bases random, with infinities, with P, -P pairs and three points repeated (equal x:
 * doublings and P + (-P) inside the rounds). Each case runs with the device's defaults and
 * with knobs that reach the paths small inputs otherwise miss: rounds down to runs of 1,
 * one or three windows a group, up to 16 pairs a thread, the inversion's levels (4 and
 * 16 values a thread) down to 4 values for the CPU, a round's pairs in several chunks
 * (as the device's large rounds are); and with the windows reduced by split
 * sums (widths 2 to 13, then each window's sum comes back as its bucket 0), and with the
 * scalars split by the GLV endomorphism (glv.cuh; edge scalars t lambda + e as well), and
 * with a window's rounds run slice by slice (ba_slices, plain and GLV); and
 * the MSM with precomputed multiples of the bases (cuda_msm_mult_emulate, msm_mult.cuh),
 * its one set of buckets in one slice or many. The ones' sum (the same rounds over one bucket, cuda_msm_sum_emulate) is checked against
 * the CPU's additions on random lists. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifdef G16_HAVE_CUDA
#include "backend/cuda/cuda_backend.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "msm/msm.h"

#define MSM_TEST_POOL 512
#include "msm_test_points.h"

enum { MIX_RANDOM, MIX_SAME, MIX_EDGES, MIX_COUNT };
static const char *mix_names[] = {"random", "90% one value", "edges"};

/* GLV's lambda = z^2 - 1 (little-endian): edge scalars t lambda + e test the split's
 * corrections (glv.cuh). */
static const uint8_t glv_lambda_le[32] = {0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
                                          0x02, 0xa4, 0x01, 0x00, 0x01, 0xa4, 0x45, 0xac};

static void make_scalars(uint8_t *out, size_t n, int mix)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t u = test_rand64() % 100;
        fr_t k;
        if (mix == MIX_SAME && u < 90)
            fr_from_u64(&k, 0x1234567);
        else if (mix == MIX_EDGES && u < 30) {
            fr_one(&k);
            fr_neg(&k, &k); /* r - 1 */
        } else if (mix == MIX_EDGES && u < 50)
            fr_from_u64(&k, u * 977 + 2);
        else if (mix == MIX_EDGES && u < 60) {
            fr_t lam, t, e; /* lambda t + e, e in -1..1, t small or random */
            fr_from_bytes_le(&lam, glv_lambda_le);
            if (u < 55)
                fr_from_u64(&t, u % 5);
            else
                test_random_fr(&t);
            fr_mul(&k, &lam, &t);
            fr_from_u64(&e, 1);
            if (u % 3 == 1)
                fr_add(&k, &k, &e);
            else if (u % 3 == 2)
                fr_sub(&k, &k, &e);
        } else
            test_random_fr(&k);
        fr_to_bytes_le(out + 32 * i, &k);
    }
}

/* r = sum over windows w of 2^(c w) sum over k of (k + 1) buckets[w nb + k]. */
#define JOIN_WINDOWS(G, r, buckets, c)                                                   \
    do {                                                                                 \
        unsigned W_ = 255 / (c) + 1;                                                     \
        size_t nb_ = (size_t)1 << ((c) - 1);                                             \
        G##_set_infinity(r);                                                             \
        for (unsigned w_ = W_; w_-- > 0;) {                                              \
            for (unsigned i_ = 0; i_ < (c); i_++)                                        \
                G##_dbl(r, r);                                                           \
            G##_jac_t run_, sum_, t_;                                                    \
            G##_set_infinity(&run_);                                                     \
            G##_set_infinity(&sum_);                                                     \
            for (size_t kk_ = nb_; kk_-- > 0;) {                                         \
                G##_xyzz_to_jac(&t_, &(buckets)[w_ * nb_ + kk_]);                      \
                G##_add(&run_, &run_, &t_);                                              \
                G##_add(&sum_, &sum_, &run_);                                            \
            }                                                                            \
            G##_add(r, r, &sum_);                                                        \
        }                                                                                \
    } while (0)

/* The device's defaults, and knobs for small inputs (group_points: windows a group);
 * tunings 1 and 2 also run G1's pair kernels' other prefetch variants (1: ba_add's alone,
 * 2: none) and up to 64 and 16 pairs a thread. */
static const char *tuning_names[] = {
    "defaults",
    "tail 1, one window a group, K <= 64, levels, ba_add's prefetch alone, chunks of 37 pairs, "
    "list runs of 7 in pieces of ~50, the arena",
    "tail 3, three windows a group, K <= 16, wide levels, no prefetch, list runs of 64",
    "split sums",
    "split sums, one window a group, K <= 64, levels, chunks of 29 pairs",
    "GLV",
    "GLV, split sums, one window a group, K <= 64, levels, chunks of 64 pairs, the arena",
    "multiples, slices of 50 digits",
    "multiples, slices of n digits, K <= 64, levels, chunks of 50 pairs",
    "windows in slices of 50 digits",
    "split sums, windows in slices of 50 digits",
    "GLV, split sums, windows in slices of ~2n/3 digits, K <= 64, levels, the arena",
    "split sums, three windows a group"};

static cuda_msm_affine_tuning tuning_for(int t, size_t n)
{
    cuda_msm_affine_tuning tn = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (t == 1) /* a round's pairs in chunks of 37, a list's runs of 7 points in pieces of 49
                 * (whole runs), the rounds' buffers in the arena */
        tn = (cuda_msm_affine_tuning){1, (uint32_t)(n ? n : 1), 32, 4, 1u << 30, 0, 64, 1, 0, 0, 0, 37, 7,
                                      50, 1};
    else if (t == 2) /* a list's runs of 64 points */
        tn = (cuda_msm_affine_tuning){3, (uint32_t)(3 * (n ? n : 1)), 64, 8, 64, 1, 16, 0, 0, 0, 0, 0, 64, 0, 0};
    else if (t == 3)
        tn.split = 1;
    else if (t == 4)
        tn = (cuda_msm_affine_tuning){1, (uint32_t)(n ? n : 1), 32, 4, 1u << 30, 0, 64, 1, 1, 0, 0,
                                      29, 0, 0, 0}; /* chunks of 29 pairs */
    else if (t == 5)
        tn.glv = 1;
    else if (t == 6) /* a window of GLV holds 2 n digits */
        tn = (cuda_msm_affine_tuning){1, (uint32_t)(n ? 2 * n : 1), 32, 4, 1u << 30, 0, 64, 1, 1, 1, 0,
                                      64, 0, 0, 1};
    else if (t == 7) /* multiples: slices of ~50 digits (64 at most: fewer, larger) */
        tn.slice_points = 50;
    else if (t == 8) /* multiples: slices of ~n digits, K <= 64, levels */
        tn = (cuda_msm_affine_tuning){1, 0, 32, 4, 1u << 30, 0, 64, 1, 0, 0, (uint32_t)(n ? n : 1), 50, 0,
                                      0, 0};
    else if (t == 9) /* a window's rounds slice by slice (one window a group) */
        tn.slice_points = 50;
    else if (t == 10) {
        tn.split = 1;
        tn.slice_points = 50;
    } else if (t == 11) /* GLV's 2 n digits a window in three slices */
        tn = (cuda_msm_affine_tuning){1, 0, 32, 4, 1u << 30, 0, 64, 1, 1, 1,
                                      (uint32_t)(n > 2 ? (2 * n + 2) / 3 : 1), 0, 0, 0, 1};
    else if (t == 12) { /* several groups of several windows, one split-sum batch across them */
        tn.split = 1;
        tn.group_points = (uint32_t)(3 * (n ? n : 1));
    }
    return tn;
}

#define CHECK_CASE(G, group, pool, n, c, mix, kind, t)                                   \
    do {                                                                                 \
        G##_affine_t *b_ = malloc(((n) ? (n) : 1) * sizeof *b_);                         \
        uint8_t *k_ = malloc(((n) ? (n) : 1) * 32);                                      \
        size_t nbk_ = (size_t)(255 / (c) + 1) << ((c) - 1);                              \
        G##_xyzz_t *bk_ = malloc(nbk_ * sizeof *bk_);                                    \
        make_scalars(k_, (n), (mix));                                                    \
        MAKE_BASES(G, pool, b_, (n), (kind));                                            \
        cuda_msm_affine_tuning tn_ = tuning_for((t), (n));                               \
        size_t rounds_ = 0;                                                              \
        G##_jac_t want_, got_;                                                           \
        g16_status st_ = cuda_msm_affine_emulate((group), bk_, b_, k_, (n), (c),         \
                                                 (t) ? &tn_ : NULL, &rounds_);           \
        if (!CHECK(st_ == G16_OK))                                                       \
            printf("  %s n=%zu c=%u: %s\n", #G, (size_t)(n), (unsigned)(c),              \
                   g16_last_error());                                                    \
        else if (CHECK(msm_##G(&want_, (const uint8_t *)b_, k_, (n)) == G16_OK)) {        \
            JOIN_WINDOWS(G, &got_, bk_, (c));                                            \
            if (!CHECK(G##_equal(&got_, &want_)))                                        \
                printf("  %s n=%zu c=%u %s, bases %d, %s: differs (%zu rounds)\n", #G,    \
                       (size_t)(n), (unsigned)(c), mix_names[mix], (kind),               \
                       tuning_names[t], rounds_);                                        \
            /* Runs longer than the tail go through rounds. */                           \
            if ((mix) == MIX_SAME && (n) >= 64)                                          \
                CHECK(rounds_ > 0);                                                      \
        }                                                                                \
        free(b_);                                                                        \
        free(k_);                                                                        \
        free(bk_);                                                                       \
    } while (0)

/* The MSM with precomputed multiples (cuda_msm_mult_emulate: the table, then every
 * window's digits in one set of buckets, then split sums) against the CPU's. */
#define CHECK_MULT(G, group, pool, n, c, mix, kind, t)                                   \
    do {                                                                                 \
        G##_affine_t *b_ = malloc(((n) ? (n) : 1) * sizeof *b_);                         \
        uint8_t *k_ = malloc(((n) ? (n) : 1) * 32);                                      \
        make_scalars(k_, (n), (mix));                                                    \
        MAKE_BASES(G, pool, b_, (n), (kind));                                            \
        cuda_msm_affine_tuning tn_ = tuning_for((t), (n));                               \
        size_t rounds_ = 0;                                                              \
        G##_xyzz_t sum_;                                                                 \
        G##_jac_t want_, got_;                                                           \
        g16_status st_ = cuda_msm_mult_emulate((group), &sum_, b_, k_, (n), (c),         \
                                               (t) ? &tn_ : NULL, &rounds_);             \
        if (!CHECK(st_ == G16_OK))                                                       \
            printf("  %s multiples n=%zu c=%u: %s\n", #G, (size_t)(n), (unsigned)(c),    \
                   g16_last_error());                                                    \
        else if (CHECK(msm_##G(&want_, (const uint8_t *)b_, k_, (n)) == G16_OK)) {        \
            G##_xyzz_to_jac(&got_, &sum_);                                               \
            if (!CHECK(G##_equal(&got_, &want_)))                                        \
                printf("  %s multiples n=%zu c=%u %s, bases %d, %s: differs (%zu "       \
                       "rounds)\n",                                                      \
                       #G, (size_t)(n), (unsigned)(c), mix_names[mix], (kind),           \
                       tuning_names[t], rounds_);                                        \
            /* 2 W n digits in 2^(c-1) buckets: runs longer than one point. */          \
            if ((n) >= 64)                                                               \
                CHECK(rounds_ > 0);                                                      \
        }                                                                                \
        free(b_);                                                                        \
        free(k_);                                                                        \
    } while (0)

/* The ones' sum by the rounds (ba_sum_list) against the CPU's additions: n indices drawn
 * at random from n + 7 bases (repeats: equal points, so doublings and P + P in a run). */
#define CHECK_SUM(G, group, pool, n, kind, t)                                             \
    do {                                                                                 \
        size_t nb_ = (n) + 7;                                                            \
        G##_affine_t *b_ = malloc(nb_ * sizeof *b_);                                     \
        uint32_t *ix_ = malloc(((n) ? (n) : 1) * sizeof *ix_);                           \
        MAKE_BASES(G, pool, b_, nb_, (kind));                                            \
        G##_jac_t want_, got_;                                                           \
        G##_set_infinity(&want_);                                                        \
        for (size_t j_ = 0; j_ < (n); j_++) {                                            \
            ix_[j_] = (uint32_t)(test_rand64() % nb_);                                   \
            G##_add_mixed(&want_, &want_, &b_[ix_[j_]]);                                 \
        }                                                                                \
        cuda_msm_affine_tuning tn_ = tuning_for((t), (n));                               \
        G##_xyzz_t sum_;                                                                 \
        size_t rounds_ = 0;                                                              \
        g16_status st_ = cuda_msm_sum_emulate((group), &sum_, b_, nb_, ix_, (n),         \
                                              (t) ? &tn_ : NULL, &rounds_);              \
        if (!CHECK(st_ == G16_OK))                                                       \
            printf("  %s sum of %zu: %s\n", #G, (size_t)(n), g16_last_error());          \
        else {                                                                           \
            G##_xyzz_to_jac(&got_, &sum_);                                               \
            if (!CHECK(G##_equal(&got_, &want_)))                                        \
                printf("  %s sum of %zu, bases %d, %s: differs (%zu rounds)\n", #G,      \
                       (size_t)(n), (kind), tuning_names[t], rounds_);                   \
            /* A list longer than the tail goes through rounds; the defaults' runs of  \
             * 1024 points stop them after 7 (1024 / 2^7 = 8, the tail). */             \
            CHECK(((n) > 8) == (rounds_ > 0) || (t) != 0);                               \
            CHECK((n) <= 1024 || (t) != 0 || rounds_ == 7);                              \
        }                                                                                \
        free(b_);                                                                        \
        free(ix_);                                                                       \
    } while (0)

static void check_refusals(void)
{
    uint8_t k[2 * 32];
    memset(k, 0, sizeof k);
    memset(k + 32, 0xff, 32); /* >= r */
    g1_xyzz_t buckets[64 << 3];
    CHECK(cuda_msm_affine_emulate(1, buckets, pool1, k, 2, 4, NULL, NULL) == G16_ERR_BAD_ENCODING);
    CHECK(cuda_msm_affine_emulate(1, buckets, pool1, k, 1, 1, NULL, NULL) == G16_ERR_INVALID_ARGUMENT);
    CHECK(cuda_msm_affine_emulate(3, buckets, pool1, k, 1, 4, NULL, NULL) == G16_ERR_INVALID_ARGUMENT);
    uint32_t idx[2] = {0, 5};
    CHECK(cuda_msm_sum_emulate(1, buckets, pool1, 5, idx, 2, NULL, NULL) == G16_ERR_INVALID_ARGUMENT);
    CHECK(cuda_msm_sum_emulate(3, buckets, pool1, 6, idx, 2, NULL, NULL) == G16_ERR_INVALID_ARGUMENT);
    CHECK(cuda_msm_mult_emulate(1, buckets, pool1, k, 2, 4, NULL, NULL) == G16_ERR_BAD_ENCODING);
    CHECK(cuda_msm_mult_emulate(1, buckets, pool1, k, 1, 3, NULL, NULL) == G16_ERR_INVALID_ARGUMENT);
    CHECK(cuda_msm_mult_emulate(3, buckets, pool1, k, 1, 4, NULL, NULL) == G16_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    test_init("test_cuda_msm_emu");
    make_pools();
    check_refusals();
    const size_t sizes[] = {0, 1, 2, 3, 31, 257, 1000, 3001};
    const unsigned widths[] = {4, 6, 9};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 3; t++)
            for (int mix = 0; mix < MIX_COUNT; mix++) {
                int kind = (int)((s + (size_t)t + (size_t)mix) % 4);
                unsigned c = widths[(s + (size_t)mix) % 3];
                CHECK_CASE(g1, 1, pool1, sizes[s], c, mix, kind, t);
            }
    /* Groups sorted in line with the rounds rather than a group ahead (one sorted list,
     * not two in turn; tunings 1, 2 and 12 make several groups). */
    setenv("G16_GPU_MSM_SORT_AHEAD", "0", 1);
    const int inline_tunings[] = {1, 2, 12};
    for (size_t it = 0; it < sizeof inline_tunings / sizeof inline_tunings[0]; it++)
        for (int mix = 0; mix < MIX_COUNT; mix++) {
            int t = inline_tunings[it];
            CHECK_CASE(g1, 1, pool1, (size_t)1000, 6u, mix, (t + mix) % 4, t);
        }
    unsetenv("G16_GPU_MSM_SORT_AHEAD");
    /* At widths 2 to 13 (the top window smaller than the rest for 6, 9 and 13), tunings
     * 3-4: the windows reduced by split sums (the device's way from 21 bits up), one
     * window a group making several groups wait for one reduction; 5-6: GLV, the scalars
     * split by the endomorphism, 2 n digits a window over the bases and phi of them (beta
     * x from the table), with running sums and with split sums in groups of one window (a
     * wrong beta, lambda or split changes the MSM); 9-11: a window's rounds slice by slice
     * (ba_slices: the rounds' buffers hold a slice of whole buckets), with running and
     * split sums, GLV in three slices, MIX_SAME putting 90% of the digits in one bucket,
     * a slice longer than the buffers were made for (they grow; a wrong cut or slice
     * offset changes the MSM); 12: groups of three windows with split sums, one
     * reduction taking windows of two groups (the standalone MSMs' way at 2^26-2^27: a
     * group left out or reduced twice changes the MSM). G2 runs the GLV, slice and group
     * tunings. */
    const unsigned wide_widths[] = {2, 4, 6, 9, 13};
    const int wide_tunings[] = {3, 4, 5, 6, 9, 10, 11, 12};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t wt = 0; wt < sizeof wide_tunings / sizeof wide_tunings[0]; wt++)
            for (int mix = 0; mix < MIX_COUNT; mix++) {
                int t = wide_tunings[wt], kind = (int)((s + (size_t)t + (size_t)mix) % 4);
                unsigned c = wide_widths[(s + (size_t)mix + (size_t)t) % 5];
                CHECK_CASE(g1, 1, pool1, sizes[s], c, mix, kind, t);
            }
    for (size_t wt = 2; wt < sizeof wide_tunings / sizeof wide_tunings[0]; wt++)
        for (int mix = 0; mix < MIX_COUNT; mix++) {
            int t = wide_tunings[wt];
            CHECK_CASE(g2, 2, pool2, (size_t)300, 4u + (unsigned)mix, mix, (t + mix) % 4, t);
        }
    /* The windows' digits grouped by bucket_sort's path (ba_sort_group with the executor
     * prepared for it: the device's way from 16 bits, forced here from 12), in groups,
     * in line and in slices (whose cuts read the sorted keys where that path leaves
     * them: a wrong buffer changes the MSM). */
    setenv("G16_GPU_MSM_OWN_SORT", "1", 1);
    const int own_tunings[] = {0, 1, 3, 9, 10, 11, 12};
    for (size_t ot = 0; ot < sizeof own_tunings / sizeof own_tunings[0]; ot++)
        for (int mix = 0; mix < MIX_COUNT; mix++) {
            int t = own_tunings[ot];
            CHECK_CASE(g1, 1, pool1, (size_t)3001, 12u + (unsigned)(mix & 1), mix, (t + mix) % 4, t);
        }
    unsetenv("G16_GPU_MSM_OWN_SORT");
    /* Precomputed multiples (msm_mult.cuh): 2^(c w) P made by the device's code, every
     * window's digits of the GLV halves in one set of buckets, cut into one slice, many
     * (~50 digits each, 64 at most) or ~n digits each, then split sums over the buckets.
     * A wrong multiple, index stride or slice bound changes the MSM. */
    const size_t mult_sizes[] = {0, 1, 2, 3, 31, 257, 1000};
    const unsigned mult_widths[] = {4, 5, 6, 9, 13};
    for (size_t s = 0; s < sizeof mult_sizes / sizeof mult_sizes[0]; s++)
        for (int t = 0; t < 3; t++)
            for (int mix = 0; mix < MIX_COUNT; mix++) {
                int kind = (int)((s + (size_t)t + (size_t)mix) % 4);
                unsigned c = mult_widths[(s + (size_t)mix + (size_t)t) % 5];
                CHECK_MULT(g1, 1, pool1, mult_sizes[s], c, mix, kind, t == 0 ? 0 : 6 + t);
            }
    for (int t = 0; t < 3; t++)
        for (int mix = 0; mix < MIX_COUNT; mix++)
            CHECK_MULT(g2, 2, pool2, (size_t)300, 4u + (unsigned)mix, mix, (t + mix) % 4,
                       t == 0 ? 0 : 6 + t);
    /* The ones' sum: the list in runs through the rounds (one run up to 1024 points by
     * default; runs of 7 and 64 in tunings 1 and 2, tuning 1's in pieces of 7 runs, each
     * piece its own rounds into its runs' places: a wrong piece offset changes the sum),
     * the runs' sums by a tree. Tunings 1, 6 and 11 take the rounds' point buffers and
     * pair chunks from one growing region (the device's arena, carved at offsets: an
     * overlap of two buffers changes the MSM; tuning 11's slices grow it). */
    const size_t sum_sizes[] = {0, 1, 2, 8, 9, 64, 1000, 1025, 4097, 5000};
    for (size_t s = 0; s < sizeof sum_sizes / sizeof sum_sizes[0]; s++)
        for (int t = 0; t < 3; t++)
            CHECK_SUM(g1, 1, pool1, sum_sizes[s], (int)((s + (size_t)t) % 4), t);
    for (int t = 0; t < 3; t++)
        CHECK_SUM(g2, 2, pool2, (size_t)300, t + 1, t);
    /* G2: the same rounds over Fp2 (no prefetch there), with each pair's norm passed from
     * ba_denominators to ba_add (the default) and squared again there. */
    for (int t = 0; t < 3; t++)
        for (int mix = 0; mix < MIX_COUNT; mix++)
            CHECK_CASE(g2, 2, pool2, (size_t)300, 5u, mix, (t + mix) % 4, t);
    for (int mix = 0; mix < MIX_COUNT; mix++)
        CHECK_CASE(g2, 2, pool2, (size_t)300, 6u, mix, (mix + 1) % 4, 3 + mix % 2);
    setenv("G16_GPU_MSM_NORMS", "0", 1);
    for (int mix = 0; mix < MIX_COUNT; mix++)
        CHECK_CASE(g2, 2, pool2, (size_t)300, 5u, mix, mix % 4, 1);
    unsetenv("G16_GPU_MSM_NORMS");
    return test_finish();
}

#else

int main(void)
{
    test_init("test_cuda_msm_emu");
    test_skip("this build has no CUDA backend");
}

#endif
