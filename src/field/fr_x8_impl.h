/* Eight Fr elements at once with AVX-512 IFMA: the inline core of the NTT's vector
 * butterflies (ntt/ntt_ifma_x86.c) and of fr_x8.h, for translation units compiled with
 * -mavx512f -mavx512ifma (files named *_ifma_x86.c), which run only after cpu.h found
 * the instructions. fp_x8_impl.h is the same idea for Fp; this file follows it.
 *
 * Layout: frx8 holds element k in 64-bit lane k of five vectors, limb j (bits 52j ..
 * 52j+51) in l[j]; five limbs hold 260 bits. "Normalized" means limbs 0..3 < 2^52 and
 * limb 4 = value >> 208 < 2^52, which the multiplier needs (it reads 52 bits of each
 * source). Values are Montgomery residues with the CPU's radix R = 2^256 (fr_t), so
 * loading is a change of limb size only, no conversion, and values may be lazily reduced:
 * any integer < 2^260 congruent to the element. r / 2^256 < 0.4529.
 *
 * The product is word-by-word Montgomery multiplication in radix 2^52 with the reduction
 * interleaved (S. Gueron, V. Krasnov, "Accelerating big integer arithmetic using Intel
 * IFMA extensions", ARITH 2016): 64-bit accumulators take the 52-bit partial products
 * without carry handling until the end. R = 2^256 is not a power of 2^52: four reduction
 * rounds of 52 bits and a last one of 48 (256 = 4 * 52 + 48), the final shift by 48 folded
 * into the one carry propagation the result needs anyway. 105 multiply-adds for eight
 * products. Result < ab / 2^256 + r, no final subtraction.
 *
 * Lazy bounds of the butterflies. Stored values stay below B = 16r + e, e <= 2^243
 * (B < 2^259), with no canonical reduction between levels:
 * - frx8_reduce16 subtracts 16r when the top limb says the value is at least 16r (one
 *   compare, no carry chain): x < 32r + 2e becomes < 16r + max(2e, 2^211). The slack e
 *   starts at 0 for canonical inputs and at most doubles per level; a block runs at most
 *   32 levels between products that reset it (16 DIF, 16 DIT), so e <= 2^(210 + 32).
 * - DIF: x0' = reduce(x0 + x1), x1' = (x0 - x1 + 17r) t; with x < B and t < r the
 *   product's operand is < 33r + e and the result < 33r * 0.4529 + r < 15.95r.
 * - DIT: v = x1 t < 8.25r, x0' = reduce(x0 + v), x1' = reduce(x0 - v + 9r).
 * - Twiddle 1: x1' = reduce(reduce(x0 - x1 + 17r)) (x0 + x1 as above).
 * - Other products: a < B times b < 2r (twiddle chains, which stay < 2r) is < 15.5r; times
 *   b < r (scale factors) < 8.25r.
 * - frx8_canonical: from any normalized x < 2^259 to < r, by a quotient estimate from the
 *   top limb (exact or one short) and one conditional subtraction.
 * Subtractions add the multiple of r in a redundant form whose limbs 0..3 are at least
 * 2^52 - 1 (FRX8_K17, FRX8_K9), so every limb of x + K - y stays non-negative and the top
 * limb still bounds the value for the one-compare reduction.
 */
#ifndef G16_FIELD_FR_X8_IMPL_H
#define G16_FIELD_FR_X8_IMPL_H

#if !defined(__AVX512F__) || !defined(__AVX512IFMA__)
#error "fr_x8_impl.h needs -mavx512f -mavx512ifma (only *_ifma_x86.c files include it)"
#endif

#include <immintrin.h>
#include <stdint.h>

#include "field/fp_x8_impl.h" /* fpx8_transpose, FPX8_UNROLL */
#include "field/fr.h"

typedef struct {
    __m512i l[5];
} frx8;

#define FRX8_M52 0xfffffffffffffull
/* r and 16r in normalized limbs, -r^-1 mod 2^52. */
#define FRX8_R                                                                             \
    {0xfffff00000001ull, 0x2fffe5bfefffull, 0x9a1d80553bda4ull, 0x7d483339d8080ull,        \
     0x73eda753299dull}
#define FRX8_16R                                                                           \
    {0xffff000000010ull, 0x2fffe5bfeffffull, 0xa1d80553bda40ull, 0xd483339d80809ull,       \
     0x73eda753299d7ull}
