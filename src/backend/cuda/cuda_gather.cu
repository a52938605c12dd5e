/* Density gathers on the device (groth16/density.h): the witness goes up once, and the
 * entries of the wires a compressed key's A or B holds points for are picked out there,
 * instead of a host pass and a second, pageable upload per query.
 *
 * The bitmap is made resident (it is part of the key). Per call: a count per 64-wire word,
 * an exclusive prefix sum (CUB) for each word's first output slot, then one thread per
 * wire writes its element at word offset + the marked wires before it in its word. */
#include <cub/cub.cuh>

#include "cuda_ctx.cuh"

namespace {

struct elem32 {
    uint4 lo, hi;
};

__global__ void k_word_counts(uint32_t *counts, const uint64_t *bits, size_t words)
{
    size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (w < words)
        counts[w] = (uint32_t)__popcll(bits[w]);
    else if (w == words)
        counts[w] = 0;
}

__global__ void k_gather(elem32 *out, const elem32 *in, const uint64_t *bits,
                         const uint32_t *offsets, size_t n_wires)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n_wires)
        return;
    uint64_t word = bits[i / 64];
    unsigned b = (unsigned)(i % 64);
    if ((word >> b) & 1)
        out[offsets[i / 64] + __popcll(word & ((1ull << b) - 1))] = in[i];
}

unsigned blocks_for(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

} // namespace

extern "C" g16_status cuda_density_gather(cuda_ctx *ctx, void *out_dev, const void *in_dev,
                                          const uint64_t *bits_host, size_t n_wires)
{
    size_t words = (n_wires + 63) / 64;
    if (words == 0)
        return G16_OK;
    if (n_wires >= 0xffffffffu)
        return status_fail(G16_ERR_UNSUPPORTED, "GPU gather: %zu wires (at most 2^32 - 1)", n_wires);
    const void *bits_dev;
    g16_status s = cuda_ctx_resident(ctx, &bits_dev, bits_host, words * 8);
    if (s)
        return s;
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    cudaStream_t st = ctx->stream;
    dev_buf<uint32_t> counts, offsets;
    if ((s = counts.alloc(ctx, words + 1, "gather counts")) ||
        (s = offsets.alloc(ctx, words + 1, "gather offsets")))
        return s;
    k_word_counts<<<blocks_for(words + 1, 256), 256, 0, st>>>(counts.p, (const uint64_t *)bits_dev, words);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    size_t temp_bytes = 0;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts.p, offsets.p, words + 1, st),
             G16_ERR_INTERNAL);
    dev_buf<uint8_t> temp;
    if ((s = temp.alloc(ctx, temp_bytes, "gather scan scratch")))
        return s;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, counts.p, offsets.p, words + 1, st),
             G16_ERR_INTERNAL);
    k_gather<<<blocks_for(n_wires, 256), 256, 0, st>>>((elem32 *)out_dev, (const elem32 *)in_dev,
                                                       (const uint64_t *)bits_dev, offsets.p, n_wires);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    return G16_OK;
}
