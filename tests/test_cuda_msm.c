/* The CUDA backend's MSMs and whole partitions against the CPU, for equality (skipped,
 * exit 77, without a GPU or in a build without CUDA).
 *
 * MSM cases: sizes 0, 1, 2, 3, odd, powers of two and 2^k + 1 up to 2^21 (every window
 * width the GPU picks below 2^24 runs; bench_gpu_msm checks 2^24..2^27 by linearity);
 * scalar mixes dense random, all zero, all one, 55% zero / 30% one / 15% random, r - 1
 * and small values, 90% one repeated value (long buckets cut into pieces), given
 * canonical or in Montgomery form; bases random, with
 * infinities, with P, -P pairs and with repeats. Partitions: the committed snarkjs
 * fixtures proved by both backends with the same r, s give the same proof, and it
 * verifies; so do the GPU's proofs with the B2 MSM on the CPU, with H's MSM by GLV (its table
 * kept with the resident key) and with the key streamed
 * from host memory in small chunks instead of resident. MSMs with the bases' precomputed
 * multiples (msm_mult.cuh) over device arrays, at 13- and 26-bit windows, G1 and G2; and
 * with a window's rounds run slice by slice (the context's setting a partition planned
 * in slices makes: cuda_ctx_set_msm_slice_points), GLV and plain, G1 and G2, and again
 * in slices after injected out-of-memory failures (cuda_ctx_fail_allocs); two
 * contexts taking the device's MSM arena in turn from two threads at once; and one
 * classification of the scalars read by several MSMs, over all of them and over tails. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifdef G16_HAVE_CUDA
#include "backend/backend.h"
#include "groth16/prove.h"
#include "io/zkey.h"
#include "msm/msm.h"

static backend *gpu;

#define MSM_TEST_POOL 4096
#include "msm_test_points.h"

/* Scalar mixes. */
enum { MIX_RANDOM, MIX_ZERO, MIX_ONE, MIX_FILECOIN, MIX_EDGES, MIX_SAME, MIX_COUNT };
static const char *mix_names[] = {"random", "zero", "one", "55/30/15", "edges", "same"};

static void make_scalars(fr_t *k, size_t n, int mix)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t u = test_rand64() % 100;
        switch (mix) {
        case MIX_ZERO: fr_zero(&k[i]); break;
        case MIX_ONE: fr_one(&k[i]); break;
        case MIX_FILECOIN:
            if (u < 55)
                fr_zero(&k[i]);
            else if (u < 85)
                fr_one(&k[i]);
            else
                test_random_fr(&k[i]);
            break;
        case MIX_EDGES:
            if (u < 30) {
                fr_one(&k[i]);
                fr_neg(&k[i], &k[i]); /* r - 1 */
            } else if (u < 60)
                fr_from_u64(&k[i], u * 977 + 2);
            else
                test_random_fr(&k[i]);
            break;
        case MIX_SAME: /* one value (every window's digit in one bucket), a few others */
            if (u < 90)
                fr_from_u64(&k[i], 0x1234567);
            else
                test_random_fr(&k[i]);
            break;
        default: test_random_fr(&k[i]); break;
        }
    }
}

static void check_case(size_t n, int mix, int kind, bool montgomery, bool g2_too)
{
    fr_t *k = malloc((n ? n : 1) * sizeof *k);
    uint8_t *kb = malloc((n ? n : 1) * 32);
    g1_affine_t *b1 = malloc((n ? n : 1) * sizeof *b1);
    make_scalars(k, n, mix);
    for (size_t i = 0; i < n; i++)
        fr_to_bytes_le(kb + 32 * i, &k[i]);
    MAKE_BASES(g1, pool1, b1, n, kind);
    const void *scalars = montgomery ? (const void *)k : (const void *)kb;

    g1_jac_t want, got;
    CHECK(msm_g1(&want, (const uint8_t *)b1, kb, n) == G16_OK);
    g16_status st = gpu->msm_g1(gpu, &got, (const uint8_t *)b1, scalars, n, montgomery);
    if (!CHECK(st == G16_OK))
        printf("  G1 n=%zu: %s\n", n, g16_last_error());
    else if (!CHECK(g1_equal(&got, &want)))
        printf("  G1 n=%zu mix %s bases %d montgomery %d differs\n", n, mix_names[mix], kind,
               montgomery);
    if (g2_too) {
        g2_affine_t *b2 = malloc((n ? n : 1) * sizeof *b2);
        MAKE_BASES(g2, pool2, b2, n, kind);
        g2_jac_t want2, got2;
        CHECK(msm_g2(&want2, (const uint8_t *)b2, kb, n) == G16_OK);
        st = gpu->msm_g2(gpu, &got2, (const uint8_t *)b2, scalars, n, montgomery);
        if (!CHECK(st == G16_OK))
            printf("  G2 n=%zu: %s\n", n, g16_last_error());
        else if (!CHECK(g2_equal(&got2, &want2)))
            printf("  G2 n=%zu mix %s bases %d montgomery %d differs\n", n, mix_names[mix],
                   kind, montgomery);
        free(b2);
    }
    free(k);
    free(kb);
    free(b1);
}

/* quick: the sizes up to 2^16 + 1 only (the extra tail settings of the batch-affine path). */
static void check_msms(bool quick)
{
    const size_t sizes[] = {0, 1, 2, 3, 5, 31, 100, 1000, 4097, 1 << 14, (1 << 16) + 1};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int mix = 0; mix < MIX_COUNT; mix++)
            for (int kind = 0; kind < 4; kind++)
                check_case(sizes[s], mix, kind, (mix + kind) & 1, sizes[s] <= 4097);
    if (quick)
        return;
    /* Window widths of larger inputs (c = 13 up to 2^17 others, 16 above). */
    check_case((1 << 20) + 3, MIX_RANDOM, 0, false, false);
    check_case(1 << 21, MIX_FILECOIN, 1, true, false);
    check_case(1 << 19, MIX_RANDOM, 0, true, true);
    /* Long buckets cut into pieces: 90% of 2^20 points in one bucket per window. */
    check_case(1 << 20, MIX_SAME, 0, false, true);
    /* A scalar >= r is refused with its index. */
    uint8_t bad[3 * 32];
    memset(bad, 0, sizeof bad);
    memset(bad + 32, 0xff, 32);
    g1_jac_t r;
    CHECK(gpu->msm_g1(gpu, &r, (const uint8_t *)pool1, bad, 3, false) == G16_ERR_BAD_ENCODING);
}

/* Device memory held by a test (ballast_take) so that only about `leave` bytes stay free:
 * a real out-of-memory for what runs next, not an injected one. */
