/* The CUDA backend's function table: the partition step and one-off MSMs on a device
 * (src/backend/cuda), with the few point operations that join an MSM's window sums done
 * here by the CPU's formulas. */
#include "backend/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

#ifndef G16_HAVE_CUDA

g16_status backend_cuda_open(backend **out, int device)
{
    *out = NULL;
    return status_fail(G16_ERR_UNSUPPORTED,
                       "this build of g16 has no CUDA backend (configure with -DG16_CUDA=ON "
                       "where nvcc is installed)");
}

int backend_cuda_device_count(void) { return 0; }

g16_status backend_host_alloc(void **p, size_t bytes, bool pinned)
{
    (void)pinned; /* nothing to pin with in a build without CUDA */
    *p = malloc(bytes ? bytes : 1);
    return *p ? G16_OK
              : status_fail(G16_ERR_OUT_OF_MEMORY, "%.2f GiB of host memory",
                            bytes / 1073741824.0);
}

void backend_host_free(void *p, bool pinned)
{
    (void)pinned;
    free(p);
}

#else

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_ntt.h"
#include "groth16/density.h"
#include "groth16/h_poly.h"
#include "trace/trace.h"
#include "util/clock.h"
#include "util/parallel.h"

/* backend_cuda_msm_g1 / _g2: the device's window sums (cuda_msm_g1_windows), joined here
 * as sum_w 2^(c w) win[1 + w] + win[0] with the CPU's formulas: c doublings per window,
 * a few hundred point operations in all. backend_cuda_msm_shared_g1 / _g2 the same over a
 * classification kept for several MSMs (cuda_msm_scalars_classify). */
#define DEFINE_GPU_MSM(G)                                                                \
    static void join_windows_##G(G##_jac_t *r, const G##_xyzz_t *win, unsigned windows,  \
                                 unsigned c)                                             \
    {                                                                                    \
        G##_xyzz_t acc, t;                                                               \
        G##_xyzz_set_infinity(&acc);                                                     \
        for (unsigned w = windows; w-- > 0;) {                                           \
            for (unsigned k = 0; k < c; k++) {                                           \
                G##_xyzz_dbl(&t, &acc);                                                  \
                acc = t;                                                                 \
            }                                                                            \
            G##_xyzz_add(&t, &acc, &win[1 + w]);                                         \
            acc = t;                                                                     \
        }                                                                                \
        G##_xyzz_add(&t, &acc, &win[0]);                                                 \
        G##_xyzz_to_jac(r, &t);                                                          \
    }                                                                                    \
    g16_status backend_cuda_msm_##G(cuda_ctx *ctx, G##_jac_t *r, cuda_msm_info *info,    \
                                    const void *bases_dev, const void *phi_dev,          \
                                    const cuda_msm_mult *mult, const void *scalars_dev,  \
                                    size_t n, bool montgomery)                           \
    {                                                                                    \
        static _Thread_local G##_xyzz_t win[1 + CUDA_MSM_MAX_WINDOWS];                   \
        unsigned windows, c;                                                             \
        g16_status st = cuda_msm_##G##_windows(ctx, win, &windows, &c, info, bases_dev,  \
                                               phi_dev, mult, scalars_dev, n, montgomery); \
        if (!st)                                                                         \
            join_windows_##G(r, win, windows, c);                                        \
        return st;                                                                       \
    }                                                                                    \
    g16_status backend_cuda_msm_shared_##G(cuda_ctx *ctx, G##_jac_t *r,                  \
                                           cuda_msm_info *info, const void *bases_dev,   \
                                           cuda_msm_scalars *sc)                         \
    {                                                                                    \
        static _Thread_local G##_xyzz_t win[1 + CUDA_MSM_MAX_WINDOWS];                   \
        unsigned windows, c;                                                             \
        g16_status st = cuda_msm_##G##_windows_shared(ctx, win, &windows, &c, info,      \
                                                      bases_dev, sc);                    \
        if (!st)                                                                         \
            join_windows_##G(r, win, windows, c);                                        \
        return st;                                                                       \
    }
DEFINE_GPU_MSM(g1)
DEFINE_GPU_MSM(g2)

/* One-off MSM over host arrays: both uploaded to scratch (never made resident: the caller
 * may free and reuse these addresses). */
static cuda_ctx *state_ctx(backend *be);

static g16_status msm_host(backend *be, int group, void *r, const uint8_t *bases,
                           const void *scalars, size_t n, bool montgomery)
{
    cuda_ctx *ctx = state_ctx(be);
    size_t base_bytes = n * (group == 1 ? 96 : 192), scalar_bytes = n * 32;
    void *db = NULL, *ds = NULL;
    g16_status st;
    if ((st = cuda_ctx_alloc(ctx, &db, base_bytes)) || (st = cuda_ctx_alloc(ctx, &ds, scalar_bytes)) ||
        (st = cuda_ctx_upload(ctx, db, bases, base_bytes)) ||
        (st = cuda_ctx_upload(ctx, ds, scalars, scalar_bytes)))
        goto out;
    st = group == 1 ? backend_cuda_msm_g1(ctx, r, NULL, db, NULL, NULL, ds, n, montgomery)
                    : backend_cuda_msm_g2(ctx, r, NULL, db, NULL, NULL, ds, n, montgomery);
out:
    cuda_ctx_release(ctx, db);
    cuda_ctx_release(ctx, ds);
    return st;
}

