/* The daemon's lifecycle, workers and heartbeat (daemon.h). */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "circuit/synthetic.h"
#include "daemon_internal.h"
#include "io/snarkjs_json.h"
#include "job/job.h"
#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/parallel.h"
#include "util/status.h"

double daemon_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One line on stderr with the time: what a daemon's operator reads in its journal. */
__attribute__((format(printf, 1, 2))) static void dlog(const char *fmt, ...)
{
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", localtime_r(&now, &tm));
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s g16 daemon: %s\n", when, line);
}

const char *part_stage_name(part_stage s)
{
    static const char *const NAMES[] = {"pending", "synthesizing", "proving", "verifying",
                                        "proved", "failed", "cancelled"};
    return (unsigned)s < sizeof NAMES / sizeof NAMES[0] ? NAMES[s] : "unknown";
}

/* --- workers --------------------------------------------------------------------------- */

typedef struct {
    daemon_state *d;
    inflight *slot;
    job_store *store; /* this worker's own handle (job_store.h: one thread per handle) */
    pthread_t thread;
} worker;

/* How a job ended, for the store. */
typedef struct {
    g16_status st;
    char error[512];
    json_t *result;
} outcome;

static void outcome_fail(outcome *o, g16_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void outcome_fail(outcome *o, g16_status st, const char *fmt, ...)
{
    o->st = st;
    va_list ap;
    va_start(ap, fmt);
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    status_text_fit(o->error, sizeof o->error, text);
    va_end(ap);
}

static void set_stage(inflight *slot, size_t p, part_stage s)
{
    if (slot->stage && p < slot->partitions)
        atomic_store(&slot->stage[p], (int)s);
}

/* job_config.on_stage: the pipeline's threads report each partition's stage. */
static void on_stage(void *ctx, size_t partition, const char *stage)
{
    part_stage s = !strcmp(stage, "synthesizing") ? PART_SYNTHESIZING
                   : !strcmp(stage, "proving")    ? PART_PROVING
                   : !strcmp(stage, "verifying")  ? PART_VERIFYING
                                                  : PART_PENDING;
    set_stage(ctx, partition, s);
}

/* Progress to the store; a G16_ERR_CANCELLED answer means the job is no longer ours. */
static void report_progress(worker *w, int done)
{
    daemon_state *d = w->d;
    g16_status st = store_progress(w->store, w->slot->id, d->owner, done);
    if (st == G16_ERR_CANCELLED) {
        daemon_cancel_local(d, w->slot->id);
    } else if (st) {
        atomic_fetch_add(&d->n.store_errors, 1);
        dlog("job %lld: progress not recorded: %s", (long long)w->slot->id, g16_last_error());
    }
}

static json_t *result_new(void)
{
    return json_pack("{s:[], s:[]}", "proofs", "public_signals");
}

/* Appends one proof and its public signals to a result; false when out of memory. */
static bool result_add(json_t *result, const groth16_proof *proof, const fr_t *inputs,
                       size_t n_public)
{
    json_t *p = json_proof_object(proof), *pub = json_public_array(inputs, n_public);
    bool ok = p && pub;
    if (ok)
        ok = !json_array_append(json_object_get(result, "proofs"), p) &&
             !json_array_append(json_object_get(result, "public_signals"), pub);
    json_decref(p);
    json_decref(pub);
    return ok;
}

static bool result_finish(json_t *result, const groth16_vk *vk, const char *kind,
                          const char *key, const char *backend_desc)
{
    json_t *v = json_vk_object(vk);
    return v && !json_object_set_new(result, "verification_key", v) &&
           !json_object_set_new(result, "kind", json_string(kind)) &&
           !json_object_set_new(result, "key", json_string(key)) &&
           !json_object_set_new(result, "backend", json_string(backend_desc));
}

/* Runs a job whose source the caller filled in (jc: source and its fields) through the
 * pipeline of its key, native or zkey alike: stages and per-partition progress as
 * partitions finish, cancellation through slot->pj, and the result. witnesses: the zkey
 * request's paths as given, to name a failed witness; NULL for native jobs. */
static void run_pipeline(worker *w, outcome *o, key_handle *kh, job_config *jc,
                         const char *kind, const char *const *witnesses)
{
    daemon_state *d = w->d;
    inflight *slot = w->slot;
    size_t parts = slot->partitions;
    pipeline *pl = NULL;
    pipeline_job *pj = NULL;
    job_t *job = NULL;
    if (key_cache_pipeline(d->keys, &pl, kh)) {
        outcome_fail(o, G16_ERR_IO, "key %s: %s", slot->key, g16_last_error());
        return;
    }
    jc->n_partitions = parts;
    jc->n_public = kh->n_public;
    jc->pk = kh->pk;
    jc->vk = kh->vk;
    jc->on_stage = on_stage;
    jc->ctx = slot;
    jc->id = (int32_t)(slot->id & 0x7fffffff);
    if (job_create(&job, jc) || pipeline_submit(pl, &pj, job)) {
        outcome_fail(o, G16_ERR_INTERNAL, "%s", g16_last_error());
        goto out;
    }
    pthread_mutex_lock(&d->mu);
    slot->pl = pl;
    slot->pj = pj;
    /* A cancellation that arrived before the handle existed. */
    if (atomic_load(&slot->cancelled) || atomic_load(&slot->requeue))
        pipeline_cancel(pl, pj);
    pthread_mutex_unlock(&d->mu);
    int proved = 0;
    for (size_t p = 0; p < parts; p++) {
        g16_status pst = pipeline_wait_partition(pl, pj, p);
        set_stage(slot, p, !pst ? PART_PROVED : pst == G16_ERR_CANCELLED ? PART_CANCELLED
                                                                         : PART_FAILED);
        if (!pst) {
            atomic_fetch_add(&d->n.proofs, 1);
            report_progress(w, ++proved);
        }
    }
    g16_status st = pipeline_wait(pl, pj);
    if (st) {
        /* The pipeline's message names the partition; a zkey client knows it by its file. */
        size_t failed = parts;
        for (size_t p = 0; witnesses && p < parts && failed == parts; p++)
            if (job_get_result(job, p)->state == JOB_PARTITION_FAILED)
                failed = p;
        if (failed < parts)
            outcome_fail(o, st, "witness %zu (%s): %s", failed, witnesses[failed],
                         g16_last_error());
        else
            outcome_fail(o, st, "%s", g16_last_error());
        goto out;
    }
    if (!(o->result = result_new())) {
        outcome_fail(o, G16_ERR_OUT_OF_MEMORY, "result");
        goto out;
    }
    for (size_t p = 0; p < parts; p++) {
        const job_result *r = job_get_result(job, p);
        if (!result_add(o->result, &r->proof, r->public_inputs, kh->n_public)) {
            outcome_fail(o, G16_ERR_OUT_OF_MEMORY, "result");
            goto out;
        }
    }
    if (!result_finish(o->result, kh->vk, kind, slot->key, pipeline_describe(pl)))
        outcome_fail(o, G16_ERR_OUT_OF_MEMORY, "result");
out:
    if (pj) {
        pthread_mutex_lock(&d->mu);
        slot->pj = NULL;
        slot->pl = NULL;
        pthread_mutex_unlock(&d->mu);
        pipeline_job_release(pl, pj);
    }
    job_free(job);
}

static void run_native(worker *w, outcome *o, json_t *req, key_handle *kh)
{
    size_t n = (size_t)json_integer_value(json_object_get(req, "constraints"));
    size_t parts = w->slot->partitions;
    uint64_t seed = (uint64_t)json_integer_value(json_object_get(req, "seed"));
    synthetic_params *params = calloc(parts, sizeof *params);
    const void **ptrs = calloc(parts, sizeof *ptrs);
    if (!params || !ptrs) {
        outcome_fail(o, G16_ERR_OUT_OF_MEMORY, "out of memory for %zu partitions", parts);
        goto out;
    }
    /* Partition p of a job with seed S is the synthetic circuit with seed S + p. */
    for (size_t p = 0; p < parts; p++) {
        params[p] = (synthetic_params){.n_constraints = n, .n_public = kh->n_public,
                                       .seed = seed + p};
        ptrs[p] = &params[p];
    }
    job_config jc = {.source = JOB_SOURCE_NATIVE, .circuit = synthetic_circuit,
                     .params = ptrs, .n_constraints = kh->n_constraints};
    run_pipeline(w, o, kh, &jc, "native", NULL);
out:
    free(params);
    free(ptrs);
}

static void run_zkey(worker *w, outcome *o, json_t *req, key_handle *kh)
{
    daemon_state *d = w->d;
    json_t *paths = json_object_get(req, "witnesses");
    size_t parts = w->slot->partitions;
    const char **given = calloc(parts, sizeof *given);
    char **resolved = calloc(parts, sizeof *resolved);
    if (!given || !resolved) {
        outcome_fail(o, G16_ERR_OUT_OF_MEMORY, "out of memory for %zu witnesses", parts);
        goto out;
    }
    if (json_array_size(paths) != parts) {
        outcome_fail(o, G16_ERR_INVALID_ARGUMENT, "the request has %zu witnesses, the job %zu",
                     json_array_size(paths), parts);
        goto out;
    }
    for (size_t i = 0; i < parts; i++) {
        given[i] = json_string_value(json_array_get(paths, i));
        /* Confined again: the file may have been replaced by a link since submission. The
         * pipeline's synthesis opens and checks each witness (job_source_zkey.c). */
        if (!given[i] || config_confine_path(&resolved[i], &d->cfg->input_dirs, given[i])) {
            outcome_fail(o, G16_ERR_INVALID_ARGUMENT, "witness %zu (%s): %s", i,
                         given[i] ? given[i] : "?", given[i] ? g16_last_error() : "no path");
            goto out;
        }
    }
    /* The key cache checked the zkey's coefficients when it loaded the key. */
    job_config jc = {.source = JOB_SOURCE_ZKEY, .zkey = kh->zkey,
                     .wtns_paths = (const char *const *)resolved, .zkey_coefs_checked = true};
    run_pipeline(w, o, kh, &jc, "zkey", given);
out:
    for (size_t i = 0; resolved && i < parts; i++)
        free(resolved[i]);
    free(resolved);
    free(given);
}

/* Writes the outcome once, as the holder of the lease. */
static void settle(worker *w, outcome *o)
{
    daemon_state *d = w->d;
    inflight *slot = w->slot;
    long long id = (long long)slot->id;
    if (atomic_load(&slot->requeue)) {
        /* Shutdown: daemon_run puts it back in the queue (store_requeue_owner). */
        atomic_fetch_add(&d->n.jobs_requeued, 1);
        dlog("job %lld: stopped for shutdown, back to the queue", id);
        return;
    }
    if (atomic_load(&slot->cancelled)) {
        atomic_fetch_add(&d->n.jobs_cancelled, 1);
        dlog("job %lld: cancelled, or taken over by another daemon", id);
        return;
    }
    g16_status st;
    if (!o->st) {
        char *text = json_dumps(o->result, JSON_COMPACT);
        st = text ? store_finish(w->store, slot->id, d->owner, text)
                  : status_fail(G16_ERR_OUT_OF_MEMORY, "result text");
        free(text);
        if (!st) {
            atomic_fetch_add(&d->n.jobs_done, 1);
            dlog("job %lld: done (%zu proof%s)", id, slot->partitions,
                 slot->partitions == 1 ? "" : "s");
            return;
        }
    } else {
        st = store_fail(w->store, slot->id, d->owner, o->error);
        if (!st) {
            atomic_fetch_add(&d->n.jobs_failed, 1);
            dlog("job %lld: failed: %s", id, o->error);
            return;
        }
    }
    if (st == G16_ERR_CANCELLED) {
        atomic_fetch_add(&d->n.jobs_cancelled, 1);
        dlog("job %lld: result dropped: %s", id, g16_last_error());
    } else {
        /* The job stays running under our name; its lease runs out and it is claimed
         * again (by us or another daemon): never forgotten. */
        atomic_fetch_add(&d->n.store_errors, 1);
        dlog("job %lld: the store refused the result: %s", id, g16_last_error());
    }
}

static void run_job(worker *w, store_job *sj)
{
    daemon_state *d = w->d;
    inflight *slot = w->slot;
    json_error_t jerr;
    json_t *req = json_loads(sj->request ? sj->request : "", 0, &jerr);
    const char *kind = json_string_value(json_object_get(req, "kind"));
    const char *key = json_string_value(json_object_get(req, "key"));
    if (!req || !kind || !key) {
        /* Requests are validated before they are stored: this is a foreign row. */
        if (store_fail(w->store, sj->id, d->owner, "the stored request is not a g16 job"))
            atomic_fetch_add(&d->n.store_errors, 1);
        json_decref(req);
        return;
    }
    if (sj->attempts > d->cfg->max_attempts) {
        char reason[200];
        snprintf(reason, sizeof reason,
                 "given up after %d claims: the daemons proving it stopped each time "
                 "(max_attempts = %lld)", sj->attempts - 1, (long long)d->cfg->max_attempts);
        if (!store_fail(w->store, sj->id, d->owner, reason))
            atomic_fetch_add(&d->n.jobs_failed, 1);
        dlog("job %lld: %s", (long long)sj->id, reason);
        json_decref(req);
        return;
    }
    size_t parts = sj->partitions > 0 ? (size_t)sj->partitions : 1;
    _Atomic int *stage = calloc(parts, sizeof *stage);
    pthread_mutex_lock(&d->mu);
    slot->busy = true;
    slot->id = sj->id;
    snprintf(slot->kind, sizeof slot->kind, "%s", kind);
    snprintf(slot->key, sizeof slot->key, "%s", key);
    slot->partitions = stage ? parts : 0;
    slot->stage = stage;
    atomic_store(&slot->cancelled, false);
    atomic_store(&slot->requeue, d->hard_stop);
    pthread_mutex_unlock(&d->mu);
    dlog("job %lld: claimed (%s, key %s, %zu partition%s, attempt %d)", (long long)sj->id, kind,
         key, parts, parts == 1 ? "" : "s", sj->attempts);

    outcome o = {0};
    key_handle *kh = NULL;
    if (!stage)
        outcome_fail(&o, G16_ERR_OUT_OF_MEMORY, "out of memory for %zu partitions", parts);
    else if (key_cache_acquire(d->keys, &kh, key))
        outcome_fail(&o, G16_ERR_IO, "key %s: %s", key, g16_last_error());
    else if (!strcmp(kind, "native"))
        run_native(w, &o, req, kh);
    else
        run_zkey(w, &o, req, kh);
    key_cache_release(d->keys, kh);
    settle(w, &o);
    json_decref(o.result);
    json_decref(req);

    pthread_mutex_lock(&d->mu);
    slot->busy = false;
    slot->stage = NULL;
    slot->partitions = 0;
    pthread_cond_broadcast(&d->wake); /* shutdown waits for busy slots */
    pthread_mutex_unlock(&d->mu);
    free(stage);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    daemon_state *d = w->d;
    for (;;) {
        pthread_mutex_lock(&d->mu);
        bool stop = d->stopping;
        uint64_t gen = d->work_gen;
        pthread_mutex_unlock(&d->mu);
        if (stop)
            break;
        store_job sj = {0};
        bool claimed = false;
        g16_status st = store_claim(w->store, &sj, &claimed, d->owner, d->cfg->lease);
        if (st) {
            atomic_fetch_add(&d->n.store_errors, 1);
            dlog("claiming a job: %s", g16_last_error());
        }
        if (claimed) {
            run_job(w, &sj);
            store_job_clear(&sj);
            continue;
        }
        /* Nothing to do: sleep until a submission wakes us or the poll interval passes
         * (other daemons' submissions reach us only through the store). */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        double s = (double)until.tv_nsec / 1e9 + d->cfg->poll;
        until.tv_sec += (time_t)s;
        until.tv_nsec = (long)((s - (double)(time_t)s) * 1e9);
        pthread_mutex_lock(&d->mu);
        while (!d->stopping && d->work_gen == gen &&
               pthread_cond_timedwait(&d->wake, &d->mu, &until) == 0)
            ;
        pthread_mutex_unlock(&d->mu);
    }
    return NULL;
}

void daemon_wake(daemon_state *d)
{
    pthread_mutex_lock(&d->mu);
    d->work_gen++;
    pthread_cond_broadcast(&d->wake);
    pthread_mutex_unlock(&d->mu);
}

json_t *daemon_job_progress(daemon_state *d, int64_t id)
{
    json_t *arr = NULL;
    pthread_mutex_lock(&d->mu);
    for (int64_t i = 0; i < d->cfg->concurrency; i++) {
        inflight *s = &d->slots[i];
        if (!s->busy || s->id != id || !s->stage)
            continue;
        arr = json_array();
        for (size_t p = 0; arr && p < s->partitions; p++)
            json_array_append_new(arr, json_string(part_stage_name(atomic_load(&s->stage[p]))));
    }
    pthread_mutex_unlock(&d->mu);
    return arr;
}

void daemon_cancel_local(daemon_state *d, int64_t id)
{
    pthread_mutex_lock(&d->mu);
    for (int64_t i = 0; i < d->cfg->concurrency; i++) {
        inflight *slot = &d->slots[i];
        if (slot->busy && slot->id == id) {
            atomic_store(&slot->cancelled, true);
            if (slot->pj)
                pipeline_cancel(slot->pl, slot->pj);
        }
    }
    pthread_mutex_unlock(&d->mu);
}

/* --- heartbeat --------------------------------------------------------------------------- */

typedef struct {
    daemon_state *d;
    job_store *store;
    pthread_t thread;
    bool stop; /* under d->mu */
} heartbeat;

static void *heartbeat_main(void *arg)
{
    heartbeat *hb = arg;
    daemon_state *d = hb->d;
    int64_t *ids = calloc((size_t)d->cfg->concurrency, sizeof *ids);
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        double s = (double)until.tv_nsec / 1e9 + d->cfg->lease / 3;
        until.tv_sec += (time_t)s;
        until.tv_nsec = (long)((s - (double)(time_t)s) * 1e9);
        pthread_mutex_lock(&d->mu);
        while (!hb->stop && pthread_cond_timedwait(&d->wake, &d->mu, &until) == 0)
            ;
        bool stop = hb->stop;
        size_t n = 0;
        for (int64_t i = 0; ids && i < d->cfg->concurrency; i++)
            if (d->slots[i].busy)
                ids[n++] = d->slots[i].id;
        pthread_mutex_unlock(&d->mu);
        if (stop)
            break;
        for (size_t k = 0; k < n; k++) {
            g16_status st = store_heartbeat(hb->store, ids[k], d->owner, d->cfg->lease);
            if (st == G16_ERR_CANCELLED) {
                dlog("job %lld: %s", (long long)ids[k], g16_last_error());
                daemon_cancel_local(d, ids[k]);
            } else if (st) {
                atomic_fetch_add(&d->n.store_errors, 1);
                dlog("job %lld: heartbeat failed: %s", (long long)ids[k], g16_last_error());
            }
        }
    }
    free(ids);
    return NULL;
}

