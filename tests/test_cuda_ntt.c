/* The GPU NTT and H computation against the CPU's (ntt.h, h_poly.h): every transform kind
 * and both H conventions, byte for byte, on seeded random inputs at sizes 2^0 .. 2^22 and
 * H at 2^24; h as a separate (poisoned) buffer and as an alias of a, b or c, with a, b, c
 * compared afterwards too; all zeros, all ones and all p - 1; every variant of the pass
 * kernels (g_modes); and the argument errors.
 *
 * Skipped (exit 77) in builds without CUDA and on machines without a GPU. The same file,
 * compiled by test_cuda_ntt_emu.c with TEST_CUDA_NTT_EMULATE, runs the kernels' code on
 * the host instead (cuda_ntt_emulate), with the GPU's pass plan and with tiny plans that
 * give many passes of every shape at small sizes: that part runs in CI. */
#include <stdlib.h>
#include <string.h>

#include "groth16/h_poly.h"
#include "harness.h"
#include "ntt/ntt.h"

#ifdef G16_HAVE_CUDA
#include "backend/cuda/cuda_ntt.h"
#endif

#ifndef TEST_CUDA_NTT_EMULATE
#define TEST_CUDA_NTT_EMULATE 0
#define TEST_NAME "test_cuda_ntt"
#endif

#ifdef G16_HAVE_CUDA

#if !TEST_CUDA_NTT_EMULATE
static cuda_ctx *g_ctx;
#endif
/* The emulation's pass plan (0, 0: the GPU's). */
static unsigned g_kmax, g_tile;
/* The kernels' variants (cuda_ntt.cu's knobs): the butterflies' values below 2p or below
 * p (G16_GPU_NTT_LAZY), whole tiles by the FULL kernels or the general one
 * (G16_GPU_NTT_FULL), passes of 8-10 stages by kernels built for their shape or by the
 * FULL kernel that reads it (G16_GPU_NTT_SHAPES), H (snarkjs) by the negacyclic forward
 * transform or by the coset factor's products (G16_GPU_NTT_NEGACYCLIC) and H's middle
 * passes fused (G16_GPU_NTT_FUSE). Modes that change H alone (no negacyclic, fused)
 * check H alone. */
typedef struct {
    const char *name, *lazy, *full, *shapes, *negacyclic, *fuse;
} ntt_mode;
static const ntt_mode g_modes[] = {
    {"lazy", "1", "1", "1", "1", "0"},
    {"lazy, no shapes", "1", "1", "0", "1", "0"},
    {"lazy, general kernel", "1", "0", "1", "1", "0"},
    {"reduced", "0", "1", "1", "1", "0"},
    {"lazy, H by coset factors", "1", "1", "1", "0", "0"},
    {"lazy, H fused", "1", "1", "1", "1", "1"},
    {"lazy, H fused, no shapes", "1", "1", "0", "1", "1"},
    {"lazy, H fused, general kernel", "1", "0", "1", "1", "1"},
    {"reduced, H fused", "0", "1", "1", "1", "1"},
    {"lazy, H fused by coset factors", "1", "1", "1", "0", "1"},
};
static const ntt_mode *g_mode = &g_modes[0];

static void mode_set(const ntt_mode *m)
{
    g_mode = m;
    setenv("G16_GPU_NTT_LAZY", m->lazy, 1);
    setenv("G16_GPU_NTT_FULL", m->full, 1);
    setenv("G16_GPU_NTT_SHAPES", m->shapes, 1);
    setenv("G16_GPU_NTT_NEGACYCLIC", m->negacyclic, 1);
    setenv("G16_GPU_NTT_FUSE", m->fuse, 1);
}

/* The mode changes H alone. */
static bool mode_h_only(const ntt_mode *m)
{
    return strcmp(m->negacyclic, "0") == 0 || strcmp(m->fuse, "1") == 0;
}

