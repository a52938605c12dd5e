/* Fp products on the FP64 pipe: an experiment measured against field.cuh's product.
 *
 * Why: field.cuh's CIOS product is 576 32-bit integer multiply-adds, and it runs at ~93%
 * of what the FMA pipe's integer multipliers issue (bench/NOTES.md, "The product's own
 * floor"), so the MSM's pair kernels and the NTT are bound by that pipe. The FP64 units
 * beside it (64 fused multiply-adds a clock an SM on the H200, the same count as the
 * integer multiply-adds) sit idle. A double's 53-bit significand and a fused multiply-add
 * give a product of two 48-bit integers exactly, as two halves (the technique of Emmart,
 * Zheng and Weems, "Faster modular exponentiation using double precision floating point
 * arithmetic on the GPU", ARITH 2018), with C = 2^100:
 *
 *   hi = fma(a, b, C)              = C + H 2^48: a b rounded to a multiple of 2^48
 *   lo = fma(a, b, C + 24 2^48 - hi) = 2^52 + 2^51 + L, with a b = H 2^48 + L, |L| <= 2^47
 *
 * Both sums are exact or rounded only where intended: hi lies in [2^100, 2^101], whose
 * spacing is 2^48, and lo is an integer in [2^52, 2^53), whose spacing is 1. In both, the
 * bit pattern is a constant plus the integer wanted (H, and L as a signed value), so a
 * column of the product is a 64-bit integer sum of raw bit patterns, the constants taken
 * off in the same additions (the compiler folds them into one per column).
 *
 * Representation: 8 limbs of 48 bits, each an integer held in a double. R = 2^384 as in
 * fp_d, so fp_d <-> fpf_d is repacking bits, no product. A limb may be up to 2^50 - 1 on
 * input (a b < 2^100 keeps hi below 2^101: sums of two reduced limbs are fine); a
 * product's limbs are below 2^48. Montgomery reduction by 48-bit digits: m = t_i
 * (-p^-1) mod 2^48 in integers, then m p's 8 limb products on the FP64 pipe like a b's.
 * Bounds: with a, b < 2p, a b / R + p < 2p (4 p < R), so the output is below 2p like
 * fp_d's operator* before its final subtraction; fpf_to_fp subtracts.
 *
 * Counts a product: 128 limb products, 3 FP64 operations each (384 on the FP64 pipe), 256
 * column additions and ~100 other integer operations, against 576 integer multiply-adds.
 * Host builds run the same code with fma() from <math.h> (IEEE round-to-nearest, as
 * __fma_rn), so test_cuda_arith checks it in CI like the rest of field.cuh. */
#ifndef G16_BACKEND_CUDA_FIELD_F64_CUH
#define G16_BACKEND_CUDA_FIELD_F64_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "field.cuh"

struct fpf_d {
    double l[8]; /* limb k: an integer below 2^50, weight 2^(48 k) */
};

namespace fpf {

constexpr uint64_t MASK48 = (1ull << 48) - 1;
constexpr uint64_t BITS_2_100 = 0x4630000000000000ull;     /* 2^100 */
constexpr uint64_t BITS_HI_SUB = BITS_2_100 + 24;            /* 2^100 + 2^52 + 2^51 */
constexpr uint64_t BITS_LO_BIAS = 0x4338000000000000ull;   /* 2^52 + 2^51 */
constexpr uint64_t BITS_2_52 = 0x4330000000000000ull;      /* 2^52 */

G16_HD double from_bits(uint64_t u)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
#endif
}

G16_HD uint64_t bits(double d)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(d);
#else
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
#endif
}

G16_HD double fma_rn(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return fma(a, b, c);
#endif
}

/* An integer below 2^52 as a double: its bits under 2^52's exponent, minus 2^52. */
G16_HD double from_int(uint64_t x)
{
    return from_bits(BITS_2_52 | x) - from_bits(BITS_2_52);
}

/* A double holding an integer in [0, 2^52) back as the integer. */
G16_HD uint64_t to_int(double d)
{
    return bits(d + from_bits(BITS_2_52)) - BITS_2_52;
}

/* Limb k (48 bits at bit 48 k) of the modulus. */
G16_HD constexpr uint64_t p48(int k)
{
    return ((fp_params::p64(48 * k / 64) >> (48 * k % 64)) |
            (48 * k % 64 > 16 && 48 * k / 64 + 1 < 6
                 ? fp_params::p64(48 * k / 64 + 1) << (64 - 48 * k % 64)
                 : 0)) &
           MASK48;
}

