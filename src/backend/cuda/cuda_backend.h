/* The CUDA backend's C interface (defined in the .cu files of this folder). The C side
 * (src/backend/backend_cuda.c) builds the backend function table on it; tests call it
 * directly to compare every GPU result with the CPU's.
 *
 * A context owns one device: a stream, device copies of the arrays made resident (the
 * proving key's points stay on the device across partitions), and scratch buffers.
 * Points and field elements cross the bus in the CPU's layout (the Montgomery radices
 * are equal: see field.cuh), so no conversion pass runs on either side.
 *
 * Every CUDA call is checked; failures return a status whose message names the call,
 * and out-of-memory names the bytes asked for and the bytes free. A context is used by
 * one thread at a time. */
#ifndef G16_BACKEND_CUDA_BACKEND_H
#define G16_BACKEND_CUDA_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "g16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuda_ctx cuda_ctx;

/* Devices the runtime sees (CUDA_VISIBLE_DEVICES applies); 0 when none or on error. */
int cuda_device_count(void);
/* G16_ERR_UNSUPPORTED when there is no usable device (the message says why). */
g16_status cuda_ctx_create(cuda_ctx **out, int device);
void cuda_ctx_free(cuda_ctx *ctx);
/* "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)". */
const char *cuda_ctx_describe(const cuda_ctx *ctx);
int cuda_ctx_device(const cuda_ctx *ctx);
/* Plans the context's MSMs for a memory model (backend_partition_device_bytes): a window
 * of more than `points` digits is cut into slices of whole buckets of about that many
 * digits, their rounds run slice by slice, so that the rounds' point buffers (72 bytes a
 * digit in G1, 144 in G2) hold a slice rather than the window (msm_batch_affine.cuh,
 * ba_slices), a round's pairs go in chunks of 2 GiB (BA_CHUNK_BYTES_PLANNED, not the
 * default 4), and a list of ones is summed in pieces of at most BA_LIST_PIECE_BYTES of
 * point buffers. The GPU backend sets it for every partition: the digits the device
 * budget planned for H's MSM by GLV (backend.msm_slice_digits), else SIZE_MAX (whole
 * windows). 0 (the default): not planned (G16_GPU_MSM_SLICE_POINTS may set slices). */
void cuda_ctx_set_msm_slice_points(cuda_ctx *ctx, size_t points);
/* For the tests: the context's next `count` pool allocations named `what` (the name its
 * caller gives, e.g. "MSM sort keys") fail as out of device memory; NULL or 0
 * stops it. The string must outlive the injection. Returns how many failures the
 * previous injection had left. */
int cuda_ctx_fail_allocs(cuda_ctx *ctx, const char *what, int count);
/* The context's MSMs take their rounds' point buffers and pair chunks (4 GiB, the
 * default) from the device's arena, shared with the device's other contexts in turn
 * (cuda_ctx.cuh, cuda_ctx_arena_take), instead of from its own pool; lists of ones keep
 * the pool. Set by the GPU backend when the pipeline planned an arena (backend.msm_arena,
 * backend_msm_arena_bytes). */
void cuda_ctx_set_msm_arena(cuda_ctx *ctx, bool on);

/* The device copy of host[0..bytes): uploaded on first use, shared by the device's
 * contexts, and freed with the last context that used it. Entries are found by (host
 * pointer, bytes): the caller promises that the host data neither changes nor is freed
 * while a context that used it lives (a proving key loaded for the whole run; a caller
 * that unloads keys frees their contexts first, as the daemon's pipelines do). */
g16_status cuda_ctx_resident(cuda_ctx *ctx, const void **dev, const void *host, size_t bytes);
/* The GLV table (cuda_msm_phi_table) of the resident array at device address dev, of
 * G1 (group 1) or G2 (group 2) points: made on the first call, kept with the array and
 * freed with it (counted in cuda_ctx_resident_bytes). */
g16_status cuda_ctx_resident_phi(cuda_ctx *ctx, const void **phi, const void *dev, int group);
/* Bytes held resident, and the time spent uploading them. */
size_t cuda_ctx_resident_bytes(const cuda_ctx *ctx);