typedef struct {
    void **blocks;
    size_t count;
} ballast;

/* The pool gives its free blocks back to the device when an allocation fails for memory
 * (cuda_pool_alloc), so one larger than the device empties it. */
static void pool_empty(cuda_ctx *ctx)
{
    cuda_memory_info mi;
    void *none = NULL;
    cuda_ctx_sample_memory(ctx, &mi);
    if (cuda_ctx_alloc(ctx, &none, 2 * mi.device_total) == G16_OK)
        cuda_ctx_release(ctx, none);
}

/* Blocks of at most 256 MiB until the device has at most `leave` bytes (plus one 2 MiB
 * granule) free, the pool emptied first so that its cached blocks do not count. */
static g16_status ballast_take(cuda_ctx *ctx, size_t leave, ballast *b)
{
    const size_t block = (size_t)256 << 20, granule = (size_t)2 << 20;
    size_t cap = 0;
    pool_empty(ctx);
    for (;;) {
        cuda_memory_info mi;
        cuda_ctx_sample_memory(ctx, &mi);
        size_t avail = mi.device_total - mi.device_used;
        if (avail <= leave + granule)
            return G16_OK;
        size_t take = avail - leave < block ? (avail - leave) / granule * granule : block;
        if (b->count == cap) {
            cap = cap ? 2 * cap : 512;
            void **grown = realloc(b->blocks, cap * sizeof *grown);
            if (!grown)
                return G16_ERR_OUT_OF_MEMORY;
            b->blocks = grown;
        }
        g16_status st = cuda_ctx_alloc(ctx, &b->blocks[b->count], take);
        if (st)
            return st;
        b->count++;
    }
}

static void ballast_give_back(cuda_ctx *ctx, ballast *b)
{
    for (size_t i = 0; i < b->count; i++)
        cuda_ctx_release(ctx, b->blocks[i]);
    free(b->blocks);
    b->blocks = NULL;
    b->count = 0;
    pool_empty(ctx);
}

/* check_device_case's MSM runs with only this many bytes of device memory free
 * (ballast_take; 0: all there is). */
static size_t device_case_leave;

/* An MSM over device arrays, G1 or G2, against the CPU: with the bases' precomputed
 * multiples for mult_bits-bit windows (cuda_msm_mult_table, msm_mult.cuh) unless 0, and
 * with the context's windows cut into slices of about slice_points digits
 * (cuda_ctx_set_msm_slice_points, as a partition planned in slices sets it) unless 0,
 * and with device_case_leave bytes of device memory free when that is set.
 * Returns what the MSM reported (cuda_msm_info: its slices and pieces among them). */
static cuda_msm_info check_device_case(size_t n, int mix, int kind, int group, unsigned mult_bits,
                                  uint32_t slice_points)
{
    cuda_ctx *ctx = backend_cuda_ctx(gpu);
    size_t psize = group == 1 ? sizeof(g1_affine_t) : sizeof(g2_affine_t);
    fr_t *k = malloc((n ? n : 1) * sizeof *k);
    uint8_t *kb = malloc((n ? n : 1) * 32);
    void *b = malloc((n ? n : 1) * psize);
    void *db = NULL, *ds = NULL, *dm = NULL;
    make_scalars(k, n, mix);
    for (size_t i = 0; i < n; i++)
        fr_to_bytes_le(kb + 32 * i, &k[i]);
    if (group == 1)
        MAKE_BASES(g1, pool1, (g1_affine_t *)b, n, kind);
    else
        MAKE_BASES(g2, pool2, (g2_affine_t *)b, n, kind);
    g16_status st;
    cuda_msm_info info = {0};
    ballast held = {0};
    bool same = false;
    if ((st = cuda_ctx_alloc(ctx, &db, (n ? n : 1) * psize)) ||
        (st = cuda_ctx_alloc(ctx, &ds, (n ? n : 1) * 32)) ||
        (mult_bits && (st = cuda_ctx_alloc(ctx, &dm, (n ? cuda_msm_mult_count(n, mult_bits) : 1) * psize))) ||
        (st = cuda_ctx_upload(ctx, db, b, n * psize)) || (st = cuda_ctx_upload(ctx, ds, kb, n * 32)) ||
        (mult_bits && (st = cuda_msm_mult_table(ctx, group, dm, db, n, mult_bits))) ||
        (device_case_leave && (st = ballast_take(ctx, device_case_leave, &held))))
        goto out;
    cuda_msm_mult mult = {dm, mult_bits};
    cuda_ctx_set_msm_slice_points(ctx, slice_points);
    if (group == 1) {
        g1_jac_t want, got;
        if ((st = backend_cuda_msm_g1(ctx, &got, &info, db, NULL, mult_bits ? &mult : NULL, ds, n,
                                      false)) ||
            (st = msm_g1(&want, b, kb, n)))
            goto out;
        same = g1_equal(&got, &want);
    } else {
        g2_jac_t want, got;
        if ((st = backend_cuda_msm_g2(ctx, &got, &info, db, NULL, mult_bits ? &mult : NULL, ds, n,
                                      false)) ||
            (st = msm_g2(&want, b, kb, n)))
            goto out;
        same = g2_equal(&got, &want);
    }
out:
    cuda_ctx_set_msm_slice_points(ctx, 0);
    if (held.count)
        ballast_give_back(ctx, &held);
    if (!CHECK(st == G16_OK))
        printf("  G%d n=%zu multiples c=%u slices of %u: %s (others %zu, ones %zu, %u windows "
               "of %u bits, GLV %d, split %d, %u slices)\n",
               group, n, mult_bits, slice_points, g16_last_error(), (size_t)info.others,
               (size_t)info.ones, info.windows, info.window_bits, (int)info.glv, (int)info.split,
               info.slices);
    else if (!CHECK(same))
        printf("  G%d n=%zu multiples c=%u slices of %u mix %s bases %d differs\n", group, n,
               mult_bits, slice_points, mix_names[mix], kind);
    else if (mult_bits) /* the others went through the multiples */
        CHECK(info.mult || info.others == 0);
    else if (slice_points) { /* and the windows through slices */
        size_t digits = info.glv ? 2 * info.others : info.others;
        if (!CHECK(info.affine_rounds == 0 || digits <= 2 * (size_t)slice_points || info.slices > 1))
            printf("  G%d n=%zu: %zu digits a window went through %u slices of %u\n", group, n,
                   digits, info.slices, slice_points);
    }
    cuda_ctx_release(ctx, db);
    cuda_ctx_release(ctx, ds);
    cuda_ctx_release(ctx, dm);
    free(k);
    free(kb);
    free(b);
    return info;
}

