/* Montgomery arithmetic for the GPU: Fr (8 x 32-bit limbs) and Fp (12 x 32-bit limbs) of
 * BLS12-381, and Fp2 over Fp.
 *
 * Representation: x * 2^(32N) mod m in N little-endian 32-bit limbs. 2^(32*8) = 2^256 and
 * 2^(32*12) = 2^384 are the CPU's Montgomery radices too (4 and 6 64-bit limbs), so an
 * element has the same bytes on both sides and points and scalars cross the bus as they
 * are: no conversion pass.
 *
 * Multiplication is CIOS (Koc, Acar and Kaliski, "Analyzing and comparing Montgomery
 * multiplication algorithms", IEEE Micro 1996) with 32-bit limbs, the products of a's even
 * and odd limbs kept in two accumulators so that each row is one carry chain and the GPU
 * has two independent chains to interleave (operator* below); 4 N^2 multiply-adds (576
 * for Fp, 256 for Fr). On the device the chains are PTX mad.lo.cc / madc.hi.cc; the carry
 * flag lives between consecutive asm volatile statements, which is why every statement of
 * a chain is volatile (never reordered) and nothing but chain instructions sits between
 * them. On the host the same code runs with the flag emulated (carry_chain):
 * test_cuda_arith checks that build against the CPU field in CI, and
 * `test_cuda_arith --device` (bench/gpu_run.sh) the device build on the GPU.
 *
 * Both moduli are below 2^(32N - 1), so a + b never carries out of N limbs and the CIOS
 * accumulator stays below 2p < 2^(32N). */
#ifndef G16_BACKEND_CUDA_FIELD_CUH
#define G16_BACKEND_CUDA_FIELD_CUH

#include <stdint.h>

#define G16_HD __host__ __device__ __forceinline__

/* Parameters: a modulus given as 64-bit limbs by a constexpr function (device code can
 * use constexpr functions of constant arguments; arrays of a host constexpr would need
 * memory on the device), and Montgomery's one, R mod m. */
struct fr_params {
    static constexpr int N = 8;
    G16_HD static constexpr uint64_t p64(int i)
    {
        return i == 0 ? 0xffffffff00000001ull
             : i == 1 ? 0x53bda402fffe5bfeull
             : i == 2 ? 0x3339d80809a1d805ull
                      : 0x73eda753299d7d48ull;
    }
    G16_HD static constexpr uint64_t one64(int i)
    {
        return i == 0 ? 0x00000001fffffffeull
             : i == 1 ? 0x5884b7fa00034802ull
             : i == 2 ? 0x998c4fefecbc4ff5ull
                      : 0x1824b159acc5056full;
    }
};

struct fp_params {
    static constexpr int N = 12;
    G16_HD static constexpr uint64_t p64(int i)
    {
        return i == 0 ? 0xb9feffffffffaaabull
             : i == 1 ? 0x1eabfffeb153ffffull
             : i == 2 ? 0x6730d2a0f6b0f624ull
             : i == 3 ? 0x64774b84f38512bfull
             : i == 4 ? 0x4b1ba7b6434bacd7ull
                      : 0x1a0111ea397fe69aull;
    }
    G16_HD static constexpr uint64_t one64(int i)
    {
        return i == 0 ? 0x760900000002fffdull
             : i == 1 ? 0xebf4000bc40c0002ull
             : i == 2 ? 0x5f48985753c758baull
             : i == 3 ? 0x77ce585370525745ull
             : i == 4 ? 0x5c071a97a256ec6dull
                      : 0x15f65ec3fa80e493ull;
    }
};

/* p^-1 mod 2^32 by Newton's iteration (each step doubles the correct low bits). */
template <class P>
G16_HD constexpr uint32_t mont_inverse_2_32(uint32_t x, int steps)
{
    return steps == 0 ? x
                      : mont_inverse_2_32<P>(x * (2u - (uint32_t)P::p64(0) * x), steps - 1);
}

template <class P>
struct mont {
    static constexpr int N = P::N;
    uint32_t v[N];

    G16_HD static constexpr uint32_t p(int i)
    {
        return (uint32_t)(P::p64(i / 2) >> (32 * (i % 2)));
    }
    static constexpr uint32_t pinv = (uint32_t)0 - mont_inverse_2_32<P>(1u, 5);

