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
    void *phi;        /* the array's GLV table when asked for (cuda_ctx_resident_phi), or null */
    size_t phi_bytes;
};

enum { CUDA_MAX_RESIDENT = 64, CUDA_MAX_DEVICES = 64, CUDA_SHARED_TABLES = 32 };

/* What the contexts of one device share: the resident arrays, so that two workers on a
 * device (each with its own context and stream) hold one copy of the key, and read-only
 * tables (cuda_ctx_shared_table). Guarded by its mutex; created with the first context of
 * the device, freed with the last. */
struct cuda_device_shared;

/* A device allocation held by a context's pool: given back to the pool, not to CUDA,
 * when released, so that partitions after the first allocate nothing (cudaMalloc and
 * cudaFree synchronise the whole device). */
struct cuda_pool_block {
    void *p;
    size_t bytes;
    bool used;
};

enum { CUDA_CTX_EVENTS = 14 };

struct cuda_ctx {
    int device;
    cudaStream_t stream;
    char description[320];
    cuda_device_shared *shared;
    cuda_pool_block *pool;
    int pool_blocks, pool_cap;
    size_t pool_bytes;       /* held by the pool, used or not */
    bool pool_shedding;      /* an allocation failed for memory: releases free (cuda_pool_alloc) */
    size_t peak_device_used; /* device-wide used bytes, sampled (cuda_ctx_sample_memory) */
    /* Timing events, reused by every operation (0-7; cuda_h_poly_fed's per-input marks
     * 8-13). */
    cudaEvent_t ev[CUDA_CTX_EVENTS];
    /* The copy stream (cuda_ctx_upload_slot): created on first use, with a done event per
     * slot. */
    cudaStream_t copy_stream;
    cudaEvent_t slot_done[CUDA_COPY_SLOTS];
    /* Host ranges this context pinned in place (cuda_ctx_pin_host), unpinned with it. */
    const void *pinned[CUDA_MAX_RESIDENT];
    int n_pinned;
    /* Digits above which an MSM's window goes through in slices (cuda_ctx_set_msm_slice_points). */
    uint32_t msm_slice_points;
    /* Its MSMs' rounds take their buffers from the device's arena (cuda_ctx_set_msm_arena),
     * and whether it holds the arena now (cuda_ctx_arena_take). */
    bool msm_arena, arena_held;
    /* The tests' failure injection (cuda_ctx_fail_allocs): the next fail_count pool
     * allocations named fail_what report out of device memory. */
    const char *fail_what;
    int fail_count;
    /* The NTT's per-call scratch (cuda_ntt.cu), freed with the context; its twiddle tables
     * are the device's (cuda_ctx_shared_table). */
    void *ntt_cache;
    void (*ntt_cache_free)(void *);
};

/* A table that the device's contexts share and only read (the NTT's twiddles, one slot
 * per size): the first context to ask allocates `bytes` and fills them by make(ctx, dev,
 * arg) on its stream, waited for, all under the device's lock, so that every context
 * (each on its own stream) finds it complete. Freed with the device's last context. When
 * the allocation runs out of memory and ctx is the device's only context, the other
 * slots' tables are freed and it is tried once more. */
g16_status cuda_ctx_shared_table(cuda_ctx *ctx, unsigned slot, size_t bytes, const char *what,
                                 g16_status (*make)(cuda_ctx *, void *, void *), void *arg,
                                 void **out);

/* The device's MSM arena: one region that the device's contexts take in turn for the
 * largest buffers of an MSM's rounds (the point buffers and a chunk's running products and
 * pair indices: msm_batch_affine.cuh, ba_round_bufs), so that a device's two partition
 * workers hold those once instead of once each, and H's MSM can have its windows whole
 * (backend_msm_arena_bytes). take waits while another context holds the arena, then
 * holds it (a holder may take again, e.g. for a larger slice) and returns a region of at
 * least `bytes`: the region grows on the first MSM that needs more (trimming ctx's pool
 * when the device is full), so its size is the largest MSM's and steady-state partitions
 * allocate nothing. give lets the next context in once ctx's stream has drained (its
 * kernels read the region); it does nothing when ctx holds nothing. Both on the thread
 * that runs ctx's MSMs. Freed with the device's last context. */
g16_status cuda_ctx_arena_take(cuda_ctx *ctx, size_t bytes, const char *what, void **base);
void cuda_ctx_arena_give(cuda_ctx *ctx);

/* cudaMalloc / cudaFree, counted (cuda_alloc_counts): only start-up, first-use and
 * teardown paths call these. cuda_alloc_bytes gives a clear out-of-memory message naming
 * the sizes. */
g16_status cuda_alloc_bytes(cuda_ctx *ctx, void **dev, size_t bytes, const char *what);
void cuda_free_bytes(void *dev);

/* Scratch from the context's pool (see cuda_pool_block): the smallest free block that
 * fits (sizes are rounded up to 1/8 of their power of two, so that partitions whose
 * sizes differ a little reuse the same blocks), else a new one. Blocks are reused in the
 * context's stream order, which is why a released block may be handed out again while
 * kernels that used it are still queued. When the device is full, the pool's free blocks
 * are given back to CUDA and the allocation is tried again (a trim: counted). When that
 * fails too, the pool sheds: the blocks released until the next successful allocation
 * (the failed operation's, as it unwinds) go back to CUDA instead of staying free, so
 * that a smaller operation after it does not take those large blocks for its small
 * arrays and run out of memory beside them. */
g16_status cuda_pool_alloc(cuda_ctx *ctx, void **dev, size_t bytes, const char *what);
void cuda_pool_release(cuda_ctx *ctx, void *dev);

/* A device buffer from the context's pool, released on every path (scope exit). */
template <class T>
struct dev_buf {
    T *p = nullptr;
    size_t count = 0;
    cuda_ctx *ctx = nullptr;
    bool borrowed = false; /* p lies in memory someone else owns (the arena): never released */
    dev_buf() = default;
    dev_buf(const dev_buf &) = delete;
    dev_buf &operator=(const dev_buf &) = delete;
    ~dev_buf() { release(); }
    g16_status alloc(cuda_ctx *c, size_t n, const char *what)
    {
        release();
        ctx = c;
        count = n;
        return cuda_pool_alloc(ctx, (void **)&p, n ? n * sizeof(T) : 1, what);
    }
    /* n elements at q, which the buffer does not own. */
    void borrow(T *q, size_t n)
    {
        release();
        p = q;
        count = n;
        borrowed = true;
    }
    /* Back to the pool before the scope ends (work queued on the stream may still use it:
     * the pool hands blocks out again in stream order). */
    void release()
    {
        if (!borrowed)
            cuda_pool_release(ctx, p);
        p = nullptr;
        count = 0;
        borrowed = false;
    }
};

/* A copy ordered on the context's stream, waited for. Every copy goes through the
 * stream: the stream is non-blocking, and a plain cudaMemcpy from pageable memory may
 * return before its DMA lands, racing the next kernel on the stream. */
cudaError_t cuda_copy(cuda_ctx *ctx, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);

/* Milliseconds between two recorded events (after synchronising on the second). */
double cuda_elapsed_ms(cudaEvent_t a, cudaEvent_t b);

#endif