/* --- start and stop ------------------------------------------------------------------------ */

static int start_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int start_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "g16 daemon: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* The bearer token: the configured file, or STATE_DIR/token made with 32 random bytes
 * (hex) when missing. Surrounding white space is not part of it. */
static g16_status load_token(daemon_state *d, const char *state_dir)
{
    char path[PATH_MAX];
    const char *cfg_path = d->cfg->token_file;
    if (*cfg_path)
        snprintf(path, sizeof path, "%s", cfg_path);
    else if (snprintf(path, sizeof path, "%s/token", state_dir) >= (int)sizeof path)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "state directory path too long");
    if (!*cfg_path && access(path, F_OK) != 0) {
        unsigned char raw[32];
        char hex[65];
        if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
            return status_fail(G16_ERR_IO, "getrandom: %s", strerror(errno));
        for (size_t i = 0; i < sizeof raw; i++)
            snprintf(hex + 2 * i, 3, "%02x", raw[i]);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0)
            return status_fail(G16_ERR_IO, "%s: %s", path, strerror(errno));
        bool ok = write(fd, hex, 64) == 64 && write(fd, "\n", 1) == 1;
        ok = (close(fd) == 0) && ok;
        if (!ok) {
            unlink(path); /* not a short token that the next start would refuse */
            return status_fail(G16_ERR_IO, "%s: cannot write the token", path);
        }
        dlog("made a token in %s", path);
    }
    FILE *f;
    if (input_file_open(&f, path))
        return status_fail(G16_ERR_IO, "token file %s", g16_last_error());
    size_t n = fread(d->token, 1, sizeof d->token - 1, f);
    bool more = fgetc(f) != EOF;
    fclose(f);
    d->token[n] = 0;
    while (n && strchr(" \t\r\n", d->token[n - 1]))
        d->token[--n] = 0;
    size_t skip = strspn(d->token, " \t\r\n");
    memmove(d->token, d->token + skip, n - skip + 1);
    d->token_len = n - skip;
    if (more || d->token_len < 16)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "token file %s: want a token of 16 to 254 characters", path);
    struct stat sb;
    if (stat(path, &sb) == 0 && (sb.st_mode & 077))
        dlog("warning: the token file %s is readable by other users", path);
    return G16_OK;
}