static g16_status cuda_msm_g1_host(backend *be, g1_jac_t *r, const uint8_t *bases,
                                   const void *scalars, size_t n, bool montgomery)
{
    return msm_host(be, 1, r, bases, scalars, n, montgomery);
}

static g16_status cuda_msm_g2_host(backend *be, g2_jac_t *r, const uint8_t *bases,
                                   const void *scalars, size_t n, bool montgomery)
{
    return msm_host(be, 2, r, bases, scalars, n, montgomery);
}

/* --- the key's points: resident, or streamed from host memory ------------------------- */

/* What the CUDA backend keeps beside its context. */
typedef struct {
    cuda_ctx *ctx;
    bool streamed;       /* the last partition streamed the key */
    bool pin_failed;     /* an array of a streamed key could not be pinned (sticky) */
    uint64_t stream_chunk; /* the streamed key's chunk (backend.stream_chunk_bytes) */
    uint64_t streamed_bytes;
    void *pre_buf;          /* a streamed array's first chunk, queued in copy slot 0 ... */
    const uint8_t *pre_host; /* ... from here (stream_prefetch), for its MSM to take */
    /* The next partition's a (backend.next_input): during a partition, next_buf is the
     * vector held for it and next_host, once asked and answered, where its copy (copy
     * slot CUDA_SLOT_H_A) comes from; between partitions, staged_buf and staged_host hold
     * that copy for the partition whose a is staged_host. */
    const fr_t *(*next_input)(void *arg);
    void *next_input_arg;
    void *next_buf, *staged_buf;
    const fr_t *next_host, *staged_host;
    size_t next_bytes;
    uint64_t inputs_staged;
} cuda_backend_state;

static cuda_ctx *state_ctx(backend *be) { return ((cuda_backend_state *)be->impl)->ctx; }

/* Asks for the next partition's a (backend.next_input) and, once it is known, queues its
 * copy into next_buf on the copy stream, behind what is queued there (a streamed key's
 * next chunk): called between the MSMs' steps, so that the copy runs beside their
 * kernels. A no-op when no vector is held for it or its copy is queued already. */
static g16_status stage_next_input(cuda_backend_state *bs)
{
    if (!bs->next_buf || bs->next_host)
        return G16_OK;
    const fr_t *a = bs->next_input(bs->next_input_arg);
    if (!a)
        return G16_OK;
    g16_status st = cuda_ctx_upload_slot(bs->ctx, CUDA_SLOT_H_A, bs->next_buf, a, bs->next_bytes);
    if (!st)
        bs->next_host = a;
    return st;
}

/* A staged a no partition took (the pipeline handed over another, or the backend
 * closes): back to the pool once its copy has landed. */
static void staged_drop(cuda_backend_state *bs)
{
    if (!bs->staged_buf)
        return;
    cuda_ctx_slot_sync(bs->ctx, CUDA_SLOT_H_A);
    cuda_ctx_release(bs->ctx, bs->staged_buf);
    bs->staged_buf = NULL;
    bs->staged_host = NULL;
}

/* One of the key's arrays: on the device (dev), or in host memory (host) to be streamed. */
typedef struct {
    const void *dev;
    const uint8_t *host;
    size_t bytes;
} key_points;

/* r = sum k_i P_i with P in host memory: chunk k + 1 goes up on the copy stream while
 * chunk k's MSM runs, into the other of two device buffers (a buffer is refilled only
 * after the MSM that read it has returned). Each chunk is a whole MSM (its own scalar
 * mix, window width and bucket reduction); the chunks' points are added here. glv (H's
 * dense MSM, backend_stream_glv): each chunk's GLV table made beside it, one product a
 * point, so that the chunk's MSM may take GLV's windows (cuda_msm.cu, glv_use). */