/* One classification read by several MSMs (cuda_msm_scalars_classify, as a partition's A
 * and C, B1 and B2 share theirs): G1 and G2 over all n scalars, then G1 over the tail
 * from `from` (cuda_msm_scalars_from, renumbered from 0) with bases of its own, then over
 * the tail of that tail; each against the CPU's MSM of the same scalars. With
 * G16_GPU_MSM_GLV=1 the shared MSMs must still leave the canonical values whole. */
static void check_shared_case(size_t n, size_t from, int mix, bool montgomery)
{
    cuda_ctx *ctx = backend_cuda_ctx(gpu);
    size_t from2 = (n - from) / 2, m = n ? n : 1;
    fr_t *k = malloc(m * sizeof *k);
    uint8_t *kb = malloc(m * 32);
    g1_affine_t *b1 = malloc(m * sizeof *b1), *bc = malloc(m * sizeof *bc);
    g2_affine_t *b2 = malloc(m * sizeof *b2);
    void *ds = NULL, *db1 = NULL, *dbc = NULL, *db2 = NULL;
    cuda_msm_scalars *sc = NULL;
    make_scalars(k, n, mix);
    for (size_t i = 0; i < n; i++)
        fr_to_bytes_le(kb + 32 * i, &k[i]);
    MAKE_BASES(g1, pool1, b1, n, (int)(n % 4));
    MAKE_BASES(g1, pool1, bc, n, (int)((n + 1) % 4));
    MAKE_BASES(g2, pool2, b2, n, (int)((n + 2) % 4));
    const char *step = "upload";
    bool same = true;
    double ms = 0;
    g1_jac_t want1, got1;
    g2_jac_t want2, got2;
    g16_status st;
    if ((st = cuda_ctx_alloc(ctx, &ds, m * 32)) || (st = cuda_ctx_alloc(ctx, &db1, m * sizeof *b1)) ||
        (st = cuda_ctx_alloc(ctx, &dbc, m * sizeof *bc)) ||
        (st = cuda_ctx_alloc(ctx, &db2, m * sizeof *b2)) ||
        (st = cuda_ctx_upload(ctx, ds, montgomery ? (const void *)k : (const void *)kb, n * 32)) ||
        (st = cuda_ctx_upload(ctx, db1, b1, n * sizeof *b1)) ||
        (st = cuda_ctx_upload(ctx, dbc, bc, n * sizeof *bc)) ||
        (st = cuda_ctx_upload(ctx, db2, b2, n * sizeof *b2)))
        goto out;
    step = "classify";
    if ((st = cuda_msm_scalars_classify(ctx, &sc, ds, n, montgomery, &ms)))
        goto out;
    step = "G1, all";
    if ((st = backend_cuda_msm_shared_g1(ctx, &got1, NULL, db1, sc)) ||
        (st = msm_g1(&want1, (const uint8_t *)b1, kb, n)) || !(same = g1_equal(&got1, &want1)))
        goto out;
    step = "G2, all";
    if ((st = backend_cuda_msm_shared_g2(ctx, &got2, NULL, db2, sc)) ||
        (st = msm_g2(&want2, (const uint8_t *)b2, kb, n)) || !(same = g2_equal(&got2, &want2)))
        goto out;
    step = "G1, the tail";
    if ((st = cuda_msm_scalars_from(sc, from)) ||
        (st = backend_cuda_msm_shared_g1(ctx, &got1, NULL, dbc, sc)) ||
        (st = msm_g1(&want1, (const uint8_t *)bc, kb + 32 * from, n - from)) ||
        !(same = g1_equal(&got1, &want1)))
        goto out;
    step = "G1, the tail's tail";
    if ((st = cuda_msm_scalars_from(sc, from2)) ||
        (st = backend_cuda_msm_shared_g1(ctx, &got1, NULL, db1, sc)) ||
        (st = msm_g1(&want1, (const uint8_t *)b1, kb + 32 * (from + from2), n - from - from2)) ||
        !(same = g1_equal(&got1, &want1)))
        goto out;
    step = "past the end";
    if (!CHECK(cuda_msm_scalars_from(sc, n - from - from2 + 1) == G16_ERR_INVALID_ARGUMENT))
        printf("  a classification's tail past its end was taken\n");
out:
    if (!CHECK(st == G16_OK))
        printf("  shared n=%zu from %zu: %s: %s\n", n, from, step, g16_last_error());
    else if (!CHECK(same))
        printf("  shared n=%zu from %zu (then %zu) mix %s montgomery %d: %s differs\n", n, from,
               from2, mix_names[mix], montgomery, step);
    cuda_msm_scalars_free(sc);
    cuda_ctx_release(ctx, ds);
    cuda_ctx_release(ctx, db1);
    cuda_ctx_release(ctx, dbc);
    cuda_ctx_release(ctx, db2);
    free(k);
    free(kb);
    free(b1);
    free(bc);
    free(b2);
}

static void check_shared(void)
{
    const size_t sizes[] = {0, 1, 5, 100, 4097, 70001};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int mix = 0; mix < MIX_COUNT; mix++) {
            size_t n = sizes[s], from = mix % 3 == 0 ? 0 : mix % 3 == 1 ? (n > 0) : n / 3;
            check_shared_case(n, from, mix, (s + (size_t)mix) & 1);
        }
    /* The batch-affine rounds and the ones' list by rounds, with GLV asked for. */
    setenv("G16_GPU_MSM_GLV", "1", 1);
    check_shared_case((1 << 20) + 5, 3, MIX_RANDOM, true);
    check_shared_case((1 << 21) + 1, 1000, MIX_FILECOIN, false);
    unsetenv("G16_GPU_MSM_GLV");
}

