/* The device context: one device, one stream, the resident arrays (a proving key's points
 * are uploaded once and reused by every partition), checked allocations; and the
 * element-wise arithmetic checks that the tests run on the device and on the host. */
#include "cuda_ctx.cuh"
#include "util/parallel.h"
#include "curve.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <new>
#include <type_traits>

/* Process-wide counts of cudaMalloc/cudaFree (cuda_alloc_counts). */
static std::atomic<unsigned long long> g_mallocs{0}, g_frees{0}, g_trims{0};

g16_status cuda_alloc_bytes(cuda_ctx *ctx, void **dev, size_t bytes, const char *what)
{
    cudaError_t err = cudaMalloc(dev, bytes);
    if (err == cudaSuccess) {
        g_mallocs++;
        return G16_OK;
    }
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

void cuda_free_bytes(void *dev)
{
    if (dev) {
        cudaFree(dev);
        g_frees++;
    }
}

extern "C" void cuda_alloc_counts(unsigned long long *mallocs, unsigned long long *frees,
                                  unsigned long long *trims)
{
    *mallocs = g_mallocs;
    *frees = g_frees;
    *trims = g_trims;
}

/* --- the pool --------------------------------------------------------------------------- */

static size_t pool_round(size_t bytes)
{
    size_t granule = 256;
    while (granule * 16 <= bytes)
        granule *= 2; /* granule = 1/8 .. 1/16 of bytes */
    return (bytes + granule - 1) / granule * granule;
}

/* Gives every free block back to CUDA (after the stream's queued work: a free block may
 * still be read by a queued kernel). */
static void pool_trim(cuda_ctx *ctx)
{
    cudaStreamSynchronize(ctx->stream);
    int kept = 0;
    for (int i = 0; i < ctx->pool_blocks; i++) {
        if (ctx->pool[i].used) {
            ctx->pool[kept++] = ctx->pool[i];
        } else {
            ctx->pool_bytes -= ctx->pool[i].bytes;
            cuda_free_bytes(ctx->pool[i].p);
        }
    }
    ctx->pool_blocks = kept;
    g_trims++;
}

g16_status cuda_pool_alloc(cuda_ctx *ctx, void **dev, size_t bytes, const char *what)
{
    *dev = nullptr;
    if (!ctx)
        return status_fail(G16_ERR_INTERNAL, "cuda_pool_alloc without a context (%s)", what);
    if (ctx->fail_count > 0 && what && ctx->fail_what && strcmp(what, ctx->fail_what) == 0) {
        ctx->fail_count--;
        return status_fail(G16_ERR_OUT_OF_MEMORY,
                           "GPU %d: out of device memory allocating %s: %.2f GiB asked "
                           "(a failure injected by cuda_ctx_fail_allocs)",
                           ctx->device, what, bytes / 1073741824.0);
    }
    bytes = pool_round(bytes ? bytes : 1);
    int best = -1;
    for (int i = 0; i < ctx->pool_blocks; i++) {
        const cuda_pool_block &b = ctx->pool[i];
        if (!b.used && b.bytes >= bytes && (best < 0 || b.bytes < ctx->pool[best].bytes))
            best = i;
    }
    if (best >= 0) {
        ctx->pool[best].used = true;
        ctx->pool_shedding = false;
        *dev = ctx->pool[best].p;
        return G16_OK;
    }
    if (ctx->pool_blocks == ctx->pool_cap) {
        int cap = ctx->pool_cap ? 2 * ctx->pool_cap : 64;
        cuda_pool_block *grown = (cuda_pool_block *)realloc(ctx->pool, cap * sizeof *grown);
        if (!grown)
            return status_fail(G16_ERR_OUT_OF_MEMORY, "GPU pool: no host memory");
        ctx->pool = grown;
        ctx->pool_cap = cap;
    }
    g16_status st = cuda_alloc_bytes(ctx, dev, bytes, what);
    if (st == G16_ERR_OUT_OF_MEMORY) {
        pool_trim(ctx);
        st = cuda_alloc_bytes(ctx, dev, bytes, what);
        if (st == G16_ERR_OUT_OF_MEMORY)
            ctx->pool_shedding = true;
    }
    if (st)
        return st;
    ctx->pool[ctx->pool_blocks++] = cuda_pool_block{*dev, bytes, true};
    ctx->pool_bytes += bytes;
    ctx->pool_shedding = false;
    return G16_OK;
}

void cuda_pool_release(cuda_ctx *ctx, void *dev)
{
    if (!dev)
        return;
    if (ctx)
        for (int i = 0; i < ctx->pool_blocks; i++)
            if (ctx->pool[i].p == dev) {
                if (!ctx->pool_shedding) {
                    ctx->pool[i].used = false;
                    return;
                }
                /* After the queued work that may still read it (as pool_trim). */
                cudaStreamSynchronize(ctx->stream);
                ctx->pool_bytes -= ctx->pool[i].bytes;
                ctx->pool[i] = ctx->pool[--ctx->pool_blocks];
                g_trims++;
                break;
            }
    cuda_free_bytes(dev); /* shed, or not from a pool */
}

/* --- what the contexts of a device share -------------------------------------------------- */

enum { MAX_USERS = 16 };

struct cuda_device_shared {
    std::mutex lock;
    int refs = 0;
    cuda_resident_entry resident[CUDA_MAX_RESIDENT];
    /* The contexts that use each resident array: it is freed with the last of them, so a
     * key whose pipeline is freed (the daemon evicting it) leaves the device even while
     * other keys' contexts live on. */
    const cuda_ctx *users[CUDA_MAX_RESIDENT][MAX_USERS];
    int n_users[CUDA_MAX_RESIDENT] = {};
    int n_resident = 0;
    size_t resident_bytes = 0;
    /* Tables the contexts read and never write (cuda_ctx_shared_table: the NTT's
     * twiddles), by slot; freed with the device's last context. */
    void *tables[CUDA_SHARED_TABLES] = {};
    /* The MSM arena (cuda_ctx_arena_take): its own lock, since a holder keeps it for a
     * whole MSM while the other contexts go on using the lock above. */
    std::mutex arena_lock;
    std::condition_variable arena_free;
    const cuda_ctx *arena_holder = nullptr;
    void *arena = nullptr;
    size_t arena_bytes = 0;
};

/* Adds ctx to entry i's users (under the lock); false when the entry has too many. */
static bool resident_use(cuda_device_shared *sh, int i, const cuda_ctx *ctx)
{
    for (int u = 0; u < sh->n_users[i]; u++)
        if (sh->users[i][u] == ctx)
            return true;
    if (sh->n_users[i] == MAX_USERS)
        return false;
    sh->users[i][sh->n_users[i]++] = ctx;
    return true;
}

/* Drops ctx from every entry's users, freeing the entries nobody uses any more. */
static void resident_drop(cuda_device_shared *sh, const cuda_ctx *ctx)
{
    std::lock_guard<std::mutex> guard(sh->lock);
    for (int i = 0; i < sh->n_resident;) {
        for (int u = 0; u < sh->n_users[i]; u++)
            if (sh->users[i][u] == ctx) {
                sh->users[i][u] = sh->users[i][--sh->n_users[i]];
                break;
            }
        if (sh->n_users[i] > 0) {
            i++;
            continue;
        }
        cuda_free_bytes(sh->resident[i].dev);
        if (sh->resident[i].phi)
            cuda_free_bytes(sh->resident[i].phi);
        sh->resident_bytes -= sh->resident[i].bytes + sh->resident[i].phi_bytes;
        int last = --sh->n_resident;
        sh->resident[i] = sh->resident[last];
        for (int u = 0; u < sh->n_users[last]; u++)
            sh->users[i][u] = sh->users[last][u];
        sh->n_users[i] = sh->n_users[last];
        sh->n_users[last] = 0;
    }
}

static std::mutex g_shared_lock;
static cuda_device_shared *g_shared[CUDA_MAX_DEVICES];

static cuda_device_shared *shared_acquire(int device)
{
    std::lock_guard<std::mutex> guard(g_shared_lock);
    if (!g_shared[device])
        g_shared[device] = new (std::nothrow) cuda_device_shared();
    if (g_shared[device])
        g_shared[device]->refs++;
    return g_shared[device];
}

static void shared_release(int device)
{
    std::lock_guard<std::mutex> guard(g_shared_lock);
    cuda_device_shared *s = g_shared[device];
    if (!s || --s->refs > 0)
        return;
    for (int i = 0; i < s->n_resident; i++) {
        cuda_free_bytes(s->resident[i].dev);
        if (s->resident[i].phi)
            cuda_free_bytes(s->resident[i].phi);
    }
    for (int i = 0; i < CUDA_SHARED_TABLES; i++)
        cuda_free_bytes(s->tables[i]);
    cuda_free_bytes(s->arena);
    delete s;
    g_shared[device] = nullptr;
}

/* --- host ranges pinned in place (a streamed key) --------------------------------------- */

struct pinned_range {
    const void *host;
    int refs;
};
static std::mutex g_pin_lock;
static pinned_range g_pins[CUDA_MAX_RESIDENT];
static int g_n_pins;

/* Drops one reference to a range pinned by pin_acquire; the last one unpins it. */
static void pin_release(const void *host)
{
    std::lock_guard<std::mutex> guard(g_pin_lock);
    for (int i = 0; i < g_n_pins; i++)
        if (g_pins[i].host == host) {
            if (--g_pins[i].refs == 0) {
                cudaHostUnregister((void *)host);
                g_pins[i] = g_pins[--g_n_pins];
            }
            return;
        }
}

cudaError_t cuda_copy(cuda_ctx *ctx, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    cudaError_t err = cudaMemcpyAsync(dst, src, bytes, kind, ctx->stream);
    return err != cudaSuccess ? err : cudaStreamSynchronize(ctx->stream);
}

/* A pageable host range to the device through pinned bounce buffers: the process's worker
 * threads (parallel_for) copy chunk c into buffer c % BUFS while the copy engine moves
 * the chunks before it. Pageable
 * cudaMemcpy runs at ~5 GB/s on the H200's host (run 41: a 2^27 key's 44.5 GiB took ~9 s),
 * pinned at ~55 GB/s, and pinning the key itself in place costs ~0.6 s a GiB. */
static cudaError_t upload_staged(cuda_ctx *ctx, void *dev, const void *host, size_t bytes)
{
    enum { BUFS = 3 };
    const size_t chunk = bytes < ((size_t)64 << 20) ? bytes : (size_t)64 << 20;
    void *buf[BUFS] = {};
    cudaEvent_t done[BUFS] = {};
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < BUFS && err == cudaSuccess; i++) {
        err = cudaHostAlloc(&buf[i], chunk, cudaHostAllocDefault);
        if (err == cudaSuccess)
            err = cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming);
    }
    bool staged = err == cudaSuccess;
    if (!staged) {
        cudaGetLastError(); /* no pinned buffers (a pinned-memory limit): the plain copy */
        err = cuda_copy(ctx, dev, host, bytes, cudaMemcpyHostToDevice);
    }
    for (size_t off = 0, c = 0; staged && err == cudaSuccess && off < bytes; off += chunk, c++) {
        int b = (int)(c % BUFS);
        size_t n = bytes - off < chunk ? bytes - off : chunk;
        err = cudaEventSynchronize(done[b]); /* the copy engine is done with the buffer */
        if (err != cudaSuccess)
            break;
        /* across the pool: a pageable read runs ~5-10 GB/s a thread */
        parallel_memcpy(buf[b], (const char *)host + off, n, 0);
        err = cudaMemcpyAsync((char *)dev + off, buf[b], n, cudaMemcpyHostToDevice, ctx->stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(done[b], ctx->stream);
    }
    cudaError_t sync = cudaStreamSynchronize(ctx->stream);
    if (err == cudaSuccess)
        err = sync;
    for (int i = 0; i < BUFS; i++) {
        if (done[i])
            cudaEventDestroy(done[i]);
        if (buf[i])
            cudaFreeHost(buf[i]);
    }
    return err;
}

