/* The MSM's batch of affine additions with 8-lane AVX-512 IFMA products, written once for
 * G1 (fp_x8_impl.h) and G2 (fp2_x8_impl.h), as msm_impl.h is for the scalar code:
 * msm_g1_ifma_x86.c and msm_g2_ifma_x86.c define
 *   X8                    the lane type and prefix (fpx8, fp2x8): X8_load, X8_store,
 *                         X8_batch_inv, X8_batch_inv_begin / _next
 *   AFF, FE               the affine point and field element types
 *   MSM_BATCH_ADD_X8_FN   the bucket batch's function (msm_internal.h declares it)
 *   MSM_PAIR_ADD_X8_FN    the affine trees' function (likewise)
 * and a static affine_add_x8(x3, y3, xb, yb, xp, yp, dinv): canonical x3, y3 of
 * B + P given canonical coordinates and dinv = 1 / (x_P - x_B) as X8_batch_inv_next
 * returns it; then include this file.
 *
 * The same arithmetic as the scalar code (msm_impl.h's batch_add and the trees' pairs),
 * so the results come out bit for bit equal: Montgomery's trick with lane k of every
 * vector a chain of its own (element i in lane i % 8, group i / 8), one scalar inversion
 * per batch, then the walk back fused with the additions: group g's inverses are used
 * as soon as they exist, so they are never stored. */
#define MSM_X8_CAT2(a, b) a##_##b
#define MSM_X8_CAT(a, b) MSM_X8_CAT2(a, b)
#define V(name) MSM_X8_CAT(X8, name)

/* dst[di[i]] += src[si[i]] (src[i] when si is NULL) for i < m, given den[i] = the x of
 * the second point minus the x of the first, non-zero. The dst[di[i]] are distinct and
 * none of them is a source, so a group's stores never reach a later group's loads. */
static inline void pair_walk(AFF *dst, const uint32_t *di, const AFF *src, const uint32_t *si,
                             const FE *den, size_t m, void *scratch)
{
    if (m == 0)
        return;
    V(batch_inv) st;
    V(batch_inv_begin)(&st, scratch, den, m);
    /* Separate load and store pointers: C converts FE *[8] to const FE *const * only
     * with a cast. Lanes past the batch read element 8g and are not stored. */
    const FE *sx[8], *sy[8], *bx[8], *by[8];
    FE *ox[8], *oy[8];
    for (size_t g = (m + 7) / 8; g-- > 0;) {
        size_t n = m - 8 * g < 8 ? m - 8 * g : 8;
        for (size_t k = 0; k < 8; k++) {
            size_t i = 8 * g + (k < n ? k : 0);
            AFF *b = &dst[di[i]];
            const AFF *p = &src[si ? si[i] : i];
            bx[k] = &b->x;
            by[k] = &b->y;
            ox[k] = &b->x;
            oy[k] = &b->y;
            sx[k] = &p->x;
            sy[k] = &p->y;
        }
        X8 di8, xb, yb, xp, yp, x3, y3;
        V(batch_inv_next)(&di8, &st, den, g, m);
        V(load)(&xb, bx);
        V(load)(&yb, by);
        V(load)(&xp, sx);
        V(load)(&yp, sy);
        affine_add_x8(&x3, &y3, &xb, &yb, &xp, &yp, &di8);
        V(store)(ox, (unsigned)n, &x3);
        V(store)(oy, (unsigned)n, &y3);
    }
}

void MSM_BATCH_ADD_X8_FN(AFF *bucket, const AFF *pt, const uint32_t *bkt, const FE *den,
                         size_t m, void *scratch)
{
    pair_walk(bucket, bkt, pt, NULL, den, m, scratch);
}

void MSM_PAIR_ADD_X8_FN(AFF *pts, const uint32_t *ia, const uint32_t *ib, const FE *den,
                        size_t m, void *scratch)
{
    pair_walk(pts, ia, pts, ib, den, m, scratch);
}

#undef V
#undef MSM_X8_CAT
#undef MSM_X8_CAT2