#define DEFINE_STREAMED_MSM(G, GROUP, POINT_BYTES)                                          \
    static g16_status msm_streamed_##G(cuda_backend_state *bs, G##_jac_t *r,               \
                                       cuda_msm_info *info, const uint8_t *host,            \
                                       const uint8_t *scalars_dev, size_t n, bool mont,     \
                                       bool glv)                                            \
    {                                                                                       \
        cuda_ctx *ctx = bs->ctx;                                                            \
        size_t chunk = bs->stream_chunk / (POINT_BYTES);                                    \
        size_t len0 = n < chunk ? n : chunk;                                                \
        void *buf[2] = {NULL, NULL}, *phi = NULL;                                           \
        cuda_msm_info sum = {0}, part;                                                      \
        G##_set_infinity(r);                                                                \
        if (n == 0) {                                                                       \
            if (info)                                                                       \
                *info = sum;                                                                \
            return G16_OK;                                                                  \
        }                                                                                   \
        if (!cuda_ctx_pin_host(ctx, host, n * (POINT_BYTES)))                               \
            bs->pin_failed = true; /* copies from pageable memory: slower, same bytes */    \
        g16_status st;                                                                      \
        double wall = clock_ms();                                                           \
        bool pre = bs->pre_buf && bs->pre_host == host; /* chunk 0 on its way already */   \
        if (pre) {                                                                          \
            buf[0] = bs->pre_buf;                                                           \
            bs->pre_buf = NULL;                                                             \
            bs->pre_host = NULL;                                                            \
        }                                                                                   \
        if ((!pre && (st = cuda_ctx_alloc(ctx, &buf[0], len0 * (POINT_BYTES)))) ||          \
            (st = cuda_ctx_alloc(ctx, &buf[1], len0 * (POINT_BYTES))) ||                    \
            (glv && (st = cuda_ctx_alloc(ctx, &phi, len0 * (POINT_BYTES) / 2))) ||          \
            (!pre && (st = cuda_ctx_upload_slot(ctx, 0, buf[0], host, len0 * (POINT_BYTES))))) \
            goto out;                                                                       \
        for (size_t off = 0, k = 0; off < n; off += chunk, k++) {                           \
            size_t len = n - off < chunk ? n - off : chunk, next = off + len;               \
            if (next < n &&                                                                 \
                (st = cuda_ctx_upload_slot(ctx, (int)((k + 1) & 1), buf[(k + 1) & 1],       \
                                           host + next * (POINT_BYTES),                     \
                                           (n - next < chunk ? n - next : chunk) *          \
                                               (POINT_BYTES))))                             \
                goto out;                                                                   \
            if ((st = stage_next_input(bs))) /* behind the chunk: it waits for neither */   \
                goto out;                                                                   \
            double phi_ms = 0;                                                              \
            G##_jac_t p, t;                                                                 \
            if ((st = cuda_ctx_wait_slot(ctx, (int)(k & 1))))                               \
                goto out;                                                                   \
            if (glv) { /* synchronous: its time is the kernel's, after the chunk's copy */ \
                if ((st = cuda_ctx_slot_sync(ctx, (int)(k & 1))))                           \
                    goto out;                                                               \
                phi_ms = clock_ms();                                                        \
                if ((st = cuda_msm_phi_table(ctx, GROUP, phi, buf[k & 1], len)))            \
                    goto out;                                                               \
                phi_ms = clock_ms() - phi_ms;                                               \
            }                                                                               \
            if ((st = backend_cuda_msm_##G(ctx, &p, &part, buf[k & 1], phi, NULL,           \
                                           scalars_dev + off * 32, len, mont)))             \
                goto out;                                                                   \
            G##_add(&t, r, &p);                                                             \
            *r = t;                                                                         \
            bs->streamed_bytes += len * (POINT_BYTES);                                      \
            sum.streamed_bytes += len * (POINT_BYTES);                                      \
            sum.zeros += part.zeros;                                                        \
            sum.ones += part.ones;                                                          \
            sum.others += part.others;                                                      \
            sum.window_bits = part.window_bits;                                             \
            sum.windows = part.windows;                                                     \
            sum.ms_classify += part.ms_classify + phi_ms; /* the table: before classify */  \
            sum.ms_ones += part.ms_ones;                                                    \
            sum.ms_sort += part.ms_sort;                                                    \
            sum.ms_accumulate += part.ms_accumulate;                                        \
            sum.ms_reduce += part.ms_reduce;                                                \
            sum.ms_total += part.ms_total + phi_ms;                                         \
        }                                                                                   \
        /* The rest of the wall time: waiting for copies (and the host's own steps). */     \
        wall = clock_ms() - wall;                                                           \
        sum.ms_upload = wall > sum.ms_total ? wall - sum.ms_total : 0;                      \
    out:                                                                                    \
        if (st) { /* a queued copy may still write into a buffer: let it land first */      \
            cuda_ctx_wait_slot(ctx, 0);                                                     \
            cuda_ctx_wait_slot(ctx, 1);                                                     \
            cuda_ctx_sync(ctx);                                                             \
        }                                                                                   \
        cuda_ctx_release(ctx, buf[0]);                                                      \
        cuda_ctx_release(ctx, buf[1]);                                                      \
        cuda_ctx_release(ctx, phi);                                                         \
        if (info)                                                                           \
            *info = sum;                                                                    \
        return st;                                                                          \
    }
DEFINE_STREAMED_MSM(g1, 1, 96)
DEFINE_STREAMED_MSM(g2, 2, 192)

/* The bytes of a streamed array's first chunk (n points of point_bytes). */
static size_t stream_first_bytes(const cuda_backend_state *bs, size_t n, size_t point_bytes)
{
    size_t chunk = bs->stream_chunk / point_bytes;
    return (n < chunk ? n : chunk) * point_bytes;
}

/* Queues the first chunk of a streamed array of n points (host) into copy slot 0 now, in
 * bs->pre_buf (allocated by the caller with the partition's other buffers: an allocation
 * that made the pool free blocks would wait for the copies in flight), so that it travels
 * while other kernels run; the array's MSM (msm_streamed_g1/g2) takes it instead of
 * copying it again. */
static g16_status stream_prefetch(cuda_backend_state *bs, const uint8_t *host, size_t n,
                                  size_t point_bytes)
{
    if (!bs->pre_buf)
        return G16_OK;
    if (!cuda_ctx_pin_host(bs->ctx, host, n * point_bytes))
        bs->pin_failed = true;
    g16_status st = cuda_ctx_upload_slot(bs->ctx, CUDA_SLOT_KEY0, bs->pre_buf, host,
                                         stream_first_bytes(bs, n, point_bytes));
    bs->pre_host = st ? NULL : host;
    return st;
}

/* H's inputs fed to cuda_h_poly_fed, each copied just ahead of its own transforms;
 * G16_GPU_H_FED=0 uploads all three before the kernels (the earlier way, for
 * comparison). */
static bool h_inputs_fed(void)
{
    const char *env = getenv("G16_GPU_H_FED");
    return !env || strcmp(env, "0");
}

