/* The pipeline: many jobs' partitions flowing through CPU synthesis, prover workers (one
 * per GPU, or CPU workers) and a finalize stage, under a host memory budget (DESIGN.md,
 * "The pipeline").
 *
 *   submit --> [synthesis threads: T] --prove queue--> [prover workers] --> [finalize] --> results
 *               admission: a lookahead place          two per GPU, or     verification,
 *               and a buffer slot (the budget)        W CPU workers       result recording
 *
 * Units. A job (job/job.h) is P partitions sharing a key; the pipeline moves partitions.
 * Jobs are served in submission order and a job's partitions in partition order, so with
 * J jobs submitted the earliest finishes first and the next ones fill the gaps at job
 * boundaries. Each partition's result lands in its job (job_get_result), in partition
 * order whatever order the stages finish in.
 *
 * Stages and threads (the thread names are the timeline's lanes):
 *   synth-<i>   T synthesis threads. A thread admits the next partition (below), runs
 *               job_synthesize_partition into the partition's buffer slot and puts it on
 *               the prove queue.
 *   prover-<i>  CPU backend: W workers (default 1); they share the process-wide thread
 *   gpu-<d>     pool for their NTTs and MSMs. CUDA: gpu_workers per visible device
 *   gpu-<d>.<k> (default 2, below), each opening its own backend (backend_cuda_open) so
 *               that the device is current on that thread. A worker takes the oldest queued partition, runs
 *               job_prove_synthesized with its backend, gives the buffer slot back and
 *               passes the partition on (with g2_on_cpu: job_prove_partial, and the slot
 *               goes along to finalize).
 *   finalize    F threads (default 1): job_verify_partition (when the job has a verifying
 *               key) and the partition's final state. No buffers are held here, except
 *               with g2_on_cpu: the B2 MSM then runs here on the CPU (job_finish_partial)
 *               from the partition's slot, which goes back to the pool after it.
 *
 * Admission. A partition starts only when (1) a lookahead place is free: at most L
 * partitions are synthesizing or synthesized and waiting for a prover (L = T + 1 by
 * default), so synthesis runs ahead of the provers by at most L partitions and never holds
 * a thread on a full queue; and (2) a buffer slot is free. Slots (z, a, b, c of the
 * pipeline's key shape) are allocated once, at pipeline_create, and reused: nothing is
 * allocated per partition on the steady-state path. A partition holds its slot from
 * admission until its proof is made.
 *
 * Memory budget (host bytes). Each partition in flight is charged
 * pipeline_partition_host_bytes: its buffers plus an estimate of the prover's own scratch.
 * The pool has min(L + W, budget / that) slots, so what the admitted partitions can hold
 * never exceeds the budget; when the budget, not L + W, limits the slots, a synthesis
 * thread waits for a slot, and the wait is a BUDGET_WAIT. A single partition larger than
 * the budget is an error at pipeline_create (never a hang). The default budget is 3/4 of
 * MemAvailable (half the physical memory when /proc/meminfo cannot be read). The key, the
 * process and the jobs' results are outside the budget.
 *
 * GPU workers and device memory. Each device gets gpu_workers prover workers (default
 * 2), each with its own backend context and stream: while one partition's uploads and
 * host-side steps run, the other's kernels keep the device busy. The key's points are
 * resident once per device (shared by its contexts); each context takes its scratch from a
 * pool that keeps what it allocated, so partitions after the first allocate no device
 * memory (cudaMalloc/cudaFree synchronise the whole device). The slots are pinned host
 * memory when the backend is CUDA. Device budget (default: 95% of the device's memory):
 * backend_partition_device_bytes is what a partition needs on a device besides the
 * resident key. At create, the key is made resident when it fits beside one partition,
 * else it streams from host memory for every MSM (backend_key_placement; the partition
 * then needs two chunk buffers instead); the workers per device are reduced until
 * (key +) workers x partition fits the budget, and a job that cannot fit one partition
 * is refused at submission. The budget is shared by the process's pipelines: each holds
 * its plan's bytes in a ledger from create to free, and a later pipeline plans within
 * what is left (it streams its key, or fails at create naming the figures, rather than
 * running the device out of memory). The peak of device memory in use is sampled after every
 * partition (pipeline_stats).
 *
 * Failure and cancellation. A partition that fails (synthesis, proving or verification)
 * fails its job: the job's status is that failure, with "job J, partition P: <why>"; its
 * partitions not yet admitted or waiting in a queue are dropped (CANCELLED), those inside
 * a stage finish that stage and are then dropped; other jobs go on. pipeline_cancel does
 * the same with G16_ERR_CANCELLED. A job is finished when every partition has a final
 * state (PROVED, FAILED or CANCELLED).
 *
 * Shutdown. pipeline_shutdown(DRAIN) takes no more jobs, lets every submitted job finish
 * and joins every thread; CANCEL cancels every unfinished job first (stages in progress
 * finish their call, their results are dropped) and then joins. pipeline_free shuts down
 * with CANCEL if that was not done.
 *
 * Timeline (trace/trace.h), beside what the job and the prover record (SYNTH, KERNEL,
 * PROVE, VERIFY, ...):
 *   QUEUE_WAIT "lookahead full"  a synthesis thread waiting for a place (for the partition
 *                                it will take next)
 *   BUDGET_WAIT "host budget"    a synthesis thread waiting for a slot
 *   QUEUE_WAIT "prove queue"     a synthesized partition waiting for a prover (recorded
 *                                on the device that took it)
 *   QUEUE_WAIT "prover idle"     a prover with nothing to take while work is still
 *                                upstream (synthesizing or not yet admitted), for the
 *                                partition it waits for
 *   BUDGET_WAIT "prover idle: budget"  the same when that partition's admission waited
 *                                for the budget: the budget is then the first cause
 *   QUEUE_WAIT "finalize queue"  a proved partition waiting for a finalize thread
 *   LOCK_WAIT "pipeline"         a thread waiting for the pipeline's lock (contended only)
 *   LOCK_WAIT "thread pool"      a CPU prover waiting for the shared thread pool
 *                                (util/parallel.c)
 * so that `g16 trace report` attributes a prover's idle time to synthesis, the budget or
 * the queues. The report ranks queues last (trace_analysis.h): a partition waiting in the
 * prove queue marks a busy prover, not a cause of its gaps.
 *
 * Locking: one mutex guards the queues, the slots, the places and the jobs' bookkeeping;
 * it is held for a few pointer moves per partition, never across a stage. Functions are
 * safe to call from any thread, except pipeline_free. */
