/* Inline additive field operations for the MSM's inner loops (Fp and Fp2).
 *
 * Why this exists: the field layer's fp_add / fp_sub / fp_is_zero are out-of-line calls
 * into generic limb loops (about 160 instructions for fp_sub); profiling the batch affine
 * accumulation showed fp_sub alone at 21% of a G1 MSM and fp_is_zero at 5%, against 65%
 * for all the Montgomery products. These versions are a carry chain each, inlined.
 * Fp products use the field layer's MULX/ADX routine (or fp_mul without it); the Fp2
 * product and square are rebuilt on top with these additions (see msmf_fp2_mul). When the field layer exports
 * inline versions of these, this file should go and msm_impl.h call those instead.
 *
 * Same contracts as field_api.h: inputs fully reduced, outputs fully reduced, p's top
 * limb below 2^63 (so a + b never carries out of six limbs). Constant time like the
 * originals (masks, no branches on values), although the MSM does not need it.
 */
#ifndef G16_MSM_MSM_FIELD_H
#define G16_MSM_MSM_FIELD_H

#include <stdbool.h>
#include <stdint.h>

#include "field/cpu.h"
#include "field/fp.h"
#include "field/fp2.h"
#include "field/mont_x86.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#define MSMF_ADC(c, a, b, out) _addcarry_u64((c), (a), (b), (unsigned long long *)(out))
#define MSMF_SBB(c, a, b, out) _subborrow_u64((c), (a), (b), (unsigned long long *)(out))
#else
static inline unsigned char msmf_adc(unsigned char c, uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t s = a + b, t = s + c;
    *out = t;
    return (unsigned char)((s < a) | (t < s));
}
static inline unsigned char msmf_sbb(unsigned char c, uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t d = a - b, t = d - c;
    *out = t;
    return (unsigned char)((a < b) | (d < c));
}
#define MSMF_ADC(c, a, b, out) msmf_adc((c), (a), (b), (out))
#define MSMF_SBB(c, a, b, out) msmf_sbb((c), (a), (b), (out))
#endif

/* p, as in fp.c (FP_MODULUS), repeated here as constants so the compiler folds them. */
#define MSMF_P0 0xb9feffffffffaaabull
#define MSMF_P1 0x1eabfffeb153ffffull
#define MSMF_P2 0x6730d2a0f6b0f624ull
#define MSMF_P3 0x64774b84f38512bfull
#define MSMF_P4 0x4b1ba7b6434bacd7ull
#define MSMF_P5 0x1a0111ea397fe69aull

static inline void msmf_fp_sub(fp_t *r, const fp_t *a, const fp_t *b)
{
    uint64_t t0, t1, t2, t3, t4, t5;
    unsigned char c = 0;
    c = MSMF_SBB(c, a->l[0], b->l[0], &t0);
    c = MSMF_SBB(c, a->l[1], b->l[1], &t1);
    c = MSMF_SBB(c, a->l[2], b->l[2], &t2);
    c = MSMF_SBB(c, a->l[3], b->l[3], &t3);
    c = MSMF_SBB(c, a->l[4], b->l[4], &t4);
    c = MSMF_SBB(c, a->l[5], b->l[5], &t5);
    uint64_t m = (uint64_t)0 - c; /* a < b: add p back */
    c = 0;
    c = MSMF_ADC(c, t0, MSMF_P0 & m, &r->l[0]);
    c = MSMF_ADC(c, t1, MSMF_P1 & m, &r->l[1]);
    c = MSMF_ADC(c, t2, MSMF_P2 & m, &r->l[2]);
    c = MSMF_ADC(c, t3, MSMF_P3 & m, &r->l[3]);
    c = MSMF_ADC(c, t4, MSMF_P4 & m, &r->l[4]);
    (void)MSMF_ADC(c, t5, MSMF_P5 & m, &r->l[5]);
}

static inline void msmf_fp_add(fp_t *r, const fp_t *a, const fp_t *b)
{
    uint64_t t0, t1, t2, t3, t4, t5, u0, u1, u2, u3, u4, u5;
    unsigned char c = 0;
    c = MSMF_ADC(c, a->l[0], b->l[0], &t0);
    c = MSMF_ADC(c, a->l[1], b->l[1], &t1);
    c = MSMF_ADC(c, a->l[2], b->l[2], &t2);
    c = MSMF_ADC(c, a->l[3], b->l[3], &t3);
    c = MSMF_ADC(c, a->l[4], b->l[4], &t4);
    (void)MSMF_ADC(c, a->l[5], b->l[5], &t5); /* < 2p < 2^382: no carry out */
    c = 0;
    c = MSMF_SBB(c, t0, MSMF_P0, &u0);
    c = MSMF_SBB(c, t1, MSMF_P1, &u1);
    c = MSMF_SBB(c, t2, MSMF_P2, &u2);
    c = MSMF_SBB(c, t3, MSMF_P3, &u3);
    c = MSMF_SBB(c, t4, MSMF_P4, &u4);
    c = MSMF_SBB(c, t5, MSMF_P5, &u5);
    uint64_t keep = (uint64_t)0 - c; /* t < p: keep t */
    r->l[0] = (t0 & keep) | (u0 & ~keep);
    r->l[1] = (t1 & keep) | (u1 & ~keep);
    r->l[2] = (t2 & keep) | (u2 & ~keep);
    r->l[3] = (t3 & keep) | (u3 & ~keep);
    r->l[4] = (t4 & keep) | (u4 & ~keep);
    r->l[5] = (t5 & keep) | (u5 & ~keep);
}