/* bucket_sort (the batch-affine MSM's window sort) against a counting sort on the host:
 * every key's run where the counts put it (plus the base), holding the same values
 * (compared sorted: the order within a run is free), the keys in key order. Keys:
 * uniform over 0..2^(c-1) (the last the zero digits), one value, eight values, 90% zero
 * digits, all in one segment's keys (its 2^(c-11) lowest: a segment longer than a
 * second-pass chunk takes the several-block path), half one value; widths 12 to 24;
 * each of the first pass's block shapes; second-pass chunks of 2^12 and 2^19 digits
 * besides the default 2^14 (each segment past a chunk cut into several, beside the
 * shorter ones that a block takes whole). */
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void check_bucket_sort_case(size_t m, unsigned c, int dist, unsigned spread, unsigned chunk)
{
    const uint32_t nb = 1u << (c - 1), low = 1u << (c - 11), base = (uint32_t)(m * (c % 3));
    uint32_t *keys = malloc(m * 4), *vals = malloc(m * 4), *ko = malloc(m * 4), *vo = malloc(m * 4);
    uint32_t *want = malloc(m * 4), *st = malloc((size_t)nb * 4), *en = malloc((size_t)nb * 4);
    size_t *at = calloc((size_t)nb + 2, sizeof *at);
    const uint32_t one = (uint32_t)(test_rand64() % nb), seg = (uint32_t)(test_rand64() % 1024);
    for (size_t i = 0; i < m; i++) {
        uint64_t u = test_rand64();
        uint32_t any = (uint32_t)(u % ((uint64_t)nb + 1));
        switch (dist) {
        case 0: keys[i] = any; break;
        case 1: keys[i] = one; break;
        case 2: keys[i] = (one + (uint32_t)(u % 8) * 977) % nb; break;
        case 3: keys[i] = (u >> 40) % 10 ? nb : any; break;
        case 4: keys[i] = seg * low + (uint32_t)(u % low); break;
        default: keys[i] = (u >> 40) % 2 ? one : any; break;
        }
        vals[i] = (uint32_t)i ^ 0x5bd1e995u;
    }
    g16_status stt = cuda_bucket_sort_check(backend_cuda_ctx(gpu), keys, vals, m, c, base, spread,
                                          chunk, ko, vo, st, en);
    bool ok = CHECK(stt == G16_OK);
    if (!ok)
        printf("  bucket sort m=%zu c=%u shape %u chunk %u: %s\n", m, c, spread, chunk,
               g16_last_error());
    /* The counting sort: at[k] the first place of key k. */
    for (size_t i = 0; ok && i < m; i++)
        at[keys[i] + 1]++;
    for (size_t k = 0; k <= nb; k++)
        at[k + 1] += at[k];
    size_t bad_bounds = 0, bad_keys = 0, bad_vals = 0;
    for (uint32_t k = 0; ok && k < nb; k++) {
        size_t n = at[k + 1] - at[k];
        uint32_t ws = n ? base + (uint32_t)at[k] : 0, we = n ? ws + (uint32_t)n : 0;
        bad_bounds += st[k] != ws || en[k] != we;
    }
    for (size_t i = 0; ok && i < m; i++)
        want[at[keys[i]]++] = vals[i];
    for (size_t k = 0, p = 0; ok && k <= nb; k++) {
        size_t e = at[k]; /* now the end of key k's run */
        for (size_t q = p; q < e; q++)
            bad_keys += ko[q] != k;
        if (e - p > 1) {
            qsort(want + p, e - p, 4, cmp_u32);
            qsort(vo + p, e - p, 4, cmp_u32);
        }
        bad_vals += memcmp(want + p, vo + p, (e - p) * 4) != 0;
        p = e;
    }
    if (!CHECK(ok && !bad_bounds && !bad_keys && !bad_vals))
        printf("  bucket sort m=%zu c=%u keys %d shape %u chunk %u: %zu bounds, %zu keys, %zu "
               "runs' values differ\n", m, c, dist, spread, chunk, bad_bounds, bad_keys, bad_vals);
    free(keys), free(vals), free(ko), free(vo), free(want), free(st), free(en), free(at);
}

static void check_bucket_sort(void)
{
    const size_t sizes[] = {1, 1000, 4097, 100003, (1 << 20) + 3, 3 << 20};
    const unsigned widths[] = {12, 16, 20, 22, 24};
    size_t cases = 0;
    for (unsigned spread = 0; spread < CUDA_BUCKET_SORT_SPREADS; spread++)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                for (int dist = 0; dist < 6; dist++) {
                    /* The largest size at two widths, and the other first-pass shapes at
                     * those two widths alone: every path, in less time. */
                    bool two = widths[w] == 16 || widths[w] == 22;
                    if ((sizes[s] > (1 << 20) || spread > 0) && !two)
                        continue;
                    check_bucket_sort_case(sizes[s], widths[w], dist, spread, 0);
                    cases++;
                }
    /* Second-pass chunks other than the default (the first shape's pass 1): the
     * smallest, 2^12, whose chunks split even the 100003 digits' segments, and 2^19,
     * sessions 31-33's, where a block takes every segment of these sizes whole but the
     * one-segment keys'. From 4097 digits up: below, every segment is shorter than
     * 2^12 whatever the keys, and the chunk changes nothing. */
    const unsigned chunks[] = {12, 19};
    for (size_t q = 0; q < sizeof chunks / sizeof chunks[0]; q++)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
            for (size_t s = 2; s < sizeof sizes / sizeof sizes[0]; s++)
                for (int dist = 0; dist < 6; dist++) {
                    if (sizes[s] > (1 << 20) && widths[w] != 22)
                        continue;
                    check_bucket_sort_case(sizes[s], widths[w], dist, 0, chunks[q]);
                    cases++;
                }
    printf("  %zu bucket sorts\n", cases);
}

/* A window's rounds slice by slice (the context's setting, as a 2^27 partition's H MSM
 * by GLV in slices): GLV and plain, running and split sums, G1 and G2, one bucket holding
 * 90% of the digits (a slice longer than the rounds' buffers were made for), and more
 * slices than the most a window takes (64: larger ones). */
static void check_slices(void)
{
    setenv("G16_GPU_MSM_AFFINE", "1", 1);
    setenv("G16_GPU_MSM_OWN_SORT", "1", 1); /* bucket_sort from 12-bit windows (2^16 + 1: 13) */
    const size_t sizes[] = {3, 100, 4097, (1 << 16) + 1};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int mix = 0; mix < MIX_COUNT; mix++) {
            setenv("G16_GPU_MSM_GLV", (s + (size_t)mix) % 2 ? "1" : "0", 1);
            setenv("G16_GPU_MSM_SPLIT", (s + (size_t)mix) % 3 ? "1" : "0", 1);
            check_device_case(sizes[s], mix, (int)((s + (size_t)mix) % 4),
                              sizes[s] <= 4097 && mix % 2 ? 2 : 1, 0, 1500);
        }
    unsetenv("G16_GPU_MSM_SPLIT");
    unsetenv("G16_GPU_MSM_AFFINE");
    unsetenv("G16_GPU_MSM_OWN_SORT");
    setenv("G16_GPU_MSM_GLV", "1", 1);
    check_device_case((1 << 20) + 3, MIX_RANDOM, 0, 1, 0, 1 << 19);
    check_device_case(1 << 18, MIX_SAME, 1, 1, 0, 1 << 15);
    check_device_case(1 << 16, MIX_EDGES, 2, 2, 0, 1 << 14);
    unsetenv("G16_GPU_MSM_GLV");
}

