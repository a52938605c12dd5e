/* The job store in PostgreSQL (libpq): daemons on several machines share one queue.
 *
 * Claiming: one UPDATE whose subquery picks the best claimable row with
 * SELECT ... FOR UPDATE SKIP LOCKED. A row another daemon is claiming (or heartbeating,
 * or finishing) at that moment is locked, so this claim skips it and takes the next one
 * instead of waiting; a row that changed since the statement's snapshot is re-checked
 * against the WHERE clause on its newest version before it is locked. So two daemons
 * never claim the same job, and no claim waits behind another. A single statement is its
 * own transaction; nothing else needs one except the schema's creation.
 *
 * Clock: every time is the server's now() (the statement's transaction start), so the
 * machines' clocks need not agree; a lease is "server time + lease_s".
 *
 * Durability: a statement returns after its commit; with synchronous_commit off the server
 * would acknowledge before the WAL reaches the disk, so the session turns it on when the
 * server's default is off (other values - on, remote_write, remote_apply - are kept).
 *
 * Connection loss: a call that finds the connection broken resets it once before sending
 * anything, so a daemon survives a server restart; a statement is never re-sent after it
 * may have run (a submit must not be doubled). */
#include "daemon/store_impl.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

typedef struct {
    job_store base;
    PGconn *conn;
    bool in_transaction; /* a reset would silently drop the transaction: none then */
    char where[160];     /* "db@host:port", for messages */
} pg_store;

static pg_store *as_pg(job_store *store) { return (pg_store *)store; }

/* The server's clock as Unix seconds (float8). */
#define PG_NOW "extract(epoch FROM now())::float8"

/* pg_advisory_xact_lock key for the schema's creation: "g16sche" in ASCII. */
#define SCHEMA_LOCK_KEY "7444790838356837"

/* Copies libpq's message without its trailing newline. */
static void trimmed(char *out, size_t cap, const char *msg)
{
    snprintf(out, cap, "%s", msg && *msg ? msg : "(no message)");
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = 0;
}

/* A failed statement (res may be NULL: out of memory, or the connection is gone). */
static g16_status pg_fail(pg_store *p, const char *what, const PGresult *res)
{
    char msg[384];
    const char *text = res ? PQresultErrorMessage(res) : NULL;
    trimmed(msg, sizeof msg, text && *text ? text : PQerrorMessage(p->conn));
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    return status_fail(G16_ERR_IO, "postgresql store %s: %s: %s%s%s%s", p->where, what, msg,
                       state ? " (SQLSTATE " : "", state ? state : "", state ? ")" : "");
}

/* Resets a broken connection before a call sends anything. */
static g16_status pg_ready(pg_store *p, const char *what)
{
    if (PQstatus(p->conn) == CONNECTION_OK || p->in_transaction)
        return PQstatus(p->conn) == CONNECTION_OK ? G16_OK : pg_fail(p, what, NULL);
    PQreset(p->conn);
    if (PQstatus(p->conn) == CONNECTION_OK)
        return G16_OK;
    return pg_fail(p, what, NULL);
}

/* Runs sql with text parameters (NULL entries are SQL NULL); *res receives the result when
 * its status is want. Serialization failures and deadlocks (the server rolled the statement
 * back, so running it again is safe) are retried a few times: a server whose default
 * isolation is SERIALIZABLE may refuse a claim that raced another. */
static g16_status pg_exec(pg_store *p, PGresult **res, const char *what, const char *sql,
                          int nparams, const char *const *params, ExecStatusType want)
{
    *res = NULL;
    g16_status st = pg_ready(p, what);
    if (st != G16_OK)
        return st;
    for (int attempt = 0;; attempt++) {
        PGresult *r = PQexecParams(p->conn, sql, nparams, NULL, params, NULL, NULL, 0);
        if (r && PQresultStatus(r) == want) {
            *res = r;
            return G16_OK;
        }
        const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
        bool retry = state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0) &&
                     attempt < 5 && PQtransactionStatus(p->conn) == PQTRANS_IDLE;
        if (!retry) {
            st = pg_fail(p, what, r);
            PQclear(r);
            return st;
        }
        PQclear(r);
    }
}

