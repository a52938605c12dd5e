#include "job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_source_zkey.h"
#include "trace/trace.h"
#include "util/clock.h"
#include "util/parallel.h"
#include "util/status.h"

struct job {
    job_config cfg;          /* cfg.pk points to own_pk when the job made its key */
    groth16_prover_key own_pk;
    job_result *results; /* [n_partitions] */
    fr_t *inputs;        /* [n_partitions * n_public]: results[p].public_inputs point here */
    /* [n_partitions]: job_prove_partial's MSM results and options, waiting for
     * job_finish_partial. Allocated with the job (~3 KiB a partition): prover workers
     * call job_prove_partial concurrently, and an array made on first use was made twice
     * (one leaked, and its partitions' results lost) when two raced. */
    struct partial {
        groth16_msm_results msm;
        groth16_prove_options opts;
        groth16_prove_stats stats;
        bool pending;
    } *partial;
};

/* job_create's checks for a native source. */
static g16_status check_native(const job_config *cfg)
{
    if (!cfg->circuit || !cfg->params || !cfg->pk)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "job: no circuit, parameters or key");
    const groth16_prover_key *pk = cfg->pk;
    if (cfg->n_constraints + pk->n_public + 1 > pk->domain_size)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "job: %zu constraints and %zu public rows do not fit the key's "
                           "domain of %zu", cfg->n_constraints, pk->n_public + 1,
                           pk->domain_size);
    for (size_t p = 0; p < cfg->n_partitions; p++)
        if (!cfg->params[p])
            return status_fail(G16_ERR_INVALID_ARGUMENT, "job: partition %zu has no parameters",
                               p);
    return G16_OK;
}

g16_status job_create(job_t **out, const job_config *cfg)
{
    *out = NULL;
    if (!cfg)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "job: no configuration");
    if (cfg->n_partitions == 0)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "job: no partitions");
    g16_status st;
    if (cfg->source == JOB_SOURCE_NATIVE)
        st = check_native(cfg);
    else if (cfg->source == JOB_SOURCE_ZKEY)
        st = job_zkey_check_config(cfg);
    else
        st = status_fail(G16_ERR_INVALID_ARGUMENT, "job: unknown source %d", (int)cfg->source);
    if (st)
        return st;
    groth16_prover_key zkey_pk;
    const groth16_prover_key *pk = cfg->pk;
    if (!pk) { /* a zkey source: its key, made from the zkey */
        groth16_prover_key_from_zkey(&zkey_pk, cfg->zkey);
        pk = &zkey_pk;
    }
    if (cfg->n_public != pk->n_public)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "job: the circuit has %zu public inputs, the key %zu",
                           cfg->n_public, pk->n_public);
    if (cfg->vk && cfg->vk->n_public != pk->n_public)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "job: the verifying key has %zu public inputs, the prover key %zu",
                           cfg->vk->n_public, pk->n_public);
    job_t *job = calloc(1, sizeof *job);
    size_t np = cfg->n_public;
    if (job) {
        job->results = calloc(cfg->n_partitions, sizeof *job->results);
        job->inputs = calloc(cfg->n_partitions * np + 1, sizeof *job->inputs);
        job->partial = calloc(cfg->n_partitions, sizeof *job->partial);
    }
    if (!job || !job->results || !job->inputs || !job->partial) {
        job_free(job);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "job of %zu partitions", cfg->n_partitions);
    }
    job->cfg = *cfg;
    if (!cfg->pk) {
        job->own_pk = *pk;
        job->cfg.pk = &job->own_pk;
    }
    for (size_t p = 0; p < cfg->n_partitions; p++)
        job->results[p].public_inputs = job->inputs + p * np;
    *out = job;
    return G16_OK;
}

void job_free(job_t *job)
{
    if (!job)
        return;
    free(job->results);
    free(job->inputs);
    free(job->partial);
    free(job);
}

g16_status job_buffers_alloc(job_buffers *b, const job_t *job)
{
    size_t nv = job->cfg.pk->n_vars, n = job->cfg.pk->domain_size;
    *b = (job_buffers){.z = malloc(nv * sizeof(fr_t)), .a = malloc(n * sizeof(fr_t)),
                       .b = malloc(n * sizeof(fr_t)), .c = malloc(n * sizeof(fr_t)),
                       .n_vars = nv, .domain_size = n};
    if (!b->z || !b->a || !b->b || !b->c) {
        job_buffers_free(b);
        return status_fail(G16_ERR_OUT_OF_MEMORY,
                           "partition buffers for %zu wires and a domain of %zu", nv, n);
    }
    return G16_OK;
}