/* A standalone MSM whose windows run out of device memory goes again with its windows in
 * slices (cuda_msm.cu's slice_on_oom): the first `fails` allocations of a window's sort
 * keys fail by injection (cuda_ctx_fail_allocs), one a try, so the MSM must come out
 * exact in 2^fails slices. (The keys: only the windows' path allocates them, where the
 * rounds' point buffers serve the ones' sum too, which goes in pieces on its own
 * failures: check_oom_pieces; the mix has ones.) G1 and G2, plain and by GLV (two digits a scalar), running and split
 * sums. */
static void check_oom_slices(void)
{
    static const char what[] = "MSM sort keys";
    static const struct {
        size_t n;
        int group, fails;
        const char *glv, *split;
    } cases[] = {
        {150001, 1, 1, "0", "0"},
        {150001, 2, 1, "1", "1"},
        {(1 << 18) + 7, 1, 3, "1", "1"},
        {(1 << 17) + 3, 2, 2, "1", "0"},
    };
    cuda_ctx *ctx = backend_cuda_ctx(gpu);
    setenv("G16_GPU_MSM_AFFINE", "1", 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("G16_GPU_MSM_GLV", cases[i].glv, 1);
        setenv("G16_GPU_MSM_SPLIT", cases[i].split, 1);
        cuda_ctx_fail_allocs(ctx, what, cases[i].fails);
        unsigned slices =
            check_device_case(cases[i].n, MIX_RANDOM, (int)(i % 4), cases[i].group, 0, 0).slices;
        unsigned want = 1u << cases[i].fails;
        int left = cuda_ctx_fail_allocs(ctx, NULL, 0);
        if (!CHECK(slices == want && left == 0))
            printf("  G%d n=%zu GLV %s: %d injected failures (%d not reached) gave %u slices, "
                   "not %u\n",
                   cases[i].group, cases[i].n, cases[i].glv, cases[i].fails, left, slices, want);
    }
    unsetenv("G16_GPU_MSM_AFFINE");
    unsetenv("G16_GPU_MSM_GLV");
    unsetenv("G16_GPU_MSM_SPLIT");
}

/* The same for the ones' list (cuda_msm.cu's piece_on_oom): the first `fails`
 * allocations of the list's runs' sums (only ba_sum_list allocates them) fail by
 * injection, so a 55/30/15 mix's ones must be summed exactly in more than 2^(fails - 1)
 * and at most 2^fails pieces of whole runs. G1 and G2, ~45000 to ~79000 ones. */
static void check_oom_pieces(void)
{
    static const char what[] = "MSM list runs' sums";
    static const struct {
        size_t n;
        int group, fails;
    } cases[] = {
        {150001, 1, 1},
        {150001, 1, 3},
        {(1 << 17) + 3, 2, 2},
        {(1 << 18) + 7, 1, 4},
    };
    cuda_ctx *ctx = backend_cuda_ctx(gpu);
    setenv("G16_GPU_MSM_AFFINE", "1", 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuda_ctx_fail_allocs(ctx, what, cases[i].fails);
        cuda_msm_info info = check_device_case(cases[i].n, MIX_FILECOIN, (int)(i % 4), cases[i].group, 0, 0);
        unsigned most = 1u << cases[i].fails;
        int left = cuda_ctx_fail_allocs(ctx, NULL, 0);
        if (!CHECK(info.ones_pieces > most / 2 && info.ones_pieces <= most && left == 0))
            printf("  G%d n=%zu, %zu ones: %d injected failures (%d not reached) gave %u pieces, "
                   "not %u to %u\n",
                   cases[i].group, cases[i].n, info.ones, cases[i].fails, left, info.ones_pieces,
                   most / 2 + 1, most);
    }
    unsetenv("G16_GPU_MSM_AFFINE");
}

/* A real out-of-memory, not an injected one (check_oom_slices and check_oom_pieces
 * inject theirs): the device held (ballast_take) so that 1 GiB stays free for a G1 MSM of
 * 2^21 + 1 random scalars with its windows in one group (~3 GB of rounds' buffers, ~0.35
 * GB in two slices of one window), then 450 MiB for 2^22 ones (~0.17 GB of classified
 * scalars plus ~0.42 GB of rounds' buffers whole, ~0.21 GB in two pieces). Each must
 * equal the CPU's, the windows in slices and the ones in pieces. */
static void check_real_oom(void)
{
    setenv("G16_GPU_MSM_AFFINE", "1", 1);
    setenv("G16_GPU_MSM_GLV", "0", 1);
    device_case_leave = (size_t)1 << 30;
    cuda_msm_info a = check_device_case((1 << 21) + 1, MIX_RANDOM, 0, 1, 0, 0);
    if (!CHECK(a.slices > 1))
        printf("  G1 n=2^21+1 with 1 GiB free: %u slices (%zu others, %u windows of %u bits)\n",
               a.slices, a.others, a.windows, a.window_bits);
    device_case_leave = (size_t)450 << 20;
    cuda_msm_info b = check_device_case(1 << 22, MIX_ONE, 1, 1, 0, 0);
    if (!CHECK(b.ones_pieces > 1))
        printf("  G1 2^22 ones with 450 MiB free: %u pieces\n", b.ones_pieces);
    printf("  with the device held: %u slices, %u pieces\n", a.slices, b.ones_pieces);
    device_case_leave = 0;
    unsetenv("G16_GPU_MSM_AFFINE");
    unsetenv("G16_GPU_MSM_GLV");
}

/* Two contexts of one device taking the MSM arena in turn (cuda_ctx_set_msm_arena, as
 * a partition's two workers do when the pipeline planned one), each on its own thread
 * and stream with its own bases and scalars, four MSMs each at once: G1 by GLV (its
 * windows whole, the rounds' buffers in the arena), and the ones of a 55/30/15 mix in
 * pieces of ~5000 points (G16_GPU_MSM_LIST_PIECE, in the context's pool). Every result
 * equals the CPU's: a context reading the arena while the other's kernels write it
 * would not. */
typedef struct {
    cuda_ctx *ctx;
    size_t n;
    int mix;
    g1_affine_t *bases;
    uint8_t *scalars;
    g1_jac_t got[4];
    g16_status st;
    char error[256];
} arena_job;