/* Whether a resident upload goes through upload_staged: pageable ranges of 64 MiB and
 * more (run 42, H200: 4 GiB at 12.6 GB/s staged against 6.4 GB/s by one pageable copy; a
 * 2^27 key's 44.5 GiB in ~3 s instead of ~9 s), smaller ones by one copy (the buffers'
 * allocation costs ~7 ms). G16_GPU_STAGED_UPLOAD=0 turns it off, =1 forces it at any
 * size (test_cuda_probe times both ways). */
static bool staged_upload_wanted(const void *host, size_t bytes)
{
    const char *env = getenv("G16_GPU_STAGED_UPLOAD");
    bool forced = env && env[0] == '1' && env[1] == 0;
    bool off = env && env[0] == '0' && env[1] == 0;
    return !off && (forced || bytes >= ((size_t)64 << 20)) && !cuda_host_is_pinned(host);
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
    if (device < 0 || device >= count || device >= CUDA_MAX_DEVICES)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "CUDA device %d does not exist (%d present)",
                           device, count);
    cuda_ctx *ctx = (cuda_ctx *)calloc(1, sizeof *ctx);
    if (!ctx)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "cuda_ctx_create: no memory");
    ctx->device = device;
    ctx->shared = shared_acquire(device);
    if (!ctx->shared) {
        free(ctx);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "cuda_ctx_create: no memory");
    }
    cudaDeviceProp prop;
    g16_status st = G16_OK;
    if ((err = cudaSetDevice(device)) != cudaSuccess ||
        (err = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
        (err = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking)) != cudaSuccess)
        st = status_fail(G16_ERR_UNSUPPORTED, "CUDA device %d: %s", device, cudaGetErrorString(err));
    for (int i = 0; !st && i < CUDA_CTX_EVENTS; i++)
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
    if (ctx->stream)
        cudaStreamSynchronize(ctx->stream);
    cuda_ctx_arena_give(ctx);
    if (ctx->ntt_cache_free)
        ctx->ntt_cache_free(ctx->ntt_cache);
    for (int i = 0; i < ctx->pool_blocks; i++)
        cuda_free_bytes(ctx->pool[i].p);
    free(ctx->pool);
    if (ctx->shared) {
        resident_drop(ctx->shared, ctx);
        shared_release(ctx->device);
    }
    for (int i = 0; i < ctx->n_pinned; i++)
        pin_release(ctx->pinned[i]);
    for (int i = 0; i < CUDA_CTX_EVENTS; i++)
        if (ctx->ev[i])
            cudaEventDestroy(ctx->ev[i]);
    for (int i = 0; i < CUDA_COPY_SLOTS; i++)
        if (ctx->slot_done[i])
            cudaEventDestroy(ctx->slot_done[i]);
    if (ctx->copy_stream) {
        cudaStreamSynchronize(ctx->copy_stream);
        cudaStreamDestroy(ctx->copy_stream);
    }
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
    cuda_device_shared *sh = ctx->shared;
    std::lock_guard<std::mutex> guard(sh->lock); /* another worker on this device waits for
                                                    the upload instead of making its own */
    for (int i = 0; i < sh->n_resident; i++)
        if (sh->resident[i].host == host && sh->resident[i].bytes == bytes) {
            if (!resident_use(sh, i, ctx))
                return status_fail(G16_ERR_UNSUPPORTED, "GPU %d: more than %d contexts share "
                                   "one resident array", ctx->device, (int)MAX_USERS);
            *dev = sh->resident[i].dev;
            return G16_OK;
        }
    if (sh->n_resident == CUDA_MAX_RESIDENT)
        return status_fail(G16_ERR_UNSUPPORTED, "GPU %d: more than %d resident arrays",
                           ctx->device, CUDA_MAX_RESIDENT);
    void *d = nullptr;
    g16_status st = cuda_alloc_bytes(ctx, &d, bytes ? bytes : 1, "resident key points");
    if (st)
        return st;
    if (bytes) {
        cudaError_t err = staged_upload_wanted(host, bytes)
                              ? upload_staged(ctx, d, host, bytes)
                              : cuda_copy(ctx, d, host, bytes, cudaMemcpyHostToDevice);
        if (err != cudaSuccess) {
            cuda_free_bytes(d);
            return status_fail(G16_ERR_INTERNAL, "uploading %zu bytes to GPU %d: %s", bytes,
                               ctx->device, cudaGetErrorString(err));
        }
    }
    sh->n_users[sh->n_resident] = 0;
    sh->resident[sh->n_resident] = cuda_resident_entry{host, bytes, d, nullptr, 0};
    resident_use(sh, sh->n_resident++, ctx);
    sh->resident_bytes += bytes;
    *dev = d;
    return G16_OK;
}

