/* The daemon's durable job store: one interface, two implementations.
 *
 *   store_sqlite.c      "sqlite:PATH" or a plain path: one file in the state directory,
 *                       WAL mode, synchronous=FULL; one daemon per file.
 *   store_postgres.c    "postgresql://..." (libpq): daemons on several machines share
 *                       one queue.
 *
 * Durability contract (issue #8): store_submit returns only after the job is committed,
 * so a job the API acknowledged is never forgotten, across kill -9 and restart. A job is
 * proven or failed with a reason, exactly once:
 *   queued --claim--> running --finish--> done
 *                        |      --fail---> failed
 *                        |      (lease expires: the owner died) --> claimable again
 *   queued/running --cancel--> cancelled (a running job's owner learns it at heartbeat)
 *
 * Claiming. store_claim hands the caller (its owner id, unique per daemon process) the
 * best claimable job: highest priority, then oldest; claimable = queued, or running with
 * an expired lease (its owner stopped heartbeating). The claim sets state running, owner,
 * lease_expires = now + lease, attempts += 1, in one transaction; PostgreSQL does it with
 * SELECT ... FOR UPDATE SKIP LOCKED, so two daemons never claim the same job. Times are
 * the store's clock (the database server's for PostgreSQL), so machines' clocks need not
 * agree.
 *
 * Writes by an owner (heartbeat, progress, finish, fail) succeed only while that owner
 * still holds the job (state running, owner matches); otherwise they return
 * G16_ERR_CANCELLED with a message saying whether the job was cancelled or taken over,
 * and change nothing: results are written once, by the holder of the lease.
 *
 * Every function returns G16_OK or an error with status_fail's message (util/status.h):
 * G16_ERR_IO for a database failure (the driver's message included), G16_ERR_INVALID_ARGUMENT
 * for a bad call, G16_ERR_FORMAT for an unknown URL scheme, an unknown schema version, or a
 * SQLite file that is not a database or is corrupt. One handle is used by one thread at a
 * time; the daemon opens one per thread that needs it, or locks.
 *
 * Details the implementations share (store_impl.h has the schema): an owner's write on a
 * job that does not exist is G16_ERR_CANCELLED too ("no such job": stop working on it);
 * progress beyond the job's partitions is G16_ERR_INVALID_ARGUMENT; a claim starts the job
 * over (partitions_done = 0, started = now); done, failed and cancelled jobs have owner ""
 * and no lease. */
#ifndef G16_DAEMON_JOB_STORE_H
#define G16_DAEMON_JOB_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "g16.h"

typedef struct job_store job_store;

typedef enum {
    STORE_QUEUED = 0,
    STORE_RUNNING,
    STORE_DONE,
    STORE_FAILED,
    STORE_CANCELLED,
} store_state;

/* "queued", "running", "done", "failed", "cancelled". */
const char *store_state_name(store_state s);

typedef struct {
    int64_t id;               /* assigned by store_submit, > 0 */
    store_state state;
    int priority;             /* higher first */
    char *request;            /* the submitted request (JSON text), as given */
    char *result;             /* done: the result (JSON text: proofs, public signals) */
    char *error;              /* failed: the reason; cancelled: who cancelled */
    int partitions;           /* as submitted */
    int partitions_done;      /* progress, as the owner last reported it */
    int attempts;             /* claims so far */
    char owner[64];           /* running: the owner id; "" otherwise */
    double created_s, started_s, finished_s; /* Unix seconds (the store's clock); 0 = not yet */
    double lease_expires_s;   /* running: when the lease runs out */
} store_job;

/* Frees the strings of a store_job filled by store_get/store_claim/store_list (not the
 * struct itself) and zeroes it. */
void store_job_clear(store_job *job);

/* Opens (creating the schema when missing) the store named by url:
 *   "sqlite:/path/to/jobs.db" or "/path/to/jobs.db"  SQLite
 *   "postgresql://user@host/db" or "postgres://..."   PostgreSQL
 * The schema carries a version; an unknown version is G16_ERR_FORMAT. */
g16_status store_open(job_store **store, const char *url);
void store_close(job_store *store);
/* "sqlite" or "postgresql". */
const char *store_kind(const job_store *store);

/* Adds a queued job; *id receives its id. Durable when it returns G16_OK. */
g16_status store_submit(job_store *store, int64_t *id, const char *request, int priority,
                        int partitions);

/* Claims the best claimable job for owner with a lease of lease_s seconds. *claimed says
 * whether one was claimed; when it is, *job is filled (store_job_clear it). */
g16_status store_claim(job_store *store, store_job *job, bool *claimed, const char *owner,
                       double lease_s);

/* Extends owner's lease on job id to now + lease_s. G16_ERR_CANCELLED when the owner no
 * longer holds it (cancelled, or its lease expired and another owner claimed it). */
g16_status store_heartbeat(job_store *store, int64_t id, const char *owner, double lease_s);

/* Records progress (partitions proved so far). Same ownership rule as heartbeat. */
g16_status store_progress(job_store *store, int64_t id, const char *owner,
                          int partitions_done);

/* running -> done with result, or -> failed with reason; once, by the holder. */
g16_status store_finish(job_store *store, int64_t id, const char *owner, const char *result);
g16_status store_fail(job_store *store, int64_t id, const char *owner, const char *reason);

/* Cancels a queued or running job (reason recorded in error). *found is false when there
 * is no such job; a job already finished is left as it is (G16_OK, *found true). */
g16_status store_cancel(job_store *store, bool *found, int64_t id, const char *reason);

/* Puts owner's running jobs back in the queue (lease, started and progress cleared,
 * attempts kept; they keep their age, so they come before newer jobs): a daemon
 * shutting down on SIGTERM that does not finish its work. *count = jobs re-queued. */
g16_status store_requeue_owner(job_store *store, size_t *count, const char *owner);

/* Reads job id. *found false when there is none. */
g16_status store_get(job_store *store, store_job *job, bool *found, int64_t id);

/* Up to limit jobs, newest first, optionally only those in state (state < 0: all);
 * jobs is an array of at least limit entries, *count the number filled. */
g16_status store_list(job_store *store, store_job *jobs, size_t *count, size_t limit,
                      int state);

/* Jobs per state (indexed by store_state), for /metrics and the queue-depth limit. */
g16_status store_counts(job_store *store, uint64_t counts[5]);

#endif