/* -p^-1 mod 2^48 by Newton's iteration from 1 (correct mod 2; each step doubles). */
G16_HD constexpr uint64_t inv64(uint64_t x, int steps)
{
    return steps == 0 ? x : inv64(x * (2 - fp_params::p64(0) * x), steps - 1);
}
constexpr uint64_t PINV48 = (0 - inv64(1, 6)) & MASK48;

/* lo += L, hi += H for a b = H 2^48 + L: one limb product on the FP64 pipe. */
G16_HD void sample(double a, double b, uint64_t &lo, uint64_t &hi)
{
    double h = fma_rn(a, b, from_bits(BITS_2_100));
    double l = fma_rn(a, b, from_bits(BITS_HI_SUB) - h);
    lo += bits(l) - BITS_LO_BIAS;
    hi += bits(h) - BITS_2_100;
}

} // namespace fpf

/* Montgomery product a b / 2^384 mod p, below 2p for a, b below 2p. */
G16_HD fpf_d fpf_mul(const fpf_d &a, const fpf_d &b)
{
    uint64_t col[16];
#pragma unroll
    for (int k = 0; k < 16; k++)
        col[k] = 0;
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            fpf::sample(a.l[i], b.l[j], col[i + j], col[i + j + 1]);
#pragma unroll
    for (int i = 0; i < 8; i++) {
        /* col[i] holds the exact column (carries from below included): m makes it a
         * multiple of 2^48, and its carry moves up. */
        double m = fpf::from_int((col[i] * fpf::PINV48) & fpf::MASK48);
#pragma unroll
        for (int j = 0; j < 8; j++)
            fpf::sample(m, (double)fpf::p48(j), col[i + j], col[i + j + 1]);
        col[i + 1] += (uint64_t)((int64_t)col[i] >> 48);
    }
    /* The result is col[8..15] with columns of any sign and size (a b + m p < 2^768, so
     * nothing lies above column 15): carry them into 48-bit limbs. It is below 2p < 2^382,
     * so the top limb takes what is left. */
    fpf_d r;
    int64_t carry = 0;
#pragma unroll
    for (int k = 8; k < 15; k++) {
        int64_t v = (int64_t)col[k] + carry;
        r.l[k - 8] = fpf::from_int((uint64_t)v & fpf::MASK48);
        carry = v >> 48;
    }
    r.l[7] = fpf::from_int((uint64_t)((int64_t)col[15] + carry));
    return r;
}

G16_HD fpf_d operator*(const fpf_d &a, const fpf_d &b) { return fpf_mul(a, b); }

/* fp_d's 12 32-bit limbs -> 8 48-bit limbs (the same integer, the same Montgomery R). */
G16_HD fpf_d fpf_from_fp(const fp_d &x)
{
    fpf_d r;
#pragma unroll
    for (int m = 0; m < 4; m++) {
        uint32_t w0 = x.v[3 * m], w1 = x.v[3 * m + 1], w2 = x.v[3 * m + 2];
        r.l[2 * m] = fpf::from_int(w0 | (uint64_t)(w1 & 0xffff) << 32);
        r.l[2 * m + 1] = fpf::from_int(w1 >> 16 | (uint64_t)w2 << 16);
    }
    return r;
}

/* Back to fp_d, below p. The limbs may be any integers below 2^50 (a sum of two
 * products) as long as the value is below 2^384 and below 2p. */
G16_HD fp_d fpf_to_fp(const fpf_d &x)
{
    uint32_t w[12];
    uint64_t carry = 0;
#pragma unroll
    for (int m = 0; m < 4; m++) {
        uint64_t lo = fpf::to_int(x.l[2 * m]) + carry;
        uint64_t l0 = lo & fpf::MASK48;
        uint64_t hi = fpf::to_int(x.l[2 * m + 1]) + (lo >> 48);
        uint64_t l1 = hi & fpf::MASK48;
        carry = hi >> 48;
        w[3 * m] = (uint32_t)l0;
        w[3 * m + 1] = (uint32_t)(l0 >> 32) | (uint32_t)(l1 << 16);
        w[3 * m + 2] = (uint32_t)(l1 >> 16);
    }
    fp_d r;
    mont_reduce_once(r, w);
    return r;
}

#endif
