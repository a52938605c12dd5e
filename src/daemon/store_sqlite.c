/* The job store in one SQLite file (the daemon's embedded default).
 *
 * Durability: WAL journal with synchronous=FULL, so a commit is on disk (the WAL fsynced)
 * before sqlite3_step returns; store_submit's INSERT commits on its own, so a job the API
 * acknowledged survives kill -9 and power loss.
 *
 * Concurrency: one daemon per file, but the daemon (and the tests) may open one handle
 * per thread. Every write takes SQLite's single write lock; the claim reads then writes,
 * so it runs under BEGIN IMMEDIATE, which takes that lock before the read: two handles
 * can never pick the same row. A handle that finds the lock held waits (busy timeout)
 * rather than failing. Single-statement writes in autocommit mode take the write lock when
 * the statement starts, so they need no explicit transaction.
 *
 * Clock: the process's Unix time (CLOCK_REALTIME); there is one machine. */
#include "daemon/store_impl.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/status.h"

/* How long a handle waits for another one's write lock before the call fails. A claim
 * holds it for well under a millisecond plus one fsync. */
#define SQLITE_BUSY_TIMEOUT_MS 10000
#define WAL_RETRY_MS 5 /* the pause between tries of the switch to WAL */

typedef struct {
    job_store base;
    sqlite3 *db;
    char *path; /* for messages */
} sqlite_store;

static sqlite_store *as_sqlite(job_store *store) { return (sqlite_store *)store; }

static double unix_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The database's last error as a status: a file that is not a database, or a corrupt one,
 * is a malformed file (G16_ERR_FORMAT); anything else an I/O failure. */
static g16_status db_fail(sqlite_store *s, const char *what)
{
    int rc = sqlite3_extended_errcode(s->db);
    g16_status st = G16_ERR_IO;
    if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT)
        st = G16_ERR_FORMAT;
    return status_fail(st, "sqlite store %s: %s: %s (SQLite error %d)", s->path, what,
                       sqlite3_errmsg(s->db), rc);
}

static g16_status prepare(sqlite_store *s, sqlite3_stmt **stmt, const char *sql,
                          const char *what)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, stmt, NULL) != SQLITE_OK) {
        *stmt = NULL;
        return db_fail(s, what);
    }
    return G16_OK;
}

/* Runs a statement without parameters or rows (BEGIN, COMMIT, PRAGMA, CREATE). */
static g16_status exec(sqlite_store *s, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        g16_status st = db_fail(s, what);
        sqlite3_free(msg);
        return st;
    }
    return G16_OK;
}

/* Steps a statement that returns no row; the statement is finalized either way. */
static g16_status step_done(sqlite_store *s, sqlite3_stmt *stmt, const char *what)
{
    g16_status st = G16_OK;
    if (sqlite3_step(stmt) != SQLITE_DONE)
        st = db_fail(s, what);
    sqlite3_finalize(stmt);
    return st;
}

/* A binding failed (no memory, an index out of range): the statement is finalized. */
static g16_status bind_failed(sqlite_store *s, sqlite3_stmt *stmt, const char *what)
{
    g16_status st = db_fail(s, what);
    sqlite3_finalize(stmt);
    return st;
}

/* Bindings fail only for an index out of range or no memory; checking each one would
 * double every function, so their codes are or-ed and checked once. */
#define BIND_OK(x) ((x) == SQLITE_OK)

#define JOB_COLUMNS                                                                        \
    "id, state, priority, request, result, error, partitions, partitions_done, attempts, " \
    "owner, created, started, finished, lease_expires"

static g16_status column_text(char **out, sqlite3_stmt *stmt, int col)
{
    return store_strdup(out, (const char *)sqlite3_column_text(stmt, col));
}

