/* The G1 MSM's batch of affine additions with 8-lane AVX-512 IFMA products (field/
 * fp_x8_impl.h); msm_impl.h's batch_flush calls it while cpu_use_ifma. Compiled with
 * -mavx512f -mavx512ifma (CMakeLists.txt: files named *_ifma_x86.c).
 *
 * The same arithmetic as the scalar batch_flush, so the buckets come out bit for bit
 * equal: Montgomery's trick with lane k of every vector a chain of its own (element i in
 * lane i % 8, group i / 8), one scalar inversion of the 8 chain products, then the walk
 * back fused with the additions: group g's inverses are used as soon as they exist, so
 * they are never stored. Per point: 6 vector products (1 forward, 2 back, 3 in the
 * addition, one of them a squaring) against the scalar 6, at ~9.5 ns (squaring ~8.3)
 * against ~31 ns a product on Zen 4.
 *
 * Bounds (fp_x8_impl.h: a product is < ab / 2^384 + p, and p / 2^384 < 0.1016): inputs
 * are canonical (< p); prefix products and inverses < 1.41p; num = y_P - y_B + p < 2p;
 * lambda < 1.41p; lambda^2 < 1.21p; x3' = lambda^2 - x_B - x_P + 2p < 3.21p;
 * t = x_B - x3' + 4p < 5p; t lambda < 1.73p; y3' = t lambda - y_B + p < 2.73p. Every
 * value stays below 2^384, and x3', y3' are reduced to canonical form before the store. */
#include "field/fp_x8_impl.h"
#include "msm/msm_internal.h"

void msm_g1_batch_add_x8(g1_affine_t *bucket, const g1_affine_t *pt, const uint32_t *bkt,
                         const fp_t *den, size_t m, void *scratch)
{
    static const uint64_t P[8] = FPX8_P, P2[8] = FPX8_2P, P4[8] = FPX8_4P;
    if (m == 0)
        return;
    fpx8 *pre = scratch, inv, d;
    size_t groups = (m + 7) / 8;
    fpx8_batch_inv_begin(&inv, pre, den, m);
    fp_t one;
    fp_one(&one);

    const fp_t *sx[8], *sy[8], *bx[8], *by[8];
    fp_t *ox[8], *oy[8];
    for (size_t g = groups; g-- > 0;) {
        size_t n = m - 8 * g < 8 ? m - 8 * g : 8;
        for (size_t k = 0; k < 8; k++) {
            size_t i = 8 * g + (k < n ? k : 0);
            g1_affine_t *b = &bucket[bkt[i]];
            bx[k] = &b->x;
            by[k] = &b->y;
            ox[k] = &b->x;
            oy[k] = &b->y;
            sx[k] = &pt[i].x;
            sy[k] = &pt[i].y;
        }
        fpx8 di, xb, yb, xp, yp, lam, x3, t;
        fpx8_load_group(&d, den, g, m, &one);
        fpx8_mul(&di, &inv, &pre[g]); /* 1 / den of this group */
        fpx8_mul(&inv, &inv, &d);     /* 1 / prefix of the groups before */
        fpx8_load(&xb, bx);
        fpx8_load(&yb, by);
        fpx8_load(&xp, sx);
        fpx8_load(&yp, sy);
        fpx8_sub(&lam, &yp, &yb, P);
        fpx8_mul(&lam, &lam, &di);
        fpx8_sqr(&x3, &lam);
        fpx8_sub2(&x3, &x3, &xb, &xp, P2);
        fpx8_sub(&t, &xb, &x3, P4);
        fpx8_mul(&t, &t, &lam);
        fpx8_sub(&t, &t, &yb, P);
        fpx8_canonical(&x3, &x3);
        fpx8_canonical(&t, &t);
        fpx8_store(ox, (unsigned)n, &x3);
        fpx8_store(oy, (unsigned)n, &t);
    }
}