/* An UPDATE/INSERT/... without rows; *changed = the rows it touched (may be NULL). */
static g16_status pg_command(pg_store *p, const char *what, const char *sql, int nparams,
                             const char *const *params, long long *changed)
{
    PGresult *r;
    g16_status st = pg_exec(p, &r, what, sql, nparams, params, PGRES_COMMAND_OK);
    if (st == G16_OK && changed)
        *changed = strtoll(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    return st;
}

/* Parameters travel as text; these fill a caller's buffer. */
typedef char param_buf[32];

static const char *p_int64(param_buf b, int64_t v)
{
    snprintf(b, sizeof(param_buf), "%lld", (long long)v);
    return b;
}

static const char *p_double(param_buf b, double v)
{
    snprintf(b, sizeof(param_buf), "%.17g", v);
    return b;
}

#define JOB_COLUMNS                                                                        \
    "id, state, priority, request, result, error, partitions, partitions_done, attempts, " \
    "owner, created, started, finished, lease_expires"

static g16_status column_text(char **out, const PGresult *r, int row, int col)
{
    return store_strdup(out, PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col));
}

static double column_double(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? 0.0 : strtod(PQgetvalue(r, row, col), NULL);
}

static int column_int(const PGresult *r, int row, int col)
{
    return (int)strtol(PQgetvalue(r, row, col), NULL, 10);
}

/* Fills job from row of a result of JOB_COLUMNS. */
static g16_status read_job(pg_store *p, store_job *job, const PGresult *r, int row)
{
    memset(job, 0, sizeof *job);
    if (PQnfields(r) != 14)
        return status_fail(G16_ERR_INTERNAL, "postgresql store %s: %d columns, want 14",
                           p->where, PQnfields(r));
    job->id = strtoll(PQgetvalue(r, row, 0), NULL, 10);
    const char *state = PQgetvalue(r, row, 1);
    if (!store_state_parse(&job->state, state))
        return status_fail(G16_ERR_FORMAT, "postgresql store %s: job %lld has unknown state "
                           "\"%s\"", p->where, (long long)job->id, state);
    job->priority = column_int(r, row, 2);
    g16_status st = column_text(&job->request, r, row, 3);
    if (st == G16_OK)
        st = column_text(&job->result, r, row, 4);
    if (st == G16_OK)
        st = column_text(&job->error, r, row, 5);
    if (st != G16_OK) {
        store_job_clear(job);
        return st;
    }
    job->partitions = column_int(r, row, 6);
    job->partitions_done = column_int(r, row, 7);
    job->attempts = column_int(r, row, 8);
    snprintf(job->owner, sizeof job->owner, "%s", PQgetvalue(r, row, 9));
    job->created_s = column_double(r, row, 10);
    job->started_s = column_double(r, row, 11);
    job->finished_s = column_double(r, row, 12);
    job->lease_expires_s = column_double(r, row, 13);
    return G16_OK;
}

/* A statement returning at most one job. */
static g16_status query_job(pg_store *p, store_job *job, bool *found, const char *what,
                            const char *sql, int nparams, const char *const *params)
{
    *found = false;
    memset(job, 0, sizeof *job);
    PGresult *r;
    g16_status st = pg_exec(p, &r, what, sql, nparams, params, PGRES_TUPLES_OK);
    if (st != G16_OK)
        return st;
    if (PQntuples(r) > 0) {
        st = read_job(p, job, r, 0);
        *found = st == G16_OK;
    }
    PQclear(r);
    return st;
}

static g16_status get_job(pg_store *p, store_job *job, bool *found, int64_t id)
{
    param_buf b;
    const char *params[] = {p_int64(b, id)};
    return query_job(p, job, found, "get",
                     "SELECT " JOB_COLUMNS " FROM g16_jobs WHERE id = $1::bigint", 1, params);
}

/* --- schema ------------------------------------------------------------------------- */