g16_status cuda_ctx_shared_table(cuda_ctx *ctx, unsigned slot, size_t bytes, const char *what,
                                 g16_status (*make)(cuda_ctx *, void *, void *), void *arg,
                                 void **out)
{
    *out = nullptr;
    if (slot >= CUDA_SHARED_TABLES)
        return status_fail(G16_ERR_INTERNAL, "shared table slot %u of %d", slot,
                           (int)CUDA_SHARED_TABLES);
    cuda_device_shared *sh = ctx->shared;
    std::lock_guard<std::mutex> guard(sh->lock); /* made once, complete before anyone reads */
    if (sh->tables[slot]) {
        *out = sh->tables[slot];
        return G16_OK;
    }
    void *d = nullptr;
    g16_status st = cuda_alloc_bytes(ctx, &d, bytes, what);
    if (st == G16_ERR_OUT_OF_MEMORY && sh->refs == 1) {
        /* The device's only context: no other stream can be reading the other tables. */
        CUDA_TRY(cudaStreamSynchronize(ctx->stream), G16_ERR_INTERNAL);
        bool freed = false;
        for (int i = 0; i < CUDA_SHARED_TABLES; i++)
            if (sh->tables[i]) {
                cuda_free_bytes(sh->tables[i]);
                sh->tables[i] = nullptr;
                freed = true;
            }
        if (freed)
            st = cuda_alloc_bytes(ctx, &d, bytes, what);
    }
    if (st)
        return st;
    if ((st = make(ctx, d, arg)) != G16_OK) {
        cuda_free_bytes(d);
        return st;
    }
    cudaError_t err = cudaStreamSynchronize(ctx->stream);
    if (err != cudaSuccess) {
        cuda_free_bytes(d);
        return status_fail(G16_ERR_INTERNAL, "making %s on GPU %d: %s", what, ctx->device,
                           cudaGetErrorString(err));
    }
    sh->tables[slot] = d;
    *out = d;
    return G16_OK;
}