static void *arena_thread(void *arg)
{
    arena_job *j = arg;
    void *db = NULL, *ds = NULL;
    cuda_msm_info info;
    j->st = cuda_ctx_alloc(j->ctx, &db, j->n * sizeof(g1_affine_t));
    if (!j->st)
        j->st = cuda_ctx_alloc(j->ctx, &ds, j->n * 32);
    if (!j->st)
        j->st = cuda_ctx_upload(j->ctx, db, j->bases, j->n * sizeof(g1_affine_t));
    if (!j->st)
        j->st = cuda_ctx_upload(j->ctx, ds, j->scalars, j->n * 32);
    for (int r = 0; r < 4 && !j->st; r++)
        j->st = backend_cuda_msm_g1(j->ctx, &j->got[r], &info, db, NULL, NULL, ds, j->n, false);
    if (j->st)
        snprintf(j->error, sizeof j->error, "%s", g16_last_error());
    cuda_ctx_release(j->ctx, db);
    cuda_ctx_release(j->ctx, ds);
    return NULL;
}

static void check_arena(void)
{
    backend *second = NULL;
    if (!CHECK(backend_open(&second, "cuda") == G16_OK))
        return;
    setenv("G16_GPU_MSM_AFFINE", "1", 1);
    setenv("G16_GPU_MSM_GLV", "1", 1);
    setenv("G16_GPU_MSM_LIST_PIECE", "5000", 1);
    arena_job jobs[2] = {{.ctx = backend_cuda_ctx(gpu), .n = (1 << 18) + 5, .mix = MIX_RANDOM},
                         {.ctx = backend_cuda_ctx(second), .n = (1 << 17) + 3, .mix = MIX_FILECOIN}};
    g1_jac_t want[2];
    bool ready = true;
    for (int c = 0; c < 2; c++) {
        arena_job *j = &jobs[c];
        fr_t *k = malloc(j->n * sizeof *k);
        j->bases = malloc(j->n * sizeof *j->bases);
        j->scalars = malloc(j->n * 32);
        make_scalars(k, j->n, j->mix);
        for (size_t t = 0; t < j->n; t++)
            fr_to_bytes_le(j->scalars + 32 * t, &k[t]);
        MAKE_BASES(g1, pool1, j->bases, j->n, c + 1);
        free(k);
        ready &= CHECK(msm_g1(&want[c], (const uint8_t *)j->bases, j->scalars, j->n) == G16_OK);
        cuda_ctx_set_msm_slice_points(j->ctx, SIZE_MAX); /* planned: whole windows, list pieces */
        cuda_ctx_set_msm_arena(j->ctx, true);
    }
    pthread_t tid[2];
    bool started[2] = {false, false};
    for (int i = 0; ready && i < 2; i++)
        started[i] = CHECK(pthread_create(&tid[i], NULL, arena_thread, &jobs[i]) == 0);
    for (int i = 0; i < 2; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    for (int i = 0; ready && i < 2; i++) {
        arena_job *j = &jobs[i];
        if (!CHECK(j->st == G16_OK)) {
            printf("  arena, context %d: %s\n", i, j->error);
            continue;
        }
        for (int r = 0; r < 4; r++)
            if (!CHECK(g1_equal(&j->got[r], &want[i])))
                printf("  arena, context %d (n=%zu %s), MSM %d differs\n", i, j->n,
                       mix_names[j->mix], r);
    }
    cuda_memory_info mem;
    cuda_ctx_sample_memory(jobs[0].ctx, &mem);
    /* One region for both: the larger MSM's point buffers (72 bytes a GLV digit) at least. */
    if (!CHECK(mem.arena_bytes >= (size_t)72 * 2 * jobs[0].n))
        printf("  arena of %zu bytes for %zu points\n", mem.arena_bytes, jobs[0].n);
    printf("  two contexts, 4 MSMs each at once: the same sums; arena %.1f MiB\n",
           mem.arena_bytes / 1048576.0);
    for (int i = 0; i < 2; i++) {
        cuda_ctx_set_msm_arena(jobs[i].ctx, false);
        cuda_ctx_set_msm_slice_points(jobs[i].ctx, 0);
        free(jobs[i].bases);
        free(jobs[i].scalars);
    }
    unsetenv("G16_GPU_MSM_LIST_PIECE");
    unsetenv("G16_GPU_MSM_GLV");
    unsetenv("G16_GPU_MSM_AFFINE");
    backend_close(second);
}

/* Precomputed multiples (G16_GPU_MSM_MULT=1: at any size): 13-bit windows (10 of them)
 * at small sizes and every mix, in one slice and in slices of ~5000 digits; the 26-bit
 * windows the benchmarks use (2^25 shared buckets) on 2^20 + 3 G1 and 2^16 + 1 G2 points. */
static void check_mults(void)
{
    const size_t sizes[] = {0, 1, 2, 3, 100, 4097, (1 << 16) + 1};
    setenv("G16_GPU_MSM_AFFINE", "1", 1);
    setenv("G16_GPU_MSM_MULT", "1", 1);
    for (int sliced = 0; sliced < 2; sliced++) {
        if (sliced)
            setenv("G16_GPU_MSM_SLICE_POINTS", "5000", 1);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int mix = 0; mix < MIX_COUNT; mix++)
                check_device_case(sizes[s], mix, (int)((s + (size_t)mix) % 4),
                                  sizes[s] <= 4097 && mix % 2 == sliced ? 2 : 1, 13, 0);
        unsetenv("G16_GPU_MSM_SLICE_POINTS");
    }
    check_device_case((1 << 20) + 3, MIX_RANDOM, 1, 1, CUDA_MSM_MULT_BITS, 0);
    check_device_case((1 << 16) + 1, MIX_EDGES, 2, 2, CUDA_MSM_MULT_BITS, 0);
    unsetenv("G16_GPU_MSM_MULT");
    unsetenv("G16_GPU_MSM_AFFINE");
}

