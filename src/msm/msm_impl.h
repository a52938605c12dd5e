/* The MSM of msm.h for one group, written once (a C "template" like curve/point_impl.h):
 * msm_g1.c and msm_g2.c define POINT (g1, g2) and POINT_FIELD (fp, fp2), include msm.h
 * and then this file.
 *
 * Plan of one run over prepared scalars (msm_internal.h: W windows of c signed bits,
 * M = 2^(c-1) buckets per window):
 *
 *  - Tasks. Window j of point range p is one task with private buckets; it ends with its
 *    window sum S(j, p) = sum_b (b+1) B_b. Ranges split the points only as far as the
 *    thread count needs (choose_chunks): every extra range repeats the bucket reduction.
 *    Scalars equal to one form further tasks of up to ONES_CHUNK points each. All tasks
 *    go through one parallel_for, windows first (the top one, possibly the longest,
 *    leading), so that the short ones-tasks fill in at the end; buckets and batches
 *    live in per-worker scratch allocated before it starts.
 *  - Accumulation, batch affine (the default for large tasks): buckets hold affine
 *    points, and additions B_b += P wait in a batch whose denominators x_P - x_B share
 *    one field inversion (Montgomery's trick, 3 products per element). An affine
 *    addition then costs 1M + 1S + 1M on top: about 5M + 1S per point against 8M + 2S
 *    for an XYZZ mixed addition. A point whose bucket is already waiting in the batch
 *    goes to a retry queue (half a batch) and is scheduled again right after the next
 *    flush, and again after the one after if it meets a waiting bucket once more. A
 *    point that finds the queue full, or has x_P = x_B (P = +-B: a doubling or a
 *    cancellation, which the affine formula cannot do), goes into an XYZZ overflow
 *    accumulator of its bucket (complete mixed addition), taken from a pool on first
 *    use; a bucket is the sum of both parts. So random digits do not overflow, and
 *    skewed digits (all in one bucket) degrade to XYZZ speed instead of flushing one
 *    addition per inversion. The batch is a quarter of the buckets, at most BATCH_MAX. Batch affine accumulation is the method of gnark-crypto and of several
 *    ZPrize 2022 MSM entries; Montgomery's trick is from P. L. Montgomery, "Speeding the
 *    Pollard and elliptic curve methods of factorization", Math. Comp. 48 (1987).
 *  - Replicated buckets (the top window, whose digits reach only nb = 2^(255 - c(W-1))
 *    < M buckets, too few for a batch: it would meet its own buckets on most points):
 *    point i goes to replica i mod (M / nb) of its bucket, so the window batches like
 *    a full one; each bucket's replicas are then summed by the affine trees below.
 *  - Accumulation, XYZZ (small tasks, where a batch would not amortise an inversion):
 *    buckets in XYZZ coordinates, one mixed addition per point (EFD madd-2008-s).
 *  - Reduction, XYZZ buckets: the running sum R_b = sum_{i >= b} B_i, S = sum_b R_b, two
 *    additions per bucket and no multiplication by b; over a stretch of empty buckets R
 *    does not change, and its equal terms are added at once by double-and-add, so sparse
 *    buckets (few points, wide windows) cost O(log gap) each.
 *  - Reduction, affine buckets: block and stride sums by batched affine trees, which
 *    leave running sums over only ~2 sqrt(M) values (reduce_batch_affine); the overflow
 *    parts take the sparse running sum.
 *  - Windows are joined by Horner's rule, c doublings between windows.
 *  - Ones: a pairwise tree of affine additions, each level one batch with one inversion,
 *    handling P + P (doubling), P + (-P) (both dropped) inside the batch; below ONES_TAIL
 *    points the tree stops and the rest is added in Jacobian coordinates.
 *
 * Signed digits halve the buckets (a negative digit adds -P, which costs a negation):
 * Pippenger's bucket method (N. Pippenger, "On the evaluation of powers and monomials",
 * SIAM J. Comput. 9, 1980) with the signed windows blst also uses.
 *
 * Where the time goes (G1, 2^19 points, one thread): ~70% Montgomery products and
 * squarings (the Fermat inversion of each batch included), ~20% field additions, the
 * rest bookkeeping. So the loops are shaped for the multiplier: the batch inversion runs
 * CHAINS interleaved product chains (one chain would wait on each product's latency),
 * affine additions finish two at a time in lockstep, and buckets and bases are
 * prefetched PREFETCH points ahead. (An MSM-private inline copy of the additive field
 * operations was measured and dropped once the field layer's own got as fast.)
 *
 * On CPUs with AVX-512 IFMA, the batch of additions (batch_flush) runs 8 lanes at a time
 * instead (MSM_BATCH_ADD_X8, msm_g1_ifma_x86.c / msm_g2_ifma_x86.c, one walk in
 * msm_batch_add_x8_impl.h: ~9.5 ns a product on Zen 4 against ~31; G2 eight Fp2 additions),
 * and so do the affine trees' additions (MSM_PAIR_ADD_X8, the same walk) and
 * inversions (MSM_BATCH_INV_X8), with the same results bit for bit; scheduling and the
 * rare overflow stay scalar. The profile then (G1, 2^17, c = 14, one thread, before the
 * top window was sorted and the queue enlarged): vector additions ~45%, XYZZ overflow
 * additions and running sums ~15% (almost all of it the top window's 8 buckets and a
 * queue too short for c = 13), the Fermat inversion of each batch ~9%, the trees ~5%,
 * bucket and base loads and scheduling ~20%.
 *
 * Bases are read from unaligned memory with memcpy into aligned locals (or, in the
 * vector walk, by unaligned loads from their bytes); nothing here casts the caller's
 * bytes. The batch holds a base's index and sign, not a copy: the walk reads the base
 * in place and negates it in the lanes.
 */
#include <stdlib.h>
#include <string.h>

#include "field/cpu.h"
#include "msm/msm.h"
#include "msm/msm_internal.h"
#include "trace/trace.h"
#include "util/big_alloc.h"
#include "util/parallel.h"
#include "util/status.h"

#define MSM_CAT2(a, b) a##_##b
#define MSM_CAT(a, b) MSM_CAT2(a, b)
#define FN(name) MSM_CAT(POINT, name)
#define MSM_GROUP MSM_CAT(msm, POINT)
#define MSM(name) MSM_CAT(MSM_GROUP, name)
#define F(name) MSM_CAT(POINT_FIELD, name)
#define FE MSM_CAT(POINT_FIELD, t)
#define AFF MSM_CAT(POINT, affine_t)
#define JAC MSM_CAT(POINT, jac_t)
#define XYZZ MSM_CAT(POINT, xyzz_t)
/* Bytes of MSM_BATCH_ADD_X8's and MSM_BATCH_INV_X8's scratch for m elements: one 8-lane
 * vector a group over Fp; G2 defines its own (FP2_X8_SCRATCH). */