#define FRX8_MINV 0xffffeffffffffull
/* 17r and 9r redundantly: limb j + 2^52 (j < 4), less the borrow into the next limb. */
#define FRX8_K17                                                                           \
    {0x1fffef00000011ull, 0x132ffe41beeffeull, 0x13bf585a8f97e3ull, 0x151cb66d758889ull,   \
     0x7b2c81c85c374ull}
#define FRX8_K9                                                                            \
    {0x1ffff700000009ull, 0x11afff13bf6ffeull, 0x16b0982ff1aac3ull, 0x16789cd0898484ull,   \
     0x4135ae1ec7688ull}
/* ceil(16r / 2^208): a top limb at least this means the value is at least 16r. */
#define FRX8_T16 0x73eda753299d8ull
/* floor(2^300 / r) (< 2^46): the quotient estimate of frx8_canonical. */
#define FRX8_MU 0x2355094edfedull

/* Every limb loop carries FPX8_UNROLL: limbs and accumulators stay in registers only when
 * indexed by constants, and -O2 leaves short loops rolled (the product then keeps its
 * accumulators in memory and takes 5.7x as long). */

static inline __m512i frx8_bc(uint64_t v) { return _mm512_set1_epi64((long long)v); }

/* r = a * b / 2^256 (mod p), r < ab / 2^256 + r. a, b normalized; r may alias them. */
static inline void frx8_mul(frx8 *r, const frx8 *a, const frx8 *b)
{
    static const uint64_t P[5] = FRX8_R;
    const __m512i zero = _mm512_setzero_si512(), minv = frx8_bc(FRX8_MINV);
    __m512i t[6];
    FPX8_UNROLL
    for (int j = 0; j < 6; j++)
        t[j] = zero;
    FPX8_UNROLL
    for (int i = 0; i < 5; i++) {
        __m512i bi = b->l[i];
        /* t0 first: the round's critical path runs through it and q. */
        t[0] = _mm512_madd52lo_epu64(t[0], a->l[0], bi);
        __m512i q = _mm512_madd52lo_epu64(zero, t[0], minv);
        if (i == 4)
            q = _mm512_and_si512(q, frx8_bc(0xffffffffffffull));
        FPX8_UNROLL
        for (int j = 1; j < 5; j++)
            t[j] = _mm512_madd52lo_epu64(t[j], a->l[j], bi);
        FPX8_UNROLL
        for (int j = 0; j < 5; j++)
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a->l[j], bi);
        FPX8_UNROLL
        for (int j = 0; j < 5; j++)
            t[j] = _mm512_madd52lo_epu64(t[j], q, frx8_bc(P[j]));
        FPX8_UNROLL
        for (int j = 0; j < 5; j++)
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], q, frx8_bc(P[j]));
        if (i < 4) {
            /* t0 = 0 mod 2^52 now: drop the limb, keep its carry. */
            t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
            FPX8_UNROLL
            for (int j = 0; j < 5; j++)
                t[j] = t[j + 1];
            t[5] = zero;
        }
    }
    /* t = r * 2^48 (t0 = 0 mod 2^48); accumulators stay below 2^58 (at most 20 halves of
     * 52 bits plus carries). r < 2^260 makes t < 2^308: six limbs once normalized. */
    const __m512i m52 = frx8_bc(FRX8_M52);
    FPX8_UNROLL
    for (int j = 0; j < 5; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], m52);
    }
    FPX8_UNROLL
    for (int j = 0; j < 4; j++)
        r->l[j] = _mm512_and_si512(
            _mm512_or_si512(_mm512_srli_epi64(t[j], 48), _mm512_slli_epi64(t[j + 1], 4)), m52);
    r->l[4] = _mm512_or_si512(_mm512_srli_epi64(t[4], 48), _mm512_slli_epi64(t[5], 4));
}

/* Carry propagation, signed: limbs may be negative or above 2^52, the value is not. */
static inline void frx8_normalize(frx8 *r)
{
    const __m512i m52 = frx8_bc(FRX8_M52);
    FPX8_UNROLL
    for (int j = 0; j < 4; j++) {
        r->l[j + 1] = _mm512_add_epi64(r->l[j + 1], _mm512_srai_epi64(r->l[j], 52));
        r->l[j] = _mm512_and_si512(r->l[j], m52);
    }
}

/* x minus 16r where its top limb reaches FRX8_T16, normalized. x: limbs 0..3 in
 * [0, 2^54) (their sum below the top limb's unit is < 2^210 + 2^159), limb 4 in
 * [0, 2^63). Result < max(x - 16r, 16r + 2^211). */
