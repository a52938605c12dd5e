#include "cuda_probe.h"
#include "cuda_common.cuh"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A 64x64 -> 128-bit product by the same carry-chain PTX the field kernels will use,
 * so the probe also checks that the inline assembly path assembles for sm_90. */
__global__ void probe_kernel(uint64_t *out, uint64_t n)
{
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t a = i * 0x9e3779b97f4a7c15ull + 1, lo, hi;
    asm("mul.lo.u64 %0, %2, %2;\n\tmul.hi.u64 %1, %2, %2;" : "=l"(lo), "=l"(hi) : "l"(a));
    out[i] = lo ^ hi;
}

static uint64_t probe_expected(uint64_t i)
{
    uint64_t a = i * 0x9e3779b97f4a7c15ull + 1;
    unsigned __int128 p = (unsigned __int128)a * a;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

/* Frees everything the probe allocated, on every path. */
struct probe_buffers {
    uint64_t *dev = nullptr, *host = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    ~probe_buffers()
    {
        if (dev) cudaFree(dev);
        if (host) cudaFreeHost(host);
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
    }
};

extern "C" g16_status cuda_probe(cuda_probe_info *info)
{
    memset(info, 0, sizeof *info);
    cudaError_t err = cudaGetDeviceCount(&info->device_count);
    if (err != cudaSuccess || info->device_count == 0)
        return status_fail(G16_ERR_UNSUPPORTED, "no CUDA device: %s",
                           err != cudaSuccess ? cudaGetErrorString(err) : "count is 0");
    cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, 0), G16_ERR_INTERNAL);
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    info->global_mem_bytes = prop.totalGlobalMem;
    info->l2_bytes = (size_t)prop.l2CacheSize;

    const uint64_t n = 1ull << 25; /* 256 MiB of output */
    const size_t bytes = n * sizeof(uint64_t);
    probe_buffers b;
    CUDA_TRY(cudaMalloc(&b.dev, bytes), G16_ERR_OUT_OF_MEMORY);
    CUDA_TRY(cudaMallocHost(&b.host, bytes), G16_ERR_OUT_OF_MEMORY);
    CUDA_TRY(cudaEventCreate(&b.start), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventCreate(&b.stop), G16_ERR_INTERNAL);

    for (uint64_t i = 0; i < n; i++)
        b.host[i] = i;
    /* Warm up the copy engine once, then time a pinned host-to-device copy. */
    CUDA_TRY(cudaMemcpy(b.dev, b.host, bytes, cudaMemcpyHostToDevice), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventRecord(b.start), G16_ERR_INTERNAL);
    CUDA_TRY(cudaMemcpy(b.dev, b.host, bytes, cudaMemcpyHostToDevice), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventRecord(b.stop), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventSynchronize(b.stop), G16_ERR_INTERNAL);
    float copy_ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&copy_ms, b.start, b.stop), G16_ERR_INTERNAL);
    info->h2d_gbps = bytes / (copy_ms * 1e-3) / 1e9;

    unsigned threads = 256, blocks = (unsigned)((n + threads - 1) / threads);
    CUDA_TRY(cudaEventRecord(b.start), G16_ERR_INTERNAL);
    probe_kernel<<<blocks, threads>>>(b.dev, n);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventRecord(b.stop), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventSynchronize(b.stop), G16_ERR_INTERNAL);
    float kernel_ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&kernel_ms, b.start, b.stop), G16_ERR_INTERNAL);
    info->kernel_ms = kernel_ms;

    CUDA_TRY(cudaMemcpy(b.host, b.dev, bytes, cudaMemcpyDeviceToHost), G16_ERR_INTERNAL);
    for (uint64_t i = 0; i < n; i++)
        if (b.host[i] != probe_expected(i))
            return status_fail(G16_ERR_INTERNAL,
                               "probe kernel output %llu is wrong: got 0x%016llx, want 0x%016llx",
                               (unsigned long long)i, (unsigned long long)b.host[i],
                               (unsigned long long)probe_expected(i));
    return G16_OK;
}