#ifndef MSM_X8_SCRATCH
#define MSM_X8_SCRATCH FP_X8_SCRATCH
#endif

_Static_assert(sizeof(AFF) == 2 * sizeof(FE), "affine points are packed x, y");

enum {
    /* Pending affine additions per inversion. The inversion (~450 multiplications by
     * Fermat) is amortised to < 0.5 per point; a larger batch collides more often with
     * its own buckets and outgrows L2. With 8-lane products (MSM_BATCH_ADD_X8) the
     * inversion is a larger share, and with 2^15 buckets or more (c >= 16) batches of
     * BATCH_MAX_X8 pay: G1 2^19, one thread, 1430-1470 -> 1280-1370 ms; at c = 14 the
     * collisions cost more than that saves (790-820 -> 900-1000 ms). */
    BATCH_MAX = 1024,
    BATCH_MAX_X8 = 2048,
    BATCH_X8_MIN_BUCKETS = 1 << 15,
    /* Ones summed by one tree: a level's batch is large enough to amortise its
     * inversion until the tree narrows to ONES_TAIL. Fewer ones are cut into four
     * tasks per thread, at least ONES_CHUNK_MIN each: three tasks on two threads left
     * one idle for half a task (the tail of a 2^17 prove's G2 MSM). */
    ONES_CHUNK = 16384,
    ONES_CHUNK_MIN = 2048,
    ONES_TAIL = 32,
    /* AUTO takes batch affine accumulation from this many points per task and batches
     * of at least BATCH_AFFINE_MIN_BATCH (c >= 10): measured crossover, one thread, G1
     * (XYZZ / affine ms: 8192 points 93 / 100, 16384: 175 / 170, 32768: 334 / 251).
     * With the 8-lane walk (IFMA) affine wins far lower: 2 threads, G1 2^10 2.9 ms
     * (c = 9, batches of 64) against 7.7 (XYZZ), 2^13 10.5 against 43 (2026-12-01). */
    BATCH_AFFINE_MIN_POINTS = 12288,
    BATCH_AFFINE_MIN_BATCH = 128,
    BATCH_AFFINE_MIN_POINTS_X8 = 512,
    BATCH_AFFINE_MIN_BATCH_X8 = 32,
    /* Points ahead whose bucket and base are prefetched. */
    PREFETCH = 8,
};

/* Bucket state bits. */
enum { B_OCCUPIED = 1, B_PENDING = 2, B_SLOT = 4 };
/* What a pair of the ones tree does. */
enum { PAIR_ADD, PAIR_DOUBLE, PAIR_CANCEL };

typedef struct {
    /* Buckets of one task. */
    uint8_t *flags;     /* [M] B_* bits (batch affine) */
    uint32_t *slot;     /* [M] overflow slot of a bucket with B_SLOT */
    AFF *aff;           /* [M] affine part of a bucket with B_OCCUPIED */
    XYZZ *xyzz;         /* [M] overflow pool (batch affine) or the buckets (XYZZ) */
    size_t slots_used;
    /* The pending batch: additions aff[bkt[i]] += (-1)^pneg[i] base pidx[i] (x
     * distinct), the bases read in place; den: the scalar path's denominators. */
    uint32_t *pidx;     /* [batch_max] */
    uint8_t *pneg;      /* [batch_max] */
    FE *den;            /* [batch_max] denominators, then their inverses */
    FE *pre;            /* [batch_max] prefix products */
    void *x8;           /* MSM_BATCH_ADD_X8's scratch */
    uint32_t *bkt;      /* [batch_max] */
    size_t pending;
    /* Points that met a waiting bucket, retried after the next flush. */
    uint32_t *qidx, *qidx_next;  /* [batch_max / 2] each: the queue, the one retried */
    uint8_t *qneg, *qneg_next;
    uint32_t *qbkt, *qbkt_next;
    size_t queued;
    /* Affine trees: the ones of a ones-task, or a reduction's bucket copies. */
    AFF *tree;          /* [T = max(ONES_CHUNK, M)] */
    FE *tden, *tpre;    /* [T / 2] */
    void *tx8;          /* MSM_BATCH_INV_X8's scratch for T / 2 */
    uint8_t *tkind;     /* [T / 2] */
    uint32_t *tia, *tib; /* [T / 2]: a level's additions, pts[tia] += pts[tib] */
    /* Groups of a reduction: max(L, M / L) <= sqrt(2M) of them, or nb < M of a window
     * with replicated buckets: points in each, and (replicas) their XYZZ sums. */
    uint32_t *glen;
    XYZZ *gxyzz;
    void *block;        /* the one allocation everything above points into */
} scratch_t;

typedef struct {
    const msm_scalars *s;
    const uint8_t *bases;
    scratch_t *scratch;       /* [threads] */
    size_t buckets;           /* M */
    size_t top_buckets;       /* buckets the top window's digits reach: <= M */
    unsigned chunks;          /* point ranges per window */
    size_t batch_max;         /* pending additions per inversion */
    size_t window_tasks;      /* windows * chunks */
    size_t ones_tasks;
    size_t ones_chunk;        /* ones per ones-task */
    bool batch_affine;
    JAC *window_sum;          /* [window_tasks], index j * chunks + p */
    JAC *ones_sum;            /* [ones_tasks] */
} run_ctx;

/* ====================================================================================
 * Small helpers
 * ==================================================================================== */

/* a == 0, inline: the field layer's is_zero is a call (constant time, which nothing here
 * needs: the MSM's memory accesses depend on the scalars anyway), and the scheduling
 * loop makes three tests a point (~7% of a G1 MSM as calls). */
static inline bool fe_is_zero(const FE *a)
{
    uint64_t w[sizeof(FE) / 8], acc = 0;
    memcpy(w, a, sizeof w);
    for (size_t i = 0; i < sizeof(FE) / 8; i++)
        acc |= w[i];
    return acc == 0;
}

/* a == b for canonical elements, inline as fe_is_zero. */
static inline bool fe_equal(const FE *a, const FE *b)
{
    uint64_t u[sizeof(FE) / 8], v[sizeof(FE) / 8], acc = 0;
    memcpy(u, a, sizeof u);
    memcpy(v, b, sizeof v);
    for (size_t i = 0; i < sizeof(FE) / 8; i++)
        acc |= u[i] ^ v[i];
    return acc == 0;
}

