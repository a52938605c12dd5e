/* What msm_scalars.c shares with the group code (msm_impl.h): the prepared-scalar layout
 * and the digit extraction. Not part of the MSM API.
 *
 * Signed digits without a per-window carry. With W = ceil(256 / c) windows of c bits and
 * the constant C = sum_{j < W-1} 2^(jc + c-1) (the top window excluded), each scalar k
 * is stored as k' = k + C. Window j < W-1 of k' holds d_j + 2^(c-1), window W-1 holds
 * d_{W-1}, and k = sum_j d_j 2^(jc) with
 *   d_j in [-2^(c-1), 2^(c-1) - 1]   for j < W-1,
 *   d_{W-1} in [0, 2^(c-1)]          because k < r < 2^255, C < 2^(c(W-1)) and cW >= 256
 *                                    give k' >> c(W-1) <= 2^(255 - c(W-1)) <= 2^(c-1).
 * So |d| <= 2^(c-1) everywhere, bucket |d| - 1 fits 2^(c-1) buckets, and k' < 2^256
 * (c(W-1) <= 255) fits four limbs. This is the usual recoding (subtract 2^c and carry
 * one whenever a window reaches 2^(c-1)) done by one addition; any window can be read
 * on its own, so the prepared form serves every window task without a sequential pass.
 */
#ifndef G16_MSM_MSM_INTERNAL_H
#define G16_MSM_MSM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field/fp_x8.h"
#include "msm/msm.h"

struct msm_scalars {
    size_t n;
    size_t zeros, ones, others;
    unsigned window_bits;      /* c */
    unsigned windows;          /* W */
    uint32_t *one_index;       /* [ones], increasing */
    uint32_t *other_index;     /* [others], increasing */
    uint64_t (*other_k)[4];    /* [others]: k + C, 32-byte aligned records */
};

/* Reads windows of one width from k' records. */
typedef struct {
    unsigned limb, shift;      /* where window j starts */
    bool straddles;            /* the window continues into limb + 1 */
    uint64_t mask;
    int32_t offset;            /* 2^(c-1), or 0 for the top window */
} msm_window_reader;

static inline msm_window_reader msm_window_reader_make(unsigned c, unsigned windows,
                                                       unsigned j)
{
    unsigned bit = j * c;
    msm_window_reader w;
    w.limb = bit / 64;
    w.shift = bit % 64;
    w.straddles = w.shift + c > 64 && w.limb < 3;
    w.mask = ((uint64_t)1 << c) - 1;
    w.offset = j + 1 < windows ? (int32_t)1 << (c - 1) : 0;
    return w;
}

static inline int32_t msm_window_digit(const msm_window_reader *w, const uint64_t k[4])
{
    uint64_t v = k[w->limb] >> w->shift;
    if (w->straddles)
        v |= k[w->limb + 1] << (64 - w->shift);
    return (int32_t)(v & w->mask) - w->offset;
}

static inline unsigned msm_windows_for(unsigned c) { return (256 + c - 1) / c; }

#ifdef G16_HAVE_IFMA
/* bucket[bkt[i]] += (-1)^neg[i] P_i for i < m in affine coordinates, P_i the point whose
 * bytes start at bases + idx[i] * 96 (any alignment; neg NULL: none negated), given
 * x_P != x_B and distinct buckets: the scalar batch_flush's additions with AVX-512 IFMA
 * (msm_g1_ifma_x86.c), bit for bit the same results. Only while cpu_use_ifma. scratch:
 * FP_X8_SCRATCH(m) bytes (field/fp_x8.h), 64-byte aligned. */
void msm_g1_batch_add_x8(g1_affine_t *bucket, const uint8_t *bases, const uint32_t *idx,
                         const uint8_t *neg, const uint32_t *bkt, size_t m, void *scratch);
/* The same for G2 (msm_g2_ifma_x86.c; 192-byte points), 8 Fp2 additions at a time.
 * scratch: FP2_X8_SCRATCH(m) bytes. */
void msm_g2_batch_add_x8(g2_affine_t *bucket, const uint8_t *bases, const uint32_t *idx,
                         const uint8_t *neg, const uint32_t *bkt, size_t m, void *scratch);
/* The affine trees' pairs, the same way: pts[ia[i]] += pts[ib[i]] for i < m, given
 * pts[ib[i]].x != pts[ia[i]].x, the pts[ia[i]] distinct and none of them an ib. Same
 * scratch as the batch functions. */
void msm_g1_pair_add_x8(g1_affine_t *pts, const uint32_t *ia, const uint32_t *ib, size_t m,
                        void *scratch);
void msm_g2_pair_add_x8(g2_affine_t *pts, const uint32_t *ia, const uint32_t *ib, size_t m,
                        void *scratch);
#endif

#endif
