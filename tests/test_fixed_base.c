/* Fixed-base multiplication against plain scalar multiplication, G1 and G2: window widths
 * 1 .. 16, scalars chosen to stress the signed recoding (0, 1, r - 1, powers of two, runs
 * of digits at the carry boundary) and random ones, batches that are not a multiple of
 * the block and that run on one thread and on several, and a base of order 3 in G1, whose
 * tables make the batch's accumulators meet their table points (the doubling and
 * cancelling paths) or hold infinities (the slow fallback). */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "curve/fixed_base.h"
#include "harness.h"
#include "util/parallel.h"

/* Scalars that exercise the recoding: the first `edge` entries are fixed, the rest random. */
static size_t fill_scalars(fr_t *ks, size_t count, unsigned w)
{
    size_t n = 0;
    fr_t one, two, t;
    fr_one(&one);
    fr_from_u64(&two, 2);
    if (n < count)
        fr_zero(&ks[n++]);
    if (n < count)
        ks[n++] = one;
    if (n < count)
        fr_neg(&ks[n++], &one); /* r - 1 */
    if (n < count) {
        fr_neg(&t, &two);
        ks[n++] = t; /* r - 2 */
    }
    for (unsigned e = 1; e < 255 && n < count; e += 37) {
        uint64_t ex[1] = {e};
        fr_pow(&ks[n++], &two, ex, 1);
    }
    /* Every digit equal to 2^(w-1) (the largest positive digit) or just above it (a carry
     * into the next window), as far as the scalar stays below 2^254. */
    for (int variant = 0; variant < 2 && n < count; variant++) {
        uint64_t limbs[4] = {0};
        uint64_t d = ((uint64_t)1 << (w - 1)) + (uint64_t)variant;
        for (unsigned bit = 0; bit + w <= 254; bit += w) {
            unsigned word = bit / 64, shift = bit % 64;
            limbs[word] |= d << shift;
            if (shift + w > 64)
                limbs[word + 1] |= d >> (64 - shift);
        }
        if (fr_from_limbs(&ks[n], limbs))
            n++;
    }
    size_t edge = n;
    while (n < count)
        test_random_fr(&ks[n++]);
    return edge;
}

static void test_g1(const g1_jac_t *base, unsigned w, size_t count)
{
    g1_jac_t want, got;
    g1_fixed_base fb;
    if (!CHECK(g1_fixed_base_init(&fb, base, w) == G16_OK))
        return;
    CHECK(fb.windows * w >= 256 && (fb.windows - 1) * w < 256);
    fr_t *ks = malloc(count * sizeof *ks);
    g1_affine_t *out = malloc(count * sizeof *out);
    fill_scalars(ks, count, w);
    for (size_t i = 0; i < count && i < 64; i++) {
        g1_fixed_base_mul(&got, &fb, &ks[i]);
        g1_mul_vartime(&want, base, &ks[i]);
        if (!CHECK(g1_equal(&got, &want)))
            fprintf(stderr, "  G1 w = %u: fixed_base_mul of scalar %zu\n", w, i);
    }
    CHECK(g1_fixed_base_batch(out, &fb, ks, count) == G16_OK);
    size_t bad = 0;
    for (size_t i = 0; i < count; i++) {
        g1_affine_t w_aff;
        g1_mul_vartime(&want, base, &ks[i]);
        g1_to_affine(&w_aff, &want);
        bad += !g1_affine_equal(&out[i], &w_aff);
    }
    if (!CHECK(bad == 0))
        fprintf(stderr, "  G1 w = %u: %zu of %zu batch products wrong\n", w, bad, count);
    free(ks);
    free(out);
    g1_fixed_base_free(&fb);
}

