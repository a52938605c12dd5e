/* g16 bench's proving run through the pipeline (bench_run.h). */
#include "bench_run.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "circuit/cs.h"
#include "circuit/synthetic.h"
#include "commands.h"
#include "io/proof_bin.h"
#include "io/snarkjs_json.h"
#include "job/job.h"
#include "pipeline/pipeline.h"
#include "util/atomic_file.h"
#include "util/bytes.h"
#include "util/clock.h"
#include "util/host_memory.h"
#include "util/status.h"

bool bench_parse_bytes(uint64_t *out, const char *s) { return bytes_parse(out, s); }

static double peak_rss_gib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / (1024.0 * 1024.0); /* ru_maxrss is in KiB on Linux */
}

/* VmHWM, the peak resident set, in GiB (0 when /proc says nothing). */
static double hwm_gib(void)
{
    return proc_kib("/proc/self/status", "VmHWM") / (1024.0 * 1024.0);
}

/* Starts VmHWM again from the current RSS (Linux: "5" to /proc/self/clear_refs), so that
 * the run's peak is told apart from the setup's. */
static bool g_hwm_reset;     /* VmHWM started again when the pipeline was created */
static double g_peak_before; /* the peak before that (the setup's), GiB */

static bool hwm_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return false;
    bool ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

static void human_bytes(char *out, size_t cap, uint64_t bytes)
{
    if (bytes >= ((uint64_t)1 << 30))
        snprintf(out, cap, "%.2f GiB", (double)bytes / 1073741824.0);
    else if (bytes >= ((uint64_t)1 << 20))
        snprintf(out, cap, "%.1f MiB", (double)bytes / 1048576.0);
    else
        snprintf(out, cap, "%.1f KiB", (double)bytes / 1024.0);
}

static bool g_tty;

void bench_progress_init(bool tty) { g_tty = tty; }