/* Fills job from a row of JOB_COLUMNS. */
static g16_status read_job(sqlite_store *s, store_job *job, sqlite3_stmt *stmt)
{
    memset(job, 0, sizeof *job);
    job->id = sqlite3_column_int64(stmt, 0);
    const char *state = (const char *)sqlite3_column_text(stmt, 1);
    if (!store_state_parse(&job->state, state))
        return status_fail(G16_ERR_FORMAT, "sqlite store %s: job %lld has unknown state \"%s\"",
                           s->path, (long long)job->id, state ? state : "(null)");
    job->priority = sqlite3_column_int(stmt, 2);
    g16_status st = column_text(&job->request, stmt, 3);
    if (st == G16_OK)
        st = column_text(&job->result, stmt, 4);
    if (st == G16_OK)
        st = column_text(&job->error, stmt, 5);
    if (st != G16_OK) {
        store_job_clear(job);
        return st;
    }
    job->partitions = sqlite3_column_int(stmt, 6);
    job->partitions_done = sqlite3_column_int(stmt, 7);
    job->attempts = sqlite3_column_int(stmt, 8);
    const char *owner = (const char *)sqlite3_column_text(stmt, 9);
    if (owner)
        snprintf(job->owner, sizeof job->owner, "%s", owner);
    /* NULL reads as 0.0: "not yet". */
    job->created_s = sqlite3_column_double(stmt, 10);
    job->started_s = sqlite3_column_double(stmt, 11);
    job->finished_s = sqlite3_column_double(stmt, 12);
    job->lease_expires_s = sqlite3_column_double(stmt, 13);
    return G16_OK;
}

/* Reads job id into *job (found false when absent). */
static g16_status get_job(sqlite_store *s, store_job *job, bool *found, int64_t id)
{
    sqlite3_stmt *stmt;
    *found = false;
    memset(job, 0, sizeof *job);
    g16_status st = prepare(s, &stmt, "SELECT " JOB_COLUMNS " FROM g16_jobs WHERE id = ?1",
                            "get");
    if (st != G16_OK)
        return st;
    if (!BIND_OK(sqlite3_bind_int64(stmt, 1, id))) {
        st = db_fail(s, "get");
    } else {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW) {
            st = read_job(s, job, stmt);
            *found = st == G16_OK;
        } else if (rc != SQLITE_DONE) {
            st = db_fail(s, "get");
        }
    }
    sqlite3_finalize(stmt);
    return st;
}

/* After an owner's write changed no row: why (store_refused). */
static g16_status refused(sqlite_store *s, const char *what, int64_t id, const char *owner)
{
    store_job now;
    bool found;
    g16_status st = get_job(s, &now, &found, id);
    if (st != G16_OK)
        return st;
    st = store_refused("sqlite", what, id, owner, found, &now);
    store_job_clear(&now);
    return st;
}

/* --- schema ------------------------------------------------------------------------- */

static const char *const schema_v1 =
    "CREATE TABLE g16_jobs ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT," /* AUTOINCREMENT: ids are never reused */
    " state TEXT NOT NULL CHECK (state IN ('queued','running','done','failed','cancelled')),"
    " priority INTEGER NOT NULL,"
    " request TEXT NOT NULL,"
    " result TEXT,"
    " error TEXT,"
    " partitions INTEGER NOT NULL,"
    " partitions_done INTEGER NOT NULL DEFAULT 0,"
    " attempts INTEGER NOT NULL DEFAULT 0,"
    " owner TEXT NOT NULL DEFAULT '',"
    " created REAL NOT NULL,"
    " started REAL,"
    " finished REAL,"
    " lease_expires REAL);"
    /* The claim's order over the only rows it can take; finished jobs pile up outside it. */
    "CREATE INDEX g16_jobs_claim ON g16_jobs (priority DESC, created, id)"
    " WHERE state IN ('queued','running');"
    "CREATE INDEX g16_jobs_owner ON g16_jobs (owner) WHERE state = 'running';"
    "CREATE INDEX g16_jobs_created ON g16_jobs (created DESC, id DESC);";

/* Creates the schema in an empty file, or checks the version of an existing one; inside
 * one write transaction, so two processes opening a new file at once create it once. */