g16_status cuda_ctx_arena_take(cuda_ctx *ctx, size_t bytes, const char *what, void **base)
{
    *base = nullptr;
    cuda_device_shared *sh = ctx->shared;
    std::unique_lock<std::mutex> hold(sh->arena_lock);
    sh->arena_free.wait(hold, [&] { return !sh->arena_holder || sh->arena_holder == ctx; });
    sh->arena_holder = ctx;
    ctx->arena_held = true;
    if (sh->arena_bytes < bytes) {
        /* Larger than any MSM before (the first partition, or a key of another shape):
         * nobody else can be using the region while ctx holds it, and cudaFree waits for
         * this context's queued kernels that may still read it. */
        cuda_free_bytes(sh->arena);
        sh->arena = nullptr;
        sh->arena_bytes = 0;
        g16_status st = cuda_alloc_bytes(ctx, &sh->arena, bytes, what);
        if (st == G16_ERR_OUT_OF_MEMORY) {
            pool_trim(ctx);
            st = cuda_alloc_bytes(ctx, &sh->arena, bytes, what);
        }
        if (st)
            return st; /* still held: cuda_ctx_arena_give lets the others in */
        sh->arena_bytes = bytes;
    }
    *base = sh->arena;
    return G16_OK;
}

void cuda_ctx_arena_give(cuda_ctx *ctx)
{
    if (!ctx || !ctx->arena_held)
        return;
    /* The next holder's kernels run on another stream: this context's must be done. */
    cudaStreamSynchronize(ctx->stream);
    cuda_device_shared *sh = ctx->shared;
    {
        std::lock_guard<std::mutex> guard(sh->arena_lock);
        if (sh->arena_holder == ctx)
            sh->arena_holder = nullptr;
        ctx->arena_held = false;
    }
    sh->arena_free.notify_all();
}