#ifndef G16_PIPELINE_PIPELINE_H
#define G16_PIPELINE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "g16.h"
#include "groth16/prove.h"
#include "job/job.h"

typedef struct pipeline pipeline;
typedef struct pipeline_job pipeline_job;

typedef struct {
    const char *backend; /* "cpu", "cuda" or "auto" (NULL): as backend_open; "cuda" uses
                            every visible device, "auto" CUDA when device 0 opens */
    /* The key whose partitions the buffer slots are sized for; jobs whose keys need
     * larger buffers are refused. It must outlive the pipeline. */
    const groth16_prover_key *key;
    unsigned synth_threads;    /* T; 0 = 1 */
    unsigned lookahead;        /* L >= 1; 0 = T + 1 */
    unsigned cpu_workers;      /* prover workers with the CPU backend; 0 = 1 */
    unsigned finalize_threads; /* 0 = 1 */
    uint64_t host_budget;      /* bytes for the whole process: the key's host copy
                                  (pipeline_key_host_bytes), host_reserved and the
                                  partitions in flight; 0 = pipeline_default_host_budget() */
    uint64_t host_reserved;    /* bytes of the budget the caller holds besides the key
                                  (g16 bench: its pre-synthesized witnesses) */
    uint64_t device_budget;    /* bytes per device; 0 = the device's memory (see above) */
    bool g2_on_cpu;            /* each proof's B2 MSM on the CPU in the finalize stage:
                                  the prover worker's backend does the rest
                                  (job_prove_partial) and takes the next partition, the
                                  finalize thread computes B2 from the slot's witness and
                                  assembles the proof (job_finish_partial), then frees
                                  the slot */
    unsigned gpu_workers;      /* prover workers per device (CUDA); 0 = 2, fewer when the
                                  device budget cannot hold the key and that many
                                  partitions, or when the host budget's slots leave
                                  none to fill beside them
                                  (pipeline_default_gpu_workers) */
    backend_key_placement key_placement; /* CUDA: AUTO (0) = resident when the key and
                                  one partition fit the device budget, else streamed */
    bool release_key_host;     /* CUDA, key resident: every worker uploads the key while
                                  the pipeline starts, then the host pages of its points
                                  are dropped (madvise DONTNEED; B2's kept for g2_on_cpu)
                                  and the budget charges them no more. The caller must
                                  not read them afterwards: an in-memory key reads as
                                  zeros, one mapped from a file reads back from it.
                                  Refused with the key streamed or the CPU backend. */
} pipeline_config;