/* The default owner: the host name and a hash of the state directory, so that a daemon
 * restarted on the same directory is the same owner (and takes its jobs back at once),
 * while two daemons of one host (two directories) are different owners. */
static void default_owner(char *out, size_t cap, const char *state_dir_real)
{
    char host[256] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = state_dir_real; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    snprintf(out, cap, "%.40s-%08llx", host, (unsigned long long)(h & 0xffffffffull));
}

/* What a daemon killed while writing left in its state directory (util/atomic_file.h's
 * PATH.tmp-PID-N): a native key made on demand can be gigabytes. Only this daemon writes
 * there (it holds the lock), so every one is stale. */
static void remove_temporaries(const char *state_dir)
{
    static const char *const WHERE[] = {"%s/keys/*.tmp-*", "%s/port.tmp-*"};
    for (size_t i = 0; i < 2; i++) {
        char pattern[PATH_MAX + 32];
        snprintf(pattern, sizeof pattern, WHERE[i], state_dir);
        glob_t g;
        if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0)
            for (size_t k = 0; k < g.gl_pathc; k++)
                if (unlink(g.gl_pathv[k]) == 0)
                    dlog("removed %s (left by a daemon that stopped while writing it)",
                         g.gl_pathv[k]);
        globfree(&g);
    }
}

