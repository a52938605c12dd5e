/* Eight Fp2 elements at once with AVX-512 IFMA: fp2.h's arithmetic over fp_x8_impl.h's
 * 8-lane Fp products, for the *_ifma_x86.c files (the G2 MSM's batch affine additions).
 *
 * Layout: lane k of both vectors c0, c1 is element k, so one Fp2 product is three 8-lane
 * Fp products (Karatsuba, as fp2_mul) doing eight independent Fp2 products at once, and
 * everything fp_x8_impl.h says about bounds applies per component. (The other layout,
 * the three Fp products of one Fp2 product side by side in lanes, would leave lanes idle
 * and need shuffles between the products; eight independent elements need neither.)
 *
 * Bounds, in multiples of p (c = p / 2^384 < 0.1016; an 8-lane product of values below
 * A and B is below cAB + 1): stated per function; all stay far below 2^384 (9.8p).
 */
#ifndef G16_FIELD_FP2_X8_IMPL_H
#define G16_FIELD_FP2_X8_IMPL_H

#include "field/fp2.h"
#include "field/fp_x8.h"
#include "field/fp_x8_impl.h"

typedef struct {
    fpx8 c0, c1;
} fp2x8;

/* r = the elements at src[0..7] (lane k from src[k]). */
/* r = the elements whose 96 bytes (c0's limbs, then c1's) start at src[0..7] (any
 * alignment). */
static inline void fp2x8_load_bytes(fp2x8 *r, const uint8_t *const src[8])
{
    const uint8_t *s1[8];
    for (int k = 0; k < 8; k++)
        s1[k] = src[k] + sizeof(fp_t);
    fpx8_load_bytes(&r->c0, src);
    fpx8_load_bytes(&r->c1, s1);
}

static inline void fp2x8_load(fp2x8 *r, const fp2_t *const src[8])
{
    const fp_t *s0[8], *s1[8];
    for (int k = 0; k < 8; k++) {
        s0[k] = &src[k]->c0;
        s1[k] = &src[k]->c1;
    }
    fpx8_load(&r->c0, s0);
    fpx8_load(&r->c1, s1);
}

/* dst[k] = lane k of a canonical a, for k < n <= 8. */
static inline void fp2x8_store(fp2_t *const dst[8], unsigned n, const fp2x8 *a)
{
    fp_t *d0[8], *d1[8];
    for (int k = 0; k < 8; k++) {
        d0[k] = &dst[k]->c0;
        d1[k] = &dst[k]->c1;
    }
    fpx8_store(d0, n, &a->c0);
    fpx8_store(d1, n, &a->c1);
}

/* r = group g of a[0..m): a[8g + k], or *pad for lanes past m. */
static inline void fp2x8_load_group(fp2x8 *r, const fp2_t *a, size_t g, size_t m,
                                    const fp2_t *pad)
{
    _Static_assert(sizeof(fp2_t) == 2 * sizeof(fp_t), "fp2_t is c0, c1 packed");
    fpx8_load_group_strided(&r->c0, &a->c0, 2, g, m, &pad->c0);
    fpx8_load_group_strided(&r->c1, &a->c1, 2, g, m, &pad->c1);
}

/* r = a * b, canonical. Components of a below A p and of b below B p, AB <= 4 (both
 * below 2p, or one canonical and the other below 4p). Karatsuba as fp2_mul: t0 = a0 b0,
 * t1 = a1 b1 (< 4c + 1 < 1.41p), s = (a0 + a1)(b0 + b1) (< 16c + 1 < 2.63p); r0 = t0 -
 * t1 + 2p < 3.41p, r1 = s - t0 - t1 + 4p < 6.63p, both reduced from below 8p. r may
 * alias a or b. */
static inline void fp2x8_mul(fp2x8 *r, const fp2x8 *a, const fp2x8 *b)
{
    static const uint64_t P2[8] = FPX8_2P, P4[8] = FPX8_4P;
    fpx8 t0, t1, sa, sb;
    fpx8_add(&sa, &a->c0, &a->c1);
    fpx8_add(&sb, &b->c0, &b->c1);
    fpx8_mul(&t0, &a->c0, &b->c0);
    fpx8_mul(&t1, &a->c1, &b->c1);
    fpx8_mul(&sa, &sa, &sb);
    fpx8_sub2(&r->c1, &sa, &t0, &t1, P4);
    fpx8_sub(&r->c0, &t0, &t1, P2);
    fpx8_canonical8(&r->c0, &r->c0);
    fpx8_canonical8(&r->c1, &r->c1);
}

/* r = a^2 for canonical a, lazily reduced: r0 < 1.61p, r1 < 1.21p. As fp2_sqr, two
 * products: r0 = (a0 + a1)(a0 - a1 + 2p) (< 2 * 3 * c + 1), r1 = (2 a0) a1 (< 2c + 1).
 * r may alias a. */
