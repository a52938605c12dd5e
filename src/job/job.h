/* Jobs: P partitions of one circuit sharing one proving key, as a Filecoin C2 proof is 10
 * partitions of the PoRep circuit. Each partition has its own witness; the key, the
 * circuit and its shape are common. A job synthesizes and proves its partitions and keeps,
 * per partition and in partition order, the proof, the public inputs, a status with its
 * message, and the stage timings.
 *
 * Where the partitions come from (job_config.source):
 *   JOB_SOURCE_NATIVE  a native C circuit (circuit/cs.h) with its own parameters per
 *                      partition (seed, data, public inputs); synthesis runs the circuit's
 *                      code into the partition's buffers.
 *   JOB_SOURCE_ZKEY    a snarkjs .zkey and one .wtns per partition (circom's witness
 *                      generator ran elsewhere); synthesis maps the witness, checks it
 *                      against the key (curve, nWitness = nVars, values below r, w[0] = 1;
 *                      the messages name the file) and computes a = A.z, b = B.z, c = a*b
 *                      from the key's coefficients, exactly as groth16_prove_zkey does
 *                      (groth16/zkey_evals.h), on the synthesis thread alone.
 * The stages after synthesis do not depend on the source.
 *
 * Why a layer of its own (src/job) and not part of src/circuit: a job strings together
 * synthesis (circuit), proving (groth16, and through it the backend) and verification,
 * and owns results; the circuit layer stays about constraint systems. The pipeline
 * (pipeline/pipeline.h) schedules the same unit on its own threads and with its own pooled
 * buffers, one stage at a time: job_synthesize_partition on a synthesis thread,
 * job_prove_synthesized on a prover worker (with that worker's backend), and
 * job_verify_partition on the finalize thread, which needs no buffers, so they go back to
 * the pool as soon as the proof is made. job_prove_partition runs the three in a row. Every
 * per-partition call takes its buffers from the caller and touches only that partition's
 * result: different partitions may be in different stages at once, each with its own
 * job_buffers.
 *
 * Lifetimes: the circuit parameters, the zkey, the witness paths and mapped witnesses, the
 * prover key and the verifying key belong to the caller and must outlive the job. */
#ifndef G16_JOB_JOB_H
#define G16_JOB_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "circuit/cs.h"
#include "g16.h"
#include "groth16/groth16.h"
#include "groth16/prove.h"
#include "io/wtns.h"
#include "io/zkey.h"

typedef struct job job_t;

typedef enum {
    JOB_SOURCE_NATIVE = 0, /* circuit, params, n_constraints */
    JOB_SOURCE_ZKEY,       /* zkey, and wtns_paths or wtns */
} job_source;

typedef struct {
    job_source source;
    size_t n_partitions;
    size_t n_public;      /* public inputs the circuit declares (the key's n_public) */

    /* JOB_SOURCE_NATIVE: params[p] are the circuit's parameters for partition p
     * (n_partitions entries). */
    cs_circuit_fn circuit;
    const void *const *params;
    size_t n_constraints; /* the circuit's rows, as the key was made for (a partition
                             whose circuit has another count fails) */

    /* JOB_SOURCE_ZKEY: partition p's witness is the .wtns file wtns_paths[p], mapped and
     * unmapped by its synthesis, or wtns[p], mapped by the caller (when wtns_paths is
     * NULL). */
    const zkey_t *zkey;
    const char *const *wtns_paths;
    const wtns_t *const *wtns;
    bool zkey_coefs_checked; /* the caller ran zkey_validate_coefs on zkey; otherwise
                                job_create does (one O(nCoefs) pass: synthesis indexes
                                a, b and the witness by the entries unchecked) */

    /* The prover key. For JOB_SOURCE_ZKEY it may be NULL: the job makes it from zkey
     * (groth16_prover_key_from_zkey); when set it must have the zkey's shape. */
    const groth16_prover_key *pk;
    const groth16_vk *vk; /* when set, every proof is verified before it counts */
    /* Called as each stage of a partition starts ("synthesizing", "proving",
     * "verifying"); may be NULL. Under a pipeline it is called from the pipeline's
     * threads, for several partitions at once. */
    void (*on_stage)(void *ctx, size_t partition, const char *stage);
    void *ctx;
    const groth16_prove_options *prove_opts; /* the backend (backend_prove_options), and
                                                for tests fixed r, s; NULL: the CPU */
    int32_t id; /* the job's number in the timeline (trace/trace.h) */
    /* Benchmarks: when set, partition p's synthesis copies entry p mod count of these
     * pre-synthesized witnesses instead of running the circuit or reading a file (see
     * job_witness_cache below). */
    const struct job_witness_cache_s *witness_cache;
} job_config;

typedef enum {
    JOB_PARTITION_PENDING = 0, /* not proved (yet) */
    JOB_PARTITION_PROVED,      /* proof made, and verified when the job has a vk */
    JOB_PARTITION_FAILED,      /* status and error say why */
    JOB_PARTITION_CANCELLED,   /* dropped before it was proved (G16_ERR_CANCELLED): its job
                                  was cancelled or another of its partitions failed */
} job_partition_state;

typedef struct {
    job_partition_state state;
    g16_status status;
    char error[256];          /* the failure's message (g16_last_error() at the time) */
    groth16_proof proof;
    fr_t *public_inputs;      /* n_public, owned by the job; set once synthesized */
    /* Stage times; ms_prove is the whole proving call (upload, H, MSMs, assembly) and
     * ms_total = ms_synth + ms_prove + ms_verify (waits between stages not included). */
    double ms_synth, ms_upload, ms_h, ms_msm_g1, ms_msm_g2, ms_prove, ms_verify, ms_total;
    size_t scalars_zero, scalars_one, scalars_other; /* A's witness scalars */
} job_result;