/* What an MSM did, for logs, benchmarks and the timeline. */
typedef struct {
    size_t zeros, ones, others;   /* the scalar mix */
    unsigned window_bits, windows;
    size_t pieces;                /* XYZZ path: extra pieces of long buckets (each summed apart) */
    size_t affine_rounds;         /* batch-affine path: pairing rounds, all windows; 0: XYZZ */
    bool split;                   /* bucket reduction by split sums, inside the accumulation */
    bool glv;                     /* the others' scalars split by the endomorphism (glv.cuh) */
    bool mult;                    /* through the bases' precomputed multiples (one window) */
    unsigned slices;              /* a window's rounds in this many slices (0 or 1: whole) */
    unsigned ones_pieces;         /* a standalone MSM's ones' rounds in this many pieces after
                                   * running out of device memory (0: one) */
    double ms_upload;             /* scalars (and bases when not yet resident); a streamed
                                   * key's MSM (backend_cuda.c): its wall time outside its
                                   * kernels, mostly waiting for its chunks' copies */
    unsigned long long streamed_bytes; /* a streamed key's MSM: its points' bytes copied */
    double ms_classify;           /* zero/one/other split and compaction */
    double ms_ones;               /* the scalars equal to one: a parallel sum */
    double ms_sort;               /* signed digits and the radix sort per window */
    double ms_accumulate;         /* bucket sums */
    double ms_reduce;             /* bucket reduction to one point per window */
    double ms_total;              /* on the device, by CUDA events */
} cuda_msm_info;

/* MSM over G1 / G2 on the device. bases: n points in the CPU's affine layout (96 / 192
 * bytes each, all-zero = infinity) at a device address (cuda_ctx_resident); phi: NULL,
 * or the bases' GLV table (cuda_msm_phi_table), with which MSMs of more than 2^24 others
 * run as 2n scalars of 128 bits (glv.cuh; G16_GPU_MSM_GLV=0|1 forces either way, 1
 * making a table for the call when phi is NULL). scalars: n
 * elements of Fr at a device address, canonical little-endian 32-byte integers, or
 * Montgomery form when `montgomery` (a Groth16 witness in memory, the h vector).
 * The result is given as W window sums plus the sum of the bases whose scalar is one:
 *   out[0] = sum of bases with scalar 1, out[1 + w] = window w's sum (XYZZ, the CPU's
 *   g1_xyzz_t / g2_xyzz_t layout), so that r = out[0] + sum_w 2^(c w) out[1 + w];
 * out must hold 1 + CUDA_MSM_MAX_WINDOWS points. *windows and *window_bits receive W, c.
 * backend_cuda.c turns this into a point with the CPU's formulas. */
enum { CUDA_MSM_MAX_WINDOWS = 256 };
/* Precomputed multiples of a set of bases (msm_mult.cuh): with c-bit windows and W =
 * 128 / c + 1, points[(w - 1) n + i] = 2^(c w) P_i for 1 <= w < W (affine, the bases'
 * layout; cuda_msm_mult_count points in all). An MSM given them (and more than 2^24
 * others, or G16_GPU_MSM_MULT=1; =0 never) runs every window's digits of the GLV halves
 * through one shared set of 2^(c-1) buckets and returns the others' sum as one window
 * (*windows = 1). CUDA_MSM_MULT_BITS is the width the benchmarks use: W = 5, 4 n more
 * points (51.5 GB for 2^27 bases in G1). */
typedef struct {
    const void *points;
    unsigned window_bits;
} cuda_msm_mult;
enum { CUDA_MSM_MULT_BITS = 26, CUDA_MSM_MULT_MIN_BITS = 4, CUDA_MSM_MULT_MAX_BITS = 26 };
size_t cuda_msm_mult_count(size_t n, unsigned window_bits);
/* Makes the multiples of n bases (G1: group 1, G2: group 2) at mult_dev, which holds
 * cuda_msm_mult_count(n, window_bits) points; c doublings a point a window, one batch
 * inversion per chunk. Waits for the device. */
