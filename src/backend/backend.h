/* Backends: where the heavy steps of a proof run (DESIGN.md, "Layers").
 *
 * A backend is a small function table: the partition step (H and the five MSMs of one
 * proof, steps 2-3 of DESIGN.md's "One partition") and one-off G1/G2 MSMs for tools
 * and tests. The CPU backend is the code of src/ntt, src/msm and src/groth16; the CUDA
 * backend (src/backend/cuda) mirrors it operation by operation, so that every GPU result
 * can be compared with the CPU's for equality.
 *
 * `--backend cpu|cuda|auto` on every command that proves picks one by name; auto takes
 * CUDA when the build has it and a device answers, else the CPU, and the commands say
 * which one ran (backend->description). */
#ifndef G16_BACKEND_BACKEND_H
#define G16_BACKEND_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"
#include "groth16/prove.h"
#include "groth16/setup.h"

typedef struct backend backend;

/* Where a GPU backend keeps the proving key's points (DESIGN.md: "the proving key is
 * uploaded once and stays resident ... when it fits; otherwise bases stream from pinned
 * host memory in double-buffered chunks"):
 *   RESIDENT  uploaded on first use and kept on the device for every later partition;
 *   STREAMED  left in host memory (pinned in place once) and uploaded in chunks of
 *             BACKEND_STREAM_CHUNK_BYTES for every MSM, each chunk's copy overlapping the
 *             previous chunk's MSM; the device then needs two chunk buffers, not the key;
 *   AUTO      resident when the key and one partition's buffers fit in the device's free
 *             memory at the first partition (or the key is resident already), else
 *             streamed. The pipeline decides from its device budget and sets one of the
 *             first two. G16_GPU_KEY=resident|streamed|auto overrides the default (AUTO)
 *             when a backend opens, and G16_GPU_STREAM_CHUNK=BYTES the chunk size (tests
 *             use small chunks to cross many chunk boundaries). */
typedef enum { BACKEND_KEY_AUTO, BACKEND_KEY_RESIDENT, BACKEND_KEY_STREAMED } backend_key_placement;
#define BACKEND_STREAM_CHUNK_BYTES (1536ull << 20)
/* The chunk when no plan chose one: G16_GPU_STREAM_CHUNK when it is a byte count ("96000",
 * "1.5G": util/bytes.h) of at least 192 (two G1 points), else BACKEND_STREAM_CHUNK_BYTES. */
uint64_t backend_stream_chunk_bytes(void);
/* Whether H's MSM over a streamed key makes each chunk's GLV table, which
 * backend_partition_device_bytes then counts: yes unless G16_GPU_STREAM_GLV=0 (run 111,
 * 10 x 2^27 on an H100 with a split key and 3 GiB chunks: H's MSM -9%, 17.50 s a job
 * against 18.72 without). */
bool backend_stream_glv(void);
/* Whether a pipeline stages its next partition's a during the current one where it may
 * (backend.next_input): yes unless G16_GPU_STAGE_NEXT=0 (run 116, 10 x 2^27 on an H100
 * with a split key: the window 1.321 -> 1.244 s, 13.94 -> 13.14 s a job; bench/NOTES.md,
 * "The next partition's a staged during the current one"). */
bool backend_stage_next(void);
/* "auto", "resident", "streamed"; parse returns false for anything else. */
const char *backend_key_placement_name(backend_key_placement p);
bool backend_key_placement_parse(backend_key_placement *p, const char *name);
/* G16_GPU_KEY's placement (AUTO when unset); G16_ERR_INVALID_ARGUMENT naming the variable
 * when it holds anything else. */
g16_status backend_key_placement_default(backend_key_placement *p);

/* A key's point arrays as the prover reads them, A, B1, B2, C, H (A and B dense when the
 * key has no densities): their host addresses and sizes in bytes. */
enum { BACKEND_KEY_ARRAYS = 5 };
void backend_key_arrays(const groth16_prover_key *pk, const uint8_t *ptr[BACKEND_KEY_ARRAYS],
                        size_t bytes[BACKEND_KEY_ARRAYS]);

