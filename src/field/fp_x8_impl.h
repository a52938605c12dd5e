/* Eight Fp elements at once with AVX-512 IFMA: the inline core of fp_x8.h, for
 * translation units compiled with -mavx512f -mavx512ifma (files named *_ifma_x86.c),
 * which run only after cpu.h found the instructions.
 *
 * Layout: fpx8 holds element k in 64-bit lane k of eight vectors, limb j (bits 52j ..
 * 52j+51) in l[j]; "normalized" means every limb < 2^52, which the multiplier needs (it
 * reads 52 bits of each source). Values are Montgomery residues with the CPU's radix
 * R = 2^384 (fp_t), so loading is a change of limb size only, no conversion, and values
 * may be lazily reduced: any integer < 2^384 congruent to the element. Bounds are stated
 * as multiples of p, with p / 2^384 < 0.1016.
 *
 * The product is word-by-word Montgomery multiplication in radix 2^52 with the reduction
 * interleaved (as in S. Gueron, V. Krasnov, "Accelerating big integer arithmetic using
 * Intel IFMA extensions", ARITH 2016, and N. Drucker, S. Gueron, "Fast modular squaring
 * with AVX512IFMA", 2018): accumulators are 64-bit lanes, so 52-bit partial products
 * accumulate without carry handling until the end. R = 2^384 is not a power of 2^52:
 * seven reduction rounds of 52 bits and a last one of 20 bits (384 = 7 * 52 + 20), the
 * final shift by 20 folded into the one carry propagation the result needs anyway.
 * Result < ab / 2^384 + p: inputs below 2p give < 1.41p, below 5p and 1.41p give < 1.73p;
 * no final subtraction.
 */
#ifndef G16_FIELD_FP_X8_IMPL_H
#define G16_FIELD_FP_X8_IMPL_H

#if !defined(__AVX512F__) || !defined(__AVX512IFMA__)
#error "fp_x8_impl.h needs -mavx512f -mavx512ifma (only *_ifma_x86.c files include it)"
#endif

#include <immintrin.h>
#include <stdint.h>

#include "field/fp.h"

typedef struct {
    __m512i l[8];
} fpx8;

#define FPX8_M52 0xfffffffffffffull
/* p, 2p and 4p in normalized 52-bit limbs, and -p^-1 mod 2^52. */
#define FPX8_P                                                                             \
    {0xeffffffffaaabull, 0xfeb153ffffb9full, 0x6b0f6241eabffull, 0x12bf6730d2a0full,       \
     0x764774b84f385ull, 0x1ba7b6434bacdull, 0x1ea397fe69a4bull, 0x000000001a011ull}
#define FPX8_2P                                                                            \
    {0xdffffffff5556ull, 0xfd62a7ffff73full, 0xd61ec483d57ffull, 0x257ece61a541eull,       \
     0xec8ee9709e70aull, 0x374f6c869759aull, 0x3d472ffcd3496ull, 0x0000000034022ull}
#define FPX8_4P                                                                            \
    {0xbfffffffeaaacull, 0xfac54ffffee7full, 0xac3d8907aafffull, 0x4afd9cc34a83dull,       \
     0xd91dd2e13ce14ull, 0x6e9ed90d2eb35ull, 0x7a8e5ff9a692cull, 0x0000000068044ull}
#define FPX8_MINV 0x3fffcfffcfffdull

/* The products index their accumulators by loop counters: only fully unrolled loops
 * keep them in registers (GCC leaves the squaring's loops rolled otherwise, and spills). */
#define FPX8_UNROLL _Pragma("GCC unroll 16")

static inline __m512i fpx8_bc(uint64_t v) { return _mm512_set1_epi64((long long)v); }

