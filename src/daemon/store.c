/* The job store's front: picks the implementation from the URL and checks every call's
 * arguments once, so that store_sqlite.c and store_postgres.c handle only valid ones. */
#include "daemon/store_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

const char *store_state_name(store_state s)
{
    switch (s) {
    case STORE_QUEUED: return "queued";
    case STORE_RUNNING: return "running";
    case STORE_DONE: return "done";
    case STORE_FAILED: return "failed";
    case STORE_CANCELLED: return "cancelled";
    }
    return "unknown";
}

bool store_state_parse(store_state *state, const char *name)
{
    for (int s = STORE_QUEUED; s <= STORE_CANCELLED; s++) {
        if (name && strcmp(name, store_state_name((store_state)s)) == 0) {
            *state = (store_state)s;
            return true;
        }
    }
    return false;
}

void store_job_clear(store_job *job)
{
    if (!job)
        return;
    free(job->request);
    free(job->result);
    free(job->error);
    memset(job, 0, sizeof *job);
}

g16_status store_strdup(char **out, const char *s)
{
    *out = NULL;
    if (!s)
        return G16_OK;
    size_t n = strlen(s) + 1;
    *out = malloc(n);
    if (!*out)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "job store: out of memory copying %zu bytes",
                           n);
    memcpy(*out, s, n);
    return G16_OK;
}

g16_status store_refused(const char *kind, const char *what, int64_t id, const char *owner,
                         bool found, const store_job *now)
{
    long long i = (long long)id;
    if (!found)
        return status_fail(G16_ERR_CANCELLED, "%s store: %s of job %lld by %s refused: no such job",
                           kind, what, i, owner);
    switch (now->state) {
    case STORE_RUNNING:
        if (strcmp(now->owner, owner) == 0)
            return status_fail(G16_ERR_INVALID_ARGUMENT,
                               "%s store: %s of job %lld refused: out of range for the job "
                               "(%d partitions)", kind, what, i, now->partitions);
        return status_fail(G16_ERR_CANCELLED,
                           "%s store: %s of job %lld by %s refused: the job was taken over by "
                           "%s after %s's lease expired", kind, what, i, owner, now->owner, owner);
    case STORE_QUEUED:
        return status_fail(G16_ERR_CANCELLED,
                           "%s store: %s of job %lld by %s refused: the job is queued (its lease "
                           "was released or expired), %s no longer holds it", kind, what, i,
                           owner, owner);
    case STORE_CANCELLED:
        return status_fail(G16_ERR_CANCELLED, "%s store: %s of job %lld by %s refused: the job "
                           "was cancelled (%s)", kind, what, i, owner,
                           now->error ? now->error : "no reason given");
    case STORE_DONE:
    case STORE_FAILED:
        return status_fail(G16_ERR_CANCELLED, "%s store: %s of job %lld by %s refused: the job "
                           "is already %s", kind, what, i, owner, store_state_name(now->state));
    }
    return status_fail(G16_ERR_INTERNAL, "%s store: job %lld in an unknown state", kind, i);
}

/* --- opening ------------------------------------------------------------------------- */

/* The URL's scheme: the letters before "://" (or before ":" for "sqlite:", which names a
 * path, not an authority). A plain path has none: "jobs.db", "/var/lib/g16/jobs.db", and
 * also "a:b.db", because only "sqlite:" and "<scheme>://" are taken as schemes. */
static size_t url_scheme_length(const char *url)
{
    if (strncmp(url, "sqlite:", 7) == 0)
        return 6;
    size_t n = 0;
    if (!isalpha((unsigned char)url[0]))
        return 0;
    while (isalnum((unsigned char)url[n]) || url[n] == '+' || url[n] == '-' || url[n] == '.')
        n++;
    return strncmp(url + n, "://", 3) == 0 ? n : 0;
}

g16_status store_open(job_store **store, const char *url)
{
    if (!store)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "store_open: null handle pointer");
    *store = NULL;
    if (!url || !*url)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "store_open: empty store URL");
    size_t n = url_scheme_length(url);
    if (n == 0)
        return store_sqlite_open(store, url);
    if (n == 6 && strncmp(url, "sqlite", 6) == 0) {
        /* "sqlite:PATH"; "sqlite:///abs/path" (the SQLAlchemy spelling) is "/abs/path". */
        const char *path = url + 7;
        if (strncmp(path, "//", 2) == 0)
            path += 2;
        if (!*path)
            return status_fail(G16_ERR_INVALID_ARGUMENT, "store_open: \"%s\" names no file",
                               url);
        return store_sqlite_open(store, path);
    }
    if ((n == 10 && strncmp(url, "postgresql", 10) == 0) ||
        (n == 8 && strncmp(url, "postgres", 8) == 0))
        return store_postgres_open(store, url);
    return status_fail(G16_ERR_FORMAT,
                       "store_open: unknown store URL scheme \"%.*s\" (want sqlite:PATH, a "
                       "file path, postgresql:// or postgres://)", (int)n, url);
}

void store_close(job_store *store)
{
    if (store)
        store->ops->close(store);
}

const char *store_kind(const job_store *store) { return store ? store->ops->kind : "none"; }

/* --- argument checks ------------------------------------------------------------------ */

