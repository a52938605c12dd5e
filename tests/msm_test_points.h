/* Points for the GPU MSM tests (test_cuda_msm, test_cuda_msm_emu): pools of random G1
 * and G2 points ([k]G for random k), and base vectors drawn from them with infinities,
 * P, -P pairs or repeats planted. The includer defines MSM_TEST_POOL (the pools' size)
 * and includes harness.h, curve/g1.h and curve/g2.h first. */
#ifndef G16_TESTS_MSM_TEST_POINTS_H
#define G16_TESTS_MSM_TEST_POINTS_H

static g1_affine_t pool1[MSM_TEST_POOL];
static g2_affine_t pool2[MSM_TEST_POOL];

static void make_pools(void)
{
    g1_jac_t g1, t1;
    g2_jac_t g2, t2;
    g1_generator(&g1);
    g2_generator(&g2);
    for (size_t i = 0; i < MSM_TEST_POOL; i++) {
        fr_t k;
        test_random_fr(&k);
        g1_mul_vartime(&t1, &g1, &k);
        g1_to_affine(&pool1[i], &t1);
        g2_mul_vartime(&t2, &g2, &k);
        g2_to_affine(&pool2[i], &t2);
    }
}

/* Base kinds: 0 random, 1 ~10% infinity, 2 pairs P, -P, 3 three points repeated. */
#define MAKE_BASES(G, pool, b, n, kind)                                                  \
    do {                                                                                 \
        size_t start_ = test_rand64() % MSM_TEST_POOL;                                   \
        for (size_t i = 0; i < (n); i++) {                                               \
            uint64_t u = test_rand64() % 100;                                            \
            (b)[i] = pool[(start_ + i) % MSM_TEST_POOL];                                 \
            if ((kind) == 1 && u < 10)                                                   \
                G##_affine_set_infinity(&(b)[i]);                                        \
            else if ((kind) == 2 && (i & 1))                                             \
                G##_affine_neg(&(b)[i], &(b)[i - 1]);                                    \
            else if ((kind) == 3)                                                        \
                (b)[i] = pool[u % 3];                                                    \
        }                                                                                \
    } while (0)

#endif
