/* /metrics (Prometheus text format 0.0.4) and /status (JSON) from the daemon's state.
 *
 * Job counts by state come from the store, so with a shared PostgreSQL queue they are
 * the whole queue's; everything else is this daemon's. Prover busy ratio: the time the
 * prover workers spent in proving calls over their wall time since start (the pipeline's
 * prove_busy_ms plus zkey proofs). With the CUDA backend that bounds GPU utilisation from
 * above (a call's window includes uploads and host work); kernel busy time per device is
 * what `g16 trace report` measures. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_internal.h"
#include "util/buffer.h"

typedef struct {
    buffer buf;
    bool failed;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* Every line here is short; one that is not is a bug, not a metric to cut. */
    if (t->failed || n < 0 || (size_t)n >= sizeof line ||
        !buffer_append(&t->buf, line, (size_t)n))
        t->failed = true;
}

/* A labelled family: one line per (label value, count). */
typedef struct {
    const char *value;
    uint64_t count;
} labelled;

static void family(text *t, const char *name, const char *type, const char *help,
                   const char *label, const labelled *rows, size_t n)
{
    put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
    for (size_t i = 0; i < n; i++)
        put(t, "%s{%s=\"%s\"} %llu\n", name, label, rows[i].value,
            (unsigned long long)rows[i].count);
}