static const char *const schema_v1 =
    "CREATE TABLE IF NOT EXISTS g16_jobs ("
    " id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    " state text NOT NULL CHECK (state IN ('queued','running','done','failed','cancelled')),"
    " priority integer NOT NULL,"
    " request text NOT NULL,"
    " result text,"
    " error text,"
    " partitions integer NOT NULL,"
    " partitions_done integer NOT NULL DEFAULT 0,"
    " attempts integer NOT NULL DEFAULT 0,"
    " owner text NOT NULL DEFAULT '',"
    " created double precision NOT NULL,"
    " started double precision,"
    " finished double precision,"
    " lease_expires double precision);"
    /* The claim walks this partial index in its ORDER BY; finished jobs stay out of it. */
    "CREATE INDEX IF NOT EXISTS g16_jobs_claim ON g16_jobs (priority DESC, created, id)"
    " WHERE state IN ('queued','running');"
    "CREATE INDEX IF NOT EXISTS g16_jobs_owner ON g16_jobs (owner) WHERE state = 'running';"
    "CREATE INDEX IF NOT EXISTS g16_jobs_created ON g16_jobs (created DESC, id DESC);"
    "INSERT INTO g16_schema (version) VALUES (1);";

/* Creates the schema or checks its version, in one transaction under an advisory lock:
 * two daemons starting at once on an empty database would otherwise race in CREATE TABLE
 * (IF NOT EXISTS does not make concurrent creation safe: the loser fails on the catalog's
 * unique index). Tables are created only when g16_schema is missing, so a role that may
 * only read and write the tables opens an existing store. */
static g16_status init_schema(pg_store *p)
{
    const char *key[] = {SCHEMA_LOCK_KEY};
    g16_status st = pg_command(p, "schema: begin", "BEGIN", 0, NULL, NULL);
    if (st != G16_OK)
        return st;
    p->in_transaction = true;
    PGresult *r = NULL;
    st = pg_exec(p, &r, "schema: lock", "SELECT pg_advisory_xact_lock($1::bigint)", 1, key,
                 PGRES_TUPLES_OK);
    PQclear(r);
    bool exists = false;
    if (st == G16_OK)
        st = pg_exec(p, &r, "schema: look for g16_schema",
                     "SELECT to_regclass('g16_schema') IS NOT NULL", 0, NULL, PGRES_TUPLES_OK);
    if (st == G16_OK) {
        exists = PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "t") == 0;
        PQclear(r);
    }
    if (st == G16_OK && !exists) {
        st = pg_command(p, "schema: create the version table",
                        "CREATE TABLE g16_schema (version integer NOT NULL)", 0, NULL, NULL);
        if (st == G16_OK) {
            /* Several statements, no parameters: the simple query protocol. */
            PGresult *c = PQexec(p->conn, schema_v1);
            if (PQresultStatus(c) != PGRES_COMMAND_OK)
                st = pg_fail(p, "schema: create the tables", c);
            PQclear(c);
        }
    } else if (st == G16_OK) {
        st = pg_exec(p, &r, "schema: read the version",
                     "SELECT count(*), coalesce(max(version), 0) FROM g16_schema", 0, NULL,
                     PGRES_TUPLES_OK);
        if (st == G16_OK) {
            long long rows = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
            long long version = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
            PQclear(r);
            if (rows != 1 || version != STORE_SCHEMA_VERSION)
                st = status_fail(G16_ERR_FORMAT,
                                 "postgresql store %s: schema version %lld (%lld rows in "
                                 "g16_schema); this g16 knows version %d", p->where, version,
                                 rows, STORE_SCHEMA_VERSION);
        }
    }
    if (st == G16_OK)
        st = pg_command(p, "schema: commit", "COMMIT", 0, NULL, NULL);
    else
        PQclear(PQexec(p->conn, "ROLLBACK"));
    p->in_transaction = false;
    return st;
}

/* --- operations ----------------------------------------------------------------------- */

static void pg_close(job_store *store)
{
    pg_store *p = as_pg(store);
    PQfinish(p->conn);
    free(p);
}

static g16_status pg_submit(job_store *store, int64_t *id, const char *request, int priority,
                            int partitions)
{
    pg_store *p = as_pg(store);
    param_buf b1, b2;
    const char *params[] = {p_int64(b1, priority), request, p_int64(b2, partitions)};
    PGresult *r;
    g16_status st = pg_exec(p, &r, "submit",
                            "INSERT INTO g16_jobs (state, priority, request, partitions, created)"
                            " VALUES ('queued', $1::integer, $2, $3::integer, " PG_NOW ")"
                            " RETURNING id", 3, params, PGRES_TUPLES_OK);
    if (st != G16_OK)
        return st;
    *id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return G16_OK;
}