/* Compares whole vectors; reports the first differing index once. */
static bool same(const fr_t *got, const fr_t *want, size_t n, const char *what, unsigned log2n)
{
    size_t i = 0;
    while (i < n && memcmp(&got[i], &want[i], sizeof(fr_t)) == 0)
        i++;
    char msg[200];
    snprintf(msg, sizeof msg,
             "%s at 2^%u (plan %u/%u, %s): equal (first difference at index %zu)", what, log2n,
             g_kmax, g_tile, g_mode->name, i);
    return test_check(i == n, msg, __FILE__, __LINE__);
}

static g16_status gpu_ntt(cuda_ntt_kind kind, fr_t *x, unsigned log2n, const fr_t *shift,
                          const fr_t *scale)
{
#if TEST_CUDA_NTT_EMULATE
    return cuda_ntt_emulate(kind, x, log2n, shift, scale, g_kmax, g_tile);
#else
    return cuda_ntt_host(g_ctx, kind, x, log2n, shift, scale, NULL);
#endif
}

static g16_status gpu_h(fr_t *h, fr_t *a, fr_t *b, fr_t *c, unsigned log2n, int convention)
{
#if TEST_CUDA_NTT_EMULATE
    return cuda_h_poly_emulate(h, a, b, c, log2n, convention, g_kmax, g_tile);
#else
    return cuda_h_poly_host(g_ctx, h, a, b, c, log2n, convention, NULL);
#endif
}

static const char *kind_name(cuda_ntt_kind kind)
{
    static const char *names[] = {"forward", "inverse", "coset forward", "coset inverse"};
    return names[kind];
}

/* The CPU's answer for a kind, out of place. */
static void cpu_ntt(const ntt_domain *d, cuda_ntt_kind kind, fr_t *out, const fr_t *in,
                    const fr_t *shift, const fr_t *scale)
{
    g16_status st = G16_ERR_INTERNAL;
    switch (kind) {
    case CUDA_NTT_FORWARD: st = ntt_forward(d, out, in); break;
    case CUDA_NTT_INVERSE: st = ntt_inverse(d, out, in); break;
    case CUDA_NTT_COSET_FORWARD: st = ntt_coset_forward(d, out, in, shift); break;
    case CUDA_NTT_COSET_INVERSE: st = ntt_coset_inverse(d, out, in, shift, scale); break;
    }
    CHECK(st == G16_OK);
}

static void check_kind(const ntt_domain *d, cuda_ntt_kind kind, const fr_t *x,
                       const fr_t *shift, const fr_t *scale, fr_t *want, fr_t *got)
{
    unsigned log2n = ntt_domain_log2n(d);
    size_t n = ntt_domain_size(d);
    cpu_ntt(d, kind, want, x, shift, scale);
    memcpy(got, x, n * sizeof *got);
    g16_status st = gpu_ntt(kind, got, log2n, shift, scale);
    if (!CHECK(st == G16_OK))
        printf("%s at 2^%u: %s: %s\n", kind_name(kind), log2n, g16_status_message(st),
               g16_last_error());
    else
        same(got, want, n, kind_name(kind), log2n);
}

/* alias: -1 for a separate h, else 0, 1, 2 for h = a, b, c. */
static void check_h(const ntt_domain *d, int convention, int alias)
{
    unsigned log2n = ntt_domain_log2n(d);
    size_t n = ntt_domain_size(d), bytes = n * sizeof(fr_t);
    fr_t *in[3], *cpu[3], *gpu[3], *cpu_h = test_fr_vec(n), *sep = test_fr_vec(n);
    for (int i = 0; i < 3; i++) {
        in[i] = test_fr_vec(n), cpu[i] = test_fr_vec(n), gpu[i] = test_fr_vec(n);
        test_random_fr_vec(in[i], n);
        memcpy(cpu[i], in[i], bytes);
        memcpy(gpu[i], in[i], bytes);
    }
    memset(cpu_h, 0xa5, bytes);
    memset(sep, 0xa5, bytes);
    CHECK(h_poly_compute_in(d, cpu_h, cpu[0], cpu[1], cpu[2], (h_poly_convention)convention) ==
          G16_OK);
    fr_t *gh = alias < 0 ? sep : gpu[alias];
    g16_status st = gpu_h(gh, gpu[0], gpu[1], gpu[2], log2n, convention);
    char what[80];
    snprintf(what, sizeof what, "H (%s, h %s)", convention ? "classic" : "snarkjs",
             alias < 0 ? "separate" : alias == 0 ? "= a" : alias == 1 ? "= b" : "= c");
    if (!CHECK(st == G16_OK))
        printf("%s at 2^%u: %s: %s\n", what, log2n, g16_status_message(st), g16_last_error());
    else {
        same(gh, cpu_h, n, what, log2n);
        /* a, b, c end as on the CPU: their values on the coset (unless one is h). */
        for (int i = 0; i < 3; i++)
            if (i != alias)
                same(gpu[i], cpu[i], n, i == 0 ? "a after H" : i == 1 ? "b after H" : "c after H",
                     log2n);
    }
    for (int i = 0; i < 3; i++)
        free(in[i]), free(cpu[i]), free(gpu[i]);
    free(cpu_h);
    free(sep);
}