    G16_HD static mont zero()
    {
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = 0;
        return r;
    }
    G16_HD static mont one()
    {
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = (uint32_t)(P::one64(i / 2) >> (32 * (i % 2)));
        return r;
    }
    G16_HD bool is_zero() const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= v[i];
        return acc == 0;
    }
    G16_HD bool operator==(const mont &b) const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= v[i] ^ b.v[i];
        return acc == 0;
    }
    G16_HD bool operator!=(const mont &b) const { return !(*this == b); }
};

typedef mont<fr_params> fr_d;
typedef mont<fp_params> fp_d;

/* --- host and device primitives ----------------------------------------------------- */

/* Limb i of K p (K = 1, or 2 for the lazy values below): both moduli are below
 * 2^(32N - 1), so 2p fits in N limbs. */
template <class P, int K>
G16_HD constexpr uint32_t mod_limb(int i)
{
    return K == 1 ? mont<P>::p(i)
                  : (mont<P>::p(i) << 1) | (i ? mont<P>::p(i - 1) >> 31 : 0u);
}

/* r = t - K p when top 2^(32N) + t >= K p (it is below 2 K p), else t; t is N limbs, top
 * the carry out of the sum that made t (0 or 1; always 0 when K = 1). */
template <class P, int K>
G16_HD void reduce_once_k(mont<P> &r, const uint32_t *t, uint32_t top)
{
    constexpr int N = P::N;
    uint32_t s[N], keep;
#ifdef __CUDA_ARCH__
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(mod_limb<P, K>(0)));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(t[i]), "r"(mod_limb<P, K>(i)));
    asm volatile("subc.u32 %0, %1, %2;" : "=r"(keep) : "r"(top), "r"(0u));
#else
    uint64_t borrow = 0;
    for (int i = 0; i < N; i++) {
        uint64_t d = (uint64_t)t[i] - mod_limb<P, K>(i) - borrow;
        s[i] = (uint32_t)d;
        borrow = (d >> 63) & 1;
    }
    keep = top - (uint32_t)borrow;
#endif
    /* keep = top - borrow is 0xffffffff when the sum is below K p: keep t. */
#pragma unroll
    for (int i = 0; i < N; i++)
        r.v[i] = keep ? t[i] : s[i];
}

/* r = t - p when t >= p (t < 2p), else t; t is N limbs. */
template <class P>
G16_HD void mont_reduce_once(mont<P> &r, const uint32_t *t)
{
    reduce_once_k<P, 1>(r, t, 0u);
}

/* (a + b) mod K p for a, b < K p. With K = 1 the sum fits in N limbs (2p < 2^(32N)); with
 * K = 2 it may not (Fr: 4p > 2^256), so its carry out joins the comparison. */
template <class P, int K>
G16_HD mont<P> add_mod(const mont<P> &a, const mont<P> &b)
{
    constexpr int N = P::N;
    uint32_t t[N], top = 0;
#ifdef __CUDA_ARCH__
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[i]) : "r"(a.v[i]), "r"(b.v[i]));
    if (K == 2)
        asm volatile("addc.u32 %0, %1, %1;" : "=r"(top) : "r"(0u));
#else
    uint64_t carry = 0;
    for (int i = 0; i < N; i++) {
        uint64_t x = (uint64_t)a.v[i] + b.v[i] + carry;
        t[i] = (uint32_t)x;
        carry = x >> 32;
    }
    top = K == 2 ? (uint32_t)carry : 0u;
#endif
    mont<P> r;
    reduce_once_k<P, K>(r, t, top);
    return r;
}

/* (a - b) mod K p for a, b < K p: K p added back under the borrow's mask. */
template <class P, int K>
G16_HD mont<P> sub_mod(const mont<P> &a, const mont<P> &b)
{
    constexpr int N = P::N;
    mont<P> r;
    uint32_t borrow;
#ifdef __CUDA_ARCH__
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, %1, %1;" : "=r"(borrow) : "r"(0u));
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(mod_limb<P, K>(0) & borrow));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[i]) : "r"(mod_limb<P, K>(i) & borrow));
#else
    uint64_t bw = 0;
    for (int i = 0; i < N; i++) {
        uint64_t d = (uint64_t)a.v[i] - b.v[i] - bw;
        r.v[i] = (uint32_t)d;
        bw = (d >> 63) & 1;
    }
    borrow = bw ? 0xffffffffu : 0;
    uint64_t carry = 0;
    for (int i = 0; i < N; i++) {
        uint64_t x = (uint64_t)r.v[i] + (mod_limb<P, K>(i) & borrow) + carry;
        r.v[i] = (uint32_t)x;
        carry = x >> 32;
    }