static void test_g2(const g2_jac_t *base, unsigned w, size_t count)
{
    g2_jac_t want, got;
    g2_fixed_base fb;
    if (!CHECK(g2_fixed_base_init(&fb, base, w) == G16_OK))
        return;
    fr_t *ks = malloc(count * sizeof *ks);
    g2_affine_t *out = malloc(count * sizeof *out);
    fill_scalars(ks, count, w);
    CHECK(g2_fixed_base_batch(out, &fb, ks, count) == G16_OK);
    size_t bad = 0;
    for (size_t i = 0; i < count; i++) {
        g2_affine_t w_aff;
        g2_mul_vartime(&want, base, &ks[i]);
        if (i < 32) {
            g2_fixed_base_mul(&got, &fb, &ks[i]);
            CHECK(g2_equal(&got, &want));
        }
        g2_to_affine(&w_aff, &want);
        bad += !g2_affine_equal(&out[i], &w_aff);
    }
    if (!CHECK(bad == 0))
        fprintf(stderr, "  G2 w = %u: %zu of %zu batch products wrong\n", w, bad, count);
    free(ks);
    free(out);
    g2_fixed_base_free(&fb);
}

#ifdef G16_HAVE_CUDA
/* --device: the GPU's batches (the setup's, backend/cuda/cuda_fixed_base.cu) equal the
 * CPU's point for point, from the same tables. */
static void device_g1(cuda_ctx *ctx, const g1_jac_t *base, unsigned w, size_t count)
{
    g1_fixed_base fb;
    if (!CHECK(g1_fixed_base_init(&fb, base, w) == G16_OK))
        return;
    fr_t *ks = malloc(count * sizeof *ks);
    g1_affine_t *want = malloc(count * sizeof *want), *got = calloc(count, sizeof *got);
    if (CHECK(ks && want && got)) {
        fill_scalars(ks, count, w);
        CHECK(g1_fixed_base_batch(want, &fb, ks, count) == G16_OK);
        g16_status st = cuda_fixed_base_g1(ctx, got, fb.table, fb.window_bits, fb.windows, ks, count);
        if (!CHECK(st == G16_OK))
            fprintf(stderr, "  %s\n", g16_last_error());
        size_t bad = 0;
        for (size_t i = 0; i < count; i++)
            bad += !g1_affine_equal(&got[i], &want[i]);
        if (!CHECK(bad == 0))
            fprintf(stderr, "  GPU G1 w = %u: %zu of %zu products differ\n", w, bad, count);
    }
    free(ks);
    free(want);
    free(got);
    g1_fixed_base_free(&fb);
}

static void device_g2(cuda_ctx *ctx, const g2_jac_t *base, unsigned w, size_t count)
{
    g2_fixed_base fb;
    if (!CHECK(g2_fixed_base_init(&fb, base, w) == G16_OK))
        return;
    fr_t *ks = malloc(count * sizeof *ks);
    g2_affine_t *want = malloc(count * sizeof *want), *got = calloc(count, sizeof *got);
    if (CHECK(ks && want && got)) {
        fill_scalars(ks, count, w);
        CHECK(g2_fixed_base_batch(want, &fb, ks, count) == G16_OK);
        g16_status st = cuda_fixed_base_g2(ctx, got, fb.table, fb.window_bits, fb.windows, ks, count);
        if (!CHECK(st == G16_OK))
            fprintf(stderr, "  %s\n", g16_last_error());
        size_t bad = 0;
        for (size_t i = 0; i < count; i++)
            bad += !g2_affine_equal(&got[i], &want[i]);
        if (!CHECK(bad == 0))
            fprintf(stderr, "  GPU G2 w = %u: %zu of %zu products differ\n", w, bad, count);
    }
    free(ks);
    free(want);
    free(got);
    g2_fixed_base_free(&fb);
}

