/* The G2 MSM's batch of affine additions with AVX-512 IFMA: eight Fp2 additions at a
 * time, lane k of each Fp2 vector one point (field/fp2_x8_impl.h: an Fp2 product is
 * three 8-lane Fp products, Karatsuba). msm_impl.h's batch_flush calls it while
 * cpu_use_ifma; the batch's walk is msm_batch_add_x8_impl.h, shared with G1. Compiled
 * with -mavx512f -mavx512ifma (CMakeLists.txt: files named *_ifma_x86.c).
 *
 * Per point 15 vector Fp products: the batch inversion 7 (norm, trick, conjugate over
 * the norm: fp2x8_batch_inv), lambda 3, lambda^2 2, y3 3; against 17 scalar fp_mul for
 * the scalar path (the trick over Fp2, 9, and the same 8).
 *
 * Bounds (multiples of p; fp2_x8_impl.h): coordinates canonical; 1 / den as
 * fp2x8_batch_inv_next returns it, components < 2p; num = y_P - y_B + p < 2p; lambda =
 * num / den canonical (fp2x8_mul reduces); lambda^2 < (1.61p, 1.21p); x3 = lambda^2 -
 * x_B - x_P + 2p < 3.61p, made canonical; t = x_B - x3 + p < 2p; t lambda canonical;
 * y3 = t lambda - y_B + p < 2p, made canonical. */
#include "field/fp2_x8_impl.h"
#include "msm/msm_internal.h"

/* d = x_P - x_B, canonical: the denominator the scalar path computes with fp2_sub. */
static inline void den_x8(fp2x8 *d, const fp2x8 *xp, const fp2x8 *xb)
{
    static const uint64_t P[8] = FPX8_P;
    fpx8_sub(&d->c0, &xp->c0, &xb->c0, P);
    fpx8_sub(&d->c1, &xp->c1, &xb->c1, P);
    fpx8_cond_sub(&d->c0, &d->c0, P);
    fpx8_cond_sub(&d->c1, &d->c1, P);
}

/* y = -y (canonical, per component) in the lanes of mask: the bases of negative
 * digits, read in place. */
static inline void neg_x8(fp2x8 *y, __mmask8 mask)
{
    static const uint64_t P[8] = FPX8_P;
    fpx8 zero, t;
    for (int j = 0; j < 8; j++)
        zero.l[j] = _mm512_setzero_si512();
    fpx8 *c[2] = {&y->c0, &y->c1};
    for (int i = 0; i < 2; i++) {
        fpx8_sub(&t, &zero, c[i], P);
        fpx8_cond_sub(&t, &t, P);
        for (int j = 0; j < 8; j++)
            c[i]->l[j] = _mm512_mask_blend_epi64(mask, c[i]->l[j], t.l[j]);
    }
}

static inline void affine_add_x8(fp2x8 *x3, fp2x8 *y3, const fp2x8 *xb, const fp2x8 *yb,
                                 const fp2x8 *xp, const fp2x8 *yp, const fp2x8 *dinv)
{
    static const uint64_t P[8] = FPX8_P, P2[8] = FPX8_2P;
    fp2x8 lam, t;
    fpx8_sub(&lam.c0, &yp->c0, &yb->c0, P);
    fpx8_sub(&lam.c1, &yp->c1, &yb->c1, P);
    fp2x8_mul(&lam, &lam, dinv);
    fp2x8_sqr(x3, &lam);
    fpx8_sub2(&x3->c0, &x3->c0, &xb->c0, &xp->c0, P2);
    fpx8_sub2(&x3->c1, &x3->c1, &xb->c1, &xp->c1, P2);
    fpx8_canonical(&x3->c0, &x3->c0);
    fpx8_canonical(&x3->c1, &x3->c1);
    fpx8_sub(&t.c0, &xb->c0, &x3->c0, P);
    fpx8_sub(&t.c1, &xb->c1, &x3->c1, P);
    fp2x8_mul(&t, &t, &lam);
    fpx8_sub(&y3->c0, &t.c0, &yb->c0, P);
    fpx8_sub(&y3->c1, &t.c1, &yb->c1, P);
    fpx8_cond_sub(&y3->c0, &y3->c0, P);
    fpx8_cond_sub(&y3->c1, &y3->c1, P);
}

#define X8 fp2x8
#define AFF g2_affine_t
#define FE fp2_t
#define MSM_BATCH_ADD_X8_FN msm_g2_batch_add_x8
#define MSM_PAIR_ADD_X8_FN msm_g2_pair_add_x8
#include "msm/msm_batch_add_x8_impl.h"