/* r = a * b / 2^384 (mod p), r < ab / 2^384 + p. a, b normalized; r may alias them. */
static inline void fpx8_mul(fpx8 *r, const fpx8 *a, const fpx8 *b)
{
    static const uint64_t P[8] = FPX8_P;
    const __m512i zero = _mm512_setzero_si512(), minv = fpx8_bc(FPX8_MINV);
    __m512i t[9];
    for (int j = 0; j < 9; j++)
        t[j] = zero;
    for (int i = 0; i < 8; i++) {
        __m512i bi = b->l[i];
        /* t0 first: the round's critical path runs through it and q. */
        t[0] = _mm512_madd52lo_epu64(t[0], a->l[0], bi);
        __m512i q = _mm512_madd52lo_epu64(zero, t[0], minv);
        if (i == 7)
            q = _mm512_and_si512(q, fpx8_bc(0xfffff));
        for (int j = 1; j < 8; j++)
            t[j] = _mm512_madd52lo_epu64(t[j], a->l[j], bi);
        for (int j = 0; j < 8; j++)
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a->l[j], bi);
        for (int j = 0; j < 8; j++)
            t[j] = _mm512_madd52lo_epu64(t[j], q, fpx8_bc(P[j]));
        for (int j = 0; j < 8; j++)
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], q, fpx8_bc(P[j]));
        if (i < 7) {
            /* t0 = 0 mod 2^52 now: drop the limb, keep its carry. */
            t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
            for (int j = 0; j < 8; j++)
                t[j] = t[j + 1];
            t[8] = zero;
        }
    }
    /* t = r * 2^20 (t0 = 0 mod 2^20), r < 2^382, so t < 2^402 sits in t[0..7] once
     * normalized; t[8] only ever receives carries that cancel. */
    const __m512i m52 = fpx8_bc(FPX8_M52);
    for (int j = 0; j < 7; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], m52);
    }
    for (int j = 0; j < 7; j++)
        r->l[j] = _mm512_and_si512(
            _mm512_or_si512(_mm512_srli_epi64(t[j], 20), _mm512_slli_epi64(t[j + 1], 32)), m52);
    r->l[7] = _mm512_srli_epi64(t[7], 20);
}

/* r = a^2 / 2^384 (mod p), r < a^2 / 2^384 + p: the product scanned first, each cross
 * term a_i a_j (i < j) once and the sum doubled (72 multiply-adds instead of 128), then
 * the same eight reduction rounds over the 16 accumulators. r may alias a. */
static inline void fpx8_sqr(fpx8 *r, const fpx8 *a)
{
    static const uint64_t P[8] = FPX8_P;
    const __m512i zero = _mm512_setzero_si512(), minv = fpx8_bc(FPX8_MINV);
    const __m512i *x = a->l;
    __m512i t[16];
    FPX8_UNROLL
    for (int k = 0; k < 16; k++)
        t[k] = zero;
    FPX8_UNROLL
    for (int i = 0; i < 8; i++)
        FPX8_UNROLL
        for (int j = i + 1; j < 8; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], x[i], x[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], x[i], x[j]);
        }
    FPX8_UNROLL
    for (int k = 1; k < 15; k++)
        t[k] = _mm512_add_epi64(t[k], t[k]);
    FPX8_UNROLL
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], x[i], x[i]);
        t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], x[i], x[i]);
    }
    /* Accumulators stay below 2^59: at most 16 cross halves doubled, 2 square halves and
     * 16 reduction halves of 52 bits each, plus carries. */
    FPX8_UNROLL
    for (int i = 0; i < 8; i++) {
        __m512i q = _mm512_madd52lo_epu64(zero, t[i], minv);
        if (i == 7)
            q = _mm512_and_si512(q, fpx8_bc(0xfffff));
        FPX8_UNROLL
        for (int j = 0; j < 8; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], q, fpx8_bc(P[j]));
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], q, fpx8_bc(P[j]));
        }
        if (i < 7)
            t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
    }
    /* As in fpx8_mul: t[7..14] = r * 2^20 once normalized. */
    const __m512i m52 = fpx8_bc(FPX8_M52);
    FPX8_UNROLL
    for (int j = 7; j < 14; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], m52);
    }
    FPX8_UNROLL
    for (int j = 0; j < 7; j++)
        r->l[j] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(t[7 + j], 20),
                                                   _mm512_slli_epi64(t[8 + j], 32)),
                                   m52);
    r->l[7] = _mm512_srli_epi64(t[14], 20);
}

/* Signed carry propagation: limbs may be negative or above 2^52, the value is not. */
static inline void fpx8_normalize(fpx8 *r)
{
    const __m512i m52 = fpx8_bc(FPX8_M52);
    for (int j = 0; j < 7; j++) {
        r->l[j + 1] = _mm512_add_epi64(r->l[j + 1], _mm512_srai_epi64(r->l[j], 52));
        r->l[j] = _mm512_and_si512(r->l[j], m52);
    }
}