/* A snarkjs fixture proved by the CPU and by the GPU with the same r, s. */
static void check_partition(const char *name)
{
    char zpath[4096], wpath[4096];
    snprintf(zpath, sizeof zpath, "%s/tests/fixtures/%s/circuit.zkey", getenv("G16_SOURCE_DIR"), name);
    snprintf(wpath, sizeof wpath, "%s/tests/fixtures/%s/witness.wtns", getenv("G16_SOURCE_DIR"), name);
    zkey_t key;
    wtns_t wit;
    if (!CHECK(zkey_open(&key, zpath) == G16_OK))
        return;
    if (!CHECK(wtns_open(&wit, wpath) == G16_OK)) {
        zkey_close(&key);
        return;
    }
    fr_t r, s;
    test_random_fr(&r);
    test_random_fr(&s);
    groth16_prove_options cpu_opts = {.fixed_r = &r, .fixed_s = &s}, gpu_opts = cpu_opts;
    backend_prove_options(gpu, &gpu_opts);
    groth16_proof p_cpu, p_gpu;
    fr_t *in_cpu = NULL, *in_gpu = NULL;
    groth16_prove_stats stats;
    CHECK(groth16_prove_zkey(&p_cpu, &in_cpu, NULL, &key, &wit, &cpu_opts) == G16_OK);
    g16_status st = groth16_prove_zkey(&p_gpu, &in_gpu, &stats, &key, &wit, &gpu_opts);
    if (!CHECK(st == G16_OK))
        printf("  %s: %s\n", name, g16_last_error());
    else {
        if (!CHECK(memcmp(&p_cpu, &p_gpu, sizeof p_cpu) == 0))
            printf("  %s: GPU proof differs from the CPU's\n", name);
        groth16_vk vk;
        if (CHECK(groth16_vk_from_zkey(&vk, &key) == G16_OK)) {
            CHECK(groth16_verify(&vk, in_gpu, vk.n_public, &p_gpu) == G16_OK);
            groth16_vk_free(&vk);
        }
        printf("  %s: domain %zu, GPU partition: upload %.1f ms, H %.1f ms, G1 MSMs %.1f ms, "
               "G2 MSM %.1f ms\n", name, (size_t)key.domain_size, stats.ms_upload, stats.ms_h,
               stats.ms_msm_g1, stats.ms_msm_g2);
    }
    /* The same with the B2 MSM on the CPU beside the device (g2_on_cpu). */
    groth16_proof p_split;
    fr_t *in_split = NULL;
    gpu_opts.g2_on_cpu = true;
    st = groth16_prove_zkey(&p_split, &in_split, NULL, &key, &wit, &gpu_opts);
    if (!CHECK(st == G16_OK))
        printf("  %s (G2 on the CPU): %s\n", name, g16_last_error());
    else if (!CHECK(memcmp(&p_cpu, &p_split, sizeof p_cpu) == 0))
        printf("  %s: the proof with G2 on the CPU differs from the CPU's\n", name);
    /* The key streamed from host memory in chunks of 1000 G1 / 500 G2 points (set in
     * main), not resident: the same proof. */
    groth16_proof p_streamed;
    fr_t *in_streamed = NULL;
    groth16_prove_options streamed_opts = cpu_opts;
    /* Its own backend, closed before the key is unmapped: the key's pages are pinned in
     * place for the backend's lifetime (cuda_ctx_pin_host). */
    backend *gpu_streamed = NULL;
    if (CHECK(backend_open(&gpu_streamed, "cuda") == G16_OK)) {
        gpu_streamed->key_placement = BACKEND_KEY_STREAMED;
        backend_prove_options(gpu_streamed, &streamed_opts);
        st = groth16_prove_zkey(&p_streamed, &in_streamed, NULL, &key, &wit, &streamed_opts);
        backend_memory mem = {0};
        if (!CHECK(st == G16_OK))
            printf("  %s (key streamed): %s\n", name, g16_last_error());
        else if (!CHECK(memcmp(&p_cpu, &p_streamed, sizeof p_cpu) == 0))
            printf("  %s: the proof with the key streamed differs from the CPU's\n", name);
        CHECK(gpu_streamed->memory(gpu_streamed, &mem) && mem.key_streamed &&
              mem.streamed_bytes > 0);
        printf("  %s: key streamed from %s memory, same proof\n", name,
               mem.stream_pinned ? "pinned" : "pageable");
        backend_close(gpu_streamed);
    }
    /* A split key (backend.key_resident_arrays): A, B2 and C resident, B1 and H streamed,
     * then the other way round; the same proof, and only the others streamed. */
    static const unsigned splits[] = {1 | 4 | 8, 2 | 16};
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        groth16_proof p_kept;
        fr_t *in_kept = NULL;
        groth16_prove_options kept_opts = cpu_opts;
        backend *gpu_kept = NULL;
        if (!CHECK(backend_open(&gpu_kept, "cuda") == G16_OK))
            break;
        gpu_kept->key_placement = BACKEND_KEY_STREAMED;
        gpu_kept->key_resident_arrays = splits[i];
        backend_prove_options(gpu_kept, &kept_opts);
        st = groth16_prove_zkey(&p_kept, &in_kept, NULL, &key, &wit, &kept_opts);
        backend_memory mem = {0};
        char names[32];
        backend_key_arrays_names(splits[i], names, sizeof names);
        if (!CHECK(st == G16_OK))
            printf("  %s (key split, %s resident): %s\n", name, names, g16_last_error());
        else if (!CHECK(memcmp(&p_cpu, &p_kept, sizeof p_cpu) == 0))
            printf("  %s: the proof with %s resident, the rest streamed, differs from the "
                   "CPU's\n", name, names);
        groth16_prover_key pk;
        groth16_prover_key_from_zkey(&pk, &key);
        /* Streamed: every point of the other arrays, once (the resident ones may have been
         * uploaded by the other backends on this device, which share them). */
        uint64_t want = backend_key_arrays_bytes(&pk, BACKEND_KEY_ALL_ARRAYS & ~splits[i]);
        if (!CHECK(gpu_kept->memory(gpu_kept, &mem) && mem.key_streamed &&
                   mem.streamed_bytes == want))
            printf("  %s: %s resident: %llu bytes streamed, want %llu\n", name, names,
                   (unsigned long long)mem.streamed_bytes, (unsigned long long)want);
        else
            printf("  %s: key split (%s resident), same proof\n", name, names);
        backend_close(gpu_kept);
        free(in_kept);
    }
    /* H's MSM through GLV (backend.msm_glv, as the pipeline sets it when the budget
     * allows; G16_GPU_MSM_GLV=1 and G16_GPU_MSM_AFFINE=1 so that these small MSMs take it
     * too), its windows in ~4 slices (backend.msm_slice_digits, as the pipeline plans
     * them for a 2^27 partition): its bases' table made once and kept with the resident
     * key, the same proof. */
    groth16_proof p_glv;
    fr_t *in_glv = NULL;
    groth16_prove_options glv_opts = cpu_opts;
    backend *gpu_glv = NULL;
    if (CHECK(backend_open(&gpu_glv, "cuda") == G16_OK)) {
        gpu_glv->key_placement = BACKEND_KEY_RESIDENT;
        gpu_glv->msm_glv = true;
        gpu_glv->msm_slice_digits = key.domain_size / 2 + 1;
        backend_prove_options(gpu_glv, &glv_opts);
        cuda_ctx *ctx = backend_cuda_ctx(gpu_glv);
        size_t before = cuda_ctx_resident_bytes(ctx);
        setenv("G16_GPU_MSM_GLV", "1", 1);
        setenv("G16_GPU_MSM_AFFINE", "1", 1);
        st = groth16_prove_zkey(&p_glv, &in_glv, NULL, &key, &wit, &glv_opts);
        unsetenv("G16_GPU_MSM_AFFINE");
        unsetenv("G16_GPU_MSM_GLV");
        if (!CHECK(st == G16_OK))
            printf("  %s (GLV): %s\n", name, g16_last_error());
        else if (!CHECK(memcmp(&p_cpu, &p_glv, sizeof p_cpu) == 0))
            printf("  %s: the proof with H's MSM by GLV differs from the CPU's\n", name);
        else {
            /* The table: 48 bytes an H point, beside the key the first prove made resident. */
            size_t grew = cuda_ctx_resident_bytes(ctx) - before;
            CHECK(grew == (size_t)key.domain_size * 48);
            printf("  %s: H's MSM by GLV (a %zu-byte table kept with the key), same proof\n",
                   name, grew);
        }
        backend_close(gpu_glv);
    }
    free(in_glv);
    free(in_streamed);
    free(in_split);
    free(in_cpu);
    free(in_gpu);
    wtns_close(&wit);
    zkey_close(&key);
}