static g16_status pg_claim(job_store *store, store_job *job, bool *claimed, const char *owner,
                           double lease_s)
{
    pg_store *p = as_pg(store);
    param_buf b;
    const char *params[] = {owner, p_double(b, lease_s)};
    /* A re-claimed job starts over: its progress is the previous owner's. */
    return query_job(p, job, claimed, "claim",
                     "UPDATE g16_jobs SET state = 'running', owner = $1, started = " PG_NOW ","
                     " lease_expires = " PG_NOW " + $2::float8, attempts = attempts + 1,"
                     " partitions_done = 0"
                     " WHERE id = (SELECT id FROM g16_jobs"
                     "   WHERE state IN ('queued','running')"
                     "     AND (state = 'queued' OR lease_expires < " PG_NOW ")"
                     "   ORDER BY priority DESC, created, id LIMIT 1"
                     "   FOR UPDATE SKIP LOCKED)"
                     " RETURNING " JOB_COLUMNS, 2, params);
}

/* An owner's write ($1 the id, $2 the owner); when it changed nothing, says why. */
static g16_status owner_write(pg_store *p, const char *what, const char *sql, int64_t id,
                              const char *owner, const char *param3)
{
    param_buf b;
    const char *params[] = {p_int64(b, id), owner, param3};
    long long changed = 0;
    g16_status st = pg_command(p, what, sql, 3, params, &changed);
    if (st != G16_OK || changed == 1)
        return st;
    store_job now;
    bool found;
    st = get_job(p, &now, &found, id);
    if (st != G16_OK)
        return st;
    st = store_refused("postgresql", what, id, owner, found, &now);
    store_job_clear(&now);
    return st;
}

#define HELD "id = $1::bigint AND state = 'running' AND owner = $2"

static g16_status pg_heartbeat(job_store *store, int64_t id, const char *owner, double lease_s)
{
    param_buf b;
    return owner_write(as_pg(store), "heartbeat",
                       "UPDATE g16_jobs SET lease_expires = " PG_NOW " + $3::float8 WHERE " HELD,
                       id, owner, p_double(b, lease_s));
}

static g16_status pg_progress(job_store *store, int64_t id, const char *owner,
                              int partitions_done)
{
    param_buf b;
    return owner_write(as_pg(store), "progress",
                       "UPDATE g16_jobs SET partitions_done = $3::integer WHERE " HELD
                       " AND $3::integer <= partitions", id, owner, p_int64(b, partitions_done));
}

static g16_status pg_finish(job_store *store, int64_t id, const char *owner, store_state to,
                            const char *text)
{
    if (to == STORE_DONE)
        return owner_write(as_pg(store), "finish",
                           "UPDATE g16_jobs SET state = 'done', result = $3, finished = " PG_NOW
                           ", owner = '', lease_expires = NULL WHERE " HELD, id, owner, text);
    return owner_write(as_pg(store), "fail",
                       "UPDATE g16_jobs SET state = 'failed', error = $3, finished = " PG_NOW
                       ", owner = '', lease_expires = NULL WHERE " HELD, id, owner, text);
}

static g16_status pg_cancel(job_store *store, bool *found, int64_t id, const char *reason)
{
    pg_store *p = as_pg(store);
    param_buf b;
    const char *params[] = {p_int64(b, id), reason};
    long long changed = 0;
    g16_status st = pg_command(p, "cancel",
                               "UPDATE g16_jobs SET state = 'cancelled', error = $2,"
                               " finished = " PG_NOW ", owner = '', lease_expires = NULL"
                               " WHERE id = $1::bigint AND state IN ('queued','running')",
                               2, params, &changed);
    if (st != G16_OK)
        return st;
    if (changed == 1) {
        *found = true;
        return G16_OK;
    }
    /* Nothing to cancel: the job is finished (left as it is) or does not exist. */
    store_job job;
    st = get_job(p, &job, found, id);
    store_job_clear(&job);
    return st;
}

static g16_status pg_requeue_owner(job_store *store, size_t *count, const char *owner)
{
    const char *params[] = {owner};
    long long changed = 0;
    g16_status st = pg_command(as_pg(store), "requeue",
                               "UPDATE g16_jobs SET state = 'queued', owner = '', started = NULL,"
                               " lease_expires = NULL, partitions_done = 0"
                               " WHERE state = 'running' AND owner = $1", 1, params, &changed);
    if (st == G16_OK)
        *count = (size_t)changed;
    return st;
}