/* Device bytes of a key's points (A, B1, B2, C, H), and what one partition needs on a
 * device besides them: its vectors and the largest MSM's scratch, plus the two chunk
 * buffers when the key is streamed (each MSM's scratch then a chunk's, not the whole
 * MSM's: it runs chunk by chunk). Estimates for admission (pipeline.h). */
uint64_t backend_key_device_bytes(const groth16_prover_key *pk);
/* stream_chunk: 0 with the key resident, else the streamed key's chunk in bytes
 * (backend.stream_chunk_bytes); glv: H's MSM by GLV (backend.msm_glv); slice_digits: the MSMs' windows cut into slices
 * of about that many digits (backend.msm_slice_digits; 0: whole windows); arena: the
 * MSMs' rounds take their largest buffers from the device's arena (backend.msm_arena),
 * which backend_msm_arena_bytes counts once per device, not here. */
uint64_t backend_partition_device_bytes(const groth16_prover_key *pk, uint64_t stream_chunk,
                                        bool glv, uint64_t slice_digits, bool arena);
/* A key split between the device and host memory (backend.key_resident_arrays): the
 * arrays in `resident` (bits 1 << k, k in backend_key_arrays' order) kept on the device,
 * the others streamed in chunks of stream_chunk bytes. The bytes of those arrays, and
 * what a partition needs besides them (no GLV, whole windows, no arena): the streamed
 * MSMs' scratch a chunk's, the resident ones' whole. resident 0: the same as
 * backend_partition_device_bytes with stream_chunk; every array: as with the key
 * resident. */
enum {
    BACKEND_KEY_BIT_A = 1, /* the arrays by bit, in backend_key_arrays' order */
    BACKEND_KEY_BIT_B1 = 2,
    BACKEND_KEY_BIT_B2 = 4,
    BACKEND_KEY_BIT_C = 8,
    BACKEND_KEY_BIT_H = 16,
    BACKEND_KEY_ALL_ARRAYS = (1u << BACKEND_KEY_ARRAYS) - 1
};
uint64_t backend_key_arrays_bytes(const groth16_prover_key *pk, unsigned arrays);
uint64_t backend_partition_device_bytes_split(const groth16_prover_key *pk, uint64_t stream_chunk,
                                              unsigned resident);
/* "A, C, B2" for the arrays' bits (backend_key_arrays' names), "none" for none. */
const char *backend_key_arrays_names(unsigned arrays, char *out, size_t cap);
/* Device bytes of the MSM arena (backend.msm_arena): the largest MSM's rounds' point
 * buffers and pair chunk, windows whole, held once per device and taken by its workers in
 * turn, where without it each worker's pool holds its own (sliced, to fit). */
uint64_t backend_msm_arena_bytes(const groth16_prover_key *pk, bool glv);
/* Device bytes of the H MSM's GLV table (held with a resident key; backend.msm_glv). */
uint64_t backend_glv_table_bytes(const groth16_prover_key *pk);
/* The digits a slice of H's GLV MSM holds when its windows (2 n digits) go through in
 * `slices` slices (0 for one: whole windows); backend.msm_slice_digits. Each slice more
 * costs a window its own rounds (~8 at 2^27, ~0.15 ms each), so the pipeline takes the
 * fewest (up to BACKEND_GLV_MAX_SLICES) whose partition fits the device budget. */
enum { BACKEND_GLV_MAX_SLICES = 4 };
uint64_t backend_glv_slice_digits(const groth16_prover_key *pk, unsigned slices);

/* A device's memory, for reports; the device-wide figures include other processes. */
typedef struct backend_memory_s {
    uint64_t device_total, device_used, device_peak_used;
    uint64_t pool_bytes;     /* this backend's scratch pool (reused across partitions) */
    uint64_t resident_bytes; /* the key points resident on the device */
    uint64_t arena_bytes;    /* the device's MSM arena (backend.msm_arena), shared by its workers */
    uint64_t streamed_bytes; /* key points this backend streamed up (a streamed key) */
    uint64_t inputs_staged;  /* partitions whose a came staged (backend.next_input) */
    bool key_streamed;       /* the last partition streamed the key */
    bool stream_pinned;      /* ... from pinned host memory (else pageable copies) */
} backend_memory;