static inline void frx8_reduce16(frx8 *x)
{
    static const uint64_t M[5] = FRX8_16R;
    __mmask8 big = _mm512_cmpge_epu64_mask(x->l[4], frx8_bc(FRX8_T16));
    FPX8_UNROLL
    for (int j = 0; j < 5; j++)
        x->l[j] = _mm512_mask_sub_epi64(x->l[j], big, x->l[j], frx8_bc(M[j]));
    frx8_normalize(x);
}

/* r = a + b, limbs not normalized (each the sum of two). */
static inline void frx8_add_raw(frx8 *r, const frx8 *a, const frx8 *b)
{
    FPX8_UNROLL
    for (int j = 0; j < 5; j++)
        r->l[j] = _mm512_add_epi64(a->l[j], b->l[j]);
}

/* r = a + k - b, k a redundant multiple of r (FRX8_K17, FRX8_K9) above b: limbs
 * non-negative, not normalized. */
static inline void frx8_sub_raw(frx8 *r, const frx8 *a, const frx8 *b, const uint64_t k[5])
{
    FPX8_UNROLL
    for (int j = 0; j < 5; j++)
        r->l[j] = _mm512_sub_epi64(_mm512_add_epi64(a->l[j], frx8_bc(k[j])), b->l[j]);
}

/* The butterflies (bounds in the header comment). x0, x1 < B normalized; t < r. */
static inline void frx8_dif(frx8 *x0, frx8 *x1, const frx8 *t)
{
    static const uint64_t K17[5] = FRX8_K17;
    frx8 d;
    frx8_sub_raw(&d, x0, x1, K17);
    frx8_normalize(&d);
    frx8_add_raw(x0, x0, x1);
    frx8_reduce16(x0);
    frx8_mul(x1, &d, t);
}

/* Twiddle 1: no product, a second reduction instead. */
static inline void frx8_butterfly_one(frx8 *x0, frx8 *x1)
{
    static const uint64_t K17[5] = FRX8_K17;
    frx8 d;
    frx8_sub_raw(&d, x0, x1, K17);
    frx8_reduce16(&d);
    frx8_reduce16(&d);
    frx8_add_raw(x0, x0, x1);
    frx8_reduce16(x0);
    *x1 = d;
}

static inline void frx8_dit(frx8 *x0, frx8 *x1, const frx8 *t)
{
    static const uint64_t K9[5] = FRX8_K9;
    frx8 v;
    frx8_mul(&v, x1, t);
    frx8_sub_raw(x1, x0, &v, K9);
    frx8_reduce16(x1);
    frx8_add_raw(x0, x0, &v);
    frx8_reduce16(x0);
}

/* r = a - k where that is >= 0, else a (lane by lane). a normalized. */
static inline void frx8_cond_sub(frx8 *r, const frx8 *a, const uint64_t k[5])
{
    frx8 d;
    FPX8_UNROLL
    for (int j = 0; j < 5; j++)
        d.l[j] = _mm512_sub_epi64(a->l[j], frx8_bc(k[j]));
    frx8_normalize(&d);
    __mmask8 keep = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512());
    FPX8_UNROLL
    for (int j = 0; j < 5; j++)
        r->l[j] = _mm512_mask_blend_epi64(keep, d.l[j], a->l[j]);
}

/* The canonical residue (< r) of a normalized a < 2^259. q = floor(top limb * MU / 2^92)
 * is floor(a / r) or one less (the top limb drops < 2^208, MU's truncation < 2^-40 of a
 * unit), so a - q r < 2r; q <= 17 and q r_4 < 2^52, so the products need no high half
 * above limb 4. */
static inline void frx8_canonical(frx8 *r, const frx8 *a)
{
    static const uint64_t P[5] = FRX8_R;
    const __m512i zero = _mm512_setzero_si512();
    __m512i q = _mm512_srli_epi64(_mm512_madd52hi_epu64(zero, a->l[4], frx8_bc(FRX8_MU)), 40);
    frx8 d;
    FPX8_UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i qr = _mm512_madd52lo_epu64(zero, q, frx8_bc(P[j]));
        if (j > 0)
            qr = _mm512_madd52hi_epu64(qr, q, frx8_bc(P[j - 1]));
        d.l[j] = _mm512_sub_epi64(a->l[j], qr);
    }
    frx8_normalize(&d);
    frx8_cond_sub(r, &d, P);
}

/* The eight 4-word elements at src (contiguous, any alignment) as four vectors of word j:
 * two rounds of two-source permutes. */