#endif
    return r;
}

template <class P>
G16_HD mont<P> operator+(const mont<P> &a, const mont<P> &b)
{
    return add_mod<P, 1>(a, b);
}

template <class P>
G16_HD mont<P> operator-(const mont<P> &a, const mont<P> &b)
{
    return sub_mod<P, 1>(a, b);
}

/* --- values kept below 2p (lazy reduction) -------------------------------------------- *
 * A transform's butterflies can carry their values in [0, 2p) instead of [0, p): the
 * product's final subtraction (mont_reduce_once, ~17 instructions of ~450 a butterfly)
 * is skipped (lazy_mul, after the product), and the additions and subtractions reduce
 * modulo 2p at the cost of modulo p (add_mod, sub_mod with K = 2). lazy_mul(w, x) with
 * w < p and x < 2p is w x / 2^(32N) + p < 2p. lazy_canon brings a value back below p. */
template <class P>
G16_HD mont<P> lazy_add(const mont<P> &a, const mont<P> &b)
{
    return add_mod<P, 2>(a, b);
}

template <class P>
G16_HD mont<P> lazy_sub(const mont<P> &a, const mont<P> &b)
{
    return sub_mod<P, 2>(a, b);
}

template <class P>
G16_HD mont<P> lazy_canon(const mont<P> &a)
{
    mont<P> r;
    mont_reduce_once(r, a.v);
    return r;
}

/* A carry chain: the PTX carry-flag instructions on the device, the same operations on
 * 64-bit integers on the host (with the flag in a member), so that the multiplication
 * below is one algorithm whose host build the CI tests check limb for limb. Names follow
 * PTX: "c" after the op takes the carry in, ".cc" (here _cc) sets it. On the device the
 * flag lives between consecutive asm volatile statements; nothing but chain operations
 * may sit between an op that sets it and the op that reads it. */
struct carry_chain {
#ifndef __CUDA_ARCH__
    uint32_t cf = 0;
#endif
    /* lo(a * b) + c, sets the carry. */
    G16_HD uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
    {
#ifdef __CUDA_ARCH__
        uint32_t d;
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
        return d;
#else
        uint64_t s = (uint64_t)(uint32_t)(a * b) + c;
        cf = (uint32_t)(s >> 32);
        return (uint32_t)s;
#endif
    }
    /* lo(a * b) + c + carry, sets the carry. */
    G16_HD uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
    {
#ifdef __CUDA_ARCH__
        uint32_t d;
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
        return d;
#else
        uint64_t s = (uint64_t)(uint32_t)(a * b) + c + cf;
        cf = (uint32_t)(s >> 32);
        return (uint32_t)s;
#endif
    }
    /* hi(a * b) + c + carry, sets the carry. */
    G16_HD uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
    {
#ifdef __CUDA_ARCH__
        uint32_t d;
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
        return d;
#else
        uint64_t s = (((uint64_t)a * b) >> 32) + c + cf;
        cf = (uint32_t)(s >> 32);
        return (uint32_t)s;
#endif
    }
    /* a + b, sets the carry. */
    G16_HD uint32_t add_cc(uint32_t a, uint32_t b)
    {
#ifdef __CUDA_ARCH__
        uint32_t d;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
        return d;
#else
        uint64_t s = (uint64_t)a + b;
        cf = (uint32_t)(s >> 32);
        return (uint32_t)s;
#endif
    }
    /* a + b + carry, sets the carry. */
    G16_HD uint32_t addc_cc(uint32_t a, uint32_t b)
    {
#ifdef __CUDA_ARCH__
        uint32_t d;
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
        return d;
#else
        uint64_t s = (uint64_t)a + b + cf;
        cf = (uint32_t)(s >> 32);
        return (uint32_t)s;
#endif
    }
    /* a + b + carry; the carry out is known to be zero (it is not kept). */
    G16_HD uint32_t addc(uint32_t a, uint32_t b)
    {
#ifdef __CUDA_ARCH__
        uint32_t d;
        asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
        return d;
#else
        uint32_t d = a + b + cf;
        cf = 0;
        return d;
#endif
    }
};