void job_buffers_free(job_buffers *b)
{
    if (!b)
        return;
    free(b->z);
    free(b->a);
    free(b->b);
    free(b->c);
    memset(b, 0, sizeof *b);
}

static void stage(const job_t *job, size_t p, const char *name)
{
    if (job->cfg.on_stage)
        job->cfg.on_stage(job->cfg.ctx, p, name);
}

/* Partition p's witness and evaluations from a native circuit: z, and a, b, c over the
 * whole domain with the snarkjs public rows (a[m + s] = z_s) the key's setup assumed.
 * PROVE mode writes every constraint row; only the rows past them are cleared. */
static g16_status synthesize_native(const job_t *job, size_t p, const job_buffers *bufs)
{
    const job_config *cfg = &job->cfg;
    size_t m = cfg->n_constraints, n = cfg->pk->domain_size, nv = cfg->pk->n_vars;
    memset(bufs->a + m, 0, (n - m) * sizeof *bufs->a);
    memset(bufs->b + m, 0, (n - m) * sizeof *bufs->b);
    memset(bufs->c + m, 0, (n - m) * sizeof *bufs->c);
    cs_prove_buffers cb = {.z = bufs->z, .z_cap = nv, .a = bufs->a, .b = bufs->b,
                           .c = bufs->c, .abc_cap = m};
    cs_t *cs;
    g16_status st = cs_create(&cs, CS_PROVE, cfg->n_public, &cb);
    if (st)
        return st;
    st = cs_synthesize(cs, cfg->circuit, cfg->params[p]);
    if (!st && (cs_num_constraints(cs) != m || cs_num_vars(cs) != nv))
        st = status_fail(G16_ERR_INVALID_ARGUMENT,
                         "partition %zu: its circuit has %zu constraints and %zu wires, the "
                         "key %zu and %zu", p, cs_num_constraints(cs), cs_num_vars(cs), m, nv);
    cs_free(cs);
    for (size_t s = 0; !st && s <= cfg->n_public; s++)
        bufs->a[m + s] = bufs->z[s];
    return st;
}

static g16_status record_failure(job_result *r, g16_status st)
{
    r->ms_total = r->ms_synth + r->ms_prove + r->ms_verify;
    r->state = JOB_PARTITION_FAILED;
    r->status = st;
    status_text_fit(r->error, sizeof r->error, g16_last_error());
    return st;
}

static void record_proved(job_result *r)
{
    r->ms_total = r->ms_synth + r->ms_prove + r->ms_verify;
    r->state = JOB_PARTITION_PROVED;
    r->status = G16_OK;
}

static g16_status check_buffers(const job_t *job, size_t p, const job_buffers *bufs)
{
    if (!job || p >= job->cfg.n_partitions)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "job: no partition %zu", p);
    const groth16_prover_key *pk = job->cfg.pk;
    if (!bufs || !bufs->z || !bufs->a || !bufs->b || !bufs->c ||
        bufs->n_vars < pk->n_vars || bufs->domain_size < pk->domain_size)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "job: partition %zu: buffers smaller than the key's sizes", p);
    return G16_OK;
}

/* The partition's witness from its source (the circuit or its witness file). */
static g16_status synthesize_source(job_t *job, size_t p, job_buffers *bufs)
{
    return job->cfg.source == JOB_SOURCE_ZKEY ? job_zkey_synthesize(&job->cfg, p, bufs)
                                              : synthesize_native(job, p, bufs);
}

/* Entry p mod count of the cache into bufs. */
static g16_status copy_cached(const job_witness_cache *c, size_t p, job_buffers *bufs)
{
    const job_buffers *e = &c->entries[p % c->count];
    if (e->n_vars > bufs->n_vars || e->domain_size > bufs->domain_size)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "partition %zu: the witness cache holds %zu wires and a domain of "
                           "%zu, the job %zu and %zu", p, e->n_vars, e->domain_size,
                           bufs->n_vars, bufs->domain_size);
    /* On 4 of the pool's threads: the cache stands in for synthesis, and one thread's
     * copy (~10 GB/s, 1.6-2.1 s for a 2^27 partition's 16 GiB in run 110) was slower
     * than the GPU's partition, so the benchmark measured the copy, not the prover; the
     * whole pool (0.48 s, run 111) took the host memory the GPU's uploads read beside
     * it (the witness's 12 GiB at 40 GB/s instead of 55). */
    enum { COPY_WAYS = 4 };
    parallel_memcpy(bufs->z, e->z, e->n_vars * sizeof *e->z, COPY_WAYS);
    parallel_memcpy(bufs->a, e->a, e->domain_size * sizeof *e->a, COPY_WAYS);
    parallel_memcpy(bufs->b, e->b, e->domain_size * sizeof *e->b, COPY_WAYS);
    parallel_memcpy(bufs->c, e->c, e->domain_size * sizeof *e->c, COPY_WAYS);
    return G16_OK;
}