/* Base `index` is the point at infinity (all-zero bytes): x first, y only when x is 0. */
static inline bool base_is_infinity(const uint8_t *bases, uint32_t index)
{
    FE c;
    const uint8_t *p = bases + (size_t)index * sizeof(AFF);
    memcpy(&c, p, sizeof c);
    if (!fe_is_zero(&c))
        return false;
    memcpy(&c, p + sizeof c, sizeof c);
    return fe_is_zero(&c);
}

/* *p = base `index`; false when it is the point at infinity (all-zero bytes). */
static inline bool load_base(AFF *p, const uint8_t *bases, uint32_t index)
{
    memcpy(p, bases + (size_t)index * sizeof(AFF), sizeof(AFF));
    return !(fe_is_zero(&p->x) && fe_is_zero(&p->y));
}

/* a[i] = 1 / a[i] for i < m; every a[i] must be non-zero. pre: m elements of scratch,
 * x8: MSM_BATCH_INV_X8's. Montgomery's trick with CHAINS interleaved running products:
 * one chain would make every product wait for the previous one (latency ~2x the
 * throughput of fp_mul here); element i belongs to chain i % CHAINS. */
enum { CHAINS = 4 };

static void batch_invert(FE *a, FE *pre, void *x8, size_t m)
{
    if (m == 0)
        return;
#ifdef MSM_BATCH_INV_X8
    if (cpu_use_ifma) {
        MSM_BATCH_INV_X8(a, m, x8);
        return;
    }
#endif
    (void)x8;
    FE acc[CHAINS];
    for (int k = 0; k < CHAINS; k++)
        F(one)(&acc[k]);
    size_t i = 0;
    for (; i + CHAINS <= m; i += CHAINS)
        for (int k = 0; k < CHAINS; k++) {
            pre[i + k] = acc[k];
            F(mul)(&acc[k], &acc[k], &a[i + k]);
        }
    for (int k = 0; i < m; i++, k++) {
        pre[i] = acc[k];
        F(mul)(&acc[k], &acc[k], &a[i]);
    }
    /* inv[k] = 1 / acc[k] from one inversion of the product of the four. */
    FE p01, p23, all, inv[CHAINS], t;
    F(mul)(&p01, &acc[0], &acc[1]);
    F(mul)(&p23, &acc[2], &acc[3]);
    F(mul)(&all, &p01, &p23);
    F(inv_vartime)(&all, &all); /* bucket sums: the MSM is variable time already */
    F(mul)(&t, &all, &p23); /* 1 / (acc0 acc1) */
    F(mul)(&inv[0], &t, &acc[1]);
    F(mul)(&inv[1], &t, &acc[0]);
    F(mul)(&t, &all, &p01); /* 1 / (acc2 acc3) */
    F(mul)(&inv[2], &t, &acc[3]);
    F(mul)(&inv[3], &t, &acc[2]);
    /* Walk back: inv[k] = 1 / (prefix of chain k up to i), a[i] = inv[k] * pre[i]. */
    size_t tail = m % CHAINS;
    for (size_t j = m; j-- > m - tail;) {
        int k = (int)(j % CHAINS);
        F(mul)(&t, &inv[k], &pre[j]);
        F(mul)(&inv[k], &inv[k], &a[j]);
        a[j] = t;
    }
    for (size_t j = m - tail; j >= CHAINS; j -= CHAINS)
        for (int k = CHAINS - 1; k >= 0; k--) {
            size_t e = j - CHAINS + (size_t)k;
            F(mul)(&t, &inv[k], &pre[e]);
            F(mul)(&inv[k], &inv[k], &a[e]);
            a[e] = t;
        }
}

/* r = a + b in affine coordinates, given lambda's numerator num and inv = 1 / denominator
 * (b.x - a.x for an addition, 2 a.y for a doubling, where b = a). r may alias a. */
static inline void affine_finish(AFF *r, const AFF *a, const AFF *b, const FE *num,
                                 const FE *inv)
{
    FE lam, x3, t;
    F(mul)(&lam, num, inv);
    F(sqr)(&x3, &lam);
    F(sub)(&x3, &x3, &a->x);
    F(sub)(&x3, &x3, &b->x);
    F(sub)(&t, &a->x, &x3);
    F(mul)(&t, &t, &lam);
    F(sub)(&r->y, &t, &a->y);
    r->x = x3;
}

/* Two independent affine_finish in lockstep, so that one's product runs while the other
 * waits for its previous one (each finish is a chain of three dependent products). The
 * outputs must not alias the other pair's inputs. */
static inline void affine_finish2(AFF *r0, const AFF *a0, const AFF *b0, const FE *num0,
                                  const FE *inv0, AFF *r1, const AFF *a1, const AFF *b1,
                                  const FE *num1, const FE *inv1)
{
    FE lam0, x0, t0, lam1, x1, t1;
    F(mul)(&lam0, num0, inv0);
    F(mul)(&lam1, num1, inv1);
    F(sqr)(&x0, &lam0);
    F(sqr)(&x1, &lam1);
    F(sub)(&x0, &x0, &a0->x);
    F(sub)(&x1, &x1, &a1->x);
    F(sub)(&x0, &x0, &b0->x);
    F(sub)(&x1, &x1, &b1->x);
    F(sub)(&t0, &a0->x, &x0);
    F(sub)(&t1, &a1->x, &x1);
    F(mul)(&t0, &t0, &lam0);
    F(mul)(&t1, &t1, &lam1);
    F(sub)(&r0->y, &t0, &a0->y);
    F(sub)(&r1->y, &t1, &a1->y);
    r0->x = x0;
    r1->x = x1;
}

/* *p = (-1)^neg[i] times the affine point whose bytes start at src + si[i] * sizeof(AFF)
 * (neg NULL: not negated). */
static inline void load_source(AFF *p, const uint8_t *src, const uint32_t *si,
                               const uint8_t *neg, size_t i)
{
    memcpy(p, src + (size_t)si[i] * sizeof(AFF), sizeof(AFF));
    if (neg && neg[i])
        F(neg)(&p->y, &p->y);
}

/* dst[di[i]] += P_i for i < m in affine coordinates, P_i as load_source reads it, given
 * distinct x in each pair; den and pre are m elements of scratch. The dst[di[i]] must be
 * distinct and none of them a source. One field product at a time: the scalar path of
 * the batch and tree functions below (which MSM_BATCH_ADD_X8 and MSM_PAIR_ADD_X8 replace
 * on CPUs with IFMA). */
