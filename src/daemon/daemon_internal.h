/* The daemon's shared state, for daemon.c (lifecycle, workers, heartbeat), http_api.c
 * (the API) and metrics.c (/metrics, /status). Not a public interface. */
#ifndef G16_DAEMON_DAEMON_INTERNAL_H
#define G16_DAEMON_DAEMON_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon/config.h"
#include "daemon/job_store.h"
#include "daemon/key_cache.h"
#include "pipeline/pipeline.h"

/* A partition's stage as the status endpoint shows it. */
typedef enum {
    PART_PENDING = 0,
    PART_SYNTHESIZING,
    PART_PROVING,
    PART_VERIFYING,
    PART_PROVED,
    PART_FAILED,
    PART_CANCELLED,
} part_stage;

const char *part_stage_name(part_stage s);

/* A job a worker is running. Fields other than the atomics change under daemon.mu. */
typedef struct {
    bool busy;
    int64_t id;
    char kind[8];          /* "native" or "zkey" */
    char key[80];
    size_t partitions;
    _Atomic int *stage;    /* part_stage per partition, written by the stages' threads */
    atomic_bool cancelled; /* the store no longer lets us hold it (cancelled, taken over) */
    atomic_bool requeue;   /* shutdown: stop and leave it to the next daemon */
    pipeline *pl;          /* the job's key's pipeline: for pipeline_cancel */
    pipeline_job *pj;
} inflight;

typedef struct {
    atomic_uint_fast64_t jobs_done, jobs_failed, jobs_cancelled, jobs_requeued;
    atomic_uint_fast64_t proofs;          /* partitions (or witnesses) proved */
    atomic_uint_fast64_t submitted, rejected; /* submissions accepted, refused (4xx) */
    atomic_uint_fast64_t http_requests, http_4xx, http_5xx;
    atomic_uint_fast64_t store_errors;    /* store calls that failed (I/O) */
} daemon_counters;

typedef struct daemon_state {
    const daemon_config *cfg;
    char owner[64];
    char token[256];
    size_t token_len;
    char store_url[4200];
    uint16_t port;
    double start_s;        /* wall clock (Unix seconds) at start */
    char backend_desc[400];

    key_cache *keys;
    job_store *http_store; /* the API's handle, under http_mu */
    pthread_mutex_t http_mu;

    pthread_mutex_t mu;    /* inflight, stopping; `wake` signals new work or shutdown */
    pthread_cond_t wake;
    uint64_t work_gen;     /* bumped by daemon_wake: a worker sleeps only if unchanged */
    bool stopping;         /* no more claims or submissions */
    bool hard_stop;        /* workers and heartbeat exit */
    inflight *slots;       /* cfg->concurrency of them */

    daemon_counters n;
} daemon_state;

/* http_api.c: starts and stops the HTTP server (d->port gets the bound port). */
g16_status http_start(daemon_state *d, void **server);
void http_stop(void *server);

/* daemon.c: wakes idle workers (a job was submitted). */
void daemon_wake(daemon_state *d);
/* daemon.c: stops a job running here that the store has cancelled (without waiting for
 * the heartbeat to learn it). */
void daemon_cancel_local(daemon_state *d, int64_t id);
/* daemon.c: per-partition stages of a job running here, or NULL when it is not. */
json_t *daemon_job_progress(daemon_state *d, int64_t id);

/* metrics.c */
char *metrics_prometheus(daemon_state *d);
json_t *metrics_status(daemon_state *d);

/* Wall-clock Unix seconds. */
double daemon_now_s(void);

#endif