/* What a partition's work after H needs, queued on the copy stream behind H's inputs: a
 * streamed H's first chunk (stream_prefetch), which H's MSM waits for as it starts, then
 * the witness (copy slot CUDA_SLOT_WITNESS), which only the MSMs after H's read (run 114:
 * the witness first held H's MSM ~59 ms for the chunk behind it). */
typedef struct {
    cuda_backend_state *bs;
    void *dz;
    const void *z;
    size_t z_bytes;
    const uint8_t *h_host; /* a streamed H's points, or NULL */
    size_t n;
} after_h_copies;

static g16_status queue_after_h(void *arg)
{
    const after_h_copies *q = arg;
    g16_status st = q->h_host ? stream_prefetch(q->bs, q->h_host, q->n, 96) : G16_OK;
    return st ? st : cuda_ctx_upload_slot(q->bs->ctx, CUDA_SLOT_WITNESS, q->dz, q->z, q->z_bytes);
}

/* phi: the resident bases' GLV table (backend.msm_glv), or NULL; dense: H's MSM, whose
 * streamed chunks make their own tables when backend_stream_glv says so. */
static g16_status msm_key_g1(cuda_backend_state *bs, g1_jac_t *r, cuda_msm_info *info,
                             const key_points *k, const void *phi, bool dense,
                             const void *scalars_dev, size_t n, bool mont)
{
    return k->dev ? backend_cuda_msm_g1(bs->ctx, r, info, k->dev, phi, NULL, scalars_dev, n, mont)
                  : msm_streamed_g1(bs, r, info, k->host, scalars_dev, n, mont,
                                    dense && backend_stream_glv());
}

static g16_status msm_key_g2(cuda_backend_state *bs, g2_jac_t *r, cuda_msm_info *info,
                             const key_points *k, const void *scalars_dev, size_t n, bool mont)
{
    return k->dev ? backend_cuda_msm_g2(bs->ctx, r, info, k->dev, NULL, NULL, scalars_dev, n, mont)
                  : msm_streamed_g2(bs, r, info, k->host, scalars_dev, n, mont, false);
}

/* A G1 MSM over the resident key's points k whose classification of the scalars is kept
 * in *shared for the MSMs after it (cuda_msm_scalars_classify; its time counted in this
 * MSM's classify column), or, shared NULL, an MSM of its own (msm_key_g1). */
static g16_status msm_classified_g1(cuda_backend_state *bs, g1_jac_t *r, cuda_msm_info *info,
                                    const key_points *k, cuda_msm_scalars **shared,
                                    const void *scalars_dev, size_t n, bool mont)
{
    if (!shared)
        return msm_key_g1(bs, r, info, k, NULL, false, scalars_dev, n, mont);
    double ms = 0;
    g16_status st;
    if ((st = cuda_msm_scalars_classify(bs->ctx, shared, scalars_dev, n, mont, &ms)) ||
        (st = backend_cuda_msm_shared_g1(bs->ctx, r, info, k->dev, *shared)))
        return st;
    info->ms_classify += ms;
    info->ms_total += ms;
    return G16_OK;
}

/* The key's arrays as cuda_partition reads them (all-dense queries when the key has no
 * densities). */
static void key_arrays(key_points keys[BACKEND_KEY_ARRAYS], const groth16_prover_key *pk)
{
    const uint8_t *ptr[BACKEND_KEY_ARRAYS];
    size_t bytes[BACKEND_KEY_ARRAYS];
    backend_key_arrays(pk, ptr, bytes);
    for (int k = 0; k < BACKEND_KEY_ARRAYS; k++)
        keys[k] = (key_points){NULL, ptr[k], bytes[k]};
}

/* A streamed key's arrays pinned in place once, before the first partition (a split
 * key's resident arrays uploaded instead); a resident key's uploaded now when
 * key_upload_at_prepare (the partitions then find the arrays by their host addresses and
 * read no host page). */
static g16_status cuda_prepare_key(backend *be, const groth16_prover_key *pk)
{
    cuda_backend_state *bs = be->impl;
    key_points keys[5];
    key_arrays(keys, pk);
    if (be->key_placement == BACKEND_KEY_RESIDENT && be->key_upload_at_prepare) {
        for (int k = 0; k < 5; k++) {
            g16_status st =
                cuda_ctx_resident(bs->ctx, &keys[k].dev, keys[k].host, keys[k].bytes);
            if (st)
                return st;
        }
        const void *phi; /* H's GLV table now too, off the first partition's clock */
        return be->msm_glv ? cuda_ctx_resident_phi(bs->ctx, &phi, keys[4].dev, 1) : G16_OK;
    }
    if (be->key_placement != BACKEND_KEY_STREAMED)
        return G16_OK;
    for (int k = 0; k < 5; k++) {
        if (be->key_resident_arrays & (1u << k)) { /* a split key's: up once, now */
            g16_status st =
                cuda_ctx_resident(bs->ctx, &keys[k].dev, keys[k].host, keys[k].bytes);
            if (st)
                return st;
        } else if (!cuda_ctx_pin_host(bs->ctx, keys[k].host, keys[k].bytes)) {
            bs->pin_failed = true;
        }
    }
    return G16_OK;
}

/* Resident or streamed for this partition (backend_key_placement): AUTO keeps a key that
 * is resident already, and makes one resident when it fits in the free device memory
 * beside one partition's buffers. */