int main(void)
{
    test_init("test_cuda_msm");
    if (!getenv("G16_SOURCE_DIR"))
        test_skip("G16_SOURCE_DIR not set: run through ctest");
    g16_status st = backend_open(&gpu, "cuda");
    if (st == G16_ERR_UNSUPPORTED)
        test_skip(g16_last_error());
    if (!CHECK(st == G16_OK))
        return test_finish();
    printf("backend: %s\n", gpu->description);
    setenv("G16_GPU_STREAM_CHUNK", "96000", 1);
    make_pools();
    /* Both bucket accumulations at every size: XYZZ per point, then batch-affine rounds
     * (msm_batch_affine.cuh; the default from 2^20 others), the latter also with the
     * rounds stopped early and late (G16_GPU_MSM_TAIL), and with every group's digits
     * sorted in line with the rounds instead of a group ahead on the side stream
     * (G16_GPU_MSM_SORT_AHEAD); groups of 2^16 digits (G16_GPU_MSM_GROUP_POINTS) make
     * MSMs from ~5000 others run in several groups, as the largest do by default; and
     * G2's norms squared again in ba_add rather than passed (G16_GPU_MSM_NORMS), and the
     * reduction in segments of 8, 16 and 64 buckets rather than by the thread count
     * (G16_GPU_MSM_SEGMENT; "0": the default, 64 or shorter for a small MSM), or
     * by split sums (G16_GPU_MSM_SPLIT, the default from 16-bit windows), in one group and
     * in several; and the scalars split by the GLV endomorphism (G16_GPU_MSM_GLV=1: the
     * table made for each call), with running sums and with split sums. */
    const char *paths[][8] = {{"0", "8", "1", "33554432", "1", "0", "0", "0"},
                              {"1", "8", "1", "65536", "1", "0", "0", "0"},
                              {"1", "1", "1", "33554432", "1", "8", "0", "0"},
                              {"1", "40", "0", "65536", "0", "16", "0", "0"},
                              {"1", "8", "1", "65536", "1", "64", "1", "0"},
                              {"1", "8", "0", "33554432", "0", "64", "1", "0"},
                              {"1", "8", "1", "65536", "1", "64", "0", "1"},
                              {"1", "1", "1", "33554432", "1", "0", "1", "1"}};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        setenv("G16_GPU_MSM_AFFINE", paths[i][0], 1);
        setenv("G16_GPU_MSM_TAIL", paths[i][1], 1);
        setenv("G16_GPU_MSM_SORT_AHEAD", paths[i][2], 1);
        setenv("G16_GPU_MSM_GROUP_POINTS", paths[i][3], 1);
        setenv("G16_GPU_MSM_NORMS", paths[i][4], 1);
        setenv("G16_GPU_MSM_SEGMENT", paths[i][5], 1);
        setenv("G16_GPU_MSM_SPLIT", paths[i][6], 1);
        setenv("G16_GPU_MSM_GLV", paths[i][7], 1);
        setenv("G16_GPU_MSM_OWN_SORT", i % 2 ? "1" : "0", 1);
        printf("bucket accumulation: %s (G16_GPU_MSM_AFFINE=%s G16_GPU_MSM_TAIL=%s "
               "G16_GPU_MSM_SORT_AHEAD=%s G16_GPU_MSM_GROUP_POINTS=%s G16_GPU_MSM_NORMS=%s "
               "G16_GPU_MSM_SEGMENT=%s G16_GPU_MSM_SPLIT=%s G16_GPU_MSM_GLV=%s "
               "G16_GPU_MSM_OWN_SORT=%d)\n",
               paths[i][0][0] == '1' ? "batch-affine" : "XYZZ", paths[i][0], paths[i][1],
               paths[i][2], paths[i][3], paths[i][4], paths[i][5], paths[i][6], paths[i][7],
               (int)(i % 2));
        check_msms(i >= 2 && i != 6);
    }
    unsetenv("G16_GPU_MSM_AFFINE");
    unsetenv("G16_GPU_MSM_TAIL");
    unsetenv("G16_GPU_MSM_SORT_AHEAD");
    unsetenv("G16_GPU_MSM_GROUP_POINTS");
    unsetenv("G16_GPU_MSM_NORMS");
    unsetenv("G16_GPU_MSM_SEGMENT");
    unsetenv("G16_GPU_MSM_SPLIT");
    unsetenv("G16_GPU_MSM_GLV");
    unsetenv("G16_GPU_MSM_OWN_SORT");
    printf("the window sort (bucket_sort, cuda_bucket_sort_check)\n");
    check_bucket_sort();
    printf("precomputed multiples (G16_GPU_MSM_MULT=1)\n");
    check_mults();
    printf("one classification, several MSMs (cuda_msm_scalars_classify)\n");
    check_shared();
    printf("windows in slices (cuda_ctx_set_msm_slice_points)\n");
    check_slices();
    printf("out of device memory: a standalone MSM again in slices (cuda_ctx_fail_allocs)\n");
    check_oom_slices();
    printf("a standalone MSM's ones out of device memory: again in pieces\n");
    check_oom_pieces();
    printf("a real out-of-memory: the device held but for 1 GiB, then 450 MiB\n");
    check_real_oom();
    printf("two contexts sharing the MSM arena (cuda_ctx_set_msm_arena)\n");
    check_arena();
    const char *fixtures[] = {"multiplier", "poseidon", "mimc", "sha256"};
    for (size_t i = 0; i < 4; i++)
        check_partition(fixtures[i]);
    backend_close(gpu);
    return test_finish();
}

#else

int main(void)
{
    test_init("test_cuda_msm");
    test_skip("this build has no CUDA backend");
}

#endif