/* r = a - b + k, k a multiple of p (FPX8_P / 2P / 4P) at least b. */
static inline void fpx8_sub(fpx8 *r, const fpx8 *a, const fpx8 *b, const uint64_t k[8])
{
    for (int j = 0; j < 8; j++)
        r->l[j] = _mm512_sub_epi64(_mm512_add_epi64(a->l[j], fpx8_bc(k[j])), b->l[j]);
    fpx8_normalize(r);
}

/* r = a - b - c + k, k a multiple of p at least b + c. */
static inline void fpx8_sub2(fpx8 *r, const fpx8 *a, const fpx8 *b, const fpx8 *c,
                             const uint64_t k[8])
{
    for (int j = 0; j < 8; j++)
        r->l[j] = _mm512_sub_epi64(
            _mm512_sub_epi64(_mm512_add_epi64(a->l[j], fpx8_bc(k[j])), b->l[j]), c->l[j]);
    fpx8_normalize(r);
}

/* r = a - k where that is >= 0, else a (lane by lane). a normalized. */
static inline void fpx8_cond_sub(fpx8 *r, const fpx8 *a, const uint64_t k[8])
{
    fpx8 d;
    for (int j = 0; j < 8; j++)
        d.l[j] = _mm512_sub_epi64(a->l[j], fpx8_bc(k[j]));
    fpx8_normalize(&d);
    __mmask8 keep = _mm512_cmplt_epi64_mask(d.l[7], _mm512_setzero_si512());
    for (int j = 0; j < 8; j++)
        r->l[j] = _mm512_mask_blend_epi64(keep, d.l[j], a->l[j]);
}

/* The canonical residue (< p) of a normalized a < 4p. */
static inline void fpx8_canonical(fpx8 *r, const fpx8 *a)
{
    static const uint64_t P[8] = FPX8_P, P2[8] = FPX8_2P;
    fpx8_cond_sub(r, a, P2);
    fpx8_cond_sub(r, r, P);
}

/* 8 x 8 transpose of 64-bit words: out[c] lane r = in[r] lane c. Loads use columns 0..5
 * only (an fp_t has six words); the compiler drops the other two. */
static inline void fpx8_transpose(__m512i out[8], const __m512i in[8])
{
    __m512i t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi64(in[2 * i], in[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi64(in[2 * i], in[2 * i + 1]);
    }
    /* t[2i] holds words 0, 2, 4, 6 of rows 2i, 2i+1 (one 128-bit lane per word), t[2i+1]
     * the odd words. */
    u[0] = _mm512_shuffle_i64x2(t[0], t[2], 0x88); /* words 0, 4 of rows 0-3 */
    u[1] = _mm512_shuffle_i64x2(t[0], t[2], 0xdd); /* words 2, 6 */
    u[2] = _mm512_shuffle_i64x2(t[4], t[6], 0x88); /* rows 4-7 */
    u[3] = _mm512_shuffle_i64x2(t[4], t[6], 0xdd);
    u[4] = _mm512_shuffle_i64x2(t[1], t[3], 0x88); /* words 1, 5 */
    u[5] = _mm512_shuffle_i64x2(t[1], t[3], 0xdd); /* words 3, 7 */
    u[6] = _mm512_shuffle_i64x2(t[5], t[7], 0x88);
    u[7] = _mm512_shuffle_i64x2(t[5], t[7], 0xdd);
    out[0] = _mm512_shuffle_i64x2(u[0], u[2], 0x88);
    out[4] = _mm512_shuffle_i64x2(u[0], u[2], 0xdd);
    out[2] = _mm512_shuffle_i64x2(u[1], u[3], 0x88);
    out[6] = _mm512_shuffle_i64x2(u[1], u[3], 0xdd);
    out[1] = _mm512_shuffle_i64x2(u[4], u[6], 0x88);
    out[5] = _mm512_shuffle_i64x2(u[4], u[6], 0xdd);
    out[3] = _mm512_shuffle_i64x2(u[5], u[7], 0x88);
    out[7] = _mm512_shuffle_i64x2(u[5], u[7], 0xdd);
}

/* r = the elements whose 48 little-endian limb bytes start at src[0..7] (any alignment:
 * the MSM reads its bases in place from a mapped file; lane k from src[k]). */
static inline void fpx8_load_bytes(fpx8 *r, const uint8_t *const src[8])
{
    __m512i row[8], w[8];
    for (int k = 0; k < 8; k++)
        row[k] = _mm512_maskz_loadu_epi64(0x3f, src[k]);
    fpx8_transpose(w, row);
    const __m512i m52 = fpx8_bc(FPX8_M52);
#define FPX8_JOIN(lo, s, hi) \
    _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo, s), _mm512_slli_epi64(hi, 64 - s)), m52)
    r->l[0] = _mm512_and_si512(w[0], m52);
    r->l[1] = FPX8_JOIN(w[0], 52, w[1]);
    r->l[2] = FPX8_JOIN(w[1], 40, w[2]);
    r->l[3] = FPX8_JOIN(w[2], 28, w[3]);
    r->l[4] = FPX8_JOIN(w[3], 16, w[4]);
    r->l[5] = _mm512_and_si512(_mm512_srli_epi64(w[4], 4), m52);
    r->l[6] = FPX8_JOIN(w[4], 56, w[5]);
    r->l[7] = _mm512_srli_epi64(w[5], 44);