/* acc[k - 1], acc[k] += a[k] * x for k = first, first + 2, ... < N: the products of every
 * other limb of a, whose (low, high) halves tile acc without overlap, so one carry chain
 * adds them all. with_carry: the chain's first op takes the carry in. The chain's carry
 * out is left in the flag. */
template <int N>
G16_HD void mad_row(carry_chain &cc, uint32_t *acc, const uint32_t *a, int first, uint32_t x,
                    bool with_carry)
{
#pragma unroll
    for (int k = first; k < N; k += 2) {
        int lo = k - first;
        acc[lo] = (k == first && !with_carry) ? cc.mad_lo_cc(a[k], x, acc[lo])
                                              : cc.madc_lo_cc(a[k], x, acc[lo]);
        acc[lo + 1] = cc.madc_hi_cc(a[k], x, acc[lo + 1]);
    }
}

/* The same rows with the modulus's limbs (constants) for a. Limbs 1 and 2^32 - 1 (Fr's
 * p(0) and p(1): r = 1 - 2^32 mod 2^64) need no multiplier: 1 x = x, and (2^32 - 1) x =
 * (x - 1) 2^32 + (2^32 - x) for x != 0 (0 for x = 0), so those products become additions
 * (4 of Fr's 32 multiply-adds a row). The two values are computed before the row's chain
 * starts (its first op takes no carry in); the folding is on constants, so Fp's rows are
 * unchanged. */
template <class P>
G16_HD void mad_row_p(carry_chain &cc, uint32_t *acc, int first, uint32_t x)
{
    constexpr int N = P::N;
    uint32_t neg_x = 0u - x, x_minus_1 = x ? x - 1 : 0;
#pragma unroll
    for (int k = first; k < N; k += 2) {
        int lo = k - first;
        bool start = k == first;
        if (mont<P>::p(k) == 1u) {
            acc[lo] = start ? cc.add_cc(acc[lo], x) : cc.addc_cc(acc[lo], x);
            acc[lo + 1] = cc.addc_cc(acc[lo + 1], 0u);
        } else if (mont<P>::p(k) == 0xffffffffu) {
            acc[lo] = start ? cc.add_cc(acc[lo], neg_x) : cc.addc_cc(acc[lo], neg_x);
            acc[lo + 1] = cc.addc_cc(acc[lo + 1], x_minus_1);
        } else {
            acc[lo] = start ? cc.mad_lo_cc(mont<P>::p(k), x, acc[lo])
                            : cc.madc_lo_cc(mont<P>::p(k), x, acc[lo]);
            acc[lo + 1] = cc.madc_hi_cc(mont<P>::p(k), x, acc[lo + 1]);
        }
    }
}

/* Montgomery multiplication a * b / 2^(32N) mod p, CIOS with the products of even and odd
 * limbs in two accumulators (the "even/odd" arrangement of GPU Montgomery
 * multiplication, as in sppark and other GPU provers). The running sum is
 * t = e + 2^32 o + left with e, o N limbs each (e at limb weights 0..N-1, o at 1..N) and
 * one loose limb `left` of weight 0. Per limb b_i:
 *   e[0] += left          its carry weighs 2^32, as o[0] does: the odd chain takes it in
 *   o += a_odd * b_i       one chain: a[1] b_i at o[0..1], a[3] b_i at o[2..3], ...
 *   e += a_even * b_i      one chain: a[0] b_i at e[0..1], ...; carry out into o[N-1]
 *   m = e[0] * (-p^-1)    t + m p is then divisible by 2^32
 *   o += p_odd * m, e += p_even * m (carry into o[N-1]); now e[0] = 0
 *   t / 2^32: e' = o, o' = e[2..N-1] (then two zero limbs), left = e[1]
 * The two accumulators give the GPU two independent carry chains to interleave where
 * the single accumulator of textbook CIOS serializes four; shifting is renaming (the
 * loops are unrolled). Bounds: a < p and t < 2p at each step (CIOS), so every partial sum
 * stays below 2p 2^32 < 2^(32(N + 1)) (both moduli are below 2^(32N - 1)): o, whose
 * limbs weigh 2^32 .. 2^(32N), never carries out of N limbs, and neither does e once its
 * carries go into o[N-1]. The result is below 2p (mont_mul_unreduced stops there; operator*
 * reduces it once). a must be below p; b may be any N-limb value (from_montgomery relies
 * on it). */
