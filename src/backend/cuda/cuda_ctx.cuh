/* The device context shared by the .cu files of the CUDA backend (C++ side only). */
#ifndef G16_BACKEND_CUDA_CTX_CUH
#define G16_BACKEND_CUDA_CTX_CUH

#include <cuda_runtime.h>

#include <stddef.h>

#include "cuda_backend.h"
#include "cuda_common.cuh"

struct cuda_resident_entry {
    const void *host;
    size_t bytes;
    void *dev;
};

enum { CUDA_MAX_RESIDENT = 64 };

struct cuda_ctx {
    int device;
    cudaStream_t stream;
    char description[320];
    cuda_resident_entry resident[CUDA_MAX_RESIDENT];
    int n_resident;
    size_t resident_bytes;
    /* Timing events, reused by every operation. */
    cudaEvent_t ev[8];
    /* The NTT's per-size twiddle tables (cuda_ntt.cu), freed with the context. */
    void *ntt_cache;
    void (*ntt_cache_free)(void *);
};

/* cudaMalloc with a clear out-of-memory message naming the sizes. */
g16_status cuda_alloc_bytes(cuda_ctx *ctx, void **dev, size_t bytes, const char *what);

/* A device buffer freed on every path (scope exit). */
template <class T>
struct dev_buf {
    T *p = nullptr;
    size_t count = 0;
    dev_buf() = default;
    dev_buf(const dev_buf &) = delete;
    dev_buf &operator=(const dev_buf &) = delete;
    ~dev_buf()
    {
        if (p)
            cudaFree(p);
    }
    g16_status alloc(cuda_ctx *ctx, size_t n, const char *what)
    {
        if (p)
            cudaFree(p);
        p = nullptr;
        count = n;
        return cuda_alloc_bytes(ctx, (void **)&p, n ? n * sizeof(T) : 1, what);
    }
};

/* A copy ordered on the context's stream, waited for. Every copy goes through the
 * stream: the stream is non-blocking, and a plain cudaMemcpy from pageable memory may
 * return before its DMA lands, racing the next kernel on the stream. */
cudaError_t cuda_copy(cuda_ctx *ctx, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);

/* Milliseconds between two recorded events (after synchronising on the second). */
double cuda_elapsed_ms(cudaEvent_t a, cudaEvent_t b);

#endif