#undef FPX8_JOIN
}

/* r = the elements at src[0..7] (lane k from src[k]). */
static inline void fpx8_load(fpx8 *r, const fp_t *const src[8])
{
    const uint8_t *b[8];
    for (int k = 0; k < 8; k++)
        b[k] = (const uint8_t *)src[k]->l;
    fpx8_load_bytes(r, b);
}

/* dst[k] = lane k of a canonical (< p) a, for k < n <= 8. */
static inline void fpx8_store(fp_t *const dst[8], unsigned n, const fpx8 *a)
{
    const __m512i *l = a->l;
    __m512i w[8], row[8];
    w[0] = _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(l[1], 12), _mm512_slli_epi64(l[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(l[2], 24), _mm512_slli_epi64(l[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(l[3], 36), _mm512_slli_epi64(l[4], 16));
    w[4] = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi64(l[4], 48),
                                           _mm512_slli_epi64(l[5], 4)),
                           _mm512_slli_epi64(l[6], 56));
    w[5] = _mm512_or_si512(_mm512_srli_epi64(l[6], 8), _mm512_slli_epi64(l[7], 44));
    w[6] = w[7] = _mm512_setzero_si512();
    fpx8_transpose(row, w);
    for (unsigned k = 0; k < n; k++)
        _mm512_mask_storeu_epi64(dst[k]->l, 0x3f, row[k]);
}

/* r = group g of m elements `stride` fp_t apart from a: a[(8g + k) stride], or *pad for
 * lanes past m. (Stride 2: one component of an fp2_t array.) */
static inline void fpx8_load_group_strided(fpx8 *r, const fp_t *a, size_t stride, size_t g,
                                           size_t m, const fp_t *pad)
{
    const fp_t *src[8];
    for (size_t k = 0; k < 8; k++)
        src[k] = 8 * g + k < m ? &a[(8 * g + k) * stride] : pad;
    fpx8_load(r, src);
}

/* r = group g of a[0..m): a[8g + k], or *pad for lanes past m. */
static inline void fpx8_load_group(fpx8 *r, const fp_t *a, size_t g, size_t m,
                                   const fp_t *pad)
{
    fpx8_load_group_strided(r, a, 1, g, m, pad);
}

/* r = a + b (limbs normalized again; the value is the plain sum). */
static inline void fpx8_add(fpx8 *r, const fpx8 *a, const fpx8 *b)
{
    for (int j = 0; j < 8; j++)
        r->l[j] = _mm512_add_epi64(a->l[j], b->l[j]);
    fpx8_normalize(r);
}

/* The canonical residue (< p) of a normalized a < 8p. */
static inline void fpx8_canonical8(fpx8 *r, const fpx8 *a)
{
    static const uint64_t P4[8] = FPX8_4P;
    fpx8_cond_sub(r, a, P4);
    fpx8_canonical(r, r);
}

/* r = 1 in every lane (Montgomery form). */
static inline void fpx8_one(fpx8 *r)
{
    fp_t one;
    fp_one(&one);
    const fp_t *src[8] = {&one, &one, &one, &one, &one, &one, &one, &one};
    fpx8_load(r, src);
}

/* *inv = 1 / acc lane by lane (acc < 1.41p, no lane zero), from one scalar inversion of
 * the lanes' product (fp_batch_inv_vartime): the end of the forward half of every 8-chain
 * Montgomery's trick below. *inv < p. Variable time: these batch inversions serve only
 * the MSM (fp_batch_inv_x8, fp2_batch_inv_x8), whose bucket sums are handled in variable
 * time throughout. */
static inline void fpx8_inv_lanes(fpx8 *inv, const fpx8 *acc)
{
    static const uint64_t P[8] = FPX8_P;
    fp_t prod[8], inv8[8];
    fp_t *dst[8];
    const fp_t *src[8];
    for (int k = 0; k < 8; k++) {
        dst[k] = &prod[k];
        src[k] = &inv8[k];
    }
    fpx8 a;
    fpx8_cond_sub(&a, acc, P);
    fpx8_store(dst, 8, &a);
    fp_batch_inv_vartime(inv8, prod, 8);
    fpx8_load(inv, src);
}

/* Montgomery's trick over den[0..m) (every element non-zero), lane k of every vector a
 * chain of its own (element i in lane i % 8 of group i / 8), one scalar inversion of the
 * 8 chain products. Bounds: prefix products < 1.41p, the running inverse and 1 / den
 * < 1.41p. */
typedef struct {
    fpx8 inv;  /* lanes' inverse of the product of groups <= g */
    fpx8 *pre; /* [groups] lane products of the groups before g */
} fpx8_batch_inv;

/* The trick one vector at a time, for callers that make the denominators as they go:
 * push groups 0, 1, ... in order, end, then pop them from the last down to 0 with the
 * same vectors (no lane zero). scratch: FP_X8_SCRATCH(8 * groups) bytes, 64-aligned. */
static inline void fpx8_batch_inv_start(fpx8_batch_inv *st, void *scratch, size_t groups)
{
    (void)groups; /* the Fp2 version lays its scratch out by it */
    st->pre = scratch;
    fpx8_one(&st->inv); /* the running product until end */
}

static inline void fpx8_batch_inv_push(fpx8_batch_inv *st, size_t g, const fpx8 *d)
{
    st->pre[g] = st->inv;
    fpx8_mul(&st->inv, &st->inv, d);
}

static inline void fpx8_batch_inv_end(fpx8_batch_inv *st) { fpx8_inv_lanes(&st->inv, &st->inv); }

/* *dinv = 1 / d, d the vector pushed as group g. */
static inline void fpx8_batch_inv_pop(fpx8 *dinv, fpx8_batch_inv *st, size_t g, const fpx8 *d)
{
    fpx8_mul(dinv, &st->inv, &st->pre[g]);
    fpx8_mul(&st->inv, &st->inv, d);
}

/* The forward half over den[0..m) (lanes past m hold 1). scratch: FP_X8_SCRATCH(m) bytes,
 * 64-aligned. */
static inline void fpx8_batch_inv_begin(fpx8_batch_inv *st, void *scratch, const fp_t *den,
                                        size_t m)
{
    fp_t one;
    fp_one(&one);
    fpx8 d;
    fpx8_batch_inv_start(st, scratch, (m + 7) / 8);
    for (size_t g = 0; 8 * g < m; g++) {
        fpx8_load_group(&d, den, g, m, &one);
        fpx8_batch_inv_push(st, g, &d);
    }
    fpx8_batch_inv_end(st);
}

/* *dinv = 1 / den of group g; called for g from the last group down to 0. */
static inline void fpx8_batch_inv_next(fpx8 *dinv, fpx8_batch_inv *st, const fp_t *den,
                                       size_t g, size_t m)
{
    fp_t one;
    fp_one(&one);
    fpx8 d;
    fpx8_load_group(&d, den, g, m, &one);
    fpx8_batch_inv_pop(dinv, st, g, &d);
}

#endif