static g16_status pg_get(job_store *store, store_job *job, bool *found, int64_t id)
{
    return get_job(as_pg(store), job, found, id);
}

static g16_status pg_list(job_store *store, store_job *jobs, size_t *count, size_t limit,
                          int state)
{
    pg_store *p = as_pg(store);
    param_buf b;
    const char *params[] = {state < 0 ? NULL : store_state_name((store_state)state),
                            p_int64(b, (int64_t)limit)};
    PGresult *r;
    g16_status st = pg_exec(p, &r, "list",
                            "SELECT " JOB_COLUMNS " FROM g16_jobs"
                            " WHERE $1::text IS NULL OR state = $1::text"
                            " ORDER BY created DESC, id DESC LIMIT $2::bigint",
                            2, params, PGRES_TUPLES_OK);
    if (st != G16_OK)
        return st;
    size_t n = 0, rows = (size_t)PQntuples(r);
    for (; n < rows && n < limit; n++) {
        st = read_job(p, &jobs[n], r, (int)n);
        if (st != G16_OK)
            break;
    }
    PQclear(r);
    if (st == G16_OK)
        *count = n;
    return st; /* on an error store_list clears the jobs filled so far */
}

static g16_status pg_counts(job_store *store, uint64_t counts[5])
{
    pg_store *p = as_pg(store);
    PGresult *r;
    g16_status st = pg_exec(p, &r, "counts",
                            "SELECT state, count(*) FROM g16_jobs GROUP BY state", 0, NULL,
                            PGRES_TUPLES_OK);
    if (st != G16_OK)
        return st;
    for (int i = 0; i < PQntuples(r); i++) {
        store_state state;
        if (store_state_parse(&state, PQgetvalue(r, i, 0)))
            counts[state] = strtoull(PQgetvalue(r, i, 1), NULL, 10);
    }
    PQclear(r);
    return G16_OK;
}

static const store_ops pg_ops = {
    .kind = "postgresql",
    .close = pg_close,
    .submit = pg_submit,
    .claim = pg_claim,
    .heartbeat = pg_heartbeat,
    .progress = pg_progress,
    .finish = pg_finish,
    .cancel = pg_cancel,
    .requeue_owner = pg_requeue_owner,
    .get = pg_get,
    .list = pg_list,
    .counts = pg_counts,
};

/* The server's NOTICEs ("relation already exists, skipping", ...) would go to stderr; the
 * daemon reports what matters through its own log. */
static void quiet_notices(void *arg, const char *message) {}

g16_status store_postgres_open(job_store **store, const char *url)
{
    pg_store *p = calloc(1, sizeof *p);
    if (!p)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "postgresql store: out of memory");
    p->base.ops = &pg_ops;
    /* The URL may carry a password: messages name the database by host and name only. */
    p->conn = PQconnectdb(url);
    if (!p->conn) {
        free(p);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "postgresql store: out of memory connecting");
    }
    if (PQstatus(p->conn) != CONNECTION_OK) {
        char msg[384];
        trimmed(msg, sizeof msg, PQerrorMessage(p->conn));
        pg_close(&p->base);
        return status_fail(G16_ERR_IO, "postgresql store: connect: %s", msg);
    }
    const char *host = PQhost(p->conn);
    snprintf(p->where, sizeof p->where, "%s@%s:%s", PQdb(p->conn),
             host && *host ? host : "localhost", PQport(p->conn));
    PQsetNoticeProcessor(p->conn, quiet_notices, NULL);

    PGresult *r = NULL;
    g16_status st = pg_exec(p, &r, "open: read synchronous_commit", "SHOW synchronous_commit",
                            0, NULL, PGRES_TUPLES_OK);
    if (st == G16_OK) {
        bool off = PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "off") == 0;
        PQclear(r);
        if (off)
            st = pg_command(p, "open: set synchronous_commit", "SET synchronous_commit = on",
                            0, NULL, NULL);
    }
    if (st == G16_OK)
        st = init_schema(p);
    if (st != G16_OK) {
        pg_close(&p->base);
        return st;
    }
    *store = &p->base;
    return G16_OK;
}