g16_status cuda_msm_mult_table(cuda_ctx *ctx, int group, void *mult_dev, const void *bases_dev,
                               size_t n, unsigned window_bits);
g16_status cuda_msm_g1_windows(cuda_ctx *ctx, void *out, unsigned *windows,
                               unsigned *window_bits, cuda_msm_info *info,
                               const void *bases_dev, const void *phi_dev,
                               const cuda_msm_mult *mult, const void *scalars_dev, size_t n,
                               bool montgomery);
g16_status cuda_msm_g2_windows(cuda_ctx *ctx, void *out, unsigned *windows,
                               unsigned *window_bits, cuda_msm_info *info,
                               const void *bases_dev, const void *phi_dev,
                               const cuda_msm_mult *mult, const void *scalars_dev, size_t n,
                               bool montgomery);
/* A classification of n scalars (step 1 of the MSM: zeros dropped, the ones' and the
 * others' index lists, the others' canonical values) kept for several MSMs over the same
 * scalars: the partition's B1 and B2 over the witness's B part, A and then C over the
 * witness and its private tail. Its buffers come from the context's pool; it waits for
 * the stream (the counts come back), *ms (if not NULL) gets its device time. */
typedef struct cuda_msm_scalars cuda_msm_scalars;
g16_status cuda_msm_scalars_classify(cuda_ctx *ctx, cuda_msm_scalars **out,
                                     const void *scalars_dev, size_t n, bool montgomery,
                                     double *ms);
/* Narrows it to its scalars [from, n), renumbered from 0: MSMs over it then read
 * scalar from + i as scalar i. Waits for the stream (one count comes back); the lists
 * are renumbered in place, after the MSMs already queued over the wider view. */
g16_status cuda_msm_scalars_from(cuda_msm_scalars *sc, size_t from);
void cuda_msm_scalars_free(cuda_msm_scalars *sc);
/* As cuda_msm_g1_windows / _g2_windows over a classification's scalars: no GLV and no
 * multiples (either would split the shared canonical values in place); info's classify
 * column is ~0, the classification's time being its own. */
g16_status cuda_msm_g1_windows_shared(cuda_ctx *ctx, void *out, unsigned *windows,
                                      unsigned *window_bits, cuda_msm_info *info,
                                      const void *bases_dev, cuda_msm_scalars *sc);
g16_status cuda_msm_g2_windows_shared(cuda_ctx *ctx, void *out, unsigned *windows,
                                      unsigned *window_bits, cuda_msm_info *info,
                                      const void *bases_dev, cuda_msm_scalars *sc);
/* The GLV table of n bases of G1 (group 1) or G2 (group 2) at device addresses: phi[i] =
 * beta x_i, 48 / 96 bytes each (phi(P) = (beta x, y) = lambda P; glv.cuh). Made once per
 * key: one Fp product a point (G2: two). Waits for the device. */
g16_status cuda_msm_phi_table(cuda_ctx *ctx, int group, void *phi_dev, const void *bases_dev,
                              size_t n);

/* A streamed key: the points stay in host memory and go up chunk by chunk for every MSM,
 * each chunk's copy (on the context's copy stream) overlapping the previous chunk's MSM.
 *   cuda_ctx_pin_host      pins host[0..bytes) in place (cudaHostRegister, process-wide,
 *                          counted per range) so that those copies run at the bus's
 *                          speed; false when it cannot (memory another range already
 *                          pinned, a read-only mapping the driver refuses): the copies
 *                          then run from pageable memory, slower but the same bytes. The
 *                          range is unpinned with the last context that pinned it, so
 *                          host must outlive the context (as for cuda_ctx_resident).
 *   cuda_ctx_upload_slot   queues a copy into dev on the copy stream as one of the slots
 *                          below; the copy stream runs its copies in the order queued;
 *   cuda_ctx_wait_slot     makes the context's stream wait for that copy (the host does
 *                          not wait);
 *   cuda_ctx_slot_sync     makes the host wait for it (before a step timed on the host).
 * The caller must not reuse a slot's device buffer before the work that read it is done
 * (backend_cuda.c waits for each chunk's MSM before queueing the copy after next). */
