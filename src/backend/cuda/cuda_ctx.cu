/* The device context: one device, one stream, the resident arrays (a proving key's points
 * are uploaded once and reused by every partition), checked allocations; and the
 * element-wise arithmetic checks that the tests run on the device and on the host. */
#include "cuda_ctx.cuh"
#include "curve.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

g16_status cuda_alloc_bytes(cuda_ctx *ctx, void **dev, size_t bytes, const char *what)
{
    cudaError_t err = cudaMalloc(dev, bytes);
    if (err == cudaSuccess)
        return G16_OK;
    *dev = nullptr;
    cudaGetLastError(); /* clear the sticky-free error state of a failed allocation */
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    if (err == cudaErrorMemoryAllocation)
        return status_fail(G16_ERR_OUT_OF_MEMORY,
                           "GPU %d: out of device memory allocating %s: %.2f GiB asked, "
                           "%.2f GiB free of %.2f GiB",
                           ctx ? ctx->device : -1, what, bytes / 1073741824.0,
                           free_b / 1073741824.0, total_b / 1073741824.0);
    return status_fail(G16_ERR_INTERNAL, "cudaMalloc(%zu bytes) for %s: %s", bytes, what,
                       cudaGetErrorString(err));
}

cudaError_t cuda_copy(cuda_ctx *ctx, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    cudaError_t err = cudaMemcpyAsync(dst, src, bytes, kind, ctx->stream);
    return err != cudaSuccess ? err : cudaStreamSynchronize(ctx->stream);
}

double cuda_elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    if (cudaEventSynchronize(b) != cudaSuccess || cudaEventElapsedTime(&ms, a, b) != cudaSuccess)
        return 0;
    return ms;
}

extern "C" int cuda_device_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

extern "C" g16_status cuda_ctx_create(cuda_ctx **out, int device)
{
    *out = nullptr;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0)
        return status_fail(G16_ERR_UNSUPPORTED, "no CUDA device: %s",
                           err != cudaSuccess ? cudaGetErrorString(err) : "count is 0");
    if (device < 0 || device >= count)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "CUDA device %d does not exist (%d present)",
                           device, count);
    cuda_ctx *ctx = (cuda_ctx *)calloc(1, sizeof *ctx);
    if (!ctx)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "cuda_ctx_create: no memory");
    ctx->device = device;
    cudaDeviceProp prop;
    g16_status st = G16_OK;
    if ((err = cudaSetDevice(device)) != cudaSuccess ||
        (err = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
        (err = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking)) != cudaSuccess)
        st = status_fail(G16_ERR_UNSUPPORTED, "CUDA device %d: %s", device, cudaGetErrorString(err));
    for (int i = 0; !st && i < 8; i++)
        if ((err = cudaEventCreate(&ctx->ev[i])) != cudaSuccess)
            st = status_fail(G16_ERR_INTERNAL, "cudaEventCreate: %s", cudaGetErrorString(err));
    if (st) {
        cuda_ctx_free(ctx);
        return st;
    }
    snprintf(ctx->description, sizeof ctx->description, "%s (sm_%d%d, %d SMs, %.1f GiB)",
             prop.name, prop.major, prop.minor, prop.multiProcessorCount,
             prop.totalGlobalMem / 1073741824.0);
    *out = ctx;
    return G16_OK;
}

extern "C" void cuda_ctx_free(cuda_ctx *ctx)
{
    if (!ctx)
        return;
    cudaSetDevice(ctx->device);
    if (ctx->ntt_cache_free)
        ctx->ntt_cache_free(ctx->ntt_cache);
    for (int i = 0; i < ctx->n_resident; i++)
        cudaFree(ctx->resident[i].dev);
    for (int i = 0; i < 8; i++)
        if (ctx->ev[i])
            cudaEventDestroy(ctx->ev[i]);
    if (ctx->stream)
        cudaStreamDestroy(ctx->stream);
    free(ctx);
}

extern "C" const char *cuda_ctx_describe(const cuda_ctx *ctx)
{
    return ctx->description;
}

extern "C" int cuda_ctx_device(const cuda_ctx *ctx)
{
    return ctx->device;
}