static bool key_streams(backend *be, const key_points *pts, size_t count,
                        const groth16_prover_key *pk)
{
    if (be->key_placement != BACKEND_KEY_AUTO)
        return be->key_placement == BACKEND_KEY_STREAMED;
    cuda_ctx *ctx = state_ctx(be);
    uint64_t need = 0;
    for (size_t i = 0; i < count; i++)
        need += pts[i].bytes;
    cuda_memory_info m;
    cuda_ctx_sample_memory(ctx, &m);
    if (m.resident_bytes >= need)
        return false; /* resident already (cuda_ctx_resident finds the arrays) */
    uint64_t free_bytes = m.device_total - m.device_used + m.pool_bytes;
    uint64_t part = backend_partition_device_bytes(pk, 0, be->msm_glv, be->msm_slice_digits,
                                                   be->msm_arena);
    uint64_t arena = be->msm_arena ? backend_msm_arena_bytes(pk, be->msm_glv) : 0;
    if (arena > m.arena_bytes) /* the arena still to grow */
        part += arena - m.arena_bytes;
    return need + part > free_bytes;
}

/* A device stage that just finished, into the timeline: the stage's span and its kernel
 * groups' spans (CUDA event times, laid end to end from the stage's start: the groups
 * run in this order on one stream), all ending now. */
typedef struct {
    const char *name;
    double ms;
} kernel_group;

static void trace_device_stage(int device, const char *stage, double total_ms,
                               const kernel_group *groups, size_t n_groups)
{
    if (!trace_enabled())
        return;
    int32_t job, part;
    trace_context_get(&job, &part);
    uint64_t end = trace_now_ns(), start = end - (uint64_t)(total_ms * 1e6), t = start;
    trace_span(TRACE_KERNEL, job, part, device, 0, stage, start, end);
    for (size_t i = 0; i < n_groups; i++) {
        uint64_t d = (uint64_t)(groups[i].ms * 1e6);
        if (t + d > end)
            d = end - t;
        char name[64];
        snprintf(name, sizeof name, "%s/%s", stage, groups[i].name);
        trace_span(TRACE_KERNEL, job, part, device, 0, name, t, t + d);
        t += d;
    }
}

/* A wait for copies of ms, ending where a device stage of stage_ms that just finished
 * began, into the timeline as an upload span (the report blames the gap before the stage
 * on it). */
static void trace_upload_before(int device, const char *name, uint64_t bytes, double ms,
                                double stage_ms)
{
    if (!trace_enabled())
        return;
    int32_t job, part;
    trace_context_get(&job, &part);
    uint64_t end = trace_now_ns() - (uint64_t)(stage_ms * 1e6);
    trace_span(TRACE_UPLOAD, job, part, device, bytes, name, end - (uint64_t)(ms * 1e6), end);
}

/* An MSM into the timeline; a streamed key's MSM also with its wall time outside its
 * kernels (waiting for its chunks' copies: before the first chunk, and between chunks when
 * the copies outlast the kernels), as one upload span before them, so that the report
 * blames those gaps on the upload. */
static void trace_msm(int device, const char *stage, const cuda_msm_info *info)
{
    kernel_group g[] = {{"classify", info->ms_classify}, {"ones", info->ms_ones},
                        {"sort", info->ms_sort}, {"accumulate", info->ms_accumulate},
                        {"reduce", info->ms_reduce}};
    /* No bytes: most of the chunks' copies overlap kernels, so bytes over this span would
     * overstate the report's copy rate. */
    if (info->streamed_bytes)
        trace_upload_before(device, "key chunks", 0, info->ms_upload, info->ms_total);
    trace_device_stage(device, stage, info->ms_total, g, 5);
}

/* Steps 2-3 of a proof on the device: a, b, c and the witness go up (asynchronously, at
 * the bus's speed when the caller's buffers are pinned, as the pipeline's are); H runs
 * there and h stays there for its MSM; the key's points are made resident on first use and
 * stay for every later partition (shared by the device's contexts); a compressed key's
 * A and B scalars are gathered on the device; five MSMs, H's first: it is the largest, so
 * the scratch blocks it takes from the context's pool serve the four after it; five
 * points come back. */