static void pairs_add(AFF *dst, const uint32_t *di, const uint8_t *src, const uint32_t *si,
                      const uint8_t *neg, FE *den, FE *pre, size_t m)
{
    AFF p0, p1;
    for (size_t i = 0; i < m; i++) {
        load_source(&p0, src, si, neg, i);
        F(sub)(&den[i], &p0.x, &dst[di[i]].x);
    }
    batch_invert(den, pre, NULL, m);
    size_t i = 0;
    for (; i + 2 <= m; i += 2) {
        AFF *b0 = &dst[di[i]], *b1 = &dst[di[i + 1]];
        load_source(&p0, src, si, neg, i);
        load_source(&p1, src, si, neg, i + 1);
        FE n0, n1;
        F(sub)(&n0, &p0.y, &b0->y);
        F(sub)(&n1, &p1.y, &b1->y);
        affine_finish2(b0, b0, &p0, &n0, &den[i], b1, b1, &p1, &n1, &den[i + 1]);
    }
    if (i < m) {
        AFF *b0 = &dst[di[i]];
        load_source(&p0, src, si, neg, i);
        FE n0;
        F(sub)(&n0, &p0.y, &b0->y);
        affine_finish(b0, b0, &p0, &n0, &den[i]);
    }
}

/* Sums groups of affine points in place with pairwise affine additions, one batch (one
 * inversion) per level across all groups: group g lies at pts[off[g] ...] (off NULL:
 * pts[g * stride ...]) with len[g] points; pairs are formed while len[g] > tail, so on
 * return len[g] <= tail. A level adds the second point of each pair into the first in
 * place (8 lanes at a time where MSM_PAIR_ADD_X8 runs), then moves each group's results
 * to its front. P + P (doubling: a batch of its own, rare) and P + (-P) (the pair
 * vanishes) are handled inside the level. The scratch's tree arrays (tden, tpre, tx8,
 * tkind, tia, tib) hold one entry per pair: half the points of all groups. */
static void tree_sum_groups(AFF *pts, size_t stride, const uint32_t *off, uint32_t *len,
                            size_t groups, size_t tail, scratch_t *s)
{
    FE *den = s->tden;
    uint8_t *kind = s->tkind;
    uint32_t *ia = s->tia, *ib = s->tib;
    for (;;) {
        size_t pairs = 0, adds = 0, doubles = 0;
        for (size_t g = 0; g < groups; g++) {
            if (len[g] <= tail)
                continue;
            size_t start = off ? off[g] : g * stride;
            for (size_t q = 0; q < len[g] / 2; q++, pairs++) {
                const AFF *a = &pts[start + 2 * q], *b = a + 1;
                if (!fe_equal(&a->x, &b->x)) {
                    kind[pairs] = PAIR_ADD;
                    ia[adds] = (uint32_t)(start + 2 * q);
                    ib[adds++] = (uint32_t)(start + 2 * q + 1);
                } else if (F(equal)(&a->y, &b->y) && !fe_is_zero(&a->y)) {
                    kind[pairs] = PAIR_DOUBLE;
                    doubles++;
                } else {
                    /* b = -a (y = 0 would be a point of order two, which neither group
                     * has, so only an invalid input gets here; it sums to infinity). */
                    kind[pairs] = PAIR_CANCEL;
                }
            }
        }
        if (pairs == 0)
            return;
#ifdef MSM_PAIR_ADD_X8
        if (cpu_use_ifma)
            MSM_PAIR_ADD_X8(pts, ia, ib, adds, s->tx8);
        else
#endif
            pairs_add(pts, ia, (const uint8_t *)pts, ib, NULL, den, s->tpre, adds);
        if (doubles) {
            /* lambda = 3 x^2 / (2 y), with the additions' scratch. */
            size_t e = 0, d = 0;
            for (size_t g = 0; g < groups; g++) {
                if (len[g] <= tail)
                    continue;
                size_t start = off ? off[g] : g * stride;
                for (size_t q = 0; q < len[g] / 2; q++, e++)
                    if (kind[e] == PAIR_DOUBLE) {
                        ia[d] = (uint32_t)(start + 2 * q);
                        F(dbl)(&den[d++], &pts[start + 2 * q].y);
                    }
            }
            batch_invert(den, s->tpre, s->tx8, doubles);
            for (d = 0; d < doubles; d++) {
                AFF *a = &pts[ia[d]];
                FE num, twice;
                F(sqr)(&num, &a->x);
                F(dbl)(&twice, &num);
                F(add)(&num, &num, &twice);
                affine_finish(a, a, a, &num, &den[d]);
            }
        }
        /* Each group's results to its front (kept <= q < 2q: nothing unread is
         * overwritten), the odd point last. */
        size_t e = 0;
        for (size_t g = 0; g < groups; g++) {
            if (len[g] <= tail)
                continue;
            AFF *seg = pts + (off ? off[g] : g * stride);
            size_t kept = 0;
            for (size_t q = 0; q < len[g] / 2; q++, e++)
                if (kind[e] != PAIR_CANCEL)
                    seg[kept++] = seg[2 * q];
            if (len[g] & 1)
                seg[kept++] = seg[len[g] - 1];
            len[g] = (uint32_t)kept;
        }
    }
}

/* acc += [k] p for k >= 1: double-and-add, XYZZ. The reductions below use it to add a
 * run of equal running sums at once. */
static void xyzz_add_multiple(XYZZ *acc, const XYZZ *p, size_t k)
{
    if (k == 1) {
        FN(xyzz_add)(acc, acc, p);
        return;
    }
    XYZZ m;
    int top = 63 - __builtin_clzll((unsigned long long)k);
    m = *p;
    for (int bit = top - 1; bit >= 0; bit--) {
        FN(xyzz_dbl)(&m, &m);
        if ((k >> bit) & 1)
            FN(xyzz_add)(&m, &m, p);
    }
    FN(xyzz_add)(acc, acc, &m);
}

/* ====================================================================================
 * Bucket accumulation
 * ==================================================================================== */

static void batch_flush(scratch_t *s, const run_ctx *x)
{
    size_t m = s->pending;
#ifdef MSM_BATCH_ADD_X8
    /* The same additions 8 lanes at a time (G1 on CPUs with AVX-512 IFMA). */
    if (cpu_use_ifma)
        MSM_BATCH_ADD_X8(s->aff, x->bases, s->pidx, s->pneg, s->bkt, m, s->x8);
    else
#endif
        pairs_add(s->aff, s->bkt, x->bases, s->pidx, s->pneg, s->den, s->pre, m);
    for (size_t i = 0; i < m; i++)
        s->flags[s->bkt[i]] &= (uint8_t)~B_PENDING;
    s->pending = 0;
}

