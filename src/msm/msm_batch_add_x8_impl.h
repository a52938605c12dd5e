/* The MSM's batch of affine additions with 8-lane AVX-512 IFMA products, written once for
 * G1 (fp_x8_impl.h) and G2 (fp2_x8_impl.h), as msm_impl.h is for the scalar code:
 * msm_g1_ifma_x86.c and msm_g2_ifma_x86.c define
 *   X8                    the lane type and prefix (fpx8, fp2x8): X8_load, X8_load_bytes,
 *                         X8_store,
 *                         X8_batch_inv, X8_batch_inv_start / _push / _end / _pop
 *   AFF, FE               the affine point and field element types
 *   MSM_BATCH_ADD_X8_FN   the bucket batch's function (msm_internal.h declares it)
 *   MSM_PAIR_ADD_X8_FN    the affine trees' function (likewise)
 * a static den_x8(d, xp, xb): the canonical x_P - x_B, a static neg_x8(y, mask): the
 * canonical -y in the lanes of mask, and a static
 * affine_add_x8(x3, y3, xb, yb, xp, yp, dinv): canonical x3, y3 of B + P given canonical
 * coordinates and dinv = 1 / (x_P - x_B) as X8_batch_inv_pop returns it; then include
 * this file.
 *
 * The same arithmetic as the scalar code (msm_impl.h's batch_add and the trees' pairs),
 * so the results come out bit for bit equal: Montgomery's trick with lane k of every
 * vector a chain of its own (element i in lane i % 8, group i / 8), one scalar inversion
 * per batch, then the walk back fused with the additions: group g's inverses are used
 * as soon as they exist, so they are never stored. */
#define MSM_X8_CAT2(a, b) a##_##b
#define MSM_X8_CAT(a, b) MSM_X8_CAT2(a, b)
#define V(name) MSM_X8_CAT(X8, name)

/* Lane k of group g of a walk of m pairs: its destination point and where its source's
 * bytes start. Lanes past the batch repeat element 8g (read, never stored). */
static inline void pair_lanes(AFF *b8[8], const uint8_t *p8[8], AFF *dst, const uint32_t *di,
                              const uint8_t *src, const uint32_t *si, size_t g, size_t n)
{
    for (size_t k = 0; k < 8; k++) {
        size_t i = 8 * g + (k < n ? k : 0);
        b8[k] = &dst[di[i]];
        p8[k] = src + (size_t)si[i] * sizeof(AFF);
    }
}

/* The lanes of group g whose source is negated (sneg[i] != 0). */
static inline __mmask8 pair_negated(const uint8_t *sneg, size_t g, size_t n)
{
    unsigned mask = 0;
    for (size_t k = 0; sneg && k < n; k++)
        mask |= (unsigned)(sneg[8 * g + k] != 0) << k;
    return (__mmask8)mask;
}

/* dst[di[i]] += (-1)^sneg[i] P_i for i < m, P_i the affine point whose bytes start at
 * src + si[i] * sizeof(AFF) (any alignment: the MSM's bases in place; sneg NULL: none
 * negated). x coordinates distinct within each pair, the dst[di[i]] distinct and none
 * of them a source, so a group's stores never reach a later group's loads. The
 * denominators x_P - x_B are made from the loaded coordinates, in the forward pass and
 * again in the backward one, instead of being stored by the caller. */
static inline void pair_walk(AFF *dst, const uint32_t *di, const uint8_t *src,
                             const uint32_t *si, const uint8_t *sneg, size_t m, void *scratch)
{
    if (m == 0)
        return;
    size_t groups = (m + 7) / 8;
    V(batch_inv) st;
    V(batch_inv_start)(&st, scratch, groups);
    /* Separate load and store pointers: C converts FE *[8] to const FE *const * only
     * with a cast. */
    AFF *b8[8];
    const uint8_t *p8[8], *py[8];
    const FE *bx[8], *by[8];
    FE *ox[8], *oy[8];
    X8 xb, yb, xp, yp, d, dinv, x3, y3;
    for (size_t g = 0; g < groups; g++) {
        pair_lanes(b8, p8, dst, di, src, si, g, m - 8 * g < 8 ? m - 8 * g : 8);
        for (size_t k = 0; k < 8; k++)
            bx[k] = &b8[k]->x;
        V(load)(&xb, bx);
        V(load_bytes)(&xp, p8);
        den_x8(&d, &xp, &xb);
        V(batch_inv_push)(&st, g, &d);
    }
    V(batch_inv_end)(&st);
    for (size_t g = groups; g-- > 0;) {
        size_t n = m - 8 * g < 8 ? m - 8 * g : 8;
        pair_lanes(b8, p8, dst, di, src, si, g, n);
        for (size_t k = 0; k < 8; k++) {
            bx[k] = &b8[k]->x;
            by[k] = &b8[k]->y;
            ox[k] = &b8[k]->x;
            oy[k] = &b8[k]->y;
            py[k] = p8[k] + sizeof(FE);
        }
        V(load)(&xb, bx);
        V(load)(&yb, by);
        V(load_bytes)(&xp, p8);
        V(load_bytes)(&yp, py);
        __mmask8 neg = pair_negated(sneg, g, n);
        if (neg)
            neg_x8(&yp, neg);
        den_x8(&d, &xp, &xb);
        V(batch_inv_pop)(&dinv, &st, g, &d);
        affine_add_x8(&x3, &y3, &xb, &yb, &xp, &yp, &dinv);
        V(store)(ox, (unsigned)n, &x3);
        V(store)(oy, (unsigned)n, &y3);
    }
}

void MSM_BATCH_ADD_X8_FN(AFF *bucket, const uint8_t *bases, const uint32_t *idx,
                         const uint8_t *neg, const uint32_t *bkt, size_t m, void *scratch)
{
    pair_walk(bucket, bkt, bases, idx, neg, m, scratch);
}

void MSM_PAIR_ADD_X8_FN(AFF *pts, const uint32_t *ia, const uint32_t *ib, size_t m,
                        void *scratch)
{
    pair_walk(pts, ia, (const uint8_t *)pts, ib, NULL, m, scratch);
}

#undef V
#undef MSM_X8_CAT
#undef MSM_X8_CAT2