static g16_status init_schema(sqlite_store *s)
{
    g16_status st = exec(s, "BEGIN IMMEDIATE", "schema: begin");
    if (st != G16_OK)
        return st;
    st = exec(s, "CREATE TABLE IF NOT EXISTS g16_schema (version INTEGER NOT NULL)",
              "schema: create the version table");
    sqlite3_stmt *stmt = NULL;
    if (st == G16_OK)
        st = prepare(s, &stmt, "SELECT count(*), max(version) FROM g16_schema",
                     "schema: read the version");
    if (st == G16_OK) {
        if (sqlite3_step(stmt) != SQLITE_ROW) {
            st = db_fail(s, "schema: read the version");
        } else {
            sqlite3_int64 rows = sqlite3_column_int64(stmt, 0);
            sqlite3_int64 version = sqlite3_column_int64(stmt, 1);
            if (rows == 0) {
                sqlite3_finalize(stmt);
                stmt = NULL;
                st = exec(s, schema_v1, "schema: create the tables");
                if (st == G16_OK)
                    st = exec(s, "INSERT INTO g16_schema (version) VALUES (1)",
                              "schema: write the version");
            } else if (rows != 1 || version != STORE_SCHEMA_VERSION) {
                st = status_fail(G16_ERR_FORMAT,
                                 "sqlite store %s: schema version %lld (%lld rows in g16_schema); "
                                 "this g16 knows version %d", s->path, (long long)version,
                                 (long long)rows, STORE_SCHEMA_VERSION);
            }
        }
    }
    sqlite3_finalize(stmt);
    if (st == G16_OK)
        return exec(s, "COMMIT", "schema: commit");
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return st;
}

/* --- operations ------------------------------------------------------------------------- */

static void sqlite_close(job_store *store)
{
    sqlite_store *s = as_sqlite(store);
    /* sqlite3_close_v2 would defer the close while statements are open; every function
     * finalizes its statements, so a plain close is enough and reports a leak as BUSY. */
    sqlite3_close(s->db);
    free(s->path);
    free(s);
}

static g16_status sqlite_submit(job_store *store, int64_t *id, const char *request,
                                int priority, int partitions)
{
    sqlite_store *s = as_sqlite(store);
    sqlite3_stmt *stmt;
    g16_status st = prepare(s, &stmt,
                            "INSERT INTO g16_jobs (state, priority, request, partitions, created)"
                            " VALUES ('queued', ?1, ?2, ?3, ?4)", "submit");
    if (st != G16_OK)
        return st;
    if (!BIND_OK(sqlite3_bind_int(stmt, 1, priority) |
                 sqlite3_bind_text(stmt, 2, request, -1, SQLITE_STATIC) |
                 sqlite3_bind_int(stmt, 3, partitions) |
                 sqlite3_bind_double(stmt, 4, unix_now())))
        return bind_failed(s, stmt, "submit");
    st = step_done(s, stmt, "submit");
    if (st == G16_OK)
        *id = sqlite3_last_insert_rowid(s->db);
    return st;
}