template <class P>
G16_HD void mont_mul_unreduced(mont<P> &r, const mont<P> &a, const mont<P> &b)
{
    constexpr int N = P::N;
    uint32_t e[N], o[N], left = 0;
#pragma unroll
    for (int k = 0; k < N; k++)
        e[k] = o[k] = 0;
    carry_chain cc;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint32_t bi = b.v[i];
        e[0] = cc.add_cc(e[0], left);
        mad_row<N>(cc, o, a.v, 1, bi, true);
        mad_row<N>(cc, e, a.v, 0, bi, false);
        o[N - 1] = cc.addc(o[N - 1], 0);
        uint32_t m = e[0] * mont<P>::pinv;
        mad_row_p<P>(cc, o, 1, m);
        mad_row_p<P>(cc, e, 0, m);
        o[N - 1] = cc.addc(o[N - 1], 0);
        left = e[1];
#pragma unroll
        for (int k = 0; k < N; k++) {
            uint32_t next_o = k + 2 < N ? e[k + 2] : 0;
            e[k] = o[k];
            o[k] = next_o;
        }
    }
    /* t = e + left + 2^32 o < 2p < 2^(32N): o[N - 1] and the last carry are zero. */
    uint32_t t[N];
    t[0] = cc.add_cc(e[0], left);
#pragma unroll
    for (int k = 1; k < N; k++)
        t[k] = cc.addc_cc(e[k], o[k - 1]);
    (void)cc.addc(o[N - 1], 0);
#pragma unroll
    for (int k = 0; k < N; k++)
        r.v[k] = t[k];
}

template <class P>
G16_HD mont<P> operator*(const mont<P> &a, const mont<P> &b)
{
    mont<P> t, r;
    mont_mul_unreduced(t, a, b);
    mont_reduce_once(r, t.v);
    return r;
}

/* w x / 2^(32N) in [0, 2p) for w < p and x < 2p (the lazy reduction above). */
template <class P>
G16_HD mont<P> lazy_mul(const mont<P> &w, const mont<P> &x)
{
    mont<P> r;
    mont_mul_unreduced(r, w, x);
    return r;
}

/* Fp's product without its final subtraction, for loosely reduced operands. Fp's p is
 * below R / 8 (2^381, R = 2^384: Fr's is not), so for a < k p and b < l p with k, l <= 4
 * mont_mul_unreduced's partial sums stay below (a + p) 2^32 < 2^(32 (N + 1)) (what its
 * accumulators hold) and the result below a b / R + p < p (1 + k l / 8). A chain of them
 * by canonical factors stays below 8/7 p (k = 1 + k / 8); a canonical operand times such
 * a value is below 2p, which operator*'s one subtraction and sqr's bring below p; the
 * product of two of them is below 1.17 p. The batch-affine walk keeps its running
 * products and inverses so (msm_batch_affine.cuh: one subtraction fewer for each of a
 * pair's three chain products and the slope, on their latency path). */
template <class P>
G16_HD mont<P> loose_mul(const mont<P> &a, const mont<P> &b)
{
    static_assert(mont<P>::p(P::N - 1) < (1u << 29), "loose_mul needs p < R / 8");
    mont<P> r;
    mont_mul_unreduced(r, a, b);
    return r;
}

