/* Throughput of the GPU's field and point arithmetic with no memory traffic: each thread
 * runs a dependent chain (x = x * y, or acc = acc + P) in registers. These are the
 * ceilings the MSM and NTT kernels are measured against (bench/NOTES.md). */
#include "cuda_ctx.cuh"
#include "curve.cuh"

namespace {

template <class F>
__global__ void k_mul_chain(F *x, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    F a = x[i], b = x[i + gridDim.x * (size_t)blockDim.x];
    for (unsigned k = 0; k < iters; k++)
        a = a * b;
    x[i] = a;
}

template <class F>
__global__ void k_madd_chain(xyzz_d<F> *out, const affine_d<F> *p, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    affine_d<F> b = p[i % 64];
    xyzz_d<F> acc = xyzz_from_affine(p[(i + 1) % 64]);
    for (unsigned k = 0; k < iters; k++)
        acc = xyzz_add_affine(acc, b);
    out[i] = acc;
}

template <class F>
g16_status mul_rate(cuda_ctx *ctx, double *rate, unsigned blocks, unsigned threads, unsigned iters)
{
    size_t n = (size_t)blocks * threads;
    dev_buf<F> x;
    g16_status st;
    if ((st = x.alloc(ctx, 2 * n, "microbenchmark")))
        return st;
    /* Any bytes will do for a throughput figure: 0x11.. limbs are below both moduli. */
    CUDA_TRY(cudaMemsetAsync(x.p, 0x11, 2 * n * sizeof(F), ctx->stream), G16_ERR_INTERNAL);
    k_mul_chain<F><<<blocks, threads, 0, ctx->stream>>>(x.p, 8); /* warm-up */
    CUDA_TRY(cudaEventRecord(ctx->ev[0], ctx->stream), G16_ERR_INTERNAL);
    k_mul_chain<F><<<blocks, threads, 0, ctx->stream>>>(x.p, iters);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventRecord(ctx->ev[1], ctx->stream), G16_ERR_INTERNAL);
    *rate = (double)n * iters / (cuda_elapsed_ms(ctx->ev[0], ctx->ev[1]) * 1e-3);
    return G16_OK;
}

template <class F>
g16_status madd_rate(cuda_ctx *ctx, double *rate, const void *points_host, unsigned blocks,
                     unsigned threads, unsigned iters)
{
    size_t n = (size_t)blocks * threads;
    dev_buf<affine_d<F>> p;
    dev_buf<xyzz_d<F>> out;
    g16_status st;
    if ((st = p.alloc(ctx, 64, "microbenchmark")) || (st = out.alloc(ctx, n, "microbenchmark")))
        return st;
    CUDA_TRY(cuda_copy(ctx, p.p, points_host, 64 * sizeof(affine_d<F>), cudaMemcpyHostToDevice),
             G16_ERR_INTERNAL);
    k_madd_chain<F><<<blocks, threads, 0, ctx->stream>>>(out.p, p.p, 4);
    CUDA_TRY(cudaEventRecord(ctx->ev[0], ctx->stream), G16_ERR_INTERNAL);
    k_madd_chain<F><<<blocks, threads, 0, ctx->stream>>>(out.p, p.p, iters);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventRecord(ctx->ev[1], ctx->stream), G16_ERR_INTERNAL);
    *rate = (double)n * iters / (cuda_elapsed_ms(ctx->ev[0], ctx->ev[1]) * 1e-3);
    return G16_OK;
}

/* The context's device made current, and its SM count. */
g16_status device_sms(cuda_ctx *ctx, unsigned *sms)
{
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    int n = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, ctx->device),
             G16_ERR_INTERNAL);
    *sms = (unsigned)n;
    return G16_OK;
}

} // namespace

extern "C" g16_status cuda_arith_rate(cuda_ctx *ctx, double *per_second, int what,
                                      const void *points_host)
{
    unsigned sms = 0;
    g16_status st = device_sms(ctx, &sms);
    if (st)
        return st;
    unsigned blocks = sms * 8, threads = 128;
    switch (what) {
    case 0: return mul_rate<fr_d>(ctx, per_second, blocks, threads, 4096);
    case 1: return mul_rate<fp_d>(ctx, per_second, blocks, threads, 2048);
    case 2: return mul_rate<fp2_d>(ctx, per_second, blocks, threads, 512);
    case 3: return madd_rate<fp_d>(ctx, per_second, points_host, blocks, threads, 256);
    case 4: return madd_rate<fp2_d>(ctx, per_second, points_host, blocks, threads, 64);
    default: return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_arith_rate: what %d", what);
    }
}

extern "C" g16_status cuda_product_rate_at(cuda_ctx *ctx, double *per_second, int field,
                                           unsigned warps_per_sm)
{
    if (warps_per_sm < 4 || warps_per_sm % 4 || warps_per_sm > 32)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_product_rate_at: %u warps", warps_per_sm);
    unsigned sms = 0;
    g16_status st = device_sms(ctx, &sms);
    if (st)
        return st;
    unsigned blocks = sms * (warps_per_sm / 4), threads = 128;
    switch (field) {
    case 1: return mul_rate<fp_d>(ctx, per_second, blocks, threads, 2048);
    case 2: return mul_rate<fp2_d>(ctx, per_second, blocks, threads, 512);
    default: return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_product_rate_at: field %d", field);
    }
}