static g16_status write_port_file(const char *state_dir, unsigned port)
{
    char path[PATH_MAX], text[16];
    snprintf(path, sizeof path, "%s/port", state_dir);
    int len = snprintf(text, sizeof text, "%u\n", port);
    return atomic_file_write(path, text, (size_t)len);
}

int daemon_run(const daemon_config *cfg)
{
    static daemon_state state; /* one daemon per process */
    daemon_state *d = &state;
    memset(d, 0, sizeof *d);
    d->cfg = cfg;
    d->start_s = daemon_now_s();
    int rc = 2, lock_fd = -1;
    void *server = NULL;
    worker *workers = NULL;
    heartbeat hb = {.d = d};
    size_t started = 0, requeued = 0, nw = (size_t)cfg->concurrency;
    bool hb_started = false;
    char *state_dir = NULL;
    char path[PATH_MAX + 32];
    pthread_mutex_init(&d->mu, NULL);
    pthread_mutex_init(&d->http_mu, NULL);
    pthread_cond_init(&d->wake, NULL);

    if (mkdir(cfg->state_dir, 0700) != 0 && errno != EEXIST) {
        rc = start_fail("state directory %s: %s", cfg->state_dir, strerror(errno));
        goto out;
    }
    if (!(state_dir = realpath(cfg->state_dir, NULL))) {
        rc = start_fail("state directory %s: %s", cfg->state_dir, strerror(errno));
        goto out;
    }
    snprintf(path, sizeof path, "%s/daemon.lock", state_dir);
    lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
        rc = start_fail("%s: %s", path,
                        errno == EWOULDBLOCK ? "another daemon uses this state directory"
                                             : strerror(errno));
        goto out;
    }
    remove_temporaries(state_dir);
    if (*cfg->owner) {
        if (strlen(cfg->owner) >= sizeof d->owner) {
            rc = start_fail("owner '%s' is longer than %zu characters", cfg->owner,
                            sizeof d->owner - 1);
            goto out;
        }
        snprintf(d->owner, sizeof d->owner, "%s", cfg->owner);
    } else {
        default_owner(d->owner, sizeof d->owner, state_dir);
    }
    if (load_token(d, state_dir)) {
        rc = start_fail("%s", g16_last_error());
        goto out;
    }
    if (*cfg->store)
        snprintf(d->store_url, sizeof d->store_url, "%s", cfg->store);
    else
        snprintf(d->store_url, sizeof d->store_url, "sqlite:%s/jobs.db", state_dir);
    if (store_open(&d->http_store, d->store_url)) {
        rc = start_fail("store: %s", g16_last_error());
        goto out;
    }
    /* Jobs this owner held when it last stopped (kill -9, a crash) run again now rather
     * than after their leases expire. */
    if (store_requeue_owner(d->http_store, &requeued, d->owner)) {
        rc = start_fail("store: %s", g16_last_error());
        goto out;
    }
    if (cfg->threads > 0)
        parallel_set_threads((unsigned)cfg->threads);
    backend *probe;
    if (backend_open(&probe, cfg->backend)) {
        rc = start_fail("backend %s: %s", cfg->backend, g16_last_error());
        goto out;
    }
    snprintf(d->backend_desc, sizeof d->backend_desc, "%s", probe->description);
    backend_close(probe);
    if (key_cache_create(&d->keys, cfg, cfg->key_budget)) {
        rc = start_fail("%s", g16_last_error());
        goto out;
    }
    for (size_t i = 0; i < cfg->preload.count; i++) {
        key_handle *kh;
        if (key_cache_acquire(d->keys, &kh, cfg->preload.items[i])) {
            rc = start_fail("preload %s: %s", cfg->preload.items[i], g16_last_error());
            goto out;
        }
        key_cache_release(d->keys, kh);
        dlog("preloaded key %s", cfg->preload.items[i]);
    }

    /* Signals: SIGTERM and SIGINT are taken by sigwait below, so every thread started
     * from here inherits them blocked. A client that hangs up must not kill us. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    d->slots = calloc(nw, sizeof *d->slots);
    workers = calloc(nw, sizeof *workers);
    if (!d->slots || !workers) {
        rc = start_fail("out of memory for %zu workers", nw);
        goto out;
    }
    for (size_t i = 0; i < nw; i++) {
        workers[i] = (worker){.d = d, .slot = &d->slots[i]};
        if (store_open(&workers[i].store, d->store_url)) {
            rc = start_fail("store: %s", g16_last_error());
            goto out;
        }
    }
    if (store_open(&hb.store, d->store_url)) {
        rc = start_fail("store: %s", g16_last_error());
        goto out;
    }
    if (http_start(d, &server)) {
        rc = start_fail("%s", g16_last_error());
        goto out;
    }
    for (; started < nw; started++)
        if (pthread_create(&workers[started].thread, NULL, worker_main, &workers[started])) {
            rc = start_fail("cannot start worker threads");
            goto stop;
        }
    if (pthread_create(&hb.thread, NULL, heartbeat_main, &hb)) {
        rc = start_fail("cannot start the heartbeat thread");
        goto stop;
    }
    hb_started = true;
    dlog("listening on http://%s:%u; store %s (%s), owner %s, backend %s, %lld worker%s",
         cfg->listen, d->port, d->store_url, store_kind(d->http_store), d->owner,
         d->backend_desc, (long long)cfg->concurrency, cfg->concurrency == 1 ? "" : "s");
    if (requeued)
        dlog("%zu job%s from this owner's last run back in the queue", requeued,
             requeued == 1 ? "" : "s");
    /* Last: a client that sees the port file finds the daemon started and its start-up
     * logged. */
    if (write_port_file(state_dir, d->port)) {
        rc = start_fail("%s", g16_last_error());
        goto stop;
    }

    int sig = 0;
    while (sigwait(&sigs, &sig) != 0)
        ;
    dlog("%s: stopping (jobs in flight get %.0f s)", sig == SIGTERM ? "SIGTERM" : "SIGINT",
         cfg->shutdown_grace);
    rc = 0;