static g16_status sqlite_claim(job_store *store, store_job *job, bool *claimed,
                               const char *owner, double lease_s)
{
    sqlite_store *s = as_sqlite(store);
    g16_status st = exec(s, "BEGIN IMMEDIATE", "claim: begin");
    if (st != G16_OK)
        return st;
    double now = unix_now();
    sqlite3_stmt *stmt = NULL;
    /* The state IN (...) term lets SQLite walk the partial index g16_jobs_claim. */
    st = prepare(s, &stmt,
                 "SELECT id FROM g16_jobs WHERE state IN ('queued','running')"
                 " AND (state = 'queued' OR lease_expires < ?1)"
                 " ORDER BY priority DESC, created, id LIMIT 1", "claim: pick");
    sqlite3_int64 id = 0;
    if (st == G16_OK) {
        if (!BIND_OK(sqlite3_bind_double(stmt, 1, now))) {
            st = db_fail(s, "claim: pick");
        } else {
            int rc = sqlite3_step(stmt);
            if (rc == SQLITE_ROW)
                id = sqlite3_column_int64(stmt, 0);
            else if (rc != SQLITE_DONE)
                st = db_fail(s, "claim: pick");
        }
        sqlite3_finalize(stmt);
    }
    if (st == G16_OK && id != 0) {
        /* A re-claimed job starts over: its progress is the previous owner's. */
        st = prepare(s, &stmt,
                     "UPDATE g16_jobs SET state = 'running', owner = ?2, started = ?3,"
                     " lease_expires = ?3 + ?4, attempts = attempts + 1, partitions_done = 0"
                     " WHERE id = ?1", "claim: take");
        if (st == G16_OK) {
            if (!BIND_OK(sqlite3_bind_int64(stmt, 1, id) |
                         sqlite3_bind_text(stmt, 2, owner, -1, SQLITE_STATIC) |
                         sqlite3_bind_double(stmt, 3, now) |
                         sqlite3_bind_double(stmt, 4, lease_s)))
                st = bind_failed(s, stmt, "claim: take");
            else
                st = step_done(s, stmt, "claim: take");
        }
        bool found = false;
        if (st == G16_OK)
            st = get_job(s, job, &found, id);
        if (st == G16_OK && !found)
            st = status_fail(G16_ERR_INTERNAL, "sqlite store %s: claimed job %lld vanished",
                             s->path, (long long)id);
    }
    if (st == G16_OK)
        st = exec(s, "COMMIT", "claim: commit");
    if (st != G16_OK) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        store_job_clear(job);
        return st;
    }
    *claimed = id != 0;
    return G16_OK;
}

/* Runs an owner's write (an UPDATE whose ?1 is the id and ?2 the owner, already bound
 * with the rest) and, when it changed nothing, says why. */
static g16_status owner_write(sqlite_store *s, sqlite3_stmt *stmt, const char *what,
                              int64_t id, const char *owner)
{
    if (!BIND_OK(sqlite3_bind_int64(stmt, 1, id) |
                 sqlite3_bind_text(stmt, 2, owner, -1, SQLITE_STATIC)))
        return bind_failed(s, stmt, what);
    g16_status st = step_done(s, stmt, what);
    if (st != G16_OK)
        return st;
    return sqlite3_changes(s->db) == 1 ? G16_OK : refused(s, what, id, owner);
}

#define HELD "id = ?1 AND state = 'running' AND owner = ?2"

static g16_status sqlite_heartbeat(job_store *store, int64_t id, const char *owner,
                                   double lease_s)
{
    sqlite_store *s = as_sqlite(store);
    sqlite3_stmt *stmt;
    g16_status st = prepare(s, &stmt,
                            "UPDATE g16_jobs SET lease_expires = ?3 WHERE " HELD, "heartbeat");
    if (st != G16_OK)
        return st;
    if (!BIND_OK(sqlite3_bind_double(stmt, 3, unix_now() + lease_s)))
        return bind_failed(s, stmt, "heartbeat");
    return owner_write(s, stmt, "heartbeat", id, owner);
}

static g16_status sqlite_progress(job_store *store, int64_t id, const char *owner,
                                  int partitions_done)
{
    sqlite_store *s = as_sqlite(store);
    sqlite3_stmt *stmt;
    g16_status st = prepare(s, &stmt,
                            "UPDATE g16_jobs SET partitions_done = ?3 WHERE " HELD
                            " AND ?3 <= partitions", "progress");
    if (st != G16_OK)
        return st;
    if (!BIND_OK(sqlite3_bind_int(stmt, 3, partitions_done)))
        return bind_failed(s, stmt, "progress");
    return owner_write(s, stmt, "progress", id, owner);
}