static g16_status cuda_partition(void *vbe, groth16_msm_results *out, groth16_prove_stats *stats,
                                 const groth16_prover_key *pk, const fr_t *z,
                                 const uint8_t *z_bytes, fr_t *a, fr_t *b, fr_t *c)
{
    backend *be = vbe;
    cuda_backend_state *bs = be->impl;
    cuda_ctx *ctx = bs->ctx;
    int dev = cuda_ctx_device(ctx);
    size_t n = pk->domain_size, nv = pk->n_vars, np = pk->n_public;
    size_t vec = n * sizeof(fr_t);
    void *da = NULL, *db = NULL, *dc = NULL, *dz = NULL, *dza = NULL, *dzb = NULL;
    bool a_whole = !pk->density_a || pk->n_a == nv, b_whole = !pk->density_b || pk->n_b == nv;
    size_t na = a_whole ? nv : pk->n_a, nb = b_whole ? nv : pk->n_b;
    const void *zsrc = z_bytes ? (const void *)z_bytes : (const void *)z;
    cuda_msm_info info;
    cuda_msm_scalars *shared = NULL; /* a classification two MSMs read */
    g16_status st = G16_OK;
    uint64_t window = trace_begin(), span = trace_begin();
    double t = clock_ms();

    /* a staged during the previous partition (backend.next_input) when the pipeline says
     * this is the partition it named: its copy is in slot H_A already, H waits for it;
     * any other staged a goes. The next partition's a is staged (in next_buf) during this
     * one's MSMs once the pipeline names it. Both only with H fed. */
    const bool fed = h_inputs_fed();
    const bool a_staged = fed && bs->staged_buf && bs->staged_host == a && be->staged_input == a;
    if (a_staged) {
        da = bs->staged_buf;
        bs->staged_buf = NULL;
        bs->staged_host = NULL;
        bs->inputs_staged++;
    } else {
        staged_drop(bs);
    }
    bs->next_input = be->next_input;
    bs->next_input_arg = be->next_input_arg;
    bs->next_bytes = vec;
    const bool stage = fed && be->next_input && n > 0;

    /* The key: resident (uploaded by the first partition only) or streamed by each MSM. */
    enum { KA, KB1, KB2, KC, KH };
    key_points keys[5];
    key_arrays(keys, pk);
    /* A split key (backend.key_resident_arrays): those arrays resident, the others streamed. */
    unsigned resident = key_streams(be, keys, 5, pk)
                            ? be->key_resident_arrays & BACKEND_KEY_ALL_ARRAYS
                            : BACKEND_KEY_ALL_ARRAYS;
    bs->streamed = resident != BACKEND_KEY_ALL_ARRAYS;
    bs->stream_chunk = be->stream_chunk_bytes ? be->stream_chunk_bytes : backend_stream_chunk_bytes();
    size_t resident_before = cuda_ctx_resident_bytes(ctx);
    for (int k = 0; k < 5; k++)
        if (resident & (1u << k) &&
            (st = cuda_ctx_resident(ctx, &keys[k].dev, keys[k].host, keys[k].bytes)))
            goto out;
    if (cuda_ctx_resident_bytes(ctx) != resident_before)
        trace_end_on(span, TRACE_UPLOAD, dev, cuda_ctx_resident_bytes(ctx) - resident_before,
                     "key points");
    span = trace_begin();
    double t_in = clock_ms();
    const bool h_streamed = !(resident & (1u << KH)) && n > 0;
    if ((!a_staged && (st = cuda_ctx_alloc(ctx, &da, vec))) ||
        (stage && (st = cuda_ctx_alloc(ctx, &bs->next_buf, vec))) ||
        (st = cuda_ctx_alloc(ctx, &db, vec)) ||
        (st = cuda_ctx_alloc(ctx, &dc, vec)) || (st = cuda_ctx_alloc(ctx, &dz, nv * 32)) ||
        (!a_whole && (st = cuda_ctx_alloc(ctx, &dza, na * 32))) ||
        (!b_whole && (st = cuda_ctx_alloc(ctx, &dzb, nb * 32))) ||
        (h_streamed && (st = cuda_ctx_alloc(ctx, &bs->pre_buf, stream_first_bytes(bs, n, 96)))))
        goto out;
    dza = a_whole ? dz : dza;
    dzb = b_whole ? dz : dzb;
    /* Unfed (G16_GPU_H_FED=0): a, b and c up on this stream, waited for here (this stream
     * only: another worker's kernels on the device go on). */
    if (!fed && ((st = cuda_ctx_upload_async(ctx, da, a, vec)) ||
                 (st = cuda_ctx_upload_async(ctx, db, b, vec)) ||
                 (st = cuda_ctx_upload_async(ctx, dc, c, vec)) || (st = cuda_ctx_sync(ctx))))
        goto out;
    if (!fed) {
        trace_end_on(span, TRACE_UPLOAD, dev, 3 * vec, "a, b, c");
        stats->ms_upload += clock_ms() - t;
    }
    /* A streamed H's first chunk and the witness go up on the copy stream behind c while
     * H's kernels run (in that order): at 2^27, 3 GiB and 4 GiB, ~140 ms beside the NTT's
     * ~255 (run 110: they were ~145 ms of a 1.70 s partition's gaps). */
    after_h_copies later = {bs, dz, zsrc, nv * 32, h_streamed ? keys[KH].host : NULL, n};

    /* 2. h, in place in a, on the device: it never comes back to the host. Fed (the
     * default), a, b and c go up on the copy stream each just ahead of its own
     * transforms, so that only a's copy stands before the kernels (run 113: the three
     * copies were ~263 ms before the NTT). */
    double th = clock_ms();
    cuda_ntt_info hinfo;
    cuda_h_feed feed = {{a, b, c}, queue_after_h, &later, {a_staged, false, false}};
    if (fed)
        st = cuda_h_poly_fed(ctx, da, da, db, dc, pk->log2_domain, H_POLY_SNARKJS, &feed, &hinfo);
    else if (!(st = queue_after_h(&later)))
        st = cuda_h_poly(ctx, da, da, db, dc, pk->log2_domain, H_POLY_SNARKJS, &hinfo);
    if (st)
        goto out;
    if (fed) {
        /* The call's wall time outside H's kernels (a's copy, and b's or c's where a
         * transform outran it) as the upload before them. Bytes: a's, which the kernels
         * always wait for unless it came staged; b's and c's travel behind kernels. */
        double wall = clock_ms() - t_in, waited = wall > hinfo.ms_total ? wall - hinfo.ms_total : 0;
        trace_upload_before(dev, a_staged ? "a (staged), b, c" : "a, b, c", a_staged ? 0 : vec,
                            waited, hinfo.ms_total);
        stats->ms_upload += waited;
    }
    /* Fused (the default), the inverse and forward transforms share kernels: one group. */
    kernel_group hg[4];
    size_t nhg = 0;
    hg[nhg++] = (kernel_group){"setup", hinfo.ms_setup};
    if (hinfo.h_fused) {
        hg[nhg++] = (kernel_group){"inverse+forward", hinfo.ms_h_forward};
    } else {
        hg[nhg++] = (kernel_group){"inverse", hinfo.ms_h_inverse};
        hg[nhg++] = (kernel_group){"forward", hinfo.ms_h_forward};
    }
    hg[nhg++] = (kernel_group){"final", hinfo.ms_h_final};
    trace_device_stage(dev, "NTT/H", hinfo.ms_total, hg, nhg);
    stats->ms_h += fed ? hinfo.ms_total : clock_ms() - th;

    /* 3. the MSMs. b and c are free now: their blocks go back to the pool for the MSMs. */
    cuda_ctx_release(ctx, db);
    cuda_ctx_release(ctx, dc);
    db = dc = NULL;
    t = clock_ms();
    bool mont = z_bytes == NULL;
    const uint8_t *z_aux = (const uint8_t *)dz + (np + 1) * 32;
    /* H's MSM through GLV when the budget allowed it (backend.msm_glv): its bases' table
     * is made by the first partition (or at prepare) and stays with the key. */
    const void *h_phi = NULL;
    if (be->msm_glv && !bs->streamed && (st = cuda_ctx_resident_phi(ctx, &h_phi, keys[KH].dev, 1)))
        goto out;
    /* The MSMs as the memory model counts them: H's in slices when the budget planned
     * them (backend.msm_slice_digits), the others' windows whole; their rounds' buffers
     * in the device's arena when it planned one (backend.msm_arena). */
    cuda_ctx_set_msm_slice_points(ctx, h_phi && be->msm_slice_digits ? be->msm_slice_digits
                                                                     : SIZE_MAX);
    cuda_ctx_set_msm_arena(ctx, be->msm_arena);
    /* The next partition's a is asked for here and between the MSMs' steps from now on
     * (stage_next_input): its slot's refill usually ends during H's MSM. */
    if ((st = stage_next_input(bs)) ||
        (st = msm_key_g1(bs, &out->h, &info, &keys[KH], h_phi, true, da, n, true)))
        goto out;
    trace_msm(dev, "MSM_H", &info);
    if ((st = stage_next_input(bs)))
        goto out;
    /* The witness is needed from here on (the gathers, A's MSM): its copy, queued behind
     * H's inputs, has had H's MSM to land. */
    if ((st = cuda_ctx_wait_slot(ctx, CUDA_SLOT_WITNESS)) ||
        (!a_whole && (st = cuda_density_gather(ctx, dza, dz, pk->density_a, nv))) ||
        (!b_whole && (st = cuda_density_gather(ctx, dzb, dz, pk->density_b, nv))))
        goto out;
    /* With the key resident, A and C share one classification of the witness (C's
     * scalars are its tail past the public inputs when A's are all of it), B1 and B2 one
     * of its B part: C's and B2's classification passes (reading every scalar) go. */
    const bool share = !bs->streamed;
    if ((st = msm_classified_g1(bs, &out->a, &info, &keys[KA], share ? &shared : NULL, dza, na,
                                mont)))
        goto out;
    trace_msm(dev, "MSM_A", &info);
    if ((st = stage_next_input(bs)))
        goto out;
    stats->scalars_zero = info.zeros;
    stats->scalars_one = info.ones;
    stats->scalars_other = info.others;
    if (share && a_whole) {
        if ((st = cuda_msm_scalars_from(shared, np + 1)) ||
            (st = backend_cuda_msm_shared_g1(ctx, &out->c, &info, keys[KC].dev, shared)))
            goto out;
    } else {
        cuda_msm_scalars_free(shared); /* before C's own: one classification at a time */
        shared = NULL;
        if ((st = msm_key_g1(bs, &out->c, &info, &keys[KC], NULL, false, z_aux, nv - np - 1, mont)))
            goto out;
    }
    trace_msm(dev, "MSM_C", &info);
    if ((st = stage_next_input(bs)))
        goto out;
    cuda_msm_scalars_free(shared);
    shared = NULL;
    if ((st = msm_classified_g1(bs, &out->b1, &info, &keys[KB1], share ? &shared : NULL, dzb, nb,
                                mont)))
        goto out;
    trace_msm(dev, "MSM_B1", &info);
    if ((st = stage_next_input(bs)))
        goto out;
    stats->ms_msm_g1 += clock_ms() - t;
    t = clock_ms();
    if (!out->b2_elsewhere) { /* else the CPU computes it meanwhile (g2_on_cpu) */
        if ((st = share ? backend_cuda_msm_shared_g2(ctx, &out->b2, &info, keys[KB2].dev, shared)
                        : msm_key_g2(bs, &out->b2, &info, &keys[KB2], dzb, nb, mont)))
            goto out;
        trace_msm(dev, "MSM_B2", &info);
        stats->ms_msm_g2 += clock_ms() - t;
    }
out:
    /* Back to the pool; a failed partition may leave work queued on the streams, which
     * must finish before the blocks are handed out again to another stream's user. */
    if (st) {
        cuda_ctx_sync_copies(ctx);
        cuda_ctx_sync(ctx);
    }
    cuda_ctx_release(ctx, bs->pre_buf); /* a prefetched chunk no MSM took (on failure) */
    bs->pre_buf = NULL;
    bs->pre_host = NULL;
    /* The next partition's a: kept for it once its copy is queued (also after a failure:
     * the pipeline still hands that partition over next), else back to the pool. */
    if (bs->next_host) {
        bs->staged_buf = bs->next_buf;
        bs->staged_host = bs->next_host;
    } else {
        cuda_ctx_release(ctx, bs->next_buf);
    }
    bs->next_buf = NULL;
    bs->next_host = NULL;
    cuda_msm_scalars_free(shared);
    cuda_ctx_release(ctx, da);
    cuda_ctx_release(ctx, db);
    cuda_ctx_release(ctx, dc);
    if (dza != dz)
        cuda_ctx_release(ctx, dza);
    if (dzb != dz)
        cuda_ctx_release(ctx, dzb);
    cuda_ctx_release(ctx, dz);
    trace_end_on(window, TRACE_GPU, dev, 0, "partition");
    return st;
}