typedef enum { PIPELINE_DRAIN, PIPELINE_CANCEL } pipeline_stop;

typedef enum {
    PIPELINE_JOB_QUEUED = 0, /* submitted, no partition admitted yet */
    PIPELINE_JOB_RUNNING,
    PIPELINE_JOB_DONE,       /* every partition proved (and verified) */
    PIPELINE_JOB_FAILED,
    PIPELINE_JOB_CANCELLED,
} pipeline_job_state;

typedef struct {
    pipeline_job_state state;
    g16_status status;       /* G16_OK while not finished */
    char error[320];         /* "job 3, partition 1: the proof does not verify", ... */
    size_t partitions, proved, failed, cancelled;
    /* Milliseconds on util/clock.h's clock; 0 when not reached yet. */
    double submit_ms, start_ms, end_ms;
} pipeline_job_info;

/* Figures since pipeline_create; *_busy_ms sums the stage calls' durations over threads. */
typedef struct {
    unsigned synth_threads, lookahead, prover_workers, finalize_threads;
    double active_ms;        /* first submission to the last job's end (or now) */
    double synth_busy_ms, prove_busy_ms, finalize_busy_ms;
    double lookahead_wait_ms, budget_wait_ms; /* synthesis threads waiting to admit */
    double queue_wait_ms;    /* partitions waiting in the prove queue */
    double finalize_wait_ms; /* partitions waiting in the finalize queue */
    size_t partitions_synthesized, partitions_proved, partitions_failed,
        partitions_cancelled;
    size_t jobs_submitted, jobs_done, jobs_failed, jobs_cancelled;
    uint64_t host_budget;        /* bytes */
    uint64_t key_host_bytes;     /* of the budget: the key's points */
    uint64_t host_reserved;      /* of the budget: held by the caller */
    uint64_t partition_bytes;    /* charged per partition in flight */
    uint64_t peak_admitted_bytes;
    size_t slots;                /* buffer slots in the pool */
    size_t buffer_allocations;   /* arrays allocated for slots: 4 per slot, at create only */
    size_t slot_acquisitions;    /* admissions: a slot taken from the pool */
    unsigned gpu_devices, gpu_workers_per_device; /* CUDA: 0 for the CPU */
    uint64_t device_peak_bytes;     /* the most device memory in use seen (every context) */
    uint64_t device_pool_bytes;     /* the largest worker's scratch pool */
    uint64_t device_arena_bytes;    /* the MSM arena a device's workers share (0: none) */
    uint64_t device_resident_bytes; /* key points resident per device */
    bool key_streamed;              /* the key streamed from host memory (not resident) */
    bool key_stream_pinned;         /* ... from pinned memory (else pageable copies) */
    uint64_t key_stream_chunk;      /* ... in chunks of this many bytes */
    unsigned key_resident_arrays;   /* ... but for these arrays, kept on the device (bits as
                                     * backend_key_arrays_bytes; pipeline_plan_stream) */
    bool inputs_staging;            /* the next partition's a staged (pipeline_plan_stage) */
    uint64_t inputs_staged;         /* partitions whose a was on the device before they began */
    double key_prepare_ms;          /* pinning a streamed key at start-up (slowest worker) */
    uint64_t key_host_released;     /* bytes of key pages dropped (release_key_host) */
} pipeline_stats;