enum {
    CUDA_SLOT_KEY0 = 0, /* a streamed key's chunks, alternately */
    CUDA_SLOT_KEY1 = 1,
    CUDA_SLOT_WITNESS = 2, /* a partition's witness, copied while H's kernels run */
    CUDA_SLOT_H_A = 3,     /* H's inputs a, b and c (cuda_h_poly_fed), each copied */
    CUDA_SLOT_H_B = 4,     /* just ahead of its own transforms */
    CUDA_SLOT_H_C = 5,
    CUDA_COPY_SLOTS = 6
};
bool cuda_ctx_pin_host(cuda_ctx *ctx, const void *host, size_t bytes);
g16_status cuda_ctx_upload_slot(cuda_ctx *ctx, int slot, void *dev, const void *host,
                                size_t bytes);
g16_status cuda_ctx_wait_slot(cuda_ctx *ctx, int slot);
g16_status cuda_ctx_slot_sync(cuda_ctx *ctx, int slot);

/* Device memory, for reports (cuda_ctx_sample_memory): the device-wide figures come from
 * cudaMemGetInfo, so they include other processes and contexts on the device. */
typedef struct {
    size_t device_total, device_used;
    size_t device_peak_used; /* the largest device_used this context has sampled */
    size_t pool_bytes;       /* this context's scratch pool (used or free) */
    size_t pool_free_bytes;  /* of which free: this context's to reuse, or to trim */
    size_t resident_bytes;   /* resident arrays of the device (shared by its contexts) */
    size_t arena_bytes;      /* the device's MSM arena (cuda_ctx_set_msm_arena) */
} cuda_memory_info;
/* Samples the device's memory use (updating the peak); info may be NULL. */
void cuda_ctx_sample_memory(cuda_ctx *ctx, cuda_memory_info *info);

/* cudaMalloc, cudaFree calls and pool trims so far, in the whole process: the pipeline's
 * guard test checks that partitions after the first make none. */
void cuda_alloc_counts(unsigned long long *mallocs, unsigned long long *frees,
                       unsigned long long *trims);

/* Pinned (page-locked) host memory: copies from it run at the bus's speed and
 * asynchronously. Pinning is slow (~10 s for 16 GiB on the H200 host), so callers pin once
 * at start-up and reuse the buffers. */
g16_status cuda_host_alloc(void **host, size_t bytes);
void cuda_host_free(void *host);
bool cuda_host_is_pinned(const void *host);

/* Device scratch from the context's pool (for scalars that are not resident); released
 * to the pool, reused by the next partitions. */
g16_status cuda_ctx_alloc(cuda_ctx *ctx, void **dev, size_t bytes);
void cuda_ctx_release(cuda_ctx *ctx, void *dev);
g16_status cuda_ctx_upload(cuda_ctx *ctx, void *dev, const void *host, size_t bytes);
/* An upload queued on the context's stream, not waited for: host must be pinned (else
 * CUDA copies it synchronously) and stay unchanged until cuda_ctx_sync. */
g16_status cuda_ctx_upload_async(cuda_ctx *ctx, void *dev, const void *host, size_t bytes);
g16_status cuda_ctx_sync(cuda_ctx *ctx);
/* Waits for every copy queued on the copy stream (cuda_ctx_upload_slot), if any: before a
 * failed partition hands their buffers back. */
void cuda_ctx_sync_copies(cuda_ctx *ctx);
g16_status cuda_ctx_download(cuda_ctx *ctx, void *host, const void *dev, size_t bytes);

/* out_dev[0..count) = the 32-byte elements in_dev[j] of the wires j < n_wires marked in
 * the density bitmap bits_host (groth16/density.h; made resident on first use, so it must
 * live as long as the context, as a key does), on the context's stream, not waited for. */
g16_status cuda_density_gather(cuda_ctx *ctx, void *out_dev, const void *in_dev,
                               const uint64_t *bits_host, size_t n_wires);

/* Fixed-base products for the development setup: out[i] = scalars[i] * G (affine, the
 * CPU's layout, all-zero = infinity) for i < n, from the CPU's table for G
 * (curve/fixed_base.h: `windows` rows of 2^(window_bits - 1) affine points) and scalars in
 * Montgomery form, all in host memory; the same points as g1/g2_fixed_base_batch. */