static int device_main(const g1_jac_t *b1, const g2_jac_t *b2)
{
    cuda_ctx *ctx = NULL;
    if (backend_cuda_device_count() == 0 || cuda_ctx_create(&ctx, 0) != G16_OK) {
        printf("test_fixed_base --device: SKIPPED (no CUDA device)\n");
        return 77;
    }
    static const unsigned widths[] = {1, 3, 8, 13, 16};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        device_g1(ctx, b1, widths[i], 1000 + 33);
        device_g2(ctx, b2, widths[i], 500 + 7);
    }
    device_g1(ctx, b1, 16, 1);
    /* More than one chunk of 2^22, the last one short. */
    device_g1(ctx, b1, 16, ((size_t)1 << 22) + 1001);
    device_g2(ctx, b2, 13, ((size_t)1 << 22) + 3);
    /* A base of order 3 (no infinity in tables of width 1, 2): the sums keep meeting
     * +-T (the doubling and cancelling paths of the device's mixed addition). */
    g1_affine_t t_aff;
    fp_zero(&t_aff.x);
    fp_from_u64(&t_aff.y, 2);
    g1_jac_t t;
    g1_from_affine(&t, &t_aff);
    device_g1(ctx, &t, 1, 200);
    device_g1(ctx, &t, 2, 200);
    cuda_ctx_free(ctx);
    return test_finish();
}
#endif

int main(int argc, char **argv)
{
    test_init("test_fixed_base");
    g1_jac_t b1;
    g2_jac_t b2;
    fr_t k;
    g1_generator(&b1);
    g2_generator(&b2);
    test_random_fr(&k);
    g1_mul_vartime(&b1, &b1, &k); /* random bases, not only the generators */
    g2_mul_vartime(&b2, &b2, &k);
    if (argc > 1 && !strcmp(argv[1], "--device")) {
#ifdef G16_HAVE_CUDA
        return device_main(&b1, &b2);
#else
        printf("test_fixed_base --device: SKIPPED (a build without CUDA)\n");
        return 77;
#endif
    }

    static const unsigned widths[] = {1, 3, 8, 11, 13, 16};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        test_g1(&b1, widths[i], test_count(i == 0 ? 40 : 300));
        test_g2(&b2, widths[i], test_count(i == 0 ? 20 : 60));
    }
    /* Several blocks, the last one short, on one thread and then on two. */
    unsigned threads = parallel_threads();
    parallel_set_threads(1);
    test_g1(&b1, 12, 1024 + 77);
    parallel_set_threads(2);
    test_g1(&b1, 12, test_count(2 * 1024 + 333));
    test_g2(&b2, 10, 1024 + 5);
    parallel_set_threads(threads);

    /* T = (0, 2) has order 3 on y^2 = x^3 + 4. Widths 1 and 2 give tables of +-T only, so
     * the batch keeps meeting T and -T (doubling, cancelling); width 3 puts infinity in the
     * table (3 * T), which takes the fallback. */
    g1_affine_t t_aff;
    fp_zero(&t_aff.x);
    fp_from_u64(&t_aff.y, 2);
    if (CHECK(g1_affine_is_on_curve(&t_aff))) {
        g1_jac_t t;
        g1_from_affine(&t, &t_aff);
        for (unsigned w = 1; w <= 3; w++)
            test_g1(&t, w, 200);
        g1_fixed_base fb;
        CHECK(g1_fixed_base_init(&fb, &t, 2) == G16_OK && !fb.table_has_infinity);
        g1_fixed_base_free(&fb);
        CHECK(g1_fixed_base_init(&fb, &t, 3) == G16_OK && fb.table_has_infinity);
        g1_fixed_base_free(&fb);
    }

    g1_fixed_base fb;
    g1_jac_t g;
    g1_generator(&g);
    CHECK(g1_fixed_base_init(&fb, &g, 0) == G16_ERR_INVALID_ARGUMENT);
    CHECK(g1_fixed_base_init(&fb, &g, 17) == G16_ERR_INVALID_ARGUMENT);
    CHECK(g1_fixed_base_batch(NULL, &fb, NULL, 0) == G16_OK);
    return test_finish();
}