/* Every kind, and H in both conventions (thorough: every aliasing of h, and the coset
 * kinds with a shift of 1 and no scale). */
static void check_size(unsigned log2n, bool all_kinds, bool thorough)
{
    const ntt_domain *d;
    if (!CHECK(ntt_domain_get(&d, log2n) == G16_OK))
        return;
    size_t n = (size_t)1 << log2n;
    fr_t *x = test_fr_vec(n), *want = test_fr_vec(n), *got = test_fr_vec(n), shift, scale, one;
    test_random_fr_vec(x, n);
    do
        test_random_fr(&shift);
    while (fr_is_zero(&shift));
    test_random_fr(&scale);
    fr_one(&one);
    if (all_kinds) {
        for (int k = CUDA_NTT_FORWARD; k <= CUDA_NTT_COSET_INVERSE; k++)
            check_kind(d, (cuda_ntt_kind)k, x, &shift, &scale, want, got);
    } else {
        check_kind(d, CUDA_NTT_FORWARD, x, NULL, NULL, want, got);
    }
    if (thorough) {
        check_kind(d, CUDA_NTT_COSET_INVERSE, x, &shift, NULL, want, got);
        check_kind(d, CUDA_NTT_COSET_FORWARD, x, &one, NULL, want, got);
        /* All zeros and all ones. */
        memset(x, 0, n * sizeof *x);
        check_kind(d, CUDA_NTT_FORWARD, x, NULL, NULL, want, got);
        for (size_t i = 0; i < n; i++)
            x[i] = one;
        check_kind(d, CUDA_NTT_COSET_INVERSE, x, &shift, &scale, want, got);
        /* All p - 1: the lazy butterflies' sums and differences near 2p and 4p. */
        fr_t minus_one;
        fr_neg(&minus_one, &one);
        for (size_t i = 0; i < n; i++)
            x[i] = minus_one;
        check_kind(d, CUDA_NTT_FORWARD, x, NULL, NULL, want, got);
        check_kind(d, CUDA_NTT_INVERSE, x, NULL, NULL, want, got);
    }
    free(x), free(want), free(got);
    for (int convention = 0; convention < 2; convention++) {
        check_h(d, convention, -1);
        if (thorough)
            for (int alias = 0; alias < 3; alias++)
                check_h(d, convention, alias);
    }
}

/* H alone (both conventions, every aliasing up to 2^13) at each size. */
static void check_h_sizes(const unsigned *sizes, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const ntt_domain *d;
        if (!CHECK(ntt_domain_get(&d, sizes[i]) == G16_OK))
            continue;
        for (int convention = 0; convention < 2; convention++)
            for (int alias = -1; alias < (sizes[i] <= 13 ? 3 : 0); alias++)
                check_h(d, convention, alias);
    }
}

#if !TEST_CUDA_NTT_EMULATE
/* A second context on the device shares the first one's twiddle tables: its H (snarkjs)
 * at a size the first has run allocates no table of its own (cuda_alloc_counts), and
 * its h equals the CPU's. */