g16_status cuda_fixed_base_g1(cuda_ctx *ctx, void *out, const void *table,
                              unsigned window_bits, unsigned windows, const void *scalars,
                              size_t n);
g16_status cuda_fixed_base_g2(cuda_ctx *ctx, void *out, const void *table,
                              unsigned window_bits, unsigned windows, const void *scalars,
                              size_t n);

/* bucket_sort (the batch-affine MSM's window sort, bucket_sort.cuh) for the tests: m
 * keys of c bits (12 <= c <= 24, each key at most 2^(c-1)) and their values from host
 * arrays; out (host arrays): the values grouped by key (vals_out) with the keys in the
 * same order (keys_out), and each key k < 2^(c-1)'s run [start[k], end[k]) plus base
 * (0, 0 when it has none; start and end hold 2^(c-1) each). spread: the first pass's
 * block shape, 0 to CUDA_BUCKET_SORT_SPREADS - 1 (G16_GPU_MSM_SORT_SPREAD's values);
 * chunk_log2: log2 of the second pass's most digits a block, in the range below
 * (G16_GPU_MSM_SORT_CHUNK's values), or 0 for the default. */
enum {
    CUDA_BUCKET_SORT_SPREADS = 3,
    CUDA_BUCKET_SORT_CHUNK_MIN_LOG2 = 12,
    CUDA_BUCKET_SORT_CHUNK_MAX_LOG2 = 20,
};
g16_status cuda_bucket_sort_check(cuda_ctx *ctx, const uint32_t *keys, const uint32_t *vals,
                                  size_t m, unsigned c, uint32_t base, unsigned spread,
                                  unsigned chunk_log2,
                                  uint32_t *keys_out, uint32_t *vals_out, uint32_t *start,
                                  uint32_t *end);

/* Field arithmetic checks for the tests: run op over n element pairs on the device
 * (device=true, needs a GPU) or with the same code compiled for the host (device=false,
 * runs anywhere), in place: a[i] = a[i] op b[i]. op: 0 add, 1 sub, 2 mul, 3 sqr (of a),
 * 4 from Montgomery (of a), 5 inverse (of a; 0 for 0), 6 (Fp only) loose_mul's chain:
 * (a b b)^2 with a and b raised by p where that stays below 8/7 p. field: 0 Fr, 1 Fp, 2 Fp2. a and b are host arrays of the
 * CPU's layout (32, 48 or 96 bytes per element). */
g16_status cuda_field_check(cuda_ctx *ctx, int field, int op, bool device, void *a,
                            const void *b, size_t n);
/* The same for points: G1 (group 1) or G2 (group 2); op 0: out[i] = xyzz_add(a[i], b[i])
 * with both given as affine; op 1: xyzz_add_affine(from_affine(a[i]), b[i]); op 2:
 * xyzz_dbl(from_affine(a[i])); op 3: the batch-affine MSM's addition, affine_add_with_inverse
 * with the inverse of its denominator. Output XYZZ in the CPU's layout. */
g16_status cuda_point_check(cuda_ctx *ctx, int group, int op, bool device, void *out,
                            const void *a, const void *b, size_t n);