/* Bucket b += p through its XYZZ overflow accumulator (complete formulas). */
static void overflow_add(scratch_t *s, uint32_t b, const AFF *p)
{
    if (s->flags[b] & B_SLOT) {
        XYZZ *q = &s->xyzz[s->slot[b]];
        FN(xyzz_add_mixed)(q, q, p);
        return;
    }
    uint32_t k = (uint32_t)s->slots_used++;
    FN(xyzz_from_affine)(&s->xyzz[k], p);
    s->slot[b] = k;
    s->flags[b] |= B_SLOT;
}

/* total = sum_g (g+1) v_g and *all = sum_g v_g over count group results, v_g =
 * pts[g * stride] when len[g] == 1, else empty: the running sum with lazy gaps. */
static void running_sum_groups(XYZZ *total, XYZZ *all, const AFF *pts, size_t stride,
                               const uint32_t *len, size_t count)
{
    XYZZ run, tot;
    FN(xyzz_set_infinity)(&run);
    FN(xyzz_set_infinity)(&tot);
    size_t same = 0;
    for (size_t g = count; g-- > 0;) {
        if (len[g] == 1) {
            if (same && !FN(xyzz_is_infinity)(&run))
                xyzz_add_multiple(&tot, &run, same);
            same = 0;
            FN(xyzz_add_mixed)(&run, &run, &pts[g * stride]);
        }
        same++;
    }
    if (!FN(xyzz_is_infinity)(&run))
        xyzz_add_multiple(&tot, &run, same);
    *total = tot;
    *all = run;
}

/* The window sum S = sum_b (b+1) B_b of a batch affine task.
 *
 * The affine parts go through two families of batched affine trees instead of the
 * running sum (whose two XYZZ additions per bucket cost ~24 products, twice the ~13 of
 * two batch affine additions): with L = 2^h ~ sqrt(M) and b = hi L + lo,
 *   G_hi = sum_lo B_(hi L + lo)  (blocks),  H_lo = sum_hi B_(hi L + lo)  (strides),
 *   T_G = sum_hi (hi+1) G_hi,  T_H = sum_lo (lo+1) H_lo,  R = sum_b B_b,
 *   S = L sum hi G_hi + sum lo H_lo + R = L (T_G - R) + T_H,
 * where T_G, T_H are running sums over only M/L and L values. The few XYZZ overflow
 * parts take the sparse running sum. */
static void reduce_batch_affine(XYZZ *sum, const run_ctx *x, scratch_t *s)
{
    size_t m = x->buckets;
    unsigned h = (x->s->window_bits - 1) / 2;
    size_t l = (size_t)1 << h, blocks = m >> h;
    AFF *pts = s->tree;
    uint32_t *len = s->glen;

    /* Overflow parts: sum (b+1) O_b over the buckets with a slot. */
    XYZZ over, run;
    FN(xyzz_set_infinity)(&over);
    FN(xyzz_set_infinity)(&run);
    size_t same = 0;
    for (size_t b = m; s->slots_used && b-- > 0;) {
        if (s->flags[b] & B_SLOT) {
            if (same && !FN(xyzz_is_infinity)(&run))
                xyzz_add_multiple(&over, &run, same);
            same = 0;
            FN(xyzz_add)(&run, &run, &s->xyzz[s->slot[b]]);
        }
        same++;
    }
    if (!FN(xyzz_is_infinity)(&run))
        xyzz_add_multiple(&over, &run, same);

    /* Blocks: G_hi at pts[hi * l]. */
    for (size_t hi = 0; hi < blocks; hi++) {
        uint32_t n = 0;
        for (size_t b = hi * l; b < hi * l + l; b++)
            if (s->flags[b] & B_OCCUPIED)
                pts[hi * l + n++] = s->aff[b];
        len[hi] = n;
    }
    tree_sum_groups(pts, l, NULL, len, blocks, 1, s);
    XYZZ tg, all;
    running_sum_groups(&tg, &all, pts, l, len, blocks);

    /* Strides: H_lo at pts[lo * blocks]. */
    for (size_t lo = 0; lo < l; lo++)
        len[lo] = 0;
    for (size_t b = 0; b < m; b++)
        if (s->flags[b] & B_OCCUPIED) {
            size_t lo = b & (l - 1);
            pts[lo * blocks + len[lo]++] = s->aff[b];
        }
    tree_sum_groups(pts, blocks, NULL, len, l, 1, s);
    XYZZ th, unused;
    running_sum_groups(&th, &unused, pts, blocks, len, l);

    /* S = L (T_G - R) + T_H + overflow */
    XYZZ t = all;
    F(neg)(&t.y, &t.y);
    FN(xyzz_add)(&t, &tg, &t);
    for (unsigned i = 0; i < h; i++)
        FN(xyzz_dbl)(&t, &t);
    FN(xyzz_add)(&t, &t, &th);
    FN(xyzz_add)(sum, &t, &over);
}

/* sum = sum_b (b+1) bucket[b] over m XYZZ buckets: the running sum with lazy gaps. */
static void xyzz_bucket_sum(XYZZ *sum, const XYZZ *bucket, size_t m)
{
    XYZZ run, total;
    FN(xyzz_set_infinity)(&run);
    FN(xyzz_set_infinity)(&total);
    size_t same = 0;
    for (size_t b = m; b-- > 0;) {
        if (!FN(xyzz_is_infinity)(&bucket[b])) {
            if (same && !FN(xyzz_is_infinity)(&run))
                xyzz_add_multiple(&total, &run, same);
            same = 0;
            FN(xyzz_add)(&run, &run, &bucket[b]);
        }
        same++;
    }
    if (!FN(xyzz_is_infinity)(&run))
        xyzz_add_multiple(&total, &run, same);
    *sum = total;
}

/* The window sum of a window whose digits reach only nb < M buckets (the top window:
 * its digits are below 2^(255 - c(W-1)), 8 buckets at c = 14, 256 at c = 13), whose
 * points went to K = M / nb replicas of each bucket (so that the batch meets no more of
 * its own buckets than in a full window): each bucket's replicas summed by the affine
 * trees, their overflow parts added, then the running sum over nb buckets. */
