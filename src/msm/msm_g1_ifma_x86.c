/* The G1 MSM's batch of affine additions with 8-lane AVX-512 IFMA products (field/
 * fp_x8_impl.h); msm_impl.h's batch_flush calls it while cpu_use_ifma. Compiled with
 * -mavx512f -mavx512ifma (CMakeLists.txt: files named *_ifma_x86.c). The batch's walk is
 * msm_batch_add_x8_impl.h; here is the addition itself.
 *
 * Per point: 6 vector products (1 forward, 2 back, 3 in the addition, one of them a
 * squaring) against the scalar 6, at ~9.5 ns (squaring ~8.3) against ~31 ns a product
 * on Zen 4.
 *
 * Bounds (fp_x8_impl.h: a product is < ab / 2^384 + p, and p / 2^384 < 0.1016): inputs
 * are canonical (< p); prefix products and inverses < 1.41p; num = y_P - y_B + p < 2p;
 * lambda < 1.41p; lambda^2 < 1.21p; x3' = lambda^2 - x_B - x_P + 2p < 3.21p;
 * t = x_B - x3' + 4p < 5p; t lambda < 1.73p; y3' = t lambda - y_B + p < 2.73p. Every
 * value stays below 2^384, and x3', y3' are reduced to canonical form before the store. */
#include "field/fp_x8_impl.h"
#include "msm/msm_internal.h"

/* d = x_P - x_B, canonical: the denominator the scalar path computes with fp_sub. */
static inline void den_x8(fpx8 *d, const fpx8 *xp, const fpx8 *xb)
{
    static const uint64_t P[8] = FPX8_P;
    fpx8_sub(d, xp, xb, P);
    fpx8_cond_sub(d, d, P);
}

/* y = -y (canonical: p - y, and 0 for 0) in the lanes of mask: the bases of negative
 * digits, read in place. */
static inline void neg_x8(fpx8 *y, __mmask8 mask)
{
    static const uint64_t P[8] = FPX8_P;
    fpx8 zero, t;
    for (int j = 0; j < 8; j++)
        zero.l[j] = _mm512_setzero_si512();
    fpx8_sub(&t, &zero, y, P);
    fpx8_cond_sub(&t, &t, P);
    for (int j = 0; j < 8; j++)
        y->l[j] = _mm512_mask_blend_epi64(mask, y->l[j], t.l[j]);
}

static inline void affine_add_x8(fpx8 *x3, fpx8 *y3, const fpx8 *xb, const fpx8 *yb,
                                 const fpx8 *xp, const fpx8 *yp, const fpx8 *dinv)
{
    static const uint64_t P[8] = FPX8_P, P2[8] = FPX8_2P, P4[8] = FPX8_4P;
    fpx8 lam, t;
    fpx8_sub(&lam, yp, yb, P);
    fpx8_mul(&lam, &lam, dinv);
    fpx8_sqr(x3, &lam);
    fpx8_sub2(x3, x3, xb, xp, P2);
    fpx8_sub(&t, xb, x3, P4);
    fpx8_mul(&t, &t, &lam);
    fpx8_sub(y3, &t, yb, P);
    fpx8_canonical(x3, x3);
    fpx8_canonical(y3, y3);
}

#define X8 fpx8
#define AFF g1_affine_t
#define FE fp_t
#define MSM_BATCH_ADD_X8_FN msm_g1_batch_add_x8
#define MSM_PAIR_ADD_X8_FN msm_g1_pair_add_x8
#include "msm/msm_batch_add_x8_impl.h"