/* The buffers one partition in flight needs: z (n_vars), a, b, c (domain_size each).
 * job_buffers_alloc allocates them; a caller with its own memory (pinned, pooled) may fill
 * the struct itself, with at least these sizes. */
typedef struct {
    fr_t *z, *a, *b, *c;
    size_t n_vars, domain_size;
} job_buffers;

/* Witnesses synthesized once and copied into each partition's buffers (z, a, b, c and so
 * its public inputs), for benchmarks that measure the provers with synthesis out of the
 * way, as issue 7's "witnesses pre-synthesized" (`g16 bench --synth-cache K`). */
typedef struct job_witness_cache_s {
    job_buffers *entries;
    size_t count;
} job_witness_cache;

/* Synthesizes partitions 0 .. count - 1 of job (count <= its partitions) into a new cache,
 * ignoring any cache the job has. The job's results are not touched. */
g16_status job_witness_cache_fill(job_witness_cache *cache, job_t *job, size_t count);
void job_witness_cache_free(job_witness_cache *cache);

/* Checks cfg (every pointer its source needs set, n_partitions >= 1, n_public and the key
 * agreeing; for a zkey, the prover key's shape and, unless zkey_coefs_checked, its
 * coefficients) and makes a job whose partitions are all pending. The witness files are
 * not opened here: each partition's synthesis opens and checks its own, so one bad file
 * fails its partition only. G16_ERR_INVALID_ARGUMENT naming the problem, the zkey's
 * G16_ERR_FORMAT, G16_ERR_OUT_OF_MEMORY. job_get_config(job)->pk is the key in use. */
g16_status job_create(job_t **job, const job_config *cfg);
void job_free(job_t *job);

g16_status job_buffers_alloc(job_buffers *bufs, const job_t *job);
void job_buffers_free(job_buffers *bufs);

/* Synthesizes partition p into bufs, proves it (and verifies it when the job has a vk),
 * and records its result, replacing an earlier one. Returns the result's status: G16_OK,
 * the synthesis or prover error, G16_ERR_VERIFY_FAILED, or G16_ERR_INVALID_ARGUMENT for p
 * out of range or buffers too small (no result is recorded for those). */
g16_status job_prove_partition(job_t *job, size_t p, job_buffers *bufs);

/* The three stages of job_prove_partition, for callers that run them apart (the
 * pipeline). Each returns the stage's status and, on failure, records it in the result
 * (state FAILED, status, message) like job_prove_partition.
 *
 * job_synthesize_partition: resets partition p's result, fills bufs (z, a, b, c) and
 * records its public inputs. G16_ERR_INVALID_ARGUMENT for p out of range or buffers too
 * small (no result recorded for those). */
g16_status job_synthesize_partition(job_t *job, size_t p, job_buffers *bufs);
/* Proves partition p from the buffers its synthesis filled (a, b, c are overwritten).
 * route: where steps 2-3 run (its partition and partition_ctx, from
 * backend_prove_options) instead of the job's prove_opts; the job's fixed r, s (tests)
 * apply either way. NULL: the job's prove_opts. Without a verifying key the partition is
 * then PROVED; with one it stays PENDING until job_verify_partition. */
g16_status job_prove_synthesized(job_t *job, size_t p, job_buffers *bufs,
                                 const groth16_prove_options *route);
/* job_prove_synthesized in two parts, for a pipeline that computes each B2 MSM (G2) on
 * the CPU in its finalize stage while the worker's backend takes the next partition
 * (pipeline_config.g2_on_cpu): job_prove_partial runs steps 2-3 without B2 on route's
 * backend and keeps the other four MSM results in the job; job_finish_partial computes B2
 * on the CPU from bufs->z, which must still hold the partition's witness (a, b, c may
 * have been reused), assembles the proof and records it as job_prove_synthesized does.
 * The proof is the same. */
g16_status job_prove_partial(job_t *job, size_t p, job_buffers *bufs,
                             const groth16_prove_options *route);
g16_status job_finish_partial(job_t *job, size_t p, const job_buffers *bufs);
/* Verifies partition p's proof against the job's verifying key (no buffers needed) and
 * marks it PROVED, or FAILED with G16_ERR_VERIFY_FAILED. Without a verifying key: G16_OK
 * and nothing to do. */
g16_status job_verify_partition(job_t *job, size_t p);
/* Marks a partition that is not PROVED or FAILED as CANCELLED (a no-op otherwise). */
void job_cancel_partition(job_t *job, size_t p);

/* Proves the partitions in order with one set of buffers, stopping at the first failure
 * (the partitions after it stay pending). Returns G16_OK or that failure's status. */
g16_status job_prove_all(job_t *job);

size_t job_num_partitions(const job_t *job);
const job_config *job_get_config(const job_t *job);
size_t job_num_public(const job_t *job);
/* Partition p's result, or NULL when p is out of range. */
const job_result *job_get_result(const job_t *job, size_t p);
/* G16_OK when every partition is proved; else the first failed partition's status, else
 * G16_ERR_CANCELLED when a partition was cancelled, else G16_ERR_INVALID_ARGUMENT
 * ("pending") when some are not proved yet. */
g16_status job_status(const job_t *job);

#endif