/* Montgomery squaring a^2 / 2^(32N) mod p for a below p: the square first (SOS, separated
 * operand scanning), each product a_i a_j of i < j once, then doubled, then the diagonal
 * a_i^2 added: N (N + 1) / 2 limb products where operator* takes N^2 (78 against 144 for
 * Fp); then the Montgomery reduction, N rows of m p as operator* does them. In all 3 N^2 +
 * N multiply-adds (Fp 444, Fr 200) against operator*'s 4 N^2 (576, 256).
 *   Off-diagonal row i (x = a_i, j > i): the products at t[i + j] in two chains, j of one
 *     parity and of the other (mad_row's tiles). Rows before i wrote up to t[i - 1 + N],
 *     so the chain that ends at t[i + N - 1] puts its carry into t[i + N], still zero,
 *     and the chain that ends at t[i + N] (a_i a_{N-1}'s high half) cannot carry out: the
 *     sum so far is below 2^(32 (i + 1 + N)).
 *   Reduction row i: m = t[i] (-p^-1), then m p at t[i..i + N] by mad_row_p's two chains.
 *     Their carries land on limbs that hold the square's upper half; rippling them up
 *     would cost a chain to the top each time, so they wait in cv[] (at most two a limb,
 *     all at limbs >= N, which no later m reads) and join t's upper half in one chain at
 *     the end.
 * Bounds: a^2 / 2^(32N) + p < 2p, reduced once, as operator*'s; for Fp also with a below
 * 2p (loose_mul's values: a^2 / R < p / 2). */
template <class P>
G16_HD mont<P> sqr(const mont<P> &a)
{
    constexpr int N = P::N;
    uint32_t t[2 * N], cv[N];
#pragma unroll
    for (int k = 0; k < 2 * N; k++)
        t[k] = 0;
#pragma unroll
    for (int k = 0; k < N; k++)
        cv[k] = 0;
    carry_chain cc;
    const uint32_t *x = a.v;
#pragma unroll
    for (int i = 0; i + 1 < N; i++) {
        /* The chain with j = N - 2 in it (parity of N - i) first, then the one with N - 1. */
        const int s_short = (N - i) % 2 == 0 ? i + 2 : i + 1;
        const int s_long = s_short == i + 1 ? i + 2 : i + 1;
        if (s_short <= N - 2) {
            mad_row<N>(cc, t + i + s_short, x, s_short, x[i], false);
            t[i + N] = cc.addc(t[i + N], 0u);
        }
        mad_row<N>(cc, t + i + s_long, x, s_long, x[i], false);
    }
    /* Double, then the diagonal: one chain each over all 2N limbs. */
    t[0] = cc.add_cc(t[0], t[0]);
#pragma unroll
    for (int k = 1; k < 2 * N; k++)
        t[k] = cc.addc_cc(t[k], t[k]);
    t[0] = cc.mad_lo_cc(x[0], x[0], t[0]);
    t[1] = cc.madc_hi_cc(x[0], x[0], t[1]);
#pragma unroll
    for (int i = 1; i < N; i++) {
        t[2 * i] = cc.madc_lo_cc(x[i], x[i], t[2 * i]);
        t[2 * i + 1] = cc.madc_hi_cc(x[i], x[i], t[2 * i + 1]);
    }
    /* Reduction: row i clears t[i]; its chains' carries wait in cv (index k - N). The
     * last row's odd chain ends at t[2N - 1] and cannot carry out: a^2 + M p < 2^(64N). */
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint32_t m = t[i] * mont<P>::pinv;
        mad_row_p<P>(cc, t + i, 0, m);
        cv[i] += cc.addc(0u, 0u);
        mad_row_p<P>(cc, t + i + 1, 1, m);
        if (i + 1 < N)
            cv[i + 1] += cc.addc(0u, 0u);
    }
    /* The result t[N..2N-1] + cv is below 2p < 2^(32N): the chain's last carry is zero. */
    uint32_t r[N];
    r[0] = cc.add_cc(t[N], cv[0]);
#pragma unroll
    for (int k = 1; k < N; k++)
        r[k] = cc.addc_cc(t[N + k], cv[k]);
    mont<P> out;
    mont_reduce_once(out, r);
    return out;
}

template <class P>
G16_HD mont<P> dbl(const mont<P> &a)
{
    return a + a;
}

template <class P>
G16_HD mont<P> neg(const mont<P> &a)
{
    return mont<P>::zero() - a;
}

/* a / 2^s (1 <= s <= 31) for a modulus of p = 1 mod 2^32 (Fr), a < 2p: the exact
 * quotient (a + k p) / 2^s with k = -a mod 2^s, so 8 multiply-adds of one 32-bit k
 * instead of a product by 2^-s. Below p (1 + 2^(1 - s)) <= 2p; a Montgomery form a R
 * divides to (a / 2^s) R the same way. The NTT's 1/n (n = 2^s). */