static g16_status sqlite_finish(job_store *store, int64_t id, const char *owner, store_state to,
                                const char *text)
{
    sqlite_store *s = as_sqlite(store);
    const char *what = to == STORE_DONE ? "finish" : "fail";
    sqlite3_stmt *stmt;
    g16_status st = prepare(s, &stmt,
                            to == STORE_DONE
                                ? "UPDATE g16_jobs SET state = 'done', result = ?3, finished = ?4,"
                                  " owner = '', lease_expires = NULL WHERE " HELD
                                : "UPDATE g16_jobs SET state = 'failed', error = ?3, finished = ?4,"
                                  " owner = '', lease_expires = NULL WHERE " HELD,
                            what);
    if (st != G16_OK)
        return st;
    if (!BIND_OK(sqlite3_bind_text(stmt, 3, text, -1, SQLITE_STATIC) |
                 sqlite3_bind_double(stmt, 4, unix_now())))
        return bind_failed(s, stmt, what);
    return owner_write(s, stmt, what, id, owner);
}

static g16_status sqlite_cancel(job_store *store, bool *found, int64_t id, const char *reason)
{
    sqlite_store *s = as_sqlite(store);
    sqlite3_stmt *stmt;
    g16_status st = prepare(s, &stmt,
                            "UPDATE g16_jobs SET state = 'cancelled', error = ?2, finished = ?3,"
                            " owner = '', lease_expires = NULL"
                            " WHERE id = ?1 AND state IN ('queued','running')", "cancel");
    if (st != G16_OK)
        return st;
    if (!BIND_OK(sqlite3_bind_int64(stmt, 1, id) |
                 sqlite3_bind_text(stmt, 2, reason, -1, SQLITE_STATIC) |
                 sqlite3_bind_double(stmt, 3, unix_now())))
        return bind_failed(s, stmt, "cancel");
    st = step_done(s, stmt, "cancel");
    if (st != G16_OK)
        return st;
    if (sqlite3_changes(s->db) == 1) {
        *found = true;
        return G16_OK;
    }
    /* Nothing to cancel: the job is finished (left as it is) or does not exist. */
    store_job job;
    st = get_job(s, &job, found, id);
    store_job_clear(&job);
    return st;
}

static g16_status sqlite_requeue_owner(job_store *store, size_t *count, const char *owner)
{
    sqlite_store *s = as_sqlite(store);
    sqlite3_stmt *stmt;
    g16_status st = prepare(s, &stmt,
                            "UPDATE g16_jobs SET state = 'queued', owner = '', started = NULL,"
                            " lease_expires = NULL, partitions_done = 0"
                            " WHERE state = 'running' AND owner = ?1", "requeue");
    if (st != G16_OK)
        return st;
    if (!BIND_OK(sqlite3_bind_text(stmt, 1, owner, -1, SQLITE_STATIC)))
        return bind_failed(s, stmt, "requeue");
    st = step_done(s, stmt, "requeue");
    if (st == G16_OK)
        *count = (size_t)sqlite3_changes(s->db);
    return st;
}

static g16_status sqlite_get(job_store *store, store_job *job, bool *found, int64_t id)
{
    return get_job(as_sqlite(store), job, found, id);
}

static g16_status sqlite_list(job_store *store, store_job *jobs, size_t *count, size_t limit,
                              int state)
{
    sqlite_store *s = as_sqlite(store);
    sqlite3_stmt *stmt;
    g16_status st = prepare(s, &stmt,
                            "SELECT " JOB_COLUMNS " FROM g16_jobs"
                            " WHERE ?1 IS NULL OR state = ?1"
                            " ORDER BY created DESC, id DESC LIMIT ?2", "list");
    if (st != G16_OK)
        return st;
    int bind = state < 0 ? sqlite3_bind_null(stmt, 1)
                         : sqlite3_bind_text(stmt, 1, store_state_name((store_state)state), -1,
                                             SQLITE_STATIC);
    if (!BIND_OK(bind | sqlite3_bind_int64(stmt, 2, (sqlite3_int64)limit)))
        return bind_failed(s, stmt, "list");
    size_t n = 0;
    for (;;) {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            st = db_fail(s, "list");
            break;
        }
        if (n == limit)
            break;
        st = read_job(s, &jobs[n], stmt);
        if (st != G16_OK)
            break;
        n++;
    }
    sqlite3_finalize(stmt);
    if (st == G16_OK)
        *count = n;
    return st; /* on an error store_list clears the jobs filled so far */
}