/* Starts the threads (and, for CUDA, one backend per device). G16_ERR_INVALID_ARGUMENT for
 * a bad configuration, G16_ERR_OUT_OF_MEMORY when one partition does not fit the budget
 * (the message gives both figures) or the slots cannot be allocated, the backend's error
 * when a device does not open. */
g16_status pipeline_create(pipeline **pl, const pipeline_config *cfg);

/* Shuts down (CANCEL) when pipeline_shutdown was not called, joins every thread, frees
 * the slots and every job handle. The jobs (job_t) stay the caller's. */
void pipeline_free(pipeline *pl);

/* "cpu (4 threads), 1 prover worker" or "cuda: 2 devices: GPU 0, ...; GPU 1, ...". */
const char *pipeline_describe(const pipeline *pl);

/* Queues every partition of job; *out is the handle for waiting, cancelling and
 * pipeline_job_release. The job must outlive the handle, and must not be proved by
 * anyone else meanwhile. G16_ERR_INVALID_ARGUMENT after shutdown, or when the job's key
 * needs larger buffers than the slots or more device memory than device_budget. */
g16_status pipeline_submit(pipeline *pl, pipeline_job **out, job_t *job);

/* Cancels an unfinished job (a finished one is left as it is). Returns at once; the job
 * is finished when its partitions in a stage have come out (pipeline_wait). */
g16_status pipeline_cancel(pipeline *pl, pipeline_job *pj);

/* Waits until the job is finished and returns its status (G16_OK, the failing
 * partition's status, or G16_ERR_CANCELLED), with its message in g16_last_error(). */
g16_status pipeline_wait(pipeline *pl, pipeline_job *pj);

/* Waits until partition p of the job has its final state and returns its status (its
 * message in g16_last_error()). */
g16_status pipeline_wait_partition(pipeline *pl, pipeline_job *pj, size_t p);

void pipeline_job_info_get(pipeline *pl, const pipeline_job *pj, pipeline_job_info *out);
job_t *pipeline_job_get(const pipeline_job *pj);

/* Frees the handle; an unfinished job is cancelled and waited for first. */
void pipeline_job_release(pipeline *pl, pipeline_job *pj);

/* See "Shutdown" above. Idempotent; submissions are refused afterwards. */
g16_status pipeline_shutdown(pipeline *pl, pipeline_stop how);

void pipeline_stats_get(pipeline *pl, pipeline_stats *out);

/* Host bytes charged per partition in flight: z, a, b, c, plus the prover's scratch:
 * for a GPU worker the gathered A/B scalars of a density-compressed key; for the CPU
 * prover the classified copies of its MSM scalars (~40 bytes per scalar of A, B, C and H)
 * and the Pippenger buckets of `threads` pool threads. An estimate for the scratch, exact
 * for the buffers. */
uint64_t pipeline_partition_host_bytes(const groth16_prover_key *pk, bool gpu,
                                       unsigned threads);
/* Host bytes of the key's points (A, B1, B2, C, H), which stay in host memory for the
 * pipeline's life (in RAM, or mapped from a .zkey and touched): charged to the budget
 * before any partition. */
uint64_t pipeline_key_host_bytes(const groth16_prover_key *pk);
/* The device plan of a GPU pipeline (pipeline_create): with `reserved` bytes per device
 * already held by this process's other pipelines, the key resident when key +
 * part_resident fits what is left of the budget (or as `placement` forces), then up to
 * `workers` workers, fewer until (key +) workers x partition fits; `reserved` receives
 * what this pipeline then holds (0 with no budget). False when not even one partition
 * fits. budget 0: unlimited. */