extern "C" g16_status cuda_ctx_resident(cuda_ctx *ctx, const void **dev, const void *host,
                                        size_t bytes)
{
    for (int i = 0; i < ctx->n_resident; i++)
        if (ctx->resident[i].host == host && ctx->resident[i].bytes == bytes) {
            *dev = ctx->resident[i].dev;
            return G16_OK;
        }
    if (ctx->n_resident == CUDA_MAX_RESIDENT)
        return status_fail(G16_ERR_UNSUPPORTED, "GPU %d: more than %d resident arrays",
                           ctx->device, CUDA_MAX_RESIDENT);
    void *d = nullptr;
    g16_status st = cuda_alloc_bytes(ctx, &d, bytes ? bytes : 1, "resident key points");
    if (st)
        return st;
    if (bytes) {
        cudaError_t err = cuda_copy(ctx, d, host, bytes, cudaMemcpyHostToDevice);
        if (err != cudaSuccess) {
            cudaFree(d);
            return status_fail(G16_ERR_INTERNAL, "uploading %zu bytes to GPU %d: %s", bytes,
                               ctx->device, cudaGetErrorString(err));
        }
    }
    ctx->resident[ctx->n_resident++] = cuda_resident_entry{host, bytes, d};
    ctx->resident_bytes += bytes;
    *dev = d;
    return G16_OK;
}

extern "C" size_t cuda_ctx_resident_bytes(const cuda_ctx *ctx)
{
    return ctx->resident_bytes;
}

extern "C" g16_status cuda_ctx_alloc(cuda_ctx *ctx, void **dev, size_t bytes)
{
    return cuda_alloc_bytes(ctx, dev, bytes ? bytes : 1, "scratch");
}

extern "C" void cuda_ctx_release(cuda_ctx *ctx, void *dev)
{
    if (dev)
        cudaFree(dev);
}

extern "C" g16_status cuda_ctx_upload(cuda_ctx *ctx, void *dev, const void *host, size_t bytes)
{
    CUDA_TRY(cuda_copy(ctx, dev, host, bytes, cudaMemcpyHostToDevice), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" g16_status cuda_ctx_download(cuda_ctx *ctx, void *host, const void *dev, size_t bytes)
{
    CUDA_TRY(cuda_copy(ctx, host, dev, bytes, cudaMemcpyDeviceToHost), G16_ERR_INTERNAL);
    return G16_OK;
}

/* --- arithmetic checks ------------------------------------------------------------------ */

template <class F>
__host__ __device__ void field_op(F *a, const F *b, size_t i, int op)
{
    switch (op) {
    case 0: a[i] = a[i] + b[i]; break;
    case 1: a[i] = a[i] - b[i]; break;
    case 2: a[i] = a[i] * b[i]; break;
    case 3: a[i] = sqr(a[i]); break;
    default: break;
    }
}

template <class F>
__global__ void k_field_op(F *a, const F *b, size_t n, int op)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        field_op(a, b, i, op);
}

/* from_montgomery exists for the prime fields only. */
template <class F>
__host__ __device__ void field_from_mont(F *a, size_t i) { a[i] = from_montgomery(a[i]); }
template <>
__host__ __device__ void field_from_mont<fp2_d>(fp2_d *a, size_t i)
{
    a[i] = fp2_d{from_montgomery(a[i].c0), from_montgomery(a[i].c1)};
}

template <class F>
__global__ void k_field_from_mont(F *a, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        field_from_mont(a, i);
}

template <class F>
__host__ __device__ void point_op(xyzz_d<F> *out, const affine_d<F> *a, const affine_d<F> *b,
                                  size_t i, int op)
{
    switch (op) {
    case 0: out[i] = xyzz_add(xyzz_from_affine(a[i]), xyzz_from_affine(b[i])); break;
    case 1: out[i] = xyzz_add_affine(xyzz_from_affine(a[i]), b[i]); break;
    default: out[i] = xyzz_dbl(xyzz_from_affine(a[i])); break;
    }
}

template <class F>
__global__ void k_point_op(xyzz_d<F> *out, const affine_d<F> *a, const affine_d<F> *b,
                           size_t n, int op)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        point_op(out, a, b, i, op);
}