static void reduce_replicas(XYZZ *sum, const run_ctx *x, scratch_t *s, size_t nb,
                            unsigned rep_log)
{
    size_t k = (size_t)1 << rep_log;
    AFF *pts = s->tree;
    uint32_t *len = s->glen;
    XYZZ *bucket = s->gxyzz;
    for (size_t b = 0; b < nb; b++) {
        len[b] = 0;
        FN(xyzz_set_infinity)(&bucket[b]);
    }
    for (size_t r = 0; r < x->buckets; r++) {
        size_t b = r >> rep_log;
        if (s->flags[r] & B_OCCUPIED)
            pts[b * k + len[b]++] = s->aff[r];
        if (s->flags[r] & B_SLOT)
            FN(xyzz_add)(&bucket[b], &bucket[b], &s->xyzz[s->slot[r]]);
    }
    tree_sum_groups(pts, k, NULL, len, nb, 1, s);
    for (size_t b = 0; b < nb; b++)
        if (len[b])
            FN(xyzz_add_mixed)(&bucket[b], &bucket[b], &pts[b * k]);
    xyzz_bucket_sum(sum, bucket, nb);
}

static void flush_and_retry(scratch_t *s, const run_ctx *x);

/* Bucket b += (-1)^neg base idx (not at infinity), read in place: the batch holds the
 * base's index, not a copy. A bucket already waiting in the batch defers the point to
 * the retry queue (when there is room) or to the bucket's XYZZ overflow; so does P =
 * +-B. */
static inline void schedule(scratch_t *s, const run_ctx *x, uint32_t b, uint32_t idx,
                            uint8_t neg)
{
    uint8_t fl = s->flags[b];
    const uint8_t *base = x->bases + (size_t)idx * sizeof(AFF);
    if (!(fl & B_OCCUPIED)) {
        load_source(&s->aff[b], x->bases, &idx, &neg, 0);
        s->flags[b] = fl | B_OCCUPIED;
        return;
    }
    FE px;
    if (!(fl & B_PENDING)) {
        memcpy(&px, base, sizeof px);
        if (!fe_equal(&px, &s->aff[b].x)) {
            size_t e = s->pending;
            s->pidx[e] = idx;
            s->pneg[e] = neg;
            s->bkt[e] = b;
            s->flags[b] = fl | B_PENDING;
            if (++s->pending == x->batch_max)
                flush_and_retry(s, x);
            return;
        }
    } else if (s->queued < x->batch_max / 2) {
        s->qidx[s->queued] = idx;
        s->qneg[s->queued] = neg;
        s->qbkt[s->queued++] = b;
        return;
    }
    AFF p;
    load_source(&p, x->bases, &idx, &neg, 0);
    overflow_add(s, b, &p);
}

/* Flushes the batch, then schedules the queued points again: their buckets are free
 * now. The queue holds at most batch_max / 2 points, so retrying them cannot fill the
 * emptied batch (no recursion); a point that meets a waiting bucket again (another
 * queued point's) goes to the other queue for the next flush. The queue is sized for
 * the collisions of random digits, ~B^2 / 2M for a batch of B over M buckets (128 at
 * c = 13 with B = 1024): what overflows it costs XYZZ additions and the reduction's
 * sparse running sum (with a queue of 256, ~8% of a G1 MSM at c = 13). */
static void flush_and_retry(scratch_t *s, const run_ctx *x)
{
    batch_flush(s, x);
    size_t n = s->queued;
    uint32_t *idx = s->qidx, *bkt = s->qbkt;
    uint8_t *neg = s->qneg;
    s->qidx = s->qidx_next;
    s->qneg = s->qneg_next;
    s->qbkt = s->qbkt_next;
    s->qidx_next = idx;
    s->qneg_next = neg;
    s->qbkt_next = bkt;
    s->queued = 0;
    for (size_t i = 0; i < n; i++)
        schedule(s, x, bkt[i], idx[i], neg[i]);
}

/* Buckets of window w over prepared scalars [lo, hi), batch affine; then the window sum.
 * nb: the buckets the window's digits reach; with nb < M, point i goes to replica
 * i mod (M / nb) of its bucket (reduce_replicas). */
static void window_batch_affine(XYZZ *sum, const run_ctx *x, scratch_t *s,
                                const msm_window_reader *w, size_t lo, size_t hi, size_t nb)
{
    const uint64_t(*k)[4] = x->s->other_k;
    const uint32_t *index = x->s->other_index;
    unsigned rep_log = 0;
    while ((nb << rep_log) < x->buckets)
        rep_log++;
    uint32_t rep_mask = ((uint32_t)1 << rep_log) - 1;
    memset(s->flags, 0, x->buckets);
    s->slots_used = 0;
    s->pending = 0;
    s->queued = 0;
    for (size_t i = lo; i < hi; i++) {
        if (i + PREFETCH < hi) {
            /* The bucket array is megabytes (beyond L2) and read at random. */
            int32_t da = msm_window_digit(w, k[i + PREFETCH]);
            uint32_t ba = (((uint32_t)(da < 0 ? -da : da) - 1) << rep_log) |
                          ((uint32_t)(i + PREFETCH) & rep_mask);
            if (da != 0) {
                /* Both ends: a point spans two or three cache lines. */
                const char *pb = (const char *)&s->aff[ba];
                const uint8_t *pp = x->bases + (size_t)index[i + PREFETCH] * sizeof(AFF);
                __builtin_prefetch(pb);
                __builtin_prefetch(pb + sizeof(AFF) - 1);
                __builtin_prefetch(pp);
                __builtin_prefetch(pp + sizeof(AFF) - 1);
            }
        }
        int32_t d = msm_window_digit(w, k[i]);
        if (d == 0 || base_is_infinity(x->bases, index[i]))
            continue;
        uint32_t b = (uint32_t)(d < 0 ? -d : d) - 1;
        schedule(s, x, (b << rep_log) | ((uint32_t)i & rep_mask), index[i], d < 0);
    }
    do
        flush_and_retry(s, x);
    while (s->queued);
    batch_flush(s, x);

    if (rep_log)
        reduce_replicas(sum, x, s, nb, rep_log);
    else
        reduce_batch_affine(sum, x, s);
}

/* The same with XYZZ buckets. */
static void window_xyzz(XYZZ *sum, const run_ctx *x, scratch_t *s,
                        const msm_window_reader *w, size_t lo, size_t hi)
{
    const uint64_t(*k)[4] = x->s->other_k;
    const uint32_t *index = x->s->other_index;
    size_t m = x->buckets;
    XYZZ *bucket = s->xyzz;
    memset(bucket, 0, m * sizeof *bucket);
    for (size_t i = lo; i < hi; i++) {
        int32_t d = msm_window_digit(w, k[i]);
        if (d == 0)
            continue;
        AFF p;
        if (!load_base(&p, x->bases, index[i]))
            continue;
        uint32_t b;
        if (d < 0) {
            F(neg)(&p.y, &p.y);
            b = (uint32_t)(-d) - 1;
        } else {
            b = (uint32_t)d - 1;
        }
        FN(xyzz_add_mixed)(&bucket[b], &bucket[b], &p);
    }

    xyzz_bucket_sum(sum, bucket, m);
}