static void check_shared_tables(unsigned log2n)
{
    const ntt_domain *d;
    cuda_ctx *other = NULL;
    if (!CHECK(ntt_domain_get(&d, log2n) == G16_OK) || !CHECK(cuda_ctx_create(&other, 0) == G16_OK))
        return;
    size_t n = (size_t)1 << log2n, bytes = n * sizeof(fr_t);
    fr_t *in[3], *want = test_fr_vec(n), *got = test_fr_vec(n);
    void *dev[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        in[i] = test_fr_vec(n);
        test_random_fr_vec(in[i], n);
        CHECK(cuda_ctx_alloc(other, &dev[i], bytes) == G16_OK &&
              cuda_ctx_upload(other, dev[i], in[i], bytes) == G16_OK);
    }
    /* The first context ran H at this size already; this one's scratch comes first. */
    CHECK(cuda_ntt_prepare(other, 1) == G16_OK);
    unsigned long long before = 0, after = 0, frees = 0, trims = 0;
    cuda_alloc_counts(&before, &frees, &trims);
    CHECK(cuda_h_poly(other, dev[0], dev[0], dev[1], dev[2], log2n, 0, NULL) == G16_OK);
    cuda_alloc_counts(&after, &frees, &trims);
    if (!CHECK(after == before))
        printf("H at 2^%u on a second context: %llu allocations (want 0: the tables shared)\n",
               log2n, after - before);
    CHECK(cuda_ctx_download(other, got, dev[0], bytes) == G16_OK);
    CHECK(h_poly_compute_in(d, want, in[0], in[1], in[2], H_POLY_SNARKJS) == G16_OK);
    same(got, want, n, "H (snarkjs) on a second context", log2n);
    for (int i = 0; i < 3; i++)
        cuda_ctx_release(other, dev[i]), free(in[i]);
    free(want), free(got);
    cuda_ctx_free(other);
}

/* H fed from host memory (cuda_h_poly_fed, as a partition runs it: h in a's buffer): each
 * input's copy on the copy stream just ahead of its transforms, `then` called once after
 * every kernel is queued; h and b's and c's coset values equal the CPU's, and the
 * reported kernel times leave the copies' waits out (forward within the total). staged: a
 * queued into its slot before the call (as the previous partition stages it) and fed as
 * staged with no host pointer: the call waits for that copy and queues none. */
static int g_then_calls;
static g16_status count_then(void *arg)
{
    (void)arg;
    g_then_calls++;
    return G16_OK;
}

static void check_h_fed(unsigned log2n, int convention, bool staged)
{
    const ntt_domain *d;
    if (!CHECK(ntt_domain_get(&d, log2n) == G16_OK))
        return;
    size_t n = (size_t)1 << log2n, bytes = n * sizeof(fr_t);
    fr_t *in[3], *cpu[3], *cpu_h = test_fr_vec(n), *got = test_fr_vec(n);
    void *dev[3] = {NULL, NULL, NULL};
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        in[i] = test_fr_vec(n), cpu[i] = test_fr_vec(n);
        test_random_fr_vec(in[i], n);
        memcpy(cpu[i], in[i], bytes);
        ok = CHECK(cuda_ctx_alloc(g_ctx, &dev[i], bytes) == G16_OK) && ok;
    }
    CHECK(h_poly_compute_in(d, cpu_h, cpu[0], cpu[1], cpu[2], (h_poly_convention)convention) ==
          G16_OK);
    const char *what = staged ? (convention ? "H fed, a staged (classic)" : "H fed, a staged (snarkjs)")
                              : (convention ? "H fed (classic)" : "H fed (snarkjs)");
    if (ok && staged)
        ok = CHECK(cuda_ctx_upload_slot(g_ctx, CUDA_SLOT_H_A, dev[0], in[0], bytes) == G16_OK);
    if (ok) {
        cuda_h_feed feed = {{staged ? NULL : in[0], in[1], in[2]}, count_then, NULL,
                            {staged, false, false}};
        cuda_ntt_info info;
        g_then_calls = 0;
        g16_status st = cuda_h_poly_fed(g_ctx, dev[0], dev[0], dev[1], dev[2], log2n,
                                        convention, &feed, &info);
        if (!CHECK(st == G16_OK)) {
            printf("%s at 2^%u: %s: %s\n", what, log2n, g16_status_message(st), g16_last_error());
        } else {
            CHECK(g_then_calls == 1);
            CHECK(info.ms_h_forward >= 0 && info.ms_h_forward <= info.ms_total + 1e-6);
            CHECK(cuda_ctx_download(g_ctx, got, dev[0], bytes) == G16_OK);
            same(got, cpu_h, n, what, log2n);
            CHECK(cuda_ctx_download(g_ctx, got, dev[1], bytes) == G16_OK);
            same(got, cpu[1], n, "b after H fed", log2n);
            CHECK(cuda_ctx_download(g_ctx, got, dev[2], bytes) == G16_OK);
            same(got, cpu[2], n, "c after H fed", log2n);
        }
    }
    for (int i = 0; i < 3; i++)
        cuda_ctx_release(g_ctx, dev[i]), free(in[i]), free(cpu[i]);
    free(cpu_h), free(got);
}