#define CHECK_ARG(cond, ...) \
    do { \
        if (!(cond)) \
            return status_fail(G16_ERR_INVALID_ARGUMENT, __VA_ARGS__); \
    } while (0)

static g16_status check_owner(const char *fn, const char *owner)
{
    CHECK_ARG(owner && *owner, "%s: empty owner id", fn);
    CHECK_ARG(strlen(owner) < sizeof(((store_job *)0)->owner),
              "%s: owner id \"%.20s...\" is longer than %zu bytes", fn, owner,
              sizeof(((store_job *)0)->owner) - 1);
    return G16_OK;
}

/* A lease from 1 ms to 30 days: beyond it a typo, not a lease. */
static g16_status check_lease(const char *fn, double lease_s)
{
    CHECK_ARG(isfinite(lease_s) && lease_s >= 0.001 && lease_s <= 30 * 86400.0,
              "%s: lease of %g s out of range (1 ms to 30 days)", fn, lease_s);
    return G16_OK;
}

g16_status store_submit(job_store *store, int64_t *id, const char *request, int priority,
                        int partitions)
{
    CHECK_ARG(store && id && request, "store_submit: null argument");
    CHECK_ARG(partitions >= 0, "store_submit: %d partitions", partitions);
    return store->ops->submit(store, id, request, priority, partitions);
}

g16_status store_claim(job_store *store, store_job *job, bool *claimed, const char *owner,
                       double lease_s)
{
    CHECK_ARG(store && job && claimed, "store_claim: null argument");
    *claimed = false;
    memset(job, 0, sizeof *job);
    g16_status st = check_owner("store_claim", owner);
    if (st == G16_OK)
        st = check_lease("store_claim", lease_s);
    return st != G16_OK ? st : store->ops->claim(store, job, claimed, owner, lease_s);
}

g16_status store_heartbeat(job_store *store, int64_t id, const char *owner, double lease_s)
{
    CHECK_ARG(store, "store_heartbeat: null store");
    g16_status st = check_owner("store_heartbeat", owner);
    if (st == G16_OK)
        st = check_lease("store_heartbeat", lease_s);
    return st != G16_OK ? st : store->ops->heartbeat(store, id, owner, lease_s);
}

g16_status store_progress(job_store *store, int64_t id, const char *owner,
                          int partitions_done)
{
    CHECK_ARG(store, "store_progress: null store");
    CHECK_ARG(partitions_done >= 0, "store_progress: %d partitions done", partitions_done);
    g16_status st = check_owner("store_progress", owner);
    return st != G16_OK ? st : store->ops->progress(store, id, owner, partitions_done);
}

g16_status store_finish(job_store *store, int64_t id, const char *owner, const char *result)
{
    CHECK_ARG(store && result, "store_finish: null argument");
    g16_status st = check_owner("store_finish", owner);
    return st != G16_OK ? st : store->ops->finish(store, id, owner, STORE_DONE, result);
}

g16_status store_fail(job_store *store, int64_t id, const char *owner, const char *reason)
{
    CHECK_ARG(store, "store_fail: null store");
    g16_status st = check_owner("store_fail", owner);
    return st != G16_OK ? st
                        : store->ops->finish(store, id, owner, STORE_FAILED,
                                             reason ? reason : "failed (no reason given)");
}

g16_status store_cancel(job_store *store, bool *found, int64_t id, const char *reason)
{
    CHECK_ARG(store && found, "store_cancel: null argument");
    *found = false;
    return store->ops->cancel(store, found, id, reason ? reason : "cancelled");
}

g16_status store_requeue_owner(job_store *store, size_t *count, const char *owner)
{
    CHECK_ARG(store && count, "store_requeue_owner: null argument");
    *count = 0;
    g16_status st = check_owner("store_requeue_owner", owner);
    return st != G16_OK ? st : store->ops->requeue_owner(store, count, owner);
}

g16_status store_get(job_store *store, store_job *job, bool *found, int64_t id)
{
    CHECK_ARG(store && job && found, "store_get: null argument");
    *found = false;
    memset(job, 0, sizeof *job);
    return store->ops->get(store, job, found, id);
}

g16_status store_list(job_store *store, store_job *jobs, size_t *count, size_t limit,
                      int state)
{
    CHECK_ARG(store && count && (jobs || limit == 0), "store_list: null argument");
    CHECK_ARG(state <= STORE_CANCELLED, "store_list: unknown state %d", state);
    CHECK_ARG(limit <= SIZE_MAX / sizeof *jobs && limit <= INT32_MAX,
              "store_list: limit %zu out of range", limit);
    *count = 0;
    if (limit == 0)
        return G16_OK;
    memset(jobs, 0, limit * sizeof *jobs);
    g16_status st = store->ops->list(store, jobs, count, limit, state);
    if (st != G16_OK) {
        /* The implementations leave what they filled before the error. */
        for (size_t i = 0; i < limit; i++)
            store_job_clear(&jobs[i]);
        *count = 0;
    }
    return st;
}

g16_status store_counts(job_store *store, uint64_t counts[5])
{
    CHECK_ARG(store && counts, "store_counts: null argument");
    memset(counts, 0, 5 * sizeof counts[0]);
    return store->ops->counts(store, counts);
}