stop:
    /* No more claims (workers exit when their job is done) or submissions. */
    pthread_mutex_lock(&d->mu);
    d->stopping = true;
    pthread_cond_broadcast(&d->wake);
    double deadline = daemon_now_s() + cfg->shutdown_grace;
    for (;;) {
        bool busy = false;
        for (size_t i = 0; i < nw; i++)
            busy |= d->slots[i].busy;
        if (!busy || daemon_now_s() >= deadline)
            break;
        pthread_mutex_unlock(&d->mu);
        usleep(20000);
        pthread_mutex_lock(&d->mu);
    }
    /* What is left stops and goes back to the queue for the next daemon. */
    d->hard_stop = true;
    for (size_t i = 0; i < nw; i++)
        if (d->slots[i].busy) {
            atomic_store(&d->slots[i].requeue, true);
            if (d->slots[i].pj)
                pipeline_cancel(d->slots[i].pl, d->slots[i].pj);
        }
    pthread_mutex_unlock(&d->mu);
    for (size_t i = 0; i < started; i++)
        pthread_join(workers[i].thread, NULL);
    started = 0;
    if (hb_started) {
        pthread_mutex_lock(&d->mu);
        hb.stop = true;
        pthread_cond_broadcast(&d->wake);
        pthread_mutex_unlock(&d->mu);
        pthread_join(hb.thread, NULL);
    }
    requeued = 0;
    if (store_requeue_owner(hb.store ? hb.store : d->http_store, &requeued, d->owner))
        dlog("putting jobs back in the queue: %s", g16_last_error());
    else if (requeued)
        dlog("%zu job%s back in the queue", requeued, requeued == 1 ? "" : "s");
    http_stop(server);
    server = NULL;
    dlog("stopped");
out:
    http_stop(server);
    for (size_t i = 0; workers && i < nw; i++) {
        if (workers[i].store)
            store_close(workers[i].store);
    }
    free(workers);
    if (hb.store)
        store_close(hb.store);
    key_cache_free(d->keys);
    if (d->http_store)
        store_close(d->http_store);
    free(d->slots);
    if (state_dir && rc == 0) {
        snprintf(path, sizeof path, "%s/port", state_dir);
        unlink(path);
    }
    free(state_dir);
    if (lock_fd >= 0)
        close(lock_fd);
    return rc;
}