g16_status job_witness_cache_fill(job_witness_cache *cache, job_t *job, size_t count)
{
    *cache = (job_witness_cache){0};
    if (!job || count == 0 || count > job->cfg.n_partitions)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "witness cache: %zu entries for a job of %zu partitions", count,
                           job ? job->cfg.n_partitions : 0);
    if (!(cache->entries = calloc(count, sizeof *cache->entries)))
        return status_fail(G16_ERR_OUT_OF_MEMORY, "witness cache of %zu entries", count);
    g16_status st = G16_OK;
    for (size_t p = 0; p < count && !st; p++) {
        if (!(st = job_buffers_alloc(&cache->entries[p], job)))
            cache->count = p + 1;
        if (!st)
            st = synthesize_source(job, p, &cache->entries[p]);
    }
    if (st) {
        job_witness_cache_free(cache);
        return st;
    }
    return G16_OK;
}

void job_witness_cache_free(job_witness_cache *cache)
{
    if (!cache)
        return;
    for (size_t i = 0; cache->entries && i < cache->count; i++)
        job_buffers_free(&cache->entries[i]);
    free(cache->entries);
    *cache = (job_witness_cache){0};
}

g16_status job_synthesize_partition(job_t *job, size_t p, job_buffers *bufs)
{
    g16_status st = check_buffers(job, p, bufs);
    if (st)
        return st;
    job_result *r = &job->results[p];
    fr_t *inputs = r->public_inputs;
    *r = (job_result){.state = JOB_PARTITION_PENDING, .public_inputs = inputs};
    status_clear();
    double t0 = clock_ms();
    stage(job, p, "synthesizing");
    trace_context_set(job->cfg.id, (int32_t)p);
    uint64_t span = trace_begin();
    const job_witness_cache *wc = job->cfg.witness_cache;
    st = wc ? copy_cached(wc, p, bufs) : synthesize_source(job, p, bufs);
    trace_end(span, TRACE_SYNTH,
              wc ? "cached witness" : job->cfg.source == JOB_SOURCE_ZKEY ? "witness" : "circuit");
    r->ms_synth = clock_ms() - t0;
    if (st)
        return record_failure(r, st);
    memcpy(inputs, bufs->z + 1, job->cfg.n_public * sizeof *inputs);
    return G16_OK;
}

/* The job's prove options with route's backend (and its G2 choice) when given. */
static groth16_prove_options prove_options(const job_t *job, const groth16_prove_options *route)
{
    groth16_prove_options opts = {0};
    if (job->cfg.prove_opts)
        opts = *job->cfg.prove_opts;
    if (route) {
        opts.partition = route->partition;
        opts.partition_ctx = route->partition_ctx;
        opts.g2_on_cpu = route->g2_on_cpu;
    }
    return opts;
}

static void record_stats(job_result *r, const groth16_prove_stats *stats)
{
    r->ms_upload = stats->ms_upload;
    r->ms_h = stats->ms_h;
    r->ms_msm_g1 = stats->ms_msm_g1;
    r->ms_msm_g2 = stats->ms_msm_g2;
    r->scalars_zero = stats->scalars_zero;
    r->scalars_one = stats->scalars_one;
    r->scalars_other = stats->scalars_other;
}

/* The proof is made: PROVED now without a verifying key, else after verification. */
static g16_status record_proof(job_t *job, job_result *r)
{
    if (!job->cfg.vk)
        record_proved(r);
    return G16_OK;
}

g16_status job_prove_synthesized(job_t *job, size_t p, job_buffers *bufs,
                                 const groth16_prove_options *route)
{
    g16_status st = check_buffers(job, p, bufs);
    if (st)
        return st;
    const job_config *cfg = &job->cfg;
    job_result *r = &job->results[p];
    groth16_prove_options opts = prove_options(job, route);
    status_clear();
    stage(job, p, "proving");
    trace_context_set(cfg->id, (int32_t)p);
    groth16_prove_stats stats = {0};
    double t0 = clock_ms();
    st = groth16_prove_evals(&r->proof, &stats, cfg->pk, bufs->z, NULL, bufs->a, bufs->b,
                             bufs->c, &opts);
    r->ms_prove = clock_ms() - t0;
    record_stats(r, &stats);
    return st ? record_failure(r, st) : record_proof(job, r);
}