/* The fed H with the passes fused (the default) and apart (FUSE=0: every copy waited for
 * before the first kernel), both conventions. */
static void check_h_fed_sizes(void)
{
    static const unsigned sizes[] = {0, 1, 5, 13, 20, 24};
    for (size_t mi = 0; mi < sizeof g_modes / sizeof *g_modes; mi++) {
        if (strcmp(g_modes[mi].name, "lazy") != 0 && strcmp(g_modes[mi].name, "lazy, H fused") != 0)
            continue;
        mode_set(&g_modes[mi]);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (int convention = 0; convention < 2; convention++)
                for (int staged = 0; staged < 2; staged++)
                    check_h_fed(sizes[i], convention, staged);
    }
    mode_set(&g_modes[0]);
}
#endif

static void check_errors(void)
{
    fr_t x[2], zero;
    memset(x, 0, sizeof x);
    fr_zero(&zero);
    CHECK(gpu_ntt(CUDA_NTT_FORWARD, x, CUDA_NTT_MAX_LOG2N + 1, NULL, NULL) ==
          G16_ERR_INVALID_ARGUMENT);
    CHECK(gpu_ntt(CUDA_NTT_COSET_FORWARD, x, 1, &zero, NULL) == G16_ERR_INVALID_ARGUMENT);
    CHECK(gpu_ntt((cuda_ntt_kind)7, x, 1, NULL, NULL) == G16_ERR_INVALID_ARGUMENT);
    CHECK(gpu_h(x, x, x, x, 0, 2) == G16_ERR_INVALID_ARGUMENT);
    CHECK(gpu_h(x, x, x, x, CUDA_NTT_MAX_LOG2N + 1, 0) == G16_ERR_INVALID_ARGUMENT);
}

#endif /* G16_HAVE_CUDA */