/* ====================================================================================
 * Scalars equal to one
 * ==================================================================================== */

static void ones_task(JAC *out, const run_ctx *x, scratch_t *s, size_t task)
{
    const msm_scalars *sc = x->s;
    size_t lo = task * x->ones_chunk;
    size_t hi = lo + x->ones_chunk < sc->ones ? lo + x->ones_chunk : sc->ones;
    AFF *tree = s->tree;
    uint32_t m = 0;
    for (size_t i = lo; i < hi; i++)
        m += load_base(&tree[m], x->bases, sc->one_index[i]);
    tree_sum_groups(tree, 0, NULL, &m, 1, ONES_TAIL, s);
    JAC acc;
    FN(set_infinity)(&acc);
    for (size_t i = 0; i < m; i++)
        FN(add_mixed)(&acc, &acc, &tree[i]);
    *out = acc;
}

/* ====================================================================================
 * Driver
 * ==================================================================================== */

static void task_body(void *p, size_t begin, size_t end, unsigned worker)
{
    run_ctx *x = p;
    scratch_t *s = &x->scratch[worker];
    for (size_t t = begin; t < end; t++) {
        if (t >= x->window_tasks) {
            /* On the timeline: batch addition, on whichever worker ran it. */
            uint64_t trace_t = trace_begin();
            ones_task(&x->ones_sum[t - x->window_tasks], x, s, t - x->window_tasks);
            trace_end(trace_t, TRACE_KERNEL, "batch_add");
            continue;
        }
        /* The top window first: with few buckets it costs more than a full window
         * (~1.85x when its points were sorted into trees), and as the last task it left
         * the other threads idle (~8% of a 2^17 MSM on two threads). */
        const msm_scalars *sc = x->s;
        unsigned j = sc->windows - 1 - (unsigned)(t / x->chunks);
        unsigned c = (unsigned)(t % x->chunks);
        size_t lo = sc->others * c / x->chunks, hi = sc->others * (c + 1) / x->chunks;
        msm_window_reader w = msm_window_reader_make(sc->window_bits, sc->windows, j);
        XYZZ sum;
        size_t nb = j + 1 == sc->windows ? x->top_buckets : x->buckets;
        if (x->batch_affine)
            window_batch_affine(&sum, x, s, &w, lo, hi, nb);
        else
            window_xyzz(&sum, x, s, &w, lo, hi);
        FN(xyzz_to_jac)(&x->window_sum[(size_t)j * x->chunks + c], &sum);
    }
}

/* Point ranges per window for `threads` threads: the makespan of W * P equal tasks is
 * ceil(W P / T) tasks of (others / P) accumulations plus one reduction of `buckets`. */
static unsigned choose_chunks(size_t others, unsigned windows, size_t buckets, unsigned threads)
{
    unsigned best = 1;
    double best_cost = 0;
    unsigned max_p = 4 * ((threads + windows - 1) / windows);
    for (unsigned p = 1; p <= max_p && p <= others; p++) {
        double rounds = (double)((windows * p + threads - 1) / threads);
        double cost = rounds * ((double)others / p + 3.0 * (double)buckets);
        if (p == 1 || cost < best_cost) {
            best = p;
            best_cost = cost;
        }
    }
    return best;
}

static size_t round64(size_t v) { return (v + 63) / 64 * 64; }

/* Carves the scratch of one worker out of one allocation; with block = NULL only sizes. */
static size_t scratch_layout(scratch_t *s, char *block, size_t buckets, size_t batch_cap,
                             bool batch_affine, bool ones)
{
    size_t off = 0;
#define CARVE(field, count)                                                                 \
    do {                                                                                    \
        s->field = block ? (void *)(block + off) : NULL;                                    \
        off += round64((count) * sizeof *s->field);                                         \
    } while (0)
    memset(s, 0, sizeof *s);
    if (buckets) {
        CARVE(xyzz, buckets);
        if (batch_affine) {
            CARVE(flags, buckets);
            CARVE(slot, buckets);
            CARVE(aff, buckets);
            CARVE(pidx, batch_cap);
            CARVE(pneg, batch_cap);
            CARVE(den, batch_cap);
            CARVE(pre, batch_cap);
#ifdef MSM_BATCH_ADD_X8
            s->x8 = block ? (void *)(block + off) : NULL;
            off += round64(MSM_X8_SCRATCH(batch_cap));
#endif
            CARVE(bkt, batch_cap);
            CARVE(qidx, batch_cap / 2);
            CARVE(qneg, batch_cap / 2);
            CARVE(qbkt, batch_cap / 2);
            CARVE(qidx_next, batch_cap / 2);
            CARVE(qneg_next, batch_cap / 2);
            CARVE(qbkt_next, batch_cap / 2);
        }
    }
    /* Trees: the ones' chunks, a reduction's buckets. */
    size_t trees = ones ? (size_t)ONES_CHUNK : 0;
    if (batch_affine && buckets > trees)
        trees = buckets;
    if (trees) {
        CARVE(tree, trees);
        CARVE(tden, trees / 2 + 1);
        CARVE(tpre, trees / 2 + 1);
#if defined(MSM_BATCH_INV_X8) || defined(MSM_PAIR_ADD_X8)
        s->tx8 = block ? (void *)(block + off) : NULL;
        off += round64(MSM_X8_SCRATCH(trees / 2 + 1));
#endif
        CARVE(tkind, trees / 2 + 1);
        CARVE(tia, trees / 2 + 1);
        CARVE(tib, trees / 2 + 1);
    }
    if (batch_affine && buckets) {
        /* max(L, M / L) = M >> h with M = 2^(c-1), h = floor((c-1) / 2); a replicated
         * window has up to M / 2 groups. */
        CARVE(glen, buckets / 2 + 1);
        CARVE(gxyzz, buckets / 2 + 1);
    }
#undef CARVE
    s->block = block;
    return off;
}