extern "C" void cuda_ctx_set_msm_arena(cuda_ctx *ctx, bool on)
{
    ctx->msm_arena = on;
}

extern "C" g16_status cuda_ctx_resident_phi(cuda_ctx *ctx, const void **phi, const void *dev,
                                            int group)
{
    cuda_device_shared *sh = ctx->shared;
    std::lock_guard<std::mutex> guard(sh->lock); /* one table per array, made once */
    *phi = nullptr;
    for (int i = 0; i < sh->n_resident; i++) {
        cuda_resident_entry &e = sh->resident[i];
        if (e.dev != dev)
            continue;
        if (!e.phi) {
            size_t point = group == 1 ? 96 : 192, n = e.bytes / point;
            size_t bytes = n * (point / 2);
            void *d = nullptr;
            g16_status st = cuda_alloc_bytes(ctx, &d, bytes ? bytes : 1, "GLV table");
            if (st)
                return st;
            if ((st = cuda_msm_phi_table(ctx, group, d, e.dev, n))) {
                cuda_free_bytes(d);
                return st;
            }
            e.phi = d;
            e.phi_bytes = bytes;
            sh->resident_bytes += bytes;
        }
        *phi = e.phi;
        return G16_OK;
    }
    return status_fail(G16_ERR_INVALID_ARGUMENT,
                       "GLV table: the bases at %p are not a resident array of GPU %d", dev,
                       ctx->device);
}