struct backend {
    const char *name;       /* "cpu" or "cuda" */
    char description[384];  /* what ran, for logs: "cuda: NVIDIA H200 (sm_90, ...)" */
    /* Steps 2-3 of a proof; NULL means groth16's own CPU code. */
    groth16_partition_fn partition;
    /* r = sum k_i P_i over host arrays: bases in the .zkey point layout, scalars
     * canonical 32-byte little-endian, or fr_t in Montgomery form when `montgomery`. */
    g16_status (*msm_g1)(backend *be, g1_jac_t *r, const uint8_t *bases, const void *scalars,
                         size_t n, bool montgomery);
    g16_status (*msm_g2)(backend *be, g2_jac_t *r, const uint8_t *bases, const void *scalars,
                         size_t n, bool montgomery);
    /* The development setup's fixed-base batches (NULL members: the CPU's). */
    groth16_setup_accel setup;
    /* backend_prepare_key's work (NULL: nothing to prepare). */
    g16_status (*prepare_key)(backend *be, const groth16_prover_key *pk);
    /* Device memory now and at its peak (NULL for the CPU: no device memory). */
    bool (*memory)(backend *be, struct backend_memory_s *m);
    void (*close)(backend *be);
    /* Where the key's points live (GPU backends; see backend_key_placement). Set before
     * the first partition. */
    backend_key_placement key_placement;
    /* backend_prepare_key uploads a resident key now rather than at the first partition
     * (pipeline_config.release_key_host, which then drops the key's host pages). */
    bool key_upload_at_prepare;
    /* GPU backends with a resident key: the H MSM runs through the GLV endomorphism
     * (backend/cuda/glv.cuh) with a table of its bases made once and kept with the key
     * (backend_glv_table_bytes) and a larger scratch (backend_partition_device_bytes
     * with glv). Off unless set before the first partition; the pipeline sets it when the
     * device budget holds both without costing a worker. */
    bool msm_glv;
    /* With msm_glv: the MSMs cut windows of more digits than this into slices of about
     * this many (backend_glv_slice_digits; 0: whole windows), so that the rounds' buffers
     * fit the budget. Set with msm_glv. */
    uint64_t msm_slice_digits;
    /* With msm_glv: the MSMs' rounds take their point buffers and pair chunks from the
     * device's arena (backend_msm_arena_bytes), which the device's workers share in turn,
     * instead of from each worker's pool, so that H's windows go through whole where two
     * workers' own buffers would need slices. Set with msm_glv. */
    bool msm_arena;
    /* The streamed key's chunk in bytes (0: backend_stream_chunk_bytes). The pipeline sets
     * twice the default where that costs no worker (pipeline_plan_stream). */
    uint64_t stream_chunk_bytes;
    /* With key_placement STREAMED: the key's arrays (bits as backend_key_arrays_bytes)
     * kept on the device all the same, uploaded by backend_prepare_key (else by the first
     * partition); only the others
     * stream. 0 (the default): every array streams. The pipeline keeps those whose MSMs
     * would wait for their copies where the budget holds them (pipeline_plan_stream). */
    unsigned key_resident_arrays;
    /* The next partition's input a, staged during this one (GPU backends, H fed from the
     * host): next_input(next_input_arg) returns the a (host, pinned, unchanged until that
     * partition is proved) of the partition this backend proves next once that one is
     * known, else NULL; the backend asks between its MSMs' steps and, once it has an
     * answer, copies that a up beside them into a vector of the domain it holds for the
     * purpose (counted by pipeline_plan_stage), so that the next partition's H waits for
     * no copy of a. NULL (the default): nothing staged. Set by the pipeline for its only
     * prover, where its device budget holds the vector, unless G16_GPU_STAGE_NEXT=0
     * (backend_stage_next). */
    const fr_t *(*next_input)(void *arg);
    void *next_input_arg;
    /* Set by the pipeline before each partition: that partition's a when it is the one
     * next_input last named, else NULL. Only then does the partition take the staged copy
     * (any other is dropped), so that a named partition that never reached the backend
     * (a cancelled job's) cannot leave a stale copy for a later one in the same slot. */
    const fr_t *staged_input;
    void *impl; /* the implementation's state (a cuda_ctx for CUDA) */
};