/* The GPU MSM's batch-affine accumulation (msm_batch_affine.cuh) run on the host, its
 * kernels' thread bodies called thread by thread, for tests in any CUDA build: m affine
 * points of G1 (group 1) or G2 (group 2) in the CPU's layout, m canonical scalars (32
 * bytes little-endian, < r), c-bit signed windows (2 <= c <= 16); out: the W = 255 / c + 1
 * windows' 2^(c-1) bucket sums each (XYZZ in the CPU's layout; bucket k of window w holds
 * the points whose digit there is +-(k + 1), negated for -), and the rounds run. The knobs
 * (0: the device's default) let small inputs reach every path: rounds stopped at runs of
 * `tail`, windows grouped by `group_points` digits, pairs per thread from
 * `target_threads`, the inversion's levels down to `host_inverses` values, 16 values a
 * thread from `wide_levels_from`, at most `max_pairs` pairs a thread (<= 64), G1's pair
 * kernels without their prefetch when `no_prefetch`, its ba_denominators alone without
 * it when `no_den_prefetch`; `split` 1 reduces the windows by split sums, 2 by running sums
 * (0: by width), and with split sums each window's sum comes back as its bucket 0 (the
 * rest infinity), which joins the same way; `glv` 1 runs the scalars split by the
 * endomorphism over the bases and their table (glv.cuh): W = 128 / c + 1 windows, the
 * buckets of the 255 / c + 1 a plain MSM has past them left infinity; `chunk_pairs` caps
 * a chunk of a round's pairs (a round then runs several chunks, as the device's large
 * rounds do); `list_run` the points a run of a list sum (cuda_msm_sum_emulate: the list
 * cut into runs, their sums added by a tree), `list_piece` the points a piece of it goes
 * through the rounds in (whole runs); `arena` 1 takes the rounds' point buffers and pair
 * chunks from one region that grows (the device's arena: cuda_ctx_arena_take). Slow
 * (~100 ns an emulated product): small inputs. */
typedef struct {
    uint32_t tail, group_points, target_threads, host_inverses, wide_levels_from, no_prefetch,
        max_pairs, no_den_prefetch, split, glv, slice_points;
    uint32_t chunk_pairs, list_run, list_piece, arena;
} cuda_msm_affine_tuning;
g16_status cuda_msm_affine_emulate(int group, void *buckets, const void *bases,
                                   const void *scalars, size_t m, unsigned c,
                                   const cuda_msm_affine_tuning *tuning, size_t *rounds);

/* The MSM with precomputed multiples (cuda_msm_mult_table) on the host, its thread bodies
 * called thread by thread: the multiples of the m bases made by the device's code, the m
 * scalars split by GLV, every window's digits in one set of 2^(c-1) buckets cut into
 * slices of about `slice_points` digits (the knobs above; 0: the device's), the buckets
 * reduced by split sums: *sum = sum of k_j P_j (XYZZ, the CPU's layout). 4 <= c <= 16, m
 * <= 2^20. */
g16_status cuda_msm_mult_emulate(int group, void *sum, const void *bases, const void *scalars,
                                 size_t m, unsigned c, const cuda_msm_affine_tuning *tuning,
                                 size_t *rounds);

/* The same rounds summing one list (the GPU MSM's scalars equal to one, when many): *sum
 * (XYZZ, the CPU's layout) = the sum of bases[idx[j]] for j < n (n <= 2^24, every idx[j] <
 * nbases), on the host, with the knobs above; *rounds gets the rounds run. */
g16_status cuda_msm_sum_emulate(int group, void *sum, const void *bases, size_t nbases,
                                const uint32_t *idx, size_t n,
                                const cuda_msm_affine_tuning *tuning, size_t *rounds);

/* values[i] = 1 / values[i] for i < n on the CPU (zeros stay zero): Fp elements (field 1)
 * or Fp2 (field 2) in the device's layout, which is the CPU's (cuda_host_inverse.c; the
 * MSM's batch inversions end there). */
g16_status cuda_host_batch_inverse(void *values, size_t n, int field);

/* Arithmetic ceilings for benchmarks: products (what 0 Fr, 1 Fp, 2 Fp2) or mixed XYZZ
 * point additions (3 G1, 4 G2; points_host: 64 affine points of that group) per second,
 * register-resident dependent chains over the whole device. */
g16_status cuda_arith_rate(cuda_ctx *ctx, double *per_second, int what, const void *points_host);

/* The product rate (field 1 Fp, 2 Fp2) with warps_per_sm warps an SM (4 .. 32, a multiple
 * of 4: blocks of 128 threads): how many warps a dependent chain of products a thread
 * needs to reach the ceiling, against the round kernels' occupancy (G1 and G2 8). Run 33:
 * 8 already do. */
g16_status cuda_product_rate_at(cuda_ctx *ctx, double *per_second, int field, unsigned warps_per_sm);

#ifdef __cplusplus
}
#endif

#endif