static inline void fp2x8_sqr(fp2x8 *r, const fp2x8 *a)
{
    static const uint64_t P2[8] = FPX8_2P;
    fpx8 s, d, a2;
    fpx8_add(&s, &a->c0, &a->c1);
    fpx8_sub(&d, &a->c0, &a->c1, P2);
    fpx8_add(&a2, &a->c0, &a->c0);
    fpx8_mul(&r->c1, &a2, &a->c1);
    fpx8_mul(&r->c0, &s, &d);
}

/* Montgomery's trick over Fp2 denominators, one scalar Fp inversion per batch:
 * 1 / d = conj(d) / N(d) with the norm N(d) = d0^2 + d1^2 in Fp (non-zero for d != 0:
 * -1 is not a square mod p = 3 mod 4), so the trick runs over the norms in 8 Fp lanes
 * (fp_x8_impl.h: lane k a chain of its own, one scalar inversion of the 8 chain
 * products) and each inverse costs two more products. Per element 7 Fp products (2 for
 * the norm, 3 for the trick, 2 for conj(d) / N), against 9 for the trick over Fp2
 * products (3 forward, 6 back).
 *
 * Bounds: norms < 2.21p, prefix products < 1.41p, the running inverse < 1.32p, 1 / N
 * < 1.15p; 1 / d is returned as (d0 / N, 2p - d1 / N), components < 2p. */
typedef struct {
    fpx8 inv;         /* lanes' inverse of the product of the norms of groups <= g */
    fpx8 *pre, *norm; /* [groups] prefix products of the norms; the norms */
} fp2x8_batch_inv;

/* The trick one vector at a time (as fpx8_batch_inv_start and the rest): push groups
 * 0, 1, ... in order, end, then pop them from the last down to 0 with the same vectors.
 * scratch: FP2_X8_SCRATCH(8 * groups) bytes (fp_x8.h), 64-byte aligned, laid out as
 * [pre: groups][norm: groups] vectors, so groups must be known at start. */
static inline void fp2x8_batch_inv_start(fp2x8_batch_inv *st, void *scratch, size_t groups)
{
    st->pre = scratch;
    st->norm = st->pre + groups;
    fpx8_one(&st->inv); /* the running product of the norms until end */
}

static inline void fp2x8_batch_inv_push(fp2x8_batch_inv *st, size_t g, const fp2x8 *d)
{
    fpx8 n1;
    fpx8_sqr(&st->norm[g], &d->c0);
    fpx8_sqr(&n1, &d->c1);
    fpx8_add(&st->norm[g], &st->norm[g], &n1);
    st->pre[g] = st->inv;
    fpx8_mul(&st->inv, &st->inv, &st->norm[g]);
}

static inline void fp2x8_batch_inv_end(fp2x8_batch_inv *st)
{
    fpx8_inv_lanes(&st->inv, &st->inv);
}

/* *dinv = 1 / d, d the vector pushed as group g. */
static inline void fp2x8_batch_inv_pop(fp2x8 *dinv, fp2x8_batch_inv *st, size_t g,
                                       const fp2x8 *d)
{
    static const uint64_t P2[8] = FPX8_2P;
    fpx8 ninv, t;
    fpx8_mul(&ninv, &st->inv, &st->pre[g]);
    fpx8_mul(&st->inv, &st->inv, &st->norm[g]);
    fpx8_mul(&dinv->c0, &d->c0, &ninv);
    fpx8_mul(&t, &d->c1, &ninv);
    fpx8 zero;
    for (int j = 0; j < 8; j++)
        zero.l[j] = _mm512_setzero_si512();
    fpx8_sub(&dinv->c1, &zero, &t, P2);
}

/* The forward half over den[0..m) (every element non-zero; lanes past m hold 1).
 * scratch: FP2_X8_SCRATCH(m) bytes (fp_x8.h), 64-byte aligned. */
static inline void fp2x8_batch_inv_begin(fp2x8_batch_inv *st, void *scratch,
                                         const fp2_t *den, size_t m)
{
    size_t groups = (m + 7) / 8;
    fp2_t one;
    fp2_one(&one);
    fp2x8 d;
    fp2x8_batch_inv_start(st, scratch, groups);
    for (size_t g = 0; g < groups; g++) {
        fp2x8_load_group(&d, den, g, m, &one);
        fp2x8_batch_inv_push(st, g, &d);
    }
    fp2x8_batch_inv_end(st);
}

/* *dinv = 1 / den of group g; called for g from the last group down to 0. */
static inline void fp2x8_batch_inv_next(fp2x8 *dinv, fp2x8_batch_inv *st, const fp2_t *den,
                                        size_t g, size_t m)
{
    fp2_t one;
    fp2_one(&one);
    fp2x8 d;
    fp2x8_load_group(&d, den, g, m, &one);
    fp2x8_batch_inv_pop(dinv, st, g, &d);
}

#endif