static void metric(text *t, const char *name, const char *type, const char *help)
{
    put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

typedef struct {
    size_t jobs, partitions; /* in flight here */
} flight;

static flight in_flight(daemon_state *d)
{
    flight f = {0};
    pthread_mutex_lock(&d->mu);
    for (int64_t i = 0; i < d->cfg->concurrency; i++) {
        inflight *s = &d->slots[i];
        if (!s->busy)
            continue;
        f.jobs++;
        for (size_t p = 0; s->stage && p < s->partitions; p++) {
            int st = atomic_load(&s->stage[p]);
            f.partitions += st == PART_SYNTHESIZING || st == PART_PROVING || st == PART_VERIFYING;
        }
    }
    pthread_mutex_unlock(&d->mu);
    return f;
}

static bool store_counts_locked(daemon_state *d, uint64_t counts[5])
{
    pthread_mutex_lock(&d->http_mu);
    g16_status st = store_counts(d->http_store, counts);
    pthread_mutex_unlock(&d->http_mu);
    if (st)
        atomic_fetch_add(&d->n.store_errors, 1);
    return !st;
}

static double busy_ratio(daemon_state *d, const key_cache_stats *ks)
{
    double wall_ms = (daemon_now_s() - d->start_s) * 1e3 * (double)d->cfg->concurrency;
    double busy = ks->prove_busy_ms; /* every job, native or zkey, runs in a pipeline */
    return wall_ms > 0 ? (busy / wall_ms > 1 ? 1 : busy / wall_ms) : 0;
}

static bool backend_is_cuda(const daemon_state *d) { return !strncmp(d->backend_desc, "cuda", 4); }

char *metrics_prometheus(daemon_state *d)
{
    text t = {0};
    uint64_t counts[5] = {0};
    bool have_counts = store_counts_locked(d, counts);
    flight f = in_flight(d);
    key_cache_stats ks;
    key_cache_stats_get(d->keys, &ks);
    const daemon_counters *n = &d->n;

    metric(&t, "g16_build_info", "gauge", "g16 version, backend and store kind");
    put(&t, "g16_build_info{version=\"%s\",backend=\"%s\",store=\"%s\"} 1\n", g16_version(),
        backend_is_cuda(d) ? "cuda" : "cpu", store_kind(d->http_store));
    metric(&t, "g16_uptime_seconds", "gauge", "seconds since the daemon started");
    put(&t, "g16_uptime_seconds %.3f\n", daemon_now_s() - d->start_s);
    if (have_counts) {
        labelled by_state[5];
        for (int s = 0; s < 5; s++)
            by_state[s] = (labelled){store_state_name((store_state)s), counts[s]};
        family(&t, "g16_jobs", "gauge", "jobs in the store by state (every daemon sharing it)",
               "state", by_state, 5);
        metric(&t, "g16_queue_depth", "gauge", "queued jobs waiting for a daemon");
        put(&t, "g16_queue_depth %llu\n", (unsigned long long)counts[STORE_QUEUED]);
    }
    metric(&t, "g16_jobs_in_flight", "gauge", "jobs this daemon is proving");
    put(&t, "g16_jobs_in_flight %zu\n", f.jobs);
    metric(&t, "g16_partitions_in_flight", "gauge",
           "partitions synthesizing, proving or verifying here");
    put(&t, "g16_partitions_in_flight %zu\n", f.partitions);
    metric(&t, "g16_proofs_total", "counter", "partitions (or witnesses) proved and verified");
    put(&t, "g16_proofs_total %llu\n", (unsigned long long)atomic_load(&n->proofs));
    labelled finished[] = {{"done", atomic_load(&n->jobs_done)},
                           {"failed", atomic_load(&n->jobs_failed)},
                           {"cancelled", atomic_load(&n->jobs_cancelled)},
                           {"requeued", atomic_load(&n->jobs_requeued)}};
    family(&t, "g16_jobs_finished_total", "counter", "jobs this daemon finished, by result",
           "result", finished, 4);
    labelled subs[] = {{"accepted", atomic_load(&n->submitted)},
                       {"rejected", atomic_load(&n->rejected)}};
    family(&t, "g16_submissions_total", "counter", "job submissions, by answer", "result", subs,
           2);
    labelled errors[] = {{"job_failed", atomic_load(&n->jobs_failed)},
                         {"http_4xx", atomic_load(&n->http_4xx)},
                         {"http_5xx", atomic_load(&n->http_5xx)},
                         {"store", atomic_load(&n->store_errors)}};
    family(&t, "g16_errors_total", "counter",
           "errors: failed jobs, HTTP 4xx and 5xx answers, store failures", "kind", errors, 4);
    metric(&t, "g16_http_requests_total", "counter", "HTTP requests received");
    put(&t, "g16_http_requests_total %llu\n", (unsigned long long)atomic_load(&n->http_requests));
    metric(&t, "g16_prover_busy_ratio", "gauge",
           "time in proving calls over the prover workers' wall time since start (on CUDA, an "
           "upper bound of GPU utilisation)");
    put(&t, "g16_prover_busy_ratio{backend=\"%s\"} %.4f\n", backend_is_cuda(d) ? "cuda" : "cpu",
        busy_ratio(d, &ks));
    metric(&t, "g16_key_budget_bytes", "gauge", "bytes loaded keys may take (key_budget)");
    put(&t, "g16_key_budget_bytes %llu\n", (unsigned long long)ks.budget);
    metric(&t, "g16_key_loaded_bytes", "gauge", "bytes of the keys loaded now");
    put(&t, "g16_key_loaded_bytes %llu\n", (unsigned long long)ks.loaded_bytes);
    metric(&t, "g16_keys_loaded", "gauge", "keys loaded now");
    put(&t, "g16_keys_loaded %zu\n", ks.loaded);
    metric(&t, "g16_keys_in_use", "gauge", "keys held by jobs now");
    put(&t, "g16_keys_in_use %zu\n", ks.in_use);
    metric(&t, "g16_key_loads_total", "counter", "key loads (and native key setups)");
    put(&t, "g16_key_loads_total %zu\n", ks.loads);
    metric(&t, "g16_key_evictions_total", "counter", "keys evicted to fit the budget or by request");
    put(&t, "g16_key_evictions_total %zu\n", ks.evictions);
    metric(&t, "g16_pipeline_budget_bytes", "gauge",
           "host budget of the keys' pipelines, summed");
    put(&t, "g16_pipeline_budget_bytes %llu\n", (unsigned long long)ks.pipeline_budget_bytes);
    metric(&t, "g16_pipeline_admitted_peak_bytes", "gauge",
           "peak bytes admitted by the pipelines, summed");
    put(&t, "g16_pipeline_admitted_peak_bytes %llu\n",
        (unsigned long long)ks.pipeline_admitted_peak);
    if (t.failed) {
        free(t.buf.data);
        return NULL;
    }
    return t.buf.data;
}

json_t *metrics_status(daemon_state *d)
{
    uint64_t counts[5] = {0};
    bool have_counts = store_counts_locked(d, counts);
    key_cache_stats ks;
    key_cache_stats_get(d->keys, &ks);
    pthread_mutex_lock(&d->mu);
    bool stopping = d->stopping;
    json_t *jobs = json_array();
    for (int64_t i = 0; jobs && i < d->cfg->concurrency; i++) {
        inflight *s = &d->slots[i];
        if (s->busy)
            json_array_append_new(jobs, json_pack("{s:I, s:s, s:s, s:I}", "id",
                                                  (json_int_t)s->id, "kind", s->kind, "key",
                                                  s->key, "partitions",
                                                  (json_int_t)s->partitions));
    }
    pthread_mutex_unlock(&d->mu);
    json_t *by_state = json_object();
    for (int s = 0; have_counts && by_state && s < 5; s++)
        json_object_set_new(by_state, store_state_name((store_state)s),
                            json_integer((json_int_t)counts[s]));
    if (!have_counts) {
        json_decref(by_state);
        by_state = json_null();
    }
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:b, s:o, s:o, s:o, s:{s:I, s:I}, "
                     "s:I, s:f}",
                     "version", g16_version(), "owner", d->owner, "store",
                     store_kind(d->http_store), "backend", d->backend_desc, "listen",
                     d->cfg->listen, "port", (int)d->port, "uptime_s",
                     daemon_now_s() - d->start_s, "stopping", stopping, "jobs",
                     by_state, "in_flight", jobs, "keys",
                     key_cache_list(d->keys), "key_budget", "budget", (json_int_t)ks.budget,
                     "loaded", (json_int_t)ks.loaded_bytes, "proofs",
                     (json_int_t)atomic_load(&d->n.proofs), "prover_busy_ratio",
                     busy_ratio(d, &ks));
}