/* kind: "cpu", "cuda" or "auto" (NULL = auto). "cuda" without a usable device (or in a
 * build without CUDA) is an error that says why; auto falls back to the CPU. */
g16_status backend_open(backend **out, const char *kind);
void backend_close(backend *be);

/* Host buffers that feed a device: pinned (page-locked, cudaHostAlloc) when `pinned` and
 * the build has CUDA, so that uploads run asynchronously at the bus's speed (~55 GB/s on
 * the H200 against ~7 GB/s from pageable memory); else malloc. Pinning is slow (seconds
 * per 16 GiB): allocate once, at start-up. Free with the same flag. */
g16_status backend_host_alloc(void **p, size_t bytes, bool pinned);
void backend_host_free(void *p, bool pinned);

/* Gets the backend ready for pk before its first partition: a GPU backend whose key is
 * STREAMED pins the key's arrays in place now (seconds per 16 GiB: done once, at start-up,
 * rather than inside the first partitions); nothing otherwise. *ms receives the time. */
g16_status backend_prepare_key(backend *be, const groth16_prover_key *pk, double *ms);

/* Routes the development setup's fixed-base batches through the backend (the CPU's own
 * code for the CPU backend). */
void backend_setup_accel(backend *be, groth16_setup_accel *accel);

/* Routes groth16_prove_evals (and so every prover entry point) through the backend. */
void backend_prove_options(backend *be, groth16_prove_options *opts);

/* The CUDA backend on device `device` (backend_cuda.c; G16_ERR_UNSUPPORTED in builds
 * without CUDA). The device becomes the calling thread's current CUDA device, so a worker
 * thread that drives one device opens its backend itself. */
g16_status backend_cuda_open(backend **out, int device);
/* CUDA devices visible to this process (0 in builds without CUDA). */
int backend_cuda_device_count(void);

#ifdef G16_HAVE_CUDA
#include "backend/cuda/cuda_backend.h"
/* The device context of a CUDA backend (NULL for another backend). */
cuda_ctx *backend_cuda_ctx(backend *be);
/* MSMs over device arrays (see cuda_msm_g1_windows; phi_dev: the bases' GLV table or
 * NULL; mult: their precomputed multiples or NULL), joined into a point. */
g16_status backend_cuda_msm_g1(cuda_ctx *ctx, g1_jac_t *r, cuda_msm_info *info,
                               const void *bases_dev, const void *phi_dev,
                               const cuda_msm_mult *mult, const void *scalars_dev, size_t n,
                               bool montgomery);
g16_status backend_cuda_msm_g2(cuda_ctx *ctx, g2_jac_t *r, cuda_msm_info *info,
                               const void *bases_dev, const void *phi_dev,
                               const cuda_msm_mult *mult, const void *scalars_dev, size_t n,
                               bool montgomery);
/* The same over a classification of the scalars kept for several MSMs
 * (cuda_msm_scalars_classify; no GLV, no multiples). */
g16_status backend_cuda_msm_shared_g1(cuda_ctx *ctx, g1_jac_t *r, cuda_msm_info *info,
                                      const void *bases_dev, cuda_msm_scalars *sc);
g16_status backend_cuda_msm_shared_g2(cuda_ctx *ctx, g2_jac_t *r, cuda_msm_info *info,
                                      const void *bases_dev, cuda_msm_scalars *sc);
#endif

#endif