static inline void frx8_words_in(__m512i w[4], const fr_t src[8])
{
    const __m512i even = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
    const __m512i odd = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i lo = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
    const __m512i hi = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    const uint64_t *s = src[0].l;
    __m512i z0 = _mm512_loadu_si512(s), z1 = _mm512_loadu_si512(s + 8);
    __m512i z2 = _mm512_loadu_si512(s + 16), z3 = _mm512_loadu_si512(s + 24);
    /* a: words 0, 1 of elements 0-3; b: words 2, 3; c, d: elements 4-7. */
    __m512i a = _mm512_permutex2var_epi64(z0, even, z1);
    __m512i b = _mm512_permutex2var_epi64(z0, odd, z1);
    __m512i c = _mm512_permutex2var_epi64(z2, even, z3);
    __m512i d = _mm512_permutex2var_epi64(z2, odd, z3);
    w[0] = _mm512_permutex2var_epi64(a, lo, c);
    w[1] = _mm512_permutex2var_epi64(a, hi, c);
    w[2] = _mm512_permutex2var_epi64(b, lo, d);
    w[3] = _mm512_permutex2var_epi64(b, hi, d);
}

/* The inverse of frx8_words_in: the same permutes in the other order. */
static inline void frx8_words_out(fr_t dst[8], const __m512i w[4])
{
    const __m512i even = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
    const __m512i odd = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i lo = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
    const __m512i hi = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    __m512i a = _mm512_permutex2var_epi64(w[0], lo, w[1]);
    __m512i c = _mm512_permutex2var_epi64(w[0], hi, w[1]);
    __m512i b = _mm512_permutex2var_epi64(w[2], lo, w[3]);
    __m512i d = _mm512_permutex2var_epi64(w[2], hi, w[3]);
    uint64_t *s = dst[0].l;
    _mm512_storeu_si512(s, _mm512_permutex2var_epi64(a, even, b));
    _mm512_storeu_si512(s + 8, _mm512_permutex2var_epi64(a, odd, b));
    _mm512_storeu_si512(s + 16, _mm512_permutex2var_epi64(c, even, d));
    _mm512_storeu_si512(s + 24, _mm512_permutex2var_epi64(c, odd, d));
}

/* r = src[0..8), lane k from src[k]: any fr_t below 2^256 (limb 4 < 2^48). */
static inline void frx8_load(frx8 *r, const fr_t src[8])
{
    __m512i w[4];
    frx8_words_in(w, src);
    const __m512i m52 = frx8_bc(FRX8_M52);
    r->l[0] = _mm512_and_si512(w[0], m52);
    r->l[1] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[0], 52), _mm512_slli_epi64(w[1], 12)), m52);
    r->l[2] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[1], 40), _mm512_slli_epi64(w[2], 24)), m52);
    r->l[3] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[2], 28), _mm512_slli_epi64(w[3], 36)), m52);
    r->l[4] = _mm512_srli_epi64(w[3], 16);
}

/* dst[0..8) = the lanes of a canonical (< r) a. */
static inline void frx8_store(fr_t dst[8], const frx8 *a)
{
    const __m512i *l = a->l;
    __m512i w[4];
    w[0] = _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(l[1], 12), _mm512_slli_epi64(l[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(l[2], 24), _mm512_slli_epi64(l[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(l[3], 36), _mm512_slli_epi64(l[4], 16));
    frx8_words_out(dst, w);
}

/* One element's limbs, for broadcasts (the vector form of a shared twiddle). */
static inline void frx8_scalar_limbs(uint64_t out[5], const fr_t *a)
{
    const uint64_t *w = a->l;
    out[0] = w[0] & FRX8_M52;
    out[1] = (w[0] >> 52 | w[1] << 12) & FRX8_M52;
    out[2] = (w[1] >> 40 | w[2] << 24) & FRX8_M52;
    out[3] = (w[2] >> 28 | w[3] << 36) & FRX8_M52;
    out[4] = w[3] >> 16;
}

static inline void frx8_broadcast(frx8 *r, const uint64_t limbs[5])
{
    FPX8_UNROLL
    for (int j = 0; j < 5; j++)
        r->l[j] = frx8_bc(limbs[j]);
}

/* v[k] lane j <-> v[j] lane k over eight elements, limb by limb. */
static inline void frx8_transpose(frx8 v[8])
{
    FPX8_UNROLL
    for (int j = 0; j < 5; j++) {
        __m512i in[8], out[8];
        FPX8_UNROLL
        for (int k = 0; k < 8; k++)
            in[k] = v[k].l[j];
        fpx8_transpose(out, in);
        FPX8_UNROLL
        for (int k = 0; k < 8; k++)
            v[k].l[j] = out[k];
    }
}

#endif