/* The setup's fixed-base batches on the device, with the CPU's tables; a table holding
 * infinity (a base of small order: tests only) goes the CPU's way, as its batch does. */
static void zero_range(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    memset((char *)ctx + begin, 0, end - begin);
}

/* The batches' results come back through one thread's pageable device-to-host copies,
 * and the kernel zeroes each fresh page of out on its first touch, there on that one
 * thread: most of a batch's time at 2^26 points (6.8 s for H). So the pages are touched
 * first on every thread of the pool (bench/NOTES.md, fixed-base products). */
static void prefault(void *out, size_t bytes)
{
    parallel_for(bytes, (size_t)1 << 22, zero_range, out);
}

static g16_status cuda_setup_g1(void *vbe, g1_affine_t *out, const g1_fixed_base *fb,
                                const fr_t *k, size_t n)
{
    backend *be = vbe;
    if (fb->table_has_infinity)
        return g1_fixed_base_batch(out, fb, k, n);
    prefault(out, n * sizeof *out);
    return cuda_fixed_base_g1(state_ctx(be), out, fb->table, fb->window_bits, fb->windows, k, n);
}

static g16_status cuda_setup_g2(void *vbe, g2_affine_t *out, const g2_fixed_base *fb,
                                const fr_t *k, size_t n)
{
    backend *be = vbe;
    if (fb->table_has_infinity)
        return g2_fixed_base_batch(out, fb, k, n);
    prefault(out, n * sizeof *out);
    return cuda_fixed_base_g2(state_ctx(be), out, fb->table, fb->window_bits, fb->windows, k, n);
}

