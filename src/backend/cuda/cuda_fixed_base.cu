/* Fixed-base products for the development setup on the GPU: out[i] = k[i] * G in affine
 * form, with the CPU's tables (curve/fixed_base.h: signed w-bit digits, row i of the table
 * holds j * 2^(w i) * G for j in [1, 2^(w-1)], a negative digit uses the negated point),
 * so each result is the CPU's exact point, byte for byte.
 *
 * Per chunk of scalars: one thread per scalar adds its W table points into an XYZZ sum
 * (mixed additions, every special case handled: 0, 1, r - 1 are exact); then one thread per
 * BATCH points converts them to affine with a single field inversion (Montgomery's trick:
 * ~3 products per point plus one exponentiation per batch). The table stays in L2 (48 MiB
 * at w = 16 in G1). Cost per point: W madds (~11 products each) + ~40 products. */
#include "cuda_ctx.cuh"
#include "curve.cuh"

#include <string.h>

namespace {

enum { BATCH = 16, CHUNK = 1 << 22 };

/* a^(p - 2) = a^-1 in Fp (a != 0): square-and-multiply over the exponent's bits. */
__device__ fp_d fp_inverse(const fp_d &a)
{
    fp_d r = fp_d::one();
    for (int limb = fp_d::N - 1; limb >= 0; limb--) {
        uint32_t e = fp_d::p(limb) - (limb == 0 ? 2u : 0u); /* p is odd: no borrow */
        for (int bit = 31; bit >= 0; bit--) {
            r = sqr(r);
            if ((e >> bit) & 1)
                r = r * a;
        }
    }
    return r;
}

/* 1 / (c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2), since u^2 = -1. */
__device__ fp2_d field_inverse(const fp2_d &a)
{
    fp_d t = fp_inverse(sqr(a.c0) + sqr(a.c1));
    return fp2_d{a.c0 * t, neg(a.c1 * t)};
}

__device__ fp_d field_inverse(const fp_d &a) { return fp_inverse(a); }

/* Bits [bit, bit + w) of a 256-bit integer in 32-bit limbs (w <= 16). */
__device__ __forceinline__ uint32_t scalar_bits(const uint32_t *k, unsigned bit, unsigned w)
{
    unsigned limb = bit / 32, shift = bit % 32;
    uint64_t d = k[limb] >> shift;
    if (shift + w > 32 && limb + 1 < 8)
        d |= (uint64_t)k[limb + 1] << (32 - shift);
    return (uint32_t)(d & ((1u << w) - 1));
}

template <class F>
__global__ void k_fixed_base_sum(xyzz_d<F> *acc, const affine_d<F> *table, const fr_d *k,
                                 uint32_t n, unsigned w, unsigned windows)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_d s = from_montgomery(k[i]);
    size_t half = (size_t)1 << (w - 1);
    xyzz_d<F> r = xyzz_d<F>::infinity();
    int32_t carry = 0;
    for (unsigned win = 0; win < windows; win++) {
        int32_t d = (int32_t)scalar_bits(s.v, win * w, w) + carry;
        carry = d > (int32_t)half;
        d -= carry << w;
        if (!d)
            continue;
        affine_d<F> p = table[win * half + (size_t)(d < 0 ? -d : d) - 1];
        r = xyzz_add_affine(r, d < 0 ? affine_neg(p) : p);
    }
    acc[i] = r;
}

template <class F>
__global__ void k_batch_to_affine(affine_d<F> *out, const xyzz_d<F> *acc, uint32_t n)
{
    uint32_t first = (blockIdx.x * blockDim.x + threadIdx.x) * BATCH;
    if (first >= n)
        return;
    uint32_t count = n - first < BATCH ? n - first : BATCH;
    F prefix[BATCH];
    F run = F::one();
    for (uint32_t j = 0; j < count; j++) {
        const xyzz_d<F> &a = acc[first + j];
        if (!a.is_infinity())
            run = run * (a.zz * a.zzz);
        prefix[j] = run;
    }
    F inv = field_inverse(run); /* run != 0: a product of non-zero values */
    for (uint32_t j = count; j-- > 0;) {
        const xyzz_d<F> &a = acc[first + j];
        affine_d<F> o;
        if (a.is_infinity()) {
            o.x = F::zero();
            o.y = F::zero();
        } else {
            F inv_j = j ? inv * prefix[j - 1] : inv; /* 1 / (zz zzz) */
            inv = inv * (a.zz * a.zzz);
            o.x = a.x * (inv_j * a.zzz); /* X / ZZ */
            o.y = a.y * (inv_j * a.zz);  /* Y / ZZZ */
        }
        out[first + j] = o;
    }
}

unsigned blocks_for(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

template <class F>
g16_status fixed_base_batch(cuda_ctx *ctx, void *out_host, const void *table_host,
                            unsigned window_bits, unsigned windows, const void *k_host,
                            size_t n)
{
    if (n == 0)
        return G16_OK;
    if (window_bits < 1 || window_bits > 16 || windows * window_bits < 256)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "GPU fixed base: %u windows of %u bits",
                           windows, window_bits);
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    size_t table_points = (size_t)windows << (window_bits - 1);
    size_t chunk = n < (size_t)CHUNK ? n : (size_t)CHUNK;
    dev_buf<affine_d<F>> table, out;
    dev_buf<xyzz_d<F>> acc;
    dev_buf<fr_d> k;
    g16_status s;
    if ((s = table.alloc(ctx, table_points, "fixed-base table")) ||
        (s = acc.alloc(ctx, chunk, "fixed-base sums")) ||
        (s = out.alloc(ctx, chunk, "fixed-base results")) ||
        (s = k.alloc(ctx, chunk, "fixed-base scalars")))
        return s;
    CUDA_TRY(cuda_copy(ctx, table.p, table_host, table_points * sizeof(affine_d<F>),
                       cudaMemcpyHostToDevice),
             G16_ERR_INTERNAL);
    for (size_t at = 0; at < n; at += chunk) {
        uint32_t m = (uint32_t)(n - at < chunk ? n - at : chunk);
        CUDA_TRY(cuda_copy(ctx, k.p, (const fr_d *)k_host + at, m * sizeof(fr_d),
                           cudaMemcpyHostToDevice),
                 G16_ERR_INTERNAL);
        k_fixed_base_sum<F><<<blocks_for(m, 128), 128, 0, ctx->stream>>>(acc.p, table.p, k.p, m,
                                                                        window_bits, windows);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        k_batch_to_affine<F><<<blocks_for(blocks_for(m, BATCH), 64), 64, 0, ctx->stream>>>(
            out.p, acc.p, m);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        CUDA_TRY(cuda_copy(ctx, (affine_d<F> *)out_host + at, out.p, m * sizeof(affine_d<F>),
                           cudaMemcpyDeviceToHost),
                 G16_ERR_INTERNAL);
    }
    return G16_OK;
}

} // namespace

extern "C" g16_status cuda_fixed_base_g1(cuda_ctx *ctx, void *out, const void *table,
                                         unsigned window_bits, unsigned windows,
                                         const void *scalars, size_t n)
{
    return fixed_base_batch<fp_d>(ctx, out, table, window_bits, windows, scalars, n);
}

extern "C" g16_status cuda_fixed_base_g2(cuda_ctx *ctx, void *out, const void *table,
                                         unsigned window_bits, unsigned windows,
                                         const void *scalars, size_t n)
{
    return fixed_base_batch<fp2_d>(ctx, out, table, window_bits, windows, scalars, n);
}