static unsigned blocks_for(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

template <class F>
static g16_status field_check(cuda_ctx *ctx, int op, bool device, void *a, const void *b,
                              size_t n)
{
    F *ha = (F *)a;
    const F *hb = (const F *)b;
    if (!device) {
        for (size_t i = 0; i < n; i++) {
            if (op == 4)
                field_from_mont(ha, i);
            else
                field_op(ha, hb, i, op);
        }
        return G16_OK;
    }
    if (!ctx)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_field_check: no context");
    dev_buf<F> da, db;
    g16_status st;
    if ((st = da.alloc(ctx, n, "field check a")) || (st = db.alloc(ctx, n, "field check b")))
        return st;
    CUDA_TRY(cuda_copy(ctx, da.p, ha, n * sizeof(F), cudaMemcpyHostToDevice), G16_ERR_INTERNAL);
    CUDA_TRY(cuda_copy(ctx, db.p, hb, n * sizeof(F), cudaMemcpyHostToDevice), G16_ERR_INTERNAL);
    if (n) {
        if (op == 4)
            k_field_from_mont<<<blocks_for(n, 128), 128, 0, ctx->stream>>>(da.p, n);
        else
            k_field_op<<<blocks_for(n, 128), 128, 0, ctx->stream>>>(da.p, db.p, n, op);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    }
    CUDA_TRY(cudaStreamSynchronize(ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cuda_copy(ctx, ha, da.p, n * sizeof(F), cudaMemcpyDeviceToHost), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" g16_status cuda_field_check(cuda_ctx *ctx, int field, int op, bool device, void *a,
                                       const void *b, size_t n)
{
    if (op < 0 || op > 4)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_field_check: op %d", op);
    if (ctx)
        cudaSetDevice(ctx->device);
    switch (field) {
    case 0: return field_check<fr_d>(ctx, op, device, a, b, n);
    case 1: return field_check<fp_d>(ctx, op, device, a, b, n);
    case 2: return field_check<fp2_d>(ctx, op, device, a, b, n);
    default: return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_field_check: field %d", field);
    }
}

template <class F>
static g16_status point_check(cuda_ctx *ctx, int op, bool device, void *out, const void *a,
                              const void *b, size_t n)
{
    typedef affine_d<F> A;
    typedef xyzz_d<F> X;
    if (!device) {
        for (size_t i = 0; i < n; i++)
            point_op((X *)out, (const A *)a, (const A *)b, i, op);
        return G16_OK;
    }
    if (!ctx)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_point_check: no context");
    dev_buf<A> da, db;
    dev_buf<X> dout;
    g16_status st;
    if ((st = da.alloc(ctx, n, "point check a")) || (st = db.alloc(ctx, n, "point check b")) ||
        (st = dout.alloc(ctx, n, "point check out")))
        return st;
    CUDA_TRY(cuda_copy(ctx, da.p, a, n * sizeof(A), cudaMemcpyHostToDevice), G16_ERR_INTERNAL);
    CUDA_TRY(cuda_copy(ctx, db.p, b, n * sizeof(A), cudaMemcpyHostToDevice), G16_ERR_INTERNAL);
    if (n) {
        k_point_op<<<blocks_for(n, 64), 64, 0, ctx->stream>>>(dout.p, da.p, db.p, n, op);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    }
    CUDA_TRY(cudaStreamSynchronize(ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cuda_copy(ctx, out, dout.p, n * sizeof(X), cudaMemcpyDeviceToHost), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" g16_status cuda_point_check(cuda_ctx *ctx, int group, int op, bool device, void *out,
                                       const void *a, const void *b, size_t n)
{
    if (op < 0 || op > 2)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_point_check: op %d", op);
    if (ctx)
        cudaSetDevice(ctx->device);
    switch (group) {
    case 1: return point_check<fp_d>(ctx, op, device, out, a, b, n);
    case 2: return point_check<fp2_d>(ctx, op, device, out, a, b, n);
    default: return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_point_check: group %d", group);
    }
}
