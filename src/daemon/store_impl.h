/* Inside the job store: the table each implementation fills, and what they share.
 *
 * store.c checks every argument before it reaches an implementation, so the
 * implementations only see valid calls: non-null pointers, an owner that fits
 * store_job.owner, a finite positive lease, non-negative counts.
 *
 * One schema for both databases (DESIGN.md: "SQLite ... with the same schema"):
 *   g16_schema(version)         one row; STORE_SCHEMA_VERSION
 *   g16_jobs(id, state, priority, request, result, error, partitions, partitions_done,
 *            attempts, owner, created, started, finished, lease_expires)
 * state is the text of store_state_name, so an operator's SELECT reads plainly; times are
 * Unix seconds as double precision, NULL for "not yet" (read back as 0). */
#ifndef G16_DAEMON_STORE_IMPL_H
#define G16_DAEMON_STORE_IMPL_H

#include "daemon/job_store.h"

#define STORE_SCHEMA_VERSION 1

typedef struct store_ops {
    const char *kind;
    void (*close)(job_store *store);
    g16_status (*submit)(job_store *store, int64_t *id, const char *request, int priority,
                         int partitions);
    g16_status (*claim)(job_store *store, store_job *job, bool *claimed, const char *owner,
                        double lease_s);
    g16_status (*heartbeat)(job_store *store, int64_t id, const char *owner, double lease_s);
    g16_status (*progress)(job_store *store, int64_t id, const char *owner,
                           int partitions_done);
    /* to is STORE_DONE (text is the result) or STORE_FAILED (text is the reason). */
    g16_status (*finish)(job_store *store, int64_t id, const char *owner, store_state to,
                         const char *text);
    g16_status (*cancel)(job_store *store, bool *found, int64_t id, const char *reason);
    g16_status (*requeue_owner)(job_store *store, size_t *count, const char *owner);
    g16_status (*get)(job_store *store, store_job *job, bool *found, int64_t id);
    g16_status (*list)(job_store *store, store_job *jobs, size_t *count, size_t limit,
                       int state);
    g16_status (*counts)(job_store *store, uint64_t counts[5]);
} store_ops;

/* Every implementation's handle starts with this. */
struct job_store {
    const store_ops *ops;
};

g16_status store_sqlite_open(job_store **store, const char *path);
g16_status store_postgres_open(job_store **store, const char *url);

/* The state named name ("queued", ...); false for any other text. */
bool store_state_parse(store_state *state, const char *name);

/* A copy of s (NULL stays NULL) into *out; G16_ERR_OUT_OF_MEMORY when malloc fails. */
g16_status store_strdup(char **out, const char *s);

/* The status and message of an owner's write (what: "heartbeat", "finish", ...) on job
 * id that changed nothing, from the job as it is now (found false: there is none; then
 * the other arguments are ignored). A job this owner still holds can only mean a bad
 * argument (progress beyond the partitions); every other case is G16_ERR_CANCELLED with
 * the reason: cancelled, taken over by another owner, re-queued, already done. */
g16_status store_refused(const char *kind, const char *what, int64_t id, const char *owner,
                         bool found, const store_job *now);

#endif
