/* g16 bench's proving run: N jobs of P partitions through the pipeline
 * (pipeline/pipeline.h), J jobs in flight, and the report of the run. The partitions are
 * the synthetic circuit's (seed k P + p), or the P witness files of a snarkjs key, the
 * same files for every job. cmd_bench.c parses the flags and makes or loads the key;
 * bench_run.c does the rest. */
#ifndef G16_CLI_BENCH_RUN_H
#define G16_CLI_BENCH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "groth16/groth16.h"
#include "groth16/prove.h"
#include "io/zkey.h"
#include "trace/trace_session.h"

typedef struct {
    size_t count;            /* -c: jobs */
    size_t concurrency;      /* -j: jobs submitted at a time */
    size_t partitions;       /* P per job */
    size_t n_constraints;    /* the synthetic circuit's target N */
    size_t n_public;
    unsigned synth_threads;  /* 0: the pipeline's default */
    unsigned lookahead;      /* 0: the pipeline's default */
    unsigned provers;        /* prover workers: CPU (0: 1), or per GPU (0: 2) */
    unsigned synth_cost;     /* >= 1: synthesis checks the circuit cost - 1 times first */
    uint64_t mem_budget;     /* 0: the pipeline's default */
    uint64_t device_budget;  /* bytes per GPU; 0: 95% of its memory */
    bool g2_on_cpu;          /* --g2-cpu: each B2 MSM on the CPU beside the backend */
    bool release_key;        /* --release-key: the key's host pages dropped once it is
                                resident on every GPU (pipeline_config.release_key_host) */
    int key_placement;       /* --gpu-key: a backend_key_placement (0: auto) */
    size_t synth_cache;      /* --synth-cache K: K witnesses synthesized before the run,
                                copied into every partition (0: synthesize each) */
    const char *backend;
    const char *proofs_path, *out_dir;
    /* Jobs from a snarkjs key when set: partition p of every job is wtns_paths[p]
     * (P = partitions entries), pk and vk are the key's, its coefficients checked. */
    const zkey_t *zkey;
    const char *const *wtns_paths;
} bench_run_opts;

/* Progress on a terminal: one line on stderr, rewritten in place; nothing unless
 * bench_progress_init(true). bench_progress_clear before printing anything else. */
void bench_progress_init(bool tty);
__attribute__((format(printf, 1, 2))) void bench_progress(const char *fmt, ...);
void bench_progress_clear(void);

/* Parses "8G", "512M", "1.5GiB", "4096" (K, M, G, T are binary multiples; "B", "iB"
 * optional). False for anything else, zero or more than 2^62. */
bool bench_parse_bytes(uint64_t *out, const char *s);

/* Runs the jobs, prints the per-partition table (one job) or the per-job table, then the
 * run's figures. m is the circuit's constraint count; t0 the command's start (clock_ms),
 * for the wall time. --out writes 192-byte proofs for native jobs and snarkjs JSON
 * (proof_<tag>.json) for zkey jobs, with public_<tag>.json and verification_key.json. Returns the exit status: 0, 1 when a proof did not verify, 2 for
 * other failures (the message printed). */
int bench_run(const bench_run_opts *o, const groth16_prover_key *pk, const groth16_vk *vk,
              size_t m, trace_session *trace, double t0);

#endif