int main(int argc, char **argv)
{
    test_init(TEST_NAME);
    /* --fed: the fed H alone (a short GPU run beside the pipeline's tests). */
    const bool fed_only = argc > 1 && strcmp(argv[1], "--fed") == 0;
    (void)fed_only;
#ifndef G16_HAVE_CUDA
    test_skip("this build has no CUDA backend");
#else
#if TEST_CUDA_NTT_EMULATE
    /* Every variant of the kernels. The general kernel and the FULL one that reads the
     * pass's shape differ from the default only on whole tiles of the GPU's plan (2^11
     * points and more; forward passes of 8 to 10 stages from 2^17). */
    for (size_t mi = 0; mi < sizeof g_modes / sizeof *g_modes; mi++) {
        mode_set(&g_modes[mi]);
        if (mode_h_only(&g_modes[mi])) {
            /* The GPU's plan (2^17: a fused pass of 8 stages, 2^18 of 9, 2^20 of 10), then
             * tiny plans: fused passes of one stage to four, tiles of one group and many. */
            static const unsigned sizes[] = {0, 1, 2, 5, 11, 12, 17, 18};
            check_h_sizes(sizes, sizeof sizes / sizeof *sizes);
            if (strcmp(g_modes[mi].fuse, "1") != 0)
                continue;
            if (strcmp(g_modes[mi].lazy, "1") == 0 && strcmp(g_modes[mi].full, "1") == 0 &&
                strcmp(g_modes[mi].shapes, "1") == 0) {
                static const unsigned ten[] = {20};
                check_h_sizes(ten, 1);
            }
            static const unsigned plans[][2] = {{1, 1}, {2, 2}, {2, 5}, {3, 4}, {4, 6}};
            static const unsigned tiny[] = {1, 3, 5, 7, 9};
            for (size_t p = 0; p < sizeof plans / sizeof *plans; p++) {
                g_kmax = plans[p][0], g_tile = plans[p][1];
                check_h_sizes(tiny, sizeof tiny / sizeof *tiny);
            }
            g_kmax = g_tile = 0;
            continue;
        }
        if (strcmp(g_modes[mi].full, "0") == 0 || strcmp(g_modes[mi].shapes, "0") == 0) {
            check_size(11, true, true);
            check_size(12, true, false);
            check_size(17, true, false);
            check_size(18, false, false);
            continue;
        }
        if (mi == 0) {
            /* 2^19: passes of 10 and 9 stages (the forward transform alone). */
            const ntt_domain *d;
            size_t n = (size_t)1 << 19;
            fr_t *x = test_fr_vec(n), *want = test_fr_vec(n), *got = test_fr_vec(n);
            test_random_fr_vec(x, n);
            if (CHECK(ntt_domain_get(&d, 19) == G16_OK))
                check_kind(d, CUDA_NTT_FORWARD, x, NULL, NULL, want, got);
            free(x), free(want), free(got);
        }
        /* The GPU's plan: one pass up to 2^10, two up to 2^20 (2^18: the tiles of 2^27). */
        static const unsigned sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13};
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            check_size(sizes[i], true, true);
        check_size(17, true, false);
        check_size(18, false, false);
        /* Tiny plans: many passes, tiles of one group and of many, inner runs shorter and
         * longer than the tile. */
        static const unsigned plans[][2] = {{1, 1}, {1, 3}, {2, 2}, {2, 5}, {3, 4}, {4, 6}};
        for (size_t p = 0; p < sizeof plans / sizeof *plans; p++) {
            g_kmax = plans[p][0], g_tile = plans[p][1];
            for (unsigned log2n = 1; log2n <= 11; log2n += 2)
                check_size(log2n, true, false);
        }
        g_kmax = g_tile = 0;
    }
    check_errors();
#else
    g16_status st = cuda_ctx_create(&g_ctx, 0);
    if (st == G16_ERR_UNSUPPORTED)
        test_skip(g16_last_error());
    if (!CHECK(st == G16_OK)) {
        printf("cuda_ctx_create: %s: %s\n", g16_status_message(st), g16_last_error());
        return test_finish();
    }
    printf("device: %s\n", cuda_ctx_describe(g_ctx));
    check_h_fed_sizes();
    for (size_t mi = 0; mi < sizeof g_modes / sizeof *g_modes && !fed_only; mi++) {
        mode_set(&g_modes[mi]);
        if (mode_h_only(&g_modes[mi])) {
            static const unsigned hsizes[] = {0, 1, 2, 5, 11, 13, 17, 18, 20, 22, 24};
            check_h_sizes(hsizes, sizeof hsizes / sizeof *hsizes);
            continue;
        }
        static const unsigned sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 17, 20};
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            check_size(sizes[i], true, sizes[i] <= 13);
        check_size(21, true, false);
        check_size(22, true, false);
        check_size(24, false, false);
    }
    mode_set(&g_modes[0]);
    if (!fed_only) {
        check_shared_tables(22);
        check_errors();
    }
    cuda_ctx_free(g_ctx);
#endif
    return test_finish();
#endif
}