typedef struct {
    backend_key_placement placement;
    unsigned workers;
    uint64_t reserved;
} pipeline_device_plan;
bool pipeline_plan_device(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                          uint64_t key, uint64_t part_resident, uint64_t part_streamed,
                          unsigned workers, backend_key_placement placement);
/* Whether the H MSM's GLV table (table bytes, held with the key) and its larger scratch
 * (part_glv a partition, backend_partition_device_bytes with glv) fit beside the key in
 * the budget with plan's resident placement and workers; if so plan->reserved grows to
 * what they need. Never with a streamed key or without a budget (nothing to plan by): the
 * endomorphism is taken only where it costs no worker and no streaming. */
bool pipeline_plan_glv(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                       uint64_t key, uint64_t table, uint64_t part_glv);
/* The same for key pk's H MSM in the fewest slices (1 .. BACKEND_GLV_MAX_SLICES: more
 * slices, smaller point buffers, more rounds) whose partitions fit: their number (0: no
 * GLV, plan unchanged) and, in *digits, what a slice holds (backend_glv_slice_digits: 0
 * for whole windows). Where whole windows do not fit in each of two or more workers' pools
 * but do in one arena the device's workers take in turn (backend_msm_arena_bytes, counted
 * with the table), that comes before 2 slices: 1, *arena true. */
unsigned pipeline_plan_glv_slices(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                                  const groth16_prover_key *pk, uint64_t *digits, bool *arena);
/* A streamed key's chunk and split (plan's placement STREAMED): which of the key's arrays
 * stay on the device all the same (*resident, bits as backend_key_arrays_bytes; only when
 * `split`, else 0) and the chunk the others stream in, `chunk` or (when `may_double`)
 * twice it. Arrays are kept while plan's workers' partitions
 * (backend_partition_device_bytes_split) still fit beside them, in this order: A, C, B2,
 * B1, then H. A streamed MSM waits for its copies unless its kernels outlast them: A's,
 * B's and C's scalars are mostly zeros and ones, cheap a point, while H's dense MSM hides
 * its chunks' copies behind its kernels (run 109, 10 x 2^27 on an H100: 640 ms a
 * partition of the first kind's copies between the MSMs, ~60 ms of H's). The doubled
 * chunk is taken when it keeps at least as many bytes of the key resident; larger chunks
 * are fewer whole MSMs of more points each (run 108: H's MSM -14% with 3 GiB chunks
 * against 1.5). plan->reserved grows to what the choice needs. Never without a budget:
 * `chunk` and nothing resident. */
uint64_t pipeline_plan_stream(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                              const groth16_prover_key *pk, uint64_t chunk, bool may_double,
                              bool split, unsigned *resident);
/* Whether the GPU pipeline stages its next partition's a (a vector of `vec` bytes, the
 * domain's) on the device during the current partition's MSMs (backend.next_input), so
 * that the next H waits for no copy of a: only with one prover in all (plan's one worker
 * on one device: a claimed partition is then the one that prover would take next; with
 * more, another might be free first) and where the vector fits the budget beside the
 * plan (budget 0: unlimited), which plan->reserved then counts. Run 115, 10 x 2^27 on an
 * H100 80GB with the key split: a's copy was ~0.10 s of each 1.36 s partition. */
bool pipeline_plan_stage(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                         unsigned provers, uint64_t vec);
/* GPU workers per device when the caller sets none: two, so that one partition's upload
 * and host-side steps overlap the other's kernels, but only while the host budget's
 * `slots` buffer slots leave at least one free to be filled beside the devices' workers:
 * with as many workers as slots they start together and finish together, and every
 * slot's refill (synthesis, or a cached witness's copy) waits with the GPU idle (run 108,
 * 10 x 2^27 on an H100 with two slots: 29.0 s a job with two workers, 25.7 with one).
 * At least one. */
unsigned pipeline_default_gpu_workers(uint64_t slots, unsigned devices);
/* 3/4 of MemAvailable, or half the physical memory when that cannot be read. */
uint64_t pipeline_default_host_budget(void);

#endif