g16_status MSM(run_with)(JAC *r, const uint8_t *bases, const msm_scalars *s,
                         const msm_options *opts)
{
    FN(set_infinity)(r);
    if (!s)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "msm: no prepared scalars");
    if (s->n > 0 && !bases)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "msm: %zu scalars but no bases", s->n);
    msm_options defaults = {0};
    if (!opts)
        opts = &defaults;

    run_ctx x = {.s = s, .bases = bases};
    unsigned threads = parallel_threads();
    if (s->others) {
        x.buckets = (size_t)1 << (s->window_bits - 1);
        /* The top window's digits are at most 2^(255 - c(W-1)) (msm_internal.h). */
        unsigned top_bits = 255 - s->window_bits * (s->windows - 1);
        x.top_buckets = top_bits < s->window_bits - 1 ? (size_t)1 << top_bits : x.buckets;
        x.chunks = opts->point_chunks
                       ? opts->point_chunks
                       : choose_chunks(s->others, s->windows, x.buckets, threads);
        if (x.chunks > s->others)
            x.chunks = (unsigned)s->others;
        x.window_tasks = (size_t)s->windows * x.chunks;
        /* A point meets a bucket already in the batch with probability ~ pending / M,
         * and then costs an XYZZ addition: keep the batch at a quarter of the buckets. */
        x.batch_max = x.buckets / 4 < BATCH_MAX ? x.buckets / 4 : BATCH_MAX;
#ifdef MSM_BATCH_ADD_X8
        if (cpu_use_ifma && x.buckets >= BATCH_X8_MIN_BUCKETS)
            x.batch_max = BATCH_MAX_X8;
#endif
        if (x.batch_max < 16)
            x.batch_max = 16;
        size_t min_points = BATCH_AFFINE_MIN_POINTS, min_batch = BATCH_AFFINE_MIN_BATCH;
#ifdef MSM_BATCH_ADD_X8
        if (cpu_use_ifma) {
            min_points = BATCH_AFFINE_MIN_POINTS_X8;
            min_batch = BATCH_AFFINE_MIN_BATCH_X8;
        }
#endif
        x.batch_affine = opts->accumulate == MSM_ACCUMULATE_BATCH_AFFINE ||
                         (opts->accumulate == MSM_ACCUMULATE_AUTO &&
                          s->others / x.chunks >= min_points && x.batch_max >= min_batch);
    }
    x.ones_chunk = (s->ones + 4 * threads - 1) / (4 * threads);
    x.ones_chunk = x.ones_chunk < ONES_CHUNK_MIN ? ONES_CHUNK_MIN
                   : x.ones_chunk > ONES_CHUNK   ? ONES_CHUNK
                                                 : x.ones_chunk;
    x.ones_tasks = (s->ones + x.ones_chunk - 1) / x.ones_chunk;
    size_t tasks = x.window_tasks + x.ones_tasks;
    if (tasks == 0)
        return G16_OK;
    /* No more workers than tasks can ever be busy; parallel_for may still name any
     * worker below `threads`, so every one gets scratch. */
    scratch_t probe;
    size_t per_worker = scratch_layout(&probe, NULL, x.buckets, x.batch_max, x.batch_affine,
                                       s->ones > 0);
    size_t sums = tasks * sizeof(JAC);
    x.scratch = calloc(threads, sizeof *x.scratch);
    x.window_sum = malloc(sums);
    x.ones_sum = x.window_sum + x.window_tasks;
    g16_status st = G16_OK;
    if (!x.scratch || !x.window_sum) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "msm: %zu bytes of task results", sums);
        goto done;
    }
    for (unsigned t = 0; t < threads; t++) {
        char *block = big_alloc(per_worker);
        if (!block) {
            st = status_fail(G16_ERR_OUT_OF_MEMORY,
                             "msm: %zu bytes of bucket scratch for each of %u threads "
                             "(2^%u buckets)",
                             per_worker, threads, s->window_bits - 1);
            goto done;
        }
        scratch_layout(&x.scratch[t], block, x.buckets, x.batch_max, x.batch_affine,
                       s->ones > 0);
    }

    parallel_for(tasks, 1, task_body, &x);

    JAC acc;
    FN(set_infinity)(&acc);
    for (unsigned j = s->windows; x.window_tasks && j-- > 0;) {
        if (j + 1 < s->windows)
            for (unsigned b = 0; b < s->window_bits; b++)
                FN(dbl)(&acc, &acc);
        for (unsigned p = 0; p < x.chunks; p++)
            FN(add)(&acc, &acc, &x.window_sum[(size_t)j * x.chunks + p]);
    }
    for (size_t t = 0; t < x.ones_tasks; t++)
        FN(add)(&acc, &acc, &x.ones_sum[t]);
    *r = acc;

done:
    if (x.scratch)
        for (unsigned t = 0; t < threads; t++)
            big_free(x.scratch[t].block);
    free(x.scratch);
    free(x.window_sum);
    return st;
}

g16_status MSM(run)(JAC *r, const uint8_t *bases, const msm_scalars *s)
{
    return MSM(run_with)(r, bases, s, NULL);
}

g16_status MSM_GROUP(JAC *r, const uint8_t *bases, const uint8_t *scalars, size_t n)
{
    msm_scalars *s;
    FN(set_infinity)(r);
    g16_status st = msm_scalars_prepare(&s, scalars, n);
    if (st != G16_OK)
        return st;
    st = MSM(run)(r, bases, s);
    msm_scalars_free(s);
    return st;
}

g16_status MSM(fr)(JAC *r, const uint8_t *bases, const fr_t *scalars, size_t n)
{
    msm_scalars *s;
    FN(set_infinity)(r);
    g16_status st = msm_scalars_prepare_fr(&s, scalars, n);
    if (st != G16_OK)
        return st;
    st = MSM(run)(r, bases, s);
    msm_scalars_free(s);
    return st;
}

void MSM(reference)(JAC *r, const uint8_t *bases, const uint8_t *scalars, size_t n)
{
    JAC acc, p, t;
    FN(set_infinity)(&acc);
    for (size_t i = 0; i < n; i++) {
        AFF a;
        uint64_t k[4];
        memcpy(&a, bases + i * sizeof a, sizeof a);
        memcpy(k, scalars + i * MSM_SCALAR_BYTES, sizeof k);
        FN(from_affine)(&p, &a);
        FN(mul_vartime_limbs)(&t, &p, k, 4);
        FN(add)(&acc, &acc, &t);
    }
    *r = acc;
}

#undef MSM_X8_SCRATCH
#undef XYZZ
#undef JAC
#undef AFF
#undef FE
#undef F
#undef MSM
#undef MSM_GROUP
#undef FN
#undef MSM_CAT
#undef MSM_CAT2