template <class P>
G16_HD mont<P> div_pow2(const mont<P> &a, unsigned s)
{
    static_assert(mont<P>::p(0) == 1, "div_pow2 needs p = 1 mod 2^32");
    const uint32_t k = (0u - a.v[0]) & ((1u << s) - 1);
    uint32_t t[P::N + 1];
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < P::N; i++) {
        /* <= (2^32 - 1) + (2^32 - 1) + (2^32 - 1)^2 = 2^64 - 1: no overflow. */
        c += (uint64_t)a.v[i] + (uint64_t)k * mont<P>::p(i);
        t[i] = (uint32_t)c;
        c >>= 32;
    }
    t[P::N] = (uint32_t)c;
    mont<P> r;
#pragma unroll
    for (int i = 0; i < P::N; i++)
        r.v[i] = (t[i] >> s) | (t[i + 1] << (32 - s));
    return r;
}

/* Montgomery form -> canonical integer (multiply by 1, i.e. by R^-1 in Montgomery terms). */
template <class P>
G16_HD mont<P> from_montgomery(const mont<P> &a)
{
    mont<P> one_int = mont<P>::zero();
    one_int.v[0] = 1;
    return one_int * a; /* the operand that may be unreduced goes second */
}

/* a^-1 = a^(m - 2) (Fermat), 0 for a = 0: square and multiply over the bits of m - 2
 * (~32N squarings and ~16N products: ~570 dependent products for Fp, ~0.5 ms in one
 * thread), so only where it is rare: the doublings of equal points inside the MSM's
 * batch-affine rounds (msm_batch_affine.cuh, whose batch inversions end on the CPU
 * instead), and the tests. m's low 64-bit limb is odd and > 2, so m - 2 only changes
 * that limb. */
template <class P>
G16_HD mont<P> inv(const mont<P> &a)
{
    mont<P> r = mont<P>::one();
    for (int bit = 32 * P::N - 1; bit >= 0; bit--) {
        r = sqr(r);
        uint64_t limb = P::p64(bit / 64) - (bit < 64 ? 2u : 0u);
        if ((limb >> (bit % 64)) & 1)
            r = r * a;
    }
    return r;
}

/* --- Fp2 = Fp[u] / (u^2 + 1) ----------------------------------------------------------- */

struct fp2_d {
    fp_d c0, c1;

    G16_HD static fp2_d zero() { return fp2_d{fp_d::zero(), fp_d::zero()}; }
    G16_HD static fp2_d one() { return fp2_d{fp_d::one(), fp_d::zero()}; }
    G16_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    G16_HD bool operator==(const fp2_d &b) const { return c0 == b.c0 && c1 == b.c1; }
    G16_HD bool operator!=(const fp2_d &b) const { return !(*this == b); }
};

G16_HD fp2_d operator+(const fp2_d &a, const fp2_d &b) { return fp2_d{a.c0 + b.c0, a.c1 + b.c1}; }
G16_HD fp2_d operator-(const fp2_d &a, const fp2_d &b) { return fp2_d{a.c0 - b.c0, a.c1 - b.c1}; }
G16_HD fp2_d dbl(const fp2_d &a) { return a + a; }
G16_HD fp2_d neg(const fp2_d &a) { return fp2_d{neg(a.c0), neg(a.c1)}; }

/* Karatsuba: three Fp products. */
G16_HD fp2_d operator*(const fp2_d &a, const fp2_d &b)
{
    fp_d t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    fp_d t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
    return fp2_d{t0 - t1, t2 - t0 - t1};
}

/* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: two Fp products. */
G16_HD fp2_d sqr(const fp2_d &a)
{
    fp_d t = a.c0 * a.c1;
    return fp2_d{(a.c0 + a.c1) * (a.c0 - a.c1), t + t};
}

/* (c0 + c1 u)^-1 = (c0 - c1 u) / (c0^2 + c1^2): one Fp inversion; 0 for 0. */
G16_HD fp2_d inv(const fp2_d &a)
{
    fp_d t = inv(sqr(a.c0) + sqr(a.c1));
    return fp2_d{a.c0 * t, neg(a.c1 * t)};
}

#endif