static g16_status sqlite_counts(job_store *store, uint64_t counts[5])
{
    sqlite_store *s = as_sqlite(store);
    sqlite3_stmt *stmt;
    g16_status st = prepare(s, &stmt, "SELECT state, count(*) FROM g16_jobs GROUP BY state",
                            "counts");
    if (st != G16_OK)
        return st;
    for (;;) {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            st = db_fail(s, "counts");
            break;
        }
        store_state state;
        if (store_state_parse(&state, (const char *)sqlite3_column_text(stmt, 0)))
            counts[state] = (uint64_t)sqlite3_column_int64(stmt, 1);
    }
    sqlite3_finalize(stmt);
    return st;
}

static const store_ops sqlite_ops = {
    .kind = "sqlite",
    .close = sqlite_close,
    .submit = sqlite_submit,
    .claim = sqlite_claim,
    .heartbeat = sqlite_heartbeat,
    .progress = sqlite_progress,
    .finish = sqlite_finish,
    .cancel = sqlite_cancel,
    .requeue_owner = sqlite_requeue_owner,
    .get = sqlite_get,
    .list = sqlite_list,
    .counts = sqlite_counts,
};

g16_status store_sqlite_open(job_store **store, const char *path)
{
    sqlite_store *s = calloc(1, sizeof *s);
    g16_status st = s ? store_strdup(&s->path, path) : G16_ERR_OUT_OF_MEMORY;
    if (st != G16_OK) {
        free(s);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "sqlite store %s: out of memory", path);
    }
    s->base.ops = &sqlite_ops;
    int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        st = s->db ? db_fail(s, "open")
                   : status_fail(G16_ERR_OUT_OF_MEMORY, "sqlite store %s: open: out of memory",
                                 path);
        sqlite_close(&s->base);
        return st;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, SQLITE_BUSY_TIMEOUT_MS);

    /* journal_mode answers with the mode it ended in: anything but "wal" (a file system
     * without shared memory, an in-memory database) is refused, not silently less durable.
     * Switching to WAL needs the database alone; when other connections open it at the
     * same moment SQLite may answer SQLITE_BUSY at once, without the busy handler (its
     * lock upgrade could deadlock), so the switch is retried here for up to the busy
     * timeout (seen under the sanitizer build: 4 threads opening a new store). */
    sqlite3_stmt *stmt = NULL;
    st = prepare(s, &stmt, "PRAGMA journal_mode = WAL", "open: set WAL mode");
    if (st == G16_OK) {
        for (int waited_ms = 0;; waited_ms += WAL_RETRY_MS) {
            rc = sqlite3_step(stmt);
            if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= SQLITE_BUSY_TIMEOUT_MS)
                break;
            sqlite3_reset(stmt);
            struct timespec pause = {0, WAL_RETRY_MS * 1000000L};
            nanosleep(&pause, NULL);
        }
        if (rc != SQLITE_ROW) {
            st = db_fail(s, "open: set WAL mode");
        } else {
            const char *mode = (const char *)sqlite3_column_text(stmt, 0);
            if (!mode || strcmp(mode, "wal") != 0)
                st = status_fail(G16_ERR_IO, "sqlite store %s: open: the journal mode stays "
                                 "\"%s\", not \"wal\" (a file system without shared memory?)",
                                 path, mode ? mode : "(null)");
        }
        sqlite3_finalize(stmt);
    }
    if (st == G16_OK)
        st = exec(s, "PRAGMA synchronous = FULL", "open: set synchronous=FULL");
    if (st == G16_OK)
        st = init_schema(s);
    if (st != G16_OK) {
        sqlite_close(&s->base);
        return st;
    }
    *store = &s->base;
    return G16_OK;
}