static bool cuda_memory(backend *be, backend_memory *m)
{
    cuda_backend_state *bs = be->impl;
    cuda_memory_info info;
    cuda_ctx_sample_memory(bs->ctx, &info);
    *m = (backend_memory){.device_total = info.device_total,
                          .device_used = info.device_used,
                          .device_peak_used = info.device_peak_used,
                          .pool_bytes = info.pool_bytes,
                          .resident_bytes = info.resident_bytes,
                          .arena_bytes = info.arena_bytes,
                          .streamed_bytes = bs->streamed_bytes,
                          .inputs_staged = bs->inputs_staged,
                          .key_streamed = bs->streamed,
                          .stream_pinned = bs->streamed && !bs->pin_failed};
    return true;
}

g16_status backend_host_alloc(void **p, size_t bytes, bool pinned)
{
    if (pinned)
        return cuda_host_alloc(p, bytes);
    *p = malloc(bytes ? bytes : 1);
    return *p ? G16_OK
              : status_fail(G16_ERR_OUT_OF_MEMORY, "%.2f GiB of host memory",
                            bytes / 1073741824.0);
}

void backend_host_free(void *p, bool pinned)
{
    if (pinned)
        cuda_host_free(p);
    else
        free(p);
}

int backend_cuda_device_count(void) { return cuda_device_count(); }

cuda_ctx *backend_cuda_ctx(backend *be)
{
    return strcmp(be->name, "cuda") ? NULL : state_ctx(be);
}

static void cuda_close(backend *be)
{
    staged_drop(be->impl);
    cuda_ctx_free(state_ctx(be));
    free(be->impl);
    free(be);
}

g16_status backend_cuda_open(backend **out, int device)
{
    *out = NULL;
    cuda_ctx *ctx;
    g16_status st = cuda_ctx_create(&ctx, device);
    if (st)
        return st;
    backend *be = calloc(1, sizeof *be);
    cuda_backend_state *bs = calloc(1, sizeof *bs);
    if (!be || !bs) {
        free(be);
        free(bs);
        cuda_ctx_free(ctx);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "backend: no memory");
    }
    bs->ctx = ctx;
    if ((st = backend_key_placement_default(&be->key_placement))) {
        free(be);
        free(bs);
        cuda_ctx_free(ctx);
        return st;
    }
    be->name = "cuda";
    snprintf(be->description, sizeof be->description, "cuda: GPU %d, %s", device,
             cuda_ctx_describe(ctx));
    be->partition = cuda_partition;
    be->msm_g1 = cuda_msm_g1_host;
    be->msm_g2 = cuda_msm_g2_host;
    be->close = cuda_close;
    be->memory = cuda_memory;
    be->prepare_key = cuda_prepare_key;
    be->setup = (groth16_setup_accel){.g1_batch = cuda_setup_g1, .g2_batch = cuda_setup_g2,
                                      .ctx = be};
    be->impl = bs;
    *out = be;
    return G16_OK;
}

#endif