void bench_progress(const char *fmt, ...)
{
    if (!g_tty)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\r\033[K");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void bench_progress_clear(void)
{
    if (g_tty)
        fprintf(stderr, "\r\033[K");
}

/* A partition's circuit: the synthetic circuit, checked (CS_CHECK: every constraint
 * evaluated) cost - 1 times before it is written. --synth-cost stands in for witness
 * generators slower than this one, so that synthesis can be put on the critical path with
 * the CPU backend, whose prover is ~150 times slower than this synthesis (a GPU's is
 * faster than it). */
typedef struct {
    synthetic_params inner;
    unsigned cost;
} bench_params;

static g16_status bench_circuit(cs_t *cs, const void *vp)
{
    const bench_params *bp = vp;
    for (unsigned k = 1; k < bp->cost; k++) {
        cs_t *check = NULL;
        g16_status st = cs_create(&check, CS_CHECK, bp->inner.n_public, NULL);
        if (!st)
            st = cs_synthesize(check, synthetic_circuit, &bp->inner);
        cs_free(check);
        if (st)
            return st;
    }
    return synthetic_circuit(cs, &bp->inner);
}

typedef struct {
    double synth, upload, h, g1, g2, prove, verify, total;
    size_t n;
} stage_sums;

static void sums_add(stage_sums *s, const job_result *r)
{
    s->synth += r->ms_synth;
    s->upload += r->ms_upload;
    s->h += r->ms_h;
    s->g1 += r->ms_msm_g1;
    s->g2 += r->ms_msm_g2;
    s->prove += r->ms_prove;
    s->verify += r->ms_verify;
    s->total += r->ms_total;
    s->n++;
}

/* What a proved partition leaves behind: a record in --proofs, files in --out. */
static g16_status write_outputs(const bench_run_opts *o, FILE *proofs, size_t job, size_t p,
                                const job_result *r)
{
    if (proofs) {
        uint8_t rec[PROOF_BIN_BYTES];
        proof_bin_encode(rec, &r->proof);
        if (fwrite(rec, sizeof rec, 1, proofs) != 1)
            return status_fail(G16_ERR_IO, "%s: write failed", o->proofs_path);
    }
    if (o->out_dir) {
        /* What `g16 verify` needs per partition: the proof and its inputs. One job keeps
         * the names proof_<p>.*; several add the job: proof_<job>_<p>.*. A native proof is
         * the 192-byte zcash encoding its toolchain reads; a zkey job's is snarkjs's
         * proof.json, which `snarkjs groth16 verify` reads too. */
        char path[4096], tag[64];
        if (o->count == 1)
            snprintf(tag, sizeof tag, "%zu", p);
        else
            snprintf(tag, sizeof tag, "%zu_%zu", job, p);
        snprintf(path, sizeof path, "%s/proof_%s.%s", o->out_dir, tag, o->zkey ? "json" : "bin");
        g16_status st = o->zkey ? json_write_proof(path, &r->proof)
                                : proof_bin_write(path, &r->proof);
        if (st)
            return st;
        snprintf(path, sizeof path, "%s/public_%s.json", o->out_dir, tag);
        return json_write_public(path, r->public_inputs, o->n_public);
    }
    return G16_OK;
}

static const char *state_word(pipeline_job_state s)
{
    switch (s) {
    case PIPELINE_JOB_DONE: return "proved";
    case PIPELINE_JOB_FAILED: return "FAILED";
    case PIPELINE_JOB_CANCELLED: return "cancelled";
    default: return "unfinished";
    }
}

static void print_summary(const bench_run_opts *o, size_t m, const stage_sums *sums,
                          const pipeline_stats *ps, const pipeline_job_info *info,
                          bool all_proved)
{
    size_t N = o->count, P = o->partitions;
    if (N > 1) {
        printf("  %-5s %10s %11s %10s %11s %10s  %s\n", "job", "partitions", "submitted s",
               "started s", "finished s", "latency s", "status");
        double base = info[0].submit_ms;
        for (size_t k = 0; k < N; k++)
            printf("  %-5zu %10zu %11.2f %10.2f %11.2f %10.2f  %s\n", k, P,
                   (info[k].submit_ms - base) / 1e3,
                   info[k].start_ms ? (info[k].start_ms - base) / 1e3 : 0,
                   (info[k].end_ms - base) / 1e3, (info[k].end_ms - info[k].submit_ms) / 1e3,
                   state_word(info[k].state));
    }
    /* Steady state: the time between job completions after the first (whose latency
     * includes filling the pipeline); one job: its own wall time. */
    double first_end = info[0].end_ms, last_end = info[0].end_ms;
    for (size_t k = 1; k < N; k++) {
        first_end = info[k].end_ms < first_end ? info[k].end_ms : first_end;
        last_end = info[k].end_ms > last_end ? info[k].end_ms : last_end;
    }
    double per_job_s = N > 1 ? (last_end - first_end) / 1e3 / (double)(N - 1)
                             : (info[0].end_ms - info[0].submit_ms) / 1e3;
    double k = sums->n ? (double)sums->n : 1;
    if (sums->n && o->synth_cache) /* "synthesis" copied a cached witness */
        printf("  synthesis: cached witnesses, %.1f ms per partition to copy%s\n",
               sums->synth / k, all_proved ? "; every proof verified" : "");
    else if (sums->n) /* the speed of the partitions proved, whose stage times were summed */
        printf("  synthesis: %.2f M constraints/s per thread%s\n", m / (sums->synth / k) / 1e3,
               all_proved ? "; every proof verified" : "");
    else
        printf("  synthesis: no partition proved\n");
    printf("  throughput: %zu job%s of %zu partitions in %.2f s; %s%.2f s per job, %.1f "
           "jobs/hour, %.1f proofs/hour (one a partition: %.3f s each)\n",
           N, N == 1 ? "" : "s", P, ps->active_ms / 1e3, N > 1 ? "steady state " : "",
           per_job_s, per_job_s > 0 ? 3600 / per_job_s : 0,
           per_job_s > 0 ? 3600 * (double)P / per_job_s : 0, per_job_s / (double)P);
    size_t parts = N * P;
    printf("  per partition (avg ms): synth %.1f, prove %.1f, verify %.1f; waiting in the "
           "prove queue %.1f, the finalize queue %.1f\n",
           sums->synth / k, sums->prove / k, sums->verify / k, ps->queue_wait_ms / parts,
           ps->finalize_wait_ms / parts);
    printf("  synthesis threads waited %.1f ms for a lookahead place, %.1f ms for the memory "
           "budget\n", ps->lookahead_wait_ms, ps->budget_wait_ms);
    double wall = ps->active_ms > 0 ? ps->active_ms : 1;
    printf("  utilisation (busy / wall): synthesis %.1f%% of %u thread%s, provers %.1f%% of %u "
           "worker%s, finalize %.1f%% of %u thread%s\n",
           100 * ps->synth_busy_ms / (wall * ps->synth_threads), ps->synth_threads,
           ps->synth_threads == 1 ? "" : "s",
           100 * ps->prove_busy_ms / (wall * ps->prover_workers), ps->prover_workers,
           ps->prover_workers == 1 ? "" : "s",
           100 * ps->finalize_busy_ms / (wall * ps->finalize_threads), ps->finalize_threads,
           ps->finalize_threads == 1 ? "" : "s");
    char budget[32], key_b[32], held[32], per[32], peak[32];
    human_bytes(budget, sizeof budget, ps->host_budget);
    human_bytes(key_b, sizeof key_b, ps->key_host_bytes);
    human_bytes(held, sizeof held, ps->host_reserved);
    human_bytes(per, sizeof per, ps->partition_bytes);
    human_bytes(peak, sizeof peak, ps->peak_admitted_bytes);
    printf("  memory: host budget %s (key %s, cached witnesses %s), %s per partition in "
           "flight, %zu buffer slot%s (allocated once, taken %zu times); peak admitted %s; "
           "peak RSS %.2f GiB",
           budget, key_b, held, per, ps->slots, ps->slots == 1 ? "" : "s", ps->slot_acquisitions,
           peak, peak_rss_gib() > g_peak_before ? peak_rss_gib() : g_peak_before);
    if (g_hwm_reset) /* the reset moves ru_maxrss too: the whole run's is the larger */
        printf(" (since the pipeline started: %.2f GiB)", hwm_gib());
    printf("\n");
    if (ps->key_host_released) {
        char rel[32];
        human_bytes(rel, sizeof rel, ps->key_host_released);
        printf("  key: resident on every GPU, %s of its host pages dropped at start-up "
               "(--release-key)\n", rel);
    }
    if (ps->gpu_devices) {
        char dpeak[32], pool[32], key[32];
        human_bytes(dpeak, sizeof dpeak, ps->device_peak_bytes);
        human_bytes(pool, sizeof pool, ps->device_pool_bytes);
        human_bytes(key, sizeof key, ps->device_resident_bytes);
        char where[320];
        if (ps->key_streamed && ps->key_resident_arrays) {
            char kept[32], rest[32];
            backend_key_arrays_names(ps->key_resident_arrays, kept, sizeof kept);
            backend_key_arrays_names(BACKEND_KEY_ALL_ARRAYS & ~ps->key_resident_arrays, rest,
                                     sizeof rest);
            snprintf(where, sizeof where,
                     "key split: %s resident (%s), %s streamed from %s host memory for every "
                     "MSM in chunks of %.2f GiB (pinned and uploaded at start-up in %.1f s)",
                     kept, key, rest,
                     ps->key_stream_pinned ? "pinned" : "pageable (not pinnable)",
                     ps->key_stream_chunk / 1073741824.0, ps->key_prepare_ms / 1e3);
        } else if (ps->key_streamed)
            snprintf(where, sizeof where,
                     "key streamed from %s host memory for every MSM in chunks of %.2f GiB "
                     "(pinned at start-up in %.1f s)",
                     ps->key_stream_pinned ? "pinned" : "pageable (not pinnable)",
                     ps->key_stream_chunk / 1073741824.0, ps->key_prepare_ms / 1e3);
        else
            snprintf(where, sizeof where, "key resident %s", key);
        char arena[64] = "";
        if (ps->device_arena_bytes) {
            char a[32];
            human_bytes(a, sizeof a, ps->device_arena_bytes);
            snprintf(arena, sizeof arena, ", MSM arena %s per device", a);
        }
        printf("  device memory: peak in use %s (GPU-wide, cudaMemGetInfo), %s, "
               "scratch pool %s per worker%s, %u worker%s per device; slots pinned\n",
               dpeak, where, pool, arena, ps->gpu_workers_per_device,
               ps->gpu_workers_per_device == 1 ? "" : "s");
        if (ps->inputs_staging)
            printf("  inputs staged: %llu of %zu partitions had their a copied to the device "
                   "during the partition before (one vector of the domain more on the "
                   "device)\n",
                   (unsigned long long)ps->inputs_staged, ps->partitions_proved);
    }
}

int bench_run(const bench_run_opts *o, const groth16_prover_key *pk, const groth16_vk *vk,
              size_t m, trace_session *trace, double t0)
{
    size_t N = o->count, P = o->partitions, J = o->concurrency;
    int rc = 2;
    g16_status st = G16_OK;
    pipeline *pl = NULL;
    atomic_file proofs_file = {0}; /* --proofs: replaced only by a run that succeeds */
    FILE *proofs = NULL;
    job_witness_cache cache = {0};
    bench_params *params = calloc(N * P, sizeof *params);
    const void **ptrs = calloc(N * P, sizeof *ptrs);
    job_t **jobs = calloc(N, sizeof *jobs);
    pipeline_job **handles = calloc(N, sizeof *handles);
    pipeline_job_info *info = calloc(N, sizeof *info);
    if (!params || !ptrs || !jobs || !handles || !info) {
        fprintf(stderr, "g16 bench: out of memory for %zu jobs of %zu partitions\n", N, P);
        goto out;
    }
    pipeline_config pc = {.backend = o->backend, .key = pk, .synth_threads = o->synth_threads,
                          .lookahead = o->lookahead, .cpu_workers = o->provers,
                          .gpu_workers = o->provers,
                          .host_budget = o->mem_budget, .device_budget = o->device_budget,
                          /* --synth-cache's witnesses (z, a, b, c each) stay all run */
                          .host_reserved = (uint64_t)o->synth_cache *
                                           ((uint64_t)pk->n_vars + 3 * (uint64_t)pk->domain_size) *
                                           32,
                          .g2_on_cpu = o->g2_on_cpu, .release_key_host = o->release_key,
                          .key_placement = (backend_key_placement)o->key_placement};
    if ((st = pipeline_create(&pl, &pc)))
        goto fail;
    /* The run's peak apart from the setup's (and, with --release-key, from the key's
     * host pages, dropped inside pipeline_create). */
    g_peak_before = peak_rss_gib();
    g_hwm_reset = hwm_reset();
    pipeline_stats ps;
    pipeline_stats_get(pl, &ps);
    printf("  backend: %s\n", pipeline_describe(pl));
    printf("  pipeline: %u synthesis thread%s, lookahead %u, %u prover worker%s, %u finalize "
           "thread; %zu job%s, %zu at a time\n", ps.synth_threads,
           ps.synth_threads == 1 ? "" : "s", ps.lookahead, ps.prover_workers,
           ps.prover_workers == 1 ? "" : "s", ps.finalize_threads, N, N == 1 ? "" : "s", J);
    if (o->synth_cost > 1 && !o->zkey)
        printf("  synthesis cost x%u: each partition's witness is checked against every "
               "constraint %u times before it is written\n", o->synth_cost,
               o->synth_cost - 1);

    /* Job k, partition p: the synthetic circuit with seed k P + p, or witness file p; all
     * sharing the key. */
    for (size_t k = 0; k < N; k++) {
        if (o->zkey) {
            job_config jc = {.source = JOB_SOURCE_ZKEY, .zkey = o->zkey,
                             .wtns_paths = o->wtns_paths, .zkey_coefs_checked = true,
                             .n_partitions = P, .n_public = o->n_public, .pk = pk, .vk = vk,
                             .id = (int32_t)k};
            if ((st = job_create(&jobs[k], &jc)))
                goto fail;
            continue;
        }
        for (size_t p = 0; p < P; p++) {
            bench_params *bp = &params[k * P + p];
            bp->inner = (synthetic_params){.n_constraints = o->n_constraints,
                                           .n_public = o->n_public, .seed = k * P + p};
            bp->cost = o->synth_cost ? o->synth_cost : 1;
            ptrs[k * P + p] = bp;
        }
        job_config jc = {.circuit = bench_circuit, .params = ptrs + k * P, .n_partitions = P,
                         .n_public = o->n_public, .n_constraints = m, .pk = pk, .vk = vk,
                         .id = (int32_t)k};
        if (k == 0 && o->synth_cache) {
            /* Job 0's first K partitions, synthesized now; every partition then copies
             * entry p mod K (so its public inputs are that entry's). */
            job_t *first = NULL;
            double t = clock_ms();
            if ((st = job_create(&first, &jc)) ||
                (st = job_witness_cache_fill(&cache, first, o->synth_cache))) {
                job_free(first);
                goto fail;
            }
            job_free(first);
            printf("  witnesses: %zu synthesized before the run (%.1f s), copied into every "
                   "partition (--synth-cache): synthesis is out of the provers' way\n",
                   cache.count, (clock_ms() - t) / 1e3);
        }
        jc.witness_cache = o->synth_cache ? &cache : NULL;
        if ((st = job_create(&jobs[k], &jc)))
            goto fail;
    }
    if (o->proofs_path) {
        if ((st = atomic_file_open(&proofs_file, o->proofs_path)))
            goto fail;
        proofs = proofs_file.f;
    }
    if (o->out_dir) {
        if (!cli_out_dir("g16 bench", o->out_dir))
            goto out;
        char path[4096];
        snprintf(path, sizeof path, "%s/verification_key.json", o->out_dir);
        if ((st = json_write_vk(path, vk)))
            goto fail;
    }

    if (N == 1)
        printf("  %-9s %9s %9s %9s %9s %9s %9s %9s  %s\n", "partition", "synth ms", "upload",
               "H ms", "G1 MSM", "G2 MSM", "verify", "total ms", "witness 0/1/other");
    size_t submitted = 0;
    for (; submitted < J && submitted < N; submitted++)
        if ((st = pipeline_submit(pl, &handles[submitted], jobs[submitted])))
            goto fail;
    stage_sums sums = {0};
    bool verify_failed = false, other_failed = false;
    for (size_t k = 0; k < N; k++) {
        for (size_t p = 0; p < P; p++) {
            bench_progress("job %zu/%zu: waiting for partition %zu/%zu", k + 1, N, p + 1, P);
            g16_status pst = pipeline_wait_partition(pl, handles[k], p);
            trace_session_partition_done(trace, (int32_t)k, (int32_t)p);
            if (pst)
                continue; /* reported with its job below */
            const job_result *r = job_get_result(jobs[k], p);
            if ((st = write_outputs(o, proofs, k, p, r)))
                goto fail;
            sums_add(&sums, r);
            if (N == 1) {
                bench_progress_clear();
                printf("  %-9zu %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f  %zu/%zu/%zu\n", p,
                       r->ms_synth, r->ms_upload, r->ms_h, r->ms_msm_g1, r->ms_msm_g2,
                       r->ms_verify, r->ms_total, r->scalars_zero, r->scalars_one,
                       r->scalars_other);
                fflush(stdout);
            }
        }
        g16_status jst = pipeline_wait(pl, handles[k]);
        if (jst) {
            bench_progress_clear();
            fprintf(stderr, "g16 bench: %s\n", g16_last_error());
            verify_failed |= jst == G16_ERR_VERIFY_FAILED;
            other_failed |= jst != G16_ERR_VERIFY_FAILED;
        }
        pipeline_job_info_get(pl, handles[k], &info[k]);
        pipeline_job_release(pl, handles[k]);
        handles[k] = NULL;
        if (submitted < N) {
            if ((st = pipeline_submit(pl, &handles[submitted], jobs[submitted])))
                goto fail;
            submitted++;
        }
    }
    bench_progress_clear();
    pipeline_stats_get(pl, &ps);
    pipeline_shutdown(pl, PIPELINE_DRAIN);
    if (N == 1 && sums.n) {
        double k = (double)sums.n;
        printf("  %-9s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", "average", sums.synth / k,
               sums.upload / k, sums.h / k, sums.g1 / k, sums.g2 / k, sums.verify / k,
               sums.total / k);
    }
    print_summary(o, m, &sums, &ps, info, !verify_failed && !other_failed);
    rc = other_failed ? 2 : verify_failed ? 1 : 0;
    printf("  wall %.1f s (setup included)%s%s\n", (clock_ms() - t0) / 1e3,
           proofs && !rc ? "; proofs (192-byte zcash encoding) in " : "",
           proofs && !rc ? o->proofs_path : "");
    goto out;
fail:
    bench_progress_clear();
    fprintf(stderr, "g16 bench: %s\n", g16_last_error());
out:
    pipeline_free(pl);
    if (proofs && rc != 0) {
        /* A record a partition: a failed run's file would not line up with them. */
        atomic_file_discard(&proofs_file);
        fprintf(stderr, "g16 bench: %s not written (the run failed)\n", o->proofs_path);
    } else if (proofs && atomic_file_commit(&proofs_file)) {
        fprintf(stderr, "g16 bench: %s\n", g16_last_error());
        rc = 2;
    }
    for (size_t k = 0; jobs && k < N; k++)
        job_free(jobs[k]);
    job_witness_cache_free(&cache);
    free(params);
    free(ptrs);
    free(jobs);
    free(handles);
    free(info);
    return rc;
}