static inline bool msmf_fp_is_zero(const fp_t *a)
{
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}

static inline bool msmf_fp_equal(const fp_t *a, const fp_t *b)
{
    return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) |
            (a->l[3] ^ b->l[3]) | (a->l[4] ^ b->l[4]) | (a->l[5] ^ b->l[5])) == 0;
}

static inline void msmf_fp_neg(fp_t *r, const fp_t *a)
{
    /* p - a, and 0 for a = 0 (not p). */
    uint64_t nz = (uint64_t)0 - (uint64_t)!msmf_fp_is_zero(a);
    uint64_t t0, t1, t2, t3, t4, t5;
    unsigned char c = 0;
    c = MSMF_SBB(c, MSMF_P0, a->l[0], &t0);
    c = MSMF_SBB(c, MSMF_P1, a->l[1], &t1);
    c = MSMF_SBB(c, MSMF_P2, a->l[2], &t2);
    c = MSMF_SBB(c, MSMF_P3, a->l[3], &t3);
    c = MSMF_SBB(c, MSMF_P4, a->l[4], &t4);
    (void)MSMF_SBB(c, MSMF_P5, a->l[5], &t5);
    r->l[0] = t0 & nz;
    r->l[1] = t1 & nz;
    r->l[2] = t2 & nz;
    r->l[3] = t3 & nz;
    r->l[4] = t4 & nz;
    r->l[5] = t5 & nz;
}

static inline void msmf_fp_dbl(fp_t *r, const fp_t *a) { msmf_fp_add(r, a, a); }

static inline void msmf_fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    msmf_fp_sub(&r->c0, &a->c0, &b->c0);
    msmf_fp_sub(&r->c1, &a->c1, &b->c1);
}

static inline void msmf_fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    msmf_fp_add(&r->c0, &a->c0, &b->c0);
    msmf_fp_add(&r->c1, &a->c1, &b->c1);
}

static inline bool msmf_fp2_is_zero(const fp2_t *a)
{
    return msmf_fp_is_zero(&a->c0) & msmf_fp_is_zero(&a->c1);
}

static inline bool msmf_fp2_equal(const fp2_t *a, const fp2_t *b)
{
    return msmf_fp_equal(&a->c0, &b->c0) & msmf_fp_equal(&a->c1, &b->c1);
}

static inline void msmf_fp2_neg(fp2_t *r, const fp2_t *a)
{
    msmf_fp_neg(&r->c0, &a->c0);
    msmf_fp_neg(&r->c1, &a->c1);
}

static inline void msmf_fp2_dbl(fp2_t *r, const fp2_t *a) { msmf_fp2_add(r, a, a); }

/* Products: Fp goes straight to the field layer; Fp2 is fp2.c's Karatsuba (3 Fp
 * products) and complex squaring (2), redone here only for the inline additions, which
 * were a third of a G2 MSM's time inside fp2_mul / fp2_sqr. r may alias a or b. */
/* -p^-1 mod 2^64, as FP_MINV in fp.c. */
#define MSMF_PINV 0x89f3fffcfffcfffdull

/* fp_mul saves six registers and sets up a 400-byte frame for its portable path before
 * it tests cpu_use_asm; the MSM calls the MULX/ADX routine directly under the same test. */
static inline void msmf_fp_mul(fp_t *r, const fp_t *a, const fp_t *b)
{
#ifdef G16_HAVE_X86_ASM
    if (cpu_use_asm) {
        mont_mul_adx_6(r->l, a->l, b->l, FP_MODULUS, MSMF_PINV);
        return;
    }
#endif
    fp_mul(r, a, b);
}

static inline void msmf_fp_sqr(fp_t *r, const fp_t *a) { msmf_fp_mul(r, a, a); }

static inline void msmf_fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_t t0, t1, s0, s1;
    msmf_fp_mul(&t0, &a->c0, &b->c0);
    msmf_fp_mul(&t1, &a->c1, &b->c1);
    msmf_fp_add(&s0, &a->c0, &a->c1);
    msmf_fp_add(&s1, &b->c0, &b->c1);
    msmf_fp_mul(&s0, &s0, &s1);
    msmf_fp_sub(&s0, &s0, &t0);
    msmf_fp_sub(&r->c1, &s0, &t1);
    msmf_fp_sub(&r->c0, &t0, &t1);
}

static inline void msmf_fp2_sqr(fp2_t *r, const fp2_t *a)
{
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    fp_t s, d, p;
    msmf_fp_add(&s, &a->c0, &a->c1);
    msmf_fp_sub(&d, &a->c0, &a->c1);
    msmf_fp_mul(&p, &a->c0, &a->c1);
    msmf_fp_mul(&r->c0, &s, &d);
    msmf_fp_add(&r->c1, &p, &p);
}

#endif