extern "C" bool cuda_ctx_pin_host(cuda_ctx *ctx, const void *host, size_t bytes)
{
    for (int i = 0; i < ctx->n_pinned; i++)
        if (ctx->pinned[i] == host)
            return true;
    if (!bytes)
        return true; /* nothing to copy, nothing to pin */
    if (ctx->n_pinned == CUDA_MAX_RESIDENT)
        return false;
    std::lock_guard<std::mutex> guard(g_pin_lock);
    int found = -1;
    for (int i = 0; i < g_n_pins; i++)
        if (g_pins[i].host == host)
            found = i;
    if (found < 0) {
        if (g_n_pins == CUDA_MAX_RESIDENT)
            return false;
        /* Portable: every device's contexts see it pinned. A read-only mapping (a key
         * mmap'ed from its file) needs the read-only flag, where the driver has it. */
        cudaError_t err = cudaHostRegister((void *)host, bytes, cudaHostRegisterPortable);
        if (err != cudaSuccess) {
            cudaGetLastError();
            err = cudaHostRegister((void *)host, bytes,
                                   cudaHostRegisterPortable | cudaHostRegisterReadOnly);
        }
        if (err != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        found = g_n_pins++;
        g_pins[found] = pinned_range{host, 0};
    }
    g_pins[found].refs++;
    ctx->pinned[ctx->n_pinned++] = host;
    return true;
}

extern "C" g16_status cuda_ctx_upload_slot(cuda_ctx *ctx, int slot, void *dev, const void *host,
                                           size_t bytes)
{
    if (slot < 0 || slot >= CUDA_COPY_SLOTS)
        return status_fail(G16_ERR_INTERNAL, "cuda_ctx_upload_slot: slot %d", slot);
    if (!ctx->copy_stream) {
        CUDA_TRY(cudaStreamCreateWithFlags(&ctx->copy_stream, cudaStreamNonBlocking), G16_ERR_INTERNAL);
        for (int i = 0; i < CUDA_COPY_SLOTS; i++)
            CUDA_TRY(cudaEventCreateWithFlags(&ctx->slot_done[i], cudaEventDisableTiming),
                     G16_ERR_INTERNAL);
    }
    CUDA_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, ctx->copy_stream),
             G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventRecord(ctx->slot_done[slot], ctx->copy_stream), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" g16_status cuda_ctx_wait_slot(cuda_ctx *ctx, int slot)
{
    if (slot < 0 || slot >= CUDA_COPY_SLOTS || !ctx->copy_stream)
        return status_fail(G16_ERR_INTERNAL, "cuda_ctx_wait_slot: slot %d has no copy", slot);
    CUDA_TRY(cudaStreamWaitEvent(ctx->stream, ctx->slot_done[slot], 0), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" g16_status cuda_ctx_slot_sync(cuda_ctx *ctx, int slot)
{
    if (slot < 0 || slot >= CUDA_COPY_SLOTS || !ctx->copy_stream)
        return status_fail(G16_ERR_INTERNAL, "cuda_ctx_slot_sync: slot %d has no copy", slot);
    CUDA_TRY(cudaEventSynchronize(ctx->slot_done[slot]), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" int cuda_ctx_fail_allocs(cuda_ctx *ctx, const char *what, int count)
{
    int left = ctx->fail_count;
    ctx->fail_what = what;
    ctx->fail_count = what ? count : 0;
    return left;
}

extern "C" void cuda_ctx_set_msm_slice_points(cuda_ctx *ctx, size_t points)
{
    ctx->msm_slice_points = (uint32_t)(points < 0xffffffffu ? points : 0xffffffffu);
    /* (UINT32_MAX: planned, whole windows: a window holds fewer than 2^31 digits.) */
}

extern "C" size_t cuda_ctx_resident_bytes(const cuda_ctx *ctx)
{
    std::lock_guard<std::mutex> guard(ctx->shared->lock);
    return ctx->shared->resident_bytes;
}

extern "C" g16_status cuda_ctx_alloc(cuda_ctx *ctx, void **dev, size_t bytes)
{
    return cuda_pool_alloc(ctx, dev, bytes, "scratch");
}

extern "C" void cuda_ctx_release(cuda_ctx *ctx, void *dev)
{
    cuda_pool_release(ctx, dev);
}

extern "C" g16_status cuda_ctx_upload(cuda_ctx *ctx, void *dev, const void *host, size_t bytes)
{
    CUDA_TRY(cuda_copy(ctx, dev, host, bytes, cudaMemcpyHostToDevice), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" g16_status cuda_ctx_upload_async(cuda_ctx *ctx, void *dev, const void *host, size_t bytes)
{
    CUDA_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, ctx->stream), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" g16_status cuda_ctx_sync(cuda_ctx *ctx)
{
    CUDA_TRY(cudaStreamSynchronize(ctx->stream), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" void cuda_ctx_sync_copies(cuda_ctx *ctx)
{
    if (ctx->copy_stream)
        cudaStreamSynchronize(ctx->copy_stream);
}

extern "C" g16_status cuda_ctx_download(cuda_ctx *ctx, void *host, const void *dev, size_t bytes)
{
    CUDA_TRY(cuda_copy(ctx, host, dev, bytes, cudaMemcpyDeviceToHost), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" void cuda_ctx_sample_memory(cuda_ctx *ctx, cuda_memory_info *info)
{
    size_t free_b = 0, total_b = 0;
    cudaSetDevice(ctx->device);
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && total_b - free_b > ctx->peak_device_used)
        ctx->peak_device_used = total_b - free_b;
    if (!info)
        return;
    info->device_total = total_b;
    info->device_used = total_b - free_b;
    info->device_peak_used = ctx->peak_device_used;
    info->pool_bytes = ctx->pool_bytes;
    info->pool_free_bytes = 0;
    for (int i = 0; i < ctx->pool_blocks; i++)
        if (!ctx->pool[i].used)
            info->pool_free_bytes += ctx->pool[i].bytes;
    info->resident_bytes = cuda_ctx_resident_bytes(ctx);
    std::lock_guard<std::mutex> guard(ctx->shared->arena_lock);
    info->arena_bytes = ctx->shared->arena_bytes;
}

/* --- pinned host memory ------------------------------------------------------------------ */

extern "C" g16_status cuda_host_alloc(void **host, size_t bytes)
{
    *host = nullptr;
    cudaError_t err = cudaHostAlloc(host, bytes ? bytes : 1, cudaHostAllocPortable);
    if (err == cudaSuccess)
        return G16_OK;
    *host = nullptr;
    cudaGetLastError();
    return status_fail(G16_ERR_OUT_OF_MEMORY, "pinning %.2f GiB of host memory: %s",
                       bytes / 1073741824.0, cudaGetErrorString(err));
}

extern "C" void cuda_host_free(void *host)
{
    if (host)
        cudaFreeHost(host);
}

extern "C" bool cuda_host_is_pinned(const void *host)
{
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, host) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeHost;
}

/* --- arithmetic checks ------------------------------------------------------------------ */

/* a + p when that is below 8/7 p (a below p / 7: its top limb below p's / 8), else a. */
__host__ __device__ inline fp_d loose_add_p(const fp_d &a)
{
    constexpr int N = fp_d::N;
    if (a.v[N - 1] >= fp_d::p(N - 1) / 8)
        return a;
    fp_d r;
    uint64_t c = 0;
    for (int k = 0; k < N; k++) {
        c += (uint64_t)a.v[k] + fp_d::p(k);
        r.v[k] = (uint32_t)c;
        c >>= 32;
    }
    return r;
}

template <class F>
__host__ __device__ void field_op(F *a, const F *b, size_t i, int op)
{
    switch (op) {
    case 0: a[i] = a[i] + b[i]; break;
    case 1: a[i] = a[i] - b[i]; break;
    case 2: a[i] = a[i] * b[i]; break;
    case 3: a[i] = sqr(a[i]); break;
    case 5: a[i] = inv(a[i]); break;
    case 6:
        if constexpr (std::is_same<F, fp_d>::value) {
            /* Fp's loose products (loose_mul) on operands at their loosest: a + p and b + p
             * where those stay below 8/7 p, as the batch-affine walk's values; two
             * products, then sqr's and operator*'s reductions bring (a b b)^2 below p. */
            F x = loose_add_p(a[i]), y = loose_add_p(b[i]);
            F t = loose_mul(loose_mul(x, y), y);
            a[i] = sqr(t);
        }
        break;
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
    case 3:
        out[i] = xyzz_from_affine(
            affine_add_with_inverse(a[i], b[i], inv(affine_add_denominator(a[i], b[i]))));
        break;
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
    if (op < 0 || op > 6 || (op == 6 && field != 1))
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_field_check: op %d of field %d", op,
                           field);
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
    if (op < 0 || op > 3)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_point_check: op %d", op);
    if (ctx)
        cudaSetDevice(ctx->device);
    switch (group) {
    case 1: return point_check<fp_d>(ctx, op, device, out, a, b, n);
    case 2: return point_check<fp2_d>(ctx, op, device, out, a, b, n);
    default: return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_point_check: group %d", group);
    }
}