g16_status job_prove_partial(job_t *job, size_t p, job_buffers *bufs,
                             const groth16_prove_options *route)
{
    g16_status st = check_buffers(job, p, bufs);
    if (st)
        return st;
    struct partial *q = &job->partial[p];
    job_result *r = &job->results[p];
    *q = (struct partial){.opts = prove_options(job, route)};
    status_clear();
    stage(job, p, "proving");
    trace_context_set(job->cfg.id, (int32_t)p);
    double t0 = clock_ms();
    st = groth16_prove_evals_deferred(&q->msm, &q->stats, job->cfg.pk, bufs->z, NULL, bufs->a,
                                      bufs->b, bufs->c, &q->opts);
    r->ms_prove = clock_ms() - t0;
    record_stats(r, &q->stats);
    if (st)
        return record_failure(r, st);
    q->pending = true;
    return G16_OK;
}

g16_status job_finish_partial(job_t *job, size_t p, const job_buffers *bufs)
{
    if (!job || p >= job->cfg.n_partitions || !job->partial || !job->partial[p].pending)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "job: partition %zu has no partial proof to finish", p);
    struct partial *q = &job->partial[p];
    job_result *r = &job->results[p];
    q->pending = false;
    status_clear();
    stage(job, p, "proving"); /* its second part, in the finalize stage */
    trace_context_set(job->cfg.id, (int32_t)p);
    double t0 = clock_ms();
    g16_status st = groth16_finish_deferred(&r->proof, &q->stats, job->cfg.pk, &q->msm,
                                            bufs->z, NULL, &q->opts);
    r->ms_prove += clock_ms() - t0;
    record_stats(r, &q->stats);
    return st ? record_failure(r, st) : record_proof(job, r);
}

g16_status job_verify_partition(job_t *job, size_t p)
{
    if (!job || p >= job->cfg.n_partitions)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "job: no partition %zu", p);
    const job_config *cfg = &job->cfg;
    job_result *r = &job->results[p];
    if (!cfg->vk)
        return G16_OK;
    status_clear();
    stage(job, p, "verifying");
    trace_context_set(cfg->id, (int32_t)p);
    double t0 = clock_ms();
    uint64_t span = trace_begin();
    g16_status st = groth16_verify(cfg->vk, r->public_inputs, cfg->n_public, &r->proof);
    trace_end(span, TRACE_VERIFY, "");
    r->ms_verify = clock_ms() - t0;
    if (st == G16_ERR_VERIFY_FAILED)
        st = status_fail(st, "partition %zu: the proof does not verify", p);
    if (st)
        return record_failure(r, st);
    record_proved(r);
    return G16_OK;
}

void job_cancel_partition(job_t *job, size_t p)
{
    if (!job || p >= job->cfg.n_partitions)
        return;
    job_result *r = &job->results[p];
    if (r->state == JOB_PARTITION_PROVED || r->state == JOB_PARTITION_FAILED)
        return;
    r->state = JOB_PARTITION_CANCELLED;
    r->status = G16_ERR_CANCELLED;
    snprintf(r->error, sizeof r->error, "partition %zu: cancelled", p);
}

g16_status job_prove_partition(job_t *job, size_t p, job_buffers *bufs)
{
    g16_status st = job_synthesize_partition(job, p, bufs);
    if (!st)
        st = job_prove_synthesized(job, p, bufs, NULL);
    if (!st)
        st = job_verify_partition(job, p);
    return st;
}

g16_status job_prove_all(job_t *job)
{
    job_buffers bufs;
    g16_status st = job_buffers_alloc(&bufs, job);
    for (size_t p = 0; !st && p < job->cfg.n_partitions; p++)
        st = job_prove_partition(job, p, &bufs);
    job_buffers_free(&bufs);
    return st;
}

size_t job_num_partitions(const job_t *job) { return job->cfg.n_partitions; }

size_t job_num_public(const job_t *job) { return job->cfg.n_public; }

const job_config *job_get_config(const job_t *job) { return &job->cfg; }

const job_result *job_get_result(const job_t *job, size_t p)
{
    return p < job->cfg.n_partitions ? &job->results[p] : NULL;
}

g16_status job_status(const job_t *job)
{
    size_t pending = 0, cancelled = 0;
    for (size_t p = 0; p < job->cfg.n_partitions; p++) {
        const job_result *r = &job->results[p];
        if (r->state == JOB_PARTITION_FAILED)
            return status_fail(r->status, "%s", r->error);
        pending += r->state == JOB_PARTITION_PENDING;
        cancelled += r->state == JOB_PARTITION_CANCELLED;
    }
    if (cancelled)
        return status_fail(G16_ERR_CANCELLED, "job: %zu of %zu partitions cancelled",
                           cancelled, job->cfg.n_partitions);
    if (pending)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "job: %zu of %zu partitions not proved",
                           pending, job->cfg.n_partitions);
    return G16_OK;
}
