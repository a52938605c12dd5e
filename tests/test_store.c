/* The job store's conformance suite (src/daemon/job_store.h), run on every backend:
 * SQLite always (files in a temporary directory), PostgreSQL when G16_PG_URL names a
 * server (tests/daemon/pg_server.sh starts a throwaway one and runs `test_store
 * --postgres`). Each case opens a fresh, empty store: a new file for SQLite, a new schema
 * (search_path in the URL) for PostgreSQL, so runs never see each other's jobs.
 *
 *   test_store              SQLite; PostgreSQL too when G16_PG_URL is set
 *   test_store --postgres   PostgreSQL only (G16_PG_URL required)
 *
 * G16_TEST_SCALE multiplies the jobs of the concurrency cases. */
#include <libpq-fe.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/job_store.h"
#include "harness.h"

/* --- backends under test ------------------------------------------------------------- */

typedef struct backend {
    const char *name;
    /* Writes the URL of a fresh, empty store into url. */
    bool (*fresh)(char *url, size_t cap);
    /* Overwrites the schema version of the store at url (false when it could not). */
    bool (*set_version)(const char *url, int version);
} backend;

static char g_tmpdir[256];
static int g_serial;

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

static bool sqlite_fresh(char *url, size_t cap)
{
    snprintf(url, cap, "%s/s%d.db", g_tmpdir, ++g_serial);
    return true;
}

static bool sqlite_set_version(const char *url, int version)
{
    sqlite3 *db;
    bool ok = sqlite3_open(url, &db) == SQLITE_OK;
    sqlite3_stmt *stmt = NULL;
    ok = ok && sqlite3_prepare_v2(db, "UPDATE g16_schema SET version = ?1", -1, &stmt, NULL) ==
                   SQLITE_OK;
    ok = ok && sqlite3_bind_int(stmt, 1, version) == SQLITE_OK;
    ok = ok && sqlite3_step(stmt) == SQLITE_DONE && sqlite3_changes(db) == 1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return ok;
}

static const char *g_pg_url;
static char g_pg_schemas[64][64];
static int g_pg_nschemas;

/* Runs one command on the server; the identifier in it comes from this file. */
static bool pg_command(const char *url, const char *sql, const char *param)
{
    PGconn *c = PQconnectdb(url);
    bool ok = PQstatus(c) == CONNECTION_OK;
    if (ok) {
        PQclear(PQexec(c, "SET client_min_messages = warning"));
        PGresult *r = PQexecParams(c, sql, param ? 1 : 0, NULL, param ? &param : NULL, NULL,
                                   NULL, 0);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK &&
             (!param || strcmp(PQcmdTuples(r), "1") == 0);
        if (!ok)
            printf("  postgres: %s: %s", sql, PQerrorMessage(c));
        PQclear(r);
    } else {
        printf("  postgres: connect: %s", PQerrorMessage(c));
    }
    PQfinish(c);
    return ok;
}

static bool pg_fresh(char *url, size_t cap)
{
    if (g_pg_nschemas == 64)
        return false;
    char *name = g_pg_schemas[g_pg_nschemas];
    snprintf(name, 64, "g16_test_%ld_%d", (long)getpid(), ++g_serial);
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE SCHEMA %.63s", name);
    if (!pg_command(g_pg_url, sql, NULL))
        return false;
    g_pg_nschemas++;
    snprintf(url, cap, "%s%coptions=-csearch_path%%3D%s", g_pg_url,
             strchr(g_pg_url, '?') ? '&' : '?', name);
    return true;
}

static bool pg_set_version(const char *url, int version)
{
    char v[16];
    snprintf(v, sizeof v, "%d", version);
    return pg_command(url, "UPDATE g16_schema SET version = $1::integer", v);
}

static void pg_drop_schemas(void)
{
    for (int i = 0; i < g_pg_nschemas; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "DROP SCHEMA %.63s CASCADE", g_pg_schemas[i]);
        pg_command(g_pg_url, sql, NULL);
    }
    g_pg_nschemas = 0;
}

static const backend sqlite_backend = {"sqlite", sqlite_fresh, sqlite_set_version};
static const backend pg_backend = {"postgresql", pg_fresh, pg_set_version};

/* --- helpers ------------------------------------------------------------------------- */

static job_store *open_fresh(const backend *b, char *url, size_t cap)
{
    job_store *s = NULL;
    if (!CHECK(b->fresh(url, cap)))
        return NULL;
    g16_status st = store_open(&s, url);
    if (!CHECK(st == G16_OK))
        printf("  open %s: %s\n", url, g16_last_error());
    return s;
}

static bool ok(g16_status st)
{
    if (st != G16_OK)
        printf("  unexpected: %s\n", g16_last_error());
    return st == G16_OK;
}

/* st is G16_ERR_CANCELLED and the message contains why. */
static bool refused_because(g16_status st, const char *why)
{
    bool good = st == G16_ERR_CANCELLED && strstr(g16_last_error(), why);
    if (!good)
        printf("  want G16_ERR_CANCELLED with \"%s\"; got status %d: %s\n", why, (int)st,
               g16_last_error());
    return good;
}

static store_job get(job_store *s, int64_t id)
{
    store_job j;
    bool found = false;
    CHECK(ok(store_get(s, &j, &found, id)) && found);
    return j;
}

static int64_t submit(job_store *s, const char *request, int priority, int partitions)
{
    int64_t id = 0;
    CHECK(ok(store_submit(s, &id, request, priority, partitions)) && id > 0);
    return id;
}

/* Claims and returns the id (0: none claimed). */
static int64_t claim(job_store *s, const char *owner, double lease_s)
{
    store_job j;
    bool claimed = true;
    if (!CHECK(ok(store_claim(s, &j, &claimed, owner, lease_s))))
        return 0;
    int64_t id = claimed ? j.id : 0;
    if (claimed)
        CHECK(j.state == STORE_RUNNING && strcmp(j.owner, owner) == 0);
    store_job_clear(&j);
    return id;
}

/* --- cases --------------------------------------------------------------------------- */

static void test_submit_get_list_counts(const backend *b)
{
    char url[512];
    job_store *s = open_fresh(b, url, sizeof url);
    if (!s)
        return;
    CHECK(strcmp(store_kind(s), b->name) == 0);
    int64_t a = submit(s, "{\"job\":\"a\"}", 0, 3);
    int64_t c = submit(s, "{\"job\":\"c\", \"text\":\"quotes ' and \\\" and ; and \\u00e9\"}", 7, 1);
    int64_t d = submit(s, "", -2, 0);
    CHECK(a < c && c < d);

    store_job j = get(s, c);
    CHECK(j.id == c && j.state == STORE_QUEUED && j.priority == 7 && j.partitions == 1);
    CHECK(j.request && strcmp(j.request, "{\"job\":\"c\", \"text\":\"quotes ' and \\\" and ; "
                                         "and \\u00e9\"}") == 0);
    CHECK(!j.result && !j.error && j.owner[0] == 0 && j.attempts == 0 && j.partitions_done == 0);
    CHECK(j.created_s > 1.7e9 && j.started_s == 0 && j.finished_s == 0 && j.lease_expires_s == 0);
    store_job_clear(&j);
    CHECK(!j.request && j.id == 0);
    j = get(s, d);
    CHECK(j.request && j.request[0] == 0 && j.partitions == 0 && j.priority == -2);
    store_job_clear(&j);

    bool found = true;
    CHECK(ok(store_get(s, &j, &found, d + 100)) && !found);
    CHECK(ok(store_get(s, &j, &found, -1)) && !found);

    /* list: newest first, limited, filtered by state. */
    store_job jobs[5];
    size_t n = 99;
    CHECK(ok(store_list(s, jobs, &n, 5, -1)) && n == 3);
    if (n == 3)
        CHECK(jobs[0].id == d && jobs[1].id == c && jobs[2].id == a);
    for (size_t i = 0; i < n; i++)
        store_job_clear(&jobs[i]);
    CHECK(ok(store_list(s, jobs, &n, 2, -1)) && n == 2 && jobs[0].id == d && jobs[1].id == c);
    for (size_t i = 0; i < n; i++)
        store_job_clear(&jobs[i]);

    int64_t got = claim(s, "owner-a", 30);
    CHECK(got == c);
    CHECK(ok(store_list(s, jobs, &n, 5, STORE_RUNNING)) && n == 1 && jobs[0].id == c);
    for (size_t i = 0; i < n; i++)
        store_job_clear(&jobs[i]);
    CHECK(ok(store_list(s, jobs, &n, 5, STORE_QUEUED)) && n == 2);
    for (size_t i = 0; i < n; i++)
        store_job_clear(&jobs[i]);
    CHECK(ok(store_list(s, jobs, &n, 5, STORE_DONE)) && n == 0);
    CHECK(ok(store_list(s, NULL, &n, 0, -1)) && n == 0);
    CHECK(store_list(s, jobs, &n, 5, 9) == G16_ERR_INVALID_ARGUMENT);

    uint64_t counts[5];
    CHECK(ok(store_counts(s, counts)));
    CHECK(counts[STORE_QUEUED] == 2 && counts[STORE_RUNNING] == 1 && counts[STORE_DONE] == 0 &&
          counts[STORE_FAILED] == 0 && counts[STORE_CANCELLED] == 0);
    CHECK(ok(store_finish(s, c, "owner-a", "{\"proofs\":[]}")));
    got = claim(s, "owner-a", 30);
    CHECK(got == a);
    CHECK(ok(store_fail(s, a, "owner-a", "synthesis failed: partition 2")));
    bool cancelled = false;
    CHECK(ok(store_cancel(s, &cancelled, d, "by the test")) && cancelled);
    CHECK(ok(store_counts(s, counts)));
    CHECK(counts[STORE_QUEUED] == 0 && counts[STORE_RUNNING] == 0 && counts[STORE_DONE] == 1 &&
          counts[STORE_FAILED] == 1 && counts[STORE_CANCELLED] == 1);
    j = get(s, a);
    CHECK(j.state == STORE_FAILED && j.error && strcmp(j.error, "synthesis failed: partition 2") == 0);
    CHECK(j.finished_s >= j.started_s && j.started_s >= j.created_s && j.owner[0] == 0);
    CHECK(!j.result && j.lease_expires_s == 0);
    store_job_clear(&j);

    /* Bad calls. */
    int64_t id;
    bool claimed;
    CHECK(store_submit(s, &id, NULL, 0, 1) == G16_ERR_INVALID_ARGUMENT);
    CHECK(store_submit(s, &id, "{}", 0, -1) == G16_ERR_INVALID_ARGUMENT);
    CHECK(store_claim(s, &j, &claimed, "", 10) == G16_ERR_INVALID_ARGUMENT);
    CHECK(store_claim(s, &j, &claimed, NULL, 10) == G16_ERR_INVALID_ARGUMENT);
    CHECK(store_claim(s, &j, &claimed, "x", 0) == G16_ERR_INVALID_ARGUMENT);
    CHECK(store_claim(s, &j, &claimed, "x", NAN) == G16_ERR_INVALID_ARGUMENT);
    char long_owner[100];
    memset(long_owner, 'o', sizeof long_owner - 1);
    long_owner[sizeof long_owner - 1] = 0;
    CHECK(store_claim(s, &j, &claimed, long_owner, 10) == G16_ERR_INVALID_ARGUMENT);
    CHECK(store_progress(s, c, "owner-a", -1) == G16_ERR_INVALID_ARGUMENT);
    CHECK(store_finish(s, c, "owner-a", NULL) == G16_ERR_INVALID_ARGUMENT);
    store_close(s);
}

static void test_priority_order(const backend *b)
{
    char url[512];
    job_store *s = open_fresh(b, url, sizeof url);
    if (!s)
        return;
    int64_t a = submit(s, "a", 0, 1);
    int64_t bb = submit(s, "b", 5, 1);
    int64_t c = submit(s, "c", 0, 1);
    int64_t d = submit(s, "d", 5, 1);
    int64_t e = submit(s, "e", -1, 1);
    int64_t want[] = {bb, d, a, c, e};
    for (int i = 0; i < 5; i++) {
        int64_t got = claim(s, "o", 30);
        if (!CHECK(got == want[i]))
            printf("  claim %d: got job %lld, want %lld\n", i, (long long)got,
                   (long long)want[i]);
    }
    CHECK(claim(s, "o", 30) == 0);
    store_close(s);
}

static void test_lease_and_ownership(const backend *b)
{
    char url[512];
    job_store *s = open_fresh(b, url, sizeof url);
    if (!s)
        return;
    const double lease = 0.4;
    int64_t id = submit(s, "{}", 0, 4);
    store_job j;
    bool claimed = false;
    CHECK(ok(store_claim(s, &j, &claimed, "A", lease)) && claimed && j.id == id);
    CHECK(j.attempts == 1 && j.started_s > 0 && strcmp(j.owner, "A") == 0);
    CHECK(j.lease_expires_s > j.started_s + lease * 0.9 && j.lease_expires_s < j.started_s + lease * 1.1 + 0.05);
    store_job_clear(&j);

    /* A live lease keeps the job from everyone else. */
    CHECK(claim(s, "B", lease) == 0);
    CHECK(ok(store_progress(s, id, "A", 2)));
    CHECK(store_progress(s, id, "A", 5) == G16_ERR_INVALID_ARGUMENT);
    CHECK(ok(store_heartbeat(s, id, "A", lease)));
    CHECK(refused_because(store_heartbeat(s, id, "B", lease), "taken over by A"));
    CHECK(refused_because(store_heartbeat(s, id + 1000, "A", lease), "no such job"));

    /* The lease runs out: another owner takes the job over and starts it again. */
    sleep_s(lease + 0.25);
    CHECK(ok(store_claim(s, &j, &claimed, "B", 30)) && claimed && j.id == id);
    CHECK(j.attempts == 2 && strcmp(j.owner, "B") == 0 && j.partitions_done == 0);
    store_job_clear(&j);

    /* A, the stale owner, changes nothing. */
    CHECK(refused_because(store_heartbeat(s, id, "A", lease), "taken over by B"));
    CHECK(refused_because(store_progress(s, id, "A", 3), "taken over by B"));
    CHECK(refused_because(store_finish(s, id, "A", "{\"from\":\"A\"}"), "taken over by B"));
    CHECK(refused_because(store_fail(s, id, "A", "A failed"), "taken over by B"));
    j = get(s, id);
    CHECK(j.state == STORE_RUNNING && strcmp(j.owner, "B") == 0 && !j.result && !j.error);
    CHECK(j.partitions_done == 0 && j.lease_expires_s > j.started_s + 20);
    store_job_clear(&j);

    /* B finishes; the result is written once. */
    CHECK(ok(store_progress(s, id, "B", 4)));
    CHECK(ok(store_finish(s, id, "B", "{\"from\":\"B\"}")));
    CHECK(refused_because(store_finish(s, id, "B", "{\"again\":1}"), "already done"));
    CHECK(refused_because(store_fail(s, id, "B", "late"), "already done"));
    CHECK(refused_because(store_heartbeat(s, id, "B", lease), "already done"));
    CHECK(refused_because(store_finish(s, id, "A", "{\"from\":\"A\"}"), "already done"));
    j = get(s, id);
    CHECK(j.state == STORE_DONE && j.result && strcmp(j.result, "{\"from\":\"B\"}") == 0);
    CHECK(!j.error && j.owner[0] == 0 && j.partitions_done == 4 && j.finished_s > 0);
    CHECK(j.attempts == 2 && j.lease_expires_s == 0);
    store_job_clear(&j);
    CHECK(claim(s, "C", lease) == 0);

    /* A heartbeat moves the lease forward: the job outlives its first lease. */
    int64_t id2 = submit(s, "{}", 0, 1);
    CHECK(claim(s, "A", lease) == id2);
    CHECK(ok(store_heartbeat(s, id2, "A", 30)));
    sleep_s(lease + 0.25);
    CHECK(claim(s, "B", lease) == 0);
    j = get(s, id2);
    CHECK(j.state == STORE_RUNNING && strcmp(j.owner, "A") == 0 && j.attempts == 1);
    store_job_clear(&j);

    /* An expired lease nobody took over is still the owner's: it may finish. */
    CHECK(ok(store_heartbeat(s, id2, "A", 0.05)));
    sleep_s(0.2);
    CHECK(ok(store_finish(s, id2, "A", "late but first")));
    CHECK(claim(s, "B", lease) == 0);
    store_close(s);
}

static void test_cancel(const backend *b)
{
    char url[512];
    job_store *s = open_fresh(b, url, sizeof url);
    if (!s)
        return;
    int64_t queued = submit(s, "q", 0, 1);
    int64_t running = submit(s, "r", 9, 1);
    int64_t done = submit(s, "d", 8, 1);
    CHECK(claim(s, "A", 30) == running);
    CHECK(claim(s, "A", 30) == done);
    CHECK(ok(store_finish(s, done, "A", "{}")));

    bool found = false;
    CHECK(ok(store_cancel(s, &found, queued, "user asked")) && found);
    store_job j = get(s, queued);
    CHECK(j.state == STORE_CANCELLED && j.error && strcmp(j.error, "user asked") == 0);
    CHECK(j.finished_s > 0);
    store_job_clear(&j);
    CHECK(claim(s, "B", 30) == 0);

    CHECK(ok(store_cancel(s, &found, running, "operator")) && found);
    CHECK(refused_because(store_heartbeat(s, running, "A", 30), "cancelled (operator)"));
    CHECK(refused_because(store_progress(s, running, "A", 1), "cancelled"));
    CHECK(refused_because(store_finish(s, running, "A", "{}"), "cancelled"));
    j = get(s, running);
    CHECK(j.state == STORE_CANCELLED && !j.result && j.owner[0] == 0 && j.lease_expires_s == 0);
    store_job_clear(&j);

    /* Finished jobs stay as they are; a missing one is not found. */
    CHECK(ok(store_cancel(s, &found, done, "too late")) && found);
    j = get(s, done);
    CHECK(j.state == STORE_DONE && !j.error && j.result && strcmp(j.result, "{}") == 0);
    store_job_clear(&j);
    CHECK(ok(store_cancel(s, &found, queued, "twice")) && found);
    j = get(s, queued);
    CHECK(j.state == STORE_CANCELLED && j.error && strcmp(j.error, "user asked") == 0);
    store_job_clear(&j);
    found = true;
    CHECK(ok(store_cancel(s, &found, done + 100, "nothing")) && !found);
    store_close(s);
}

static void test_requeue_owner(const backend *b)
{
    char url[512];
    job_store *s = open_fresh(b, url, sizeof url);
    if (!s)
        return;
    int64_t j1 = submit(s, "1", 0, 2), j2 = submit(s, "2", 0, 2), j3 = submit(s, "3", 0, 2);
    CHECK(claim(s, "A", 30) == j1);
    CHECK(claim(s, "B", 30) == j2);
    CHECK(claim(s, "A", 30) == j3);
    CHECK(ok(store_progress(s, j1, "A", 1)));
    size_t count = 99;
    CHECK(ok(store_requeue_owner(s, &count, "A")) && count == 2);
    store_job j = get(s, j1);
    CHECK(j.state == STORE_QUEUED && j.owner[0] == 0 && j.attempts == 1 &&
          j.lease_expires_s == 0 && j.partitions_done == 0);
    store_job_clear(&j);
    j = get(s, j2);
    CHECK(j.state == STORE_RUNNING && strcmp(j.owner, "B") == 0);
    store_job_clear(&j);
    CHECK(refused_because(store_heartbeat(s, j3, "A", 30), "queued"));
    CHECK(ok(store_requeue_owner(s, &count, "A")) && count == 0);
    CHECK(ok(store_requeue_owner(s, &count, "nobody")) && count == 0);

    /* Re-queued jobs keep their age: they come before a newer job. */
    int64_t j4 = submit(s, "4", 0, 2);
    CHECK(claim(s, "C", 30) == j1);
    CHECK(claim(s, "C", 30) == j3);
    CHECK(claim(s, "C", 30) == j4);
    j = get(s, j3);
    CHECK(j.attempts == 2 && strcmp(j.owner, "C") == 0);
    store_job_clear(&j);
    store_close(s);
}

static void test_durability(const backend *b)
{
    char url[512];
    job_store *s = open_fresh(b, url, sizeof url);
    if (!s)
        return;
    int64_t ids[4];
    for (int i = 0; i < 4; i++) {
        char req[32];
        snprintf(req, sizeof req, "{\"n\":%d}", i);
        ids[i] = submit(s, req, i, i + 1);
    }
    CHECK(claim(s, "A", 3600) == ids[3]);
    CHECK(claim(s, "A", 3600) == ids[2]);
    CHECK(ok(store_finish(s, ids[2], "A", "{\"ok\":true}")));
    store_close(s);

    /* Reopen: everything is as it was, and ids go on from where they were. */
    s = NULL;
    CHECK(ok(store_open(&s, url)));
    if (!s)
        return;
    for (int i = 0; i < 4; i++) {
        store_job j = get(s, ids[i]);
        char req[32];
        snprintf(req, sizeof req, "{\"n\":%d}", i);
        CHECK(j.request && strcmp(j.request, req) == 0 && j.priority == i && j.partitions == i + 1);
        store_state want = i == 3 ? STORE_RUNNING : i == 2 ? STORE_DONE : STORE_QUEUED;
        CHECK(j.state == want);
        store_job_clear(&j);
    }
    CHECK(ok(store_heartbeat(s, ids[3], "A", 3600)));
    CHECK(submit(s, "{}", 0, 1) > ids[3]);
    uint64_t counts[5];
    CHECK(ok(store_counts(s, counts)) && counts[STORE_QUEUED] == 3 && counts[STORE_RUNNING] == 1 &&
          counts[STORE_DONE] == 1);
    store_close(s);
}

static void test_schema_version(const backend *b)
{
    char url[512];
    job_store *s = open_fresh(b, url, sizeof url);
    if (!s)
        return;
    submit(s, "{}", 0, 1);
    store_close(s);
    if (!CHECK(b->set_version(url, 99)))
        return;
    s = NULL;
    g16_status st = store_open(&s, url);
    CHECK(st == G16_ERR_FORMAT && !s);
    CHECK(strstr(g16_last_error(), "schema version 99") != NULL);
    if (st != G16_ERR_FORMAT)
        printf("  open with schema version 99: status %d: %s\n", (int)st, g16_last_error());
    store_close(s);
    /* Restored, it opens again with its job. */
    CHECK(b->set_version(url, 1));
    s = NULL;
    CHECK(ok(store_open(&s, url)));
    uint64_t counts[5] = {0};
    if (s)
        CHECK(ok(store_counts(s, counts)) && counts[STORE_QUEUED] == 1);
    store_close(s);
}

/* --- concurrency: handles on threads claim from one queue ----------------------------- */

typedef struct {
    const char *url;
    int index;
    int64_t *claimed; /* ids this thread claimed */
    size_t n, cap;
    bool failed;
} claimer;

static void *claimer_main(void *arg)
{
    claimer *c = arg;
    job_store *s = NULL;
    if (store_open(&s, c->url) != G16_OK) {
        printf("  claimer %d: open: %s\n", c->index, g16_last_error());
        c->failed = true;
        return NULL;
    }
    char owner[32];
    snprintf(owner, sizeof owner, "thread-%d", c->index);
    for (;;) {
        store_job j;
        bool claimed = false;
        if (store_claim(s, &j, &claimed, owner, 60) != G16_OK) {
            printf("  claimer %d: claim: %s\n", c->index, g16_last_error());
            c->failed = true;
            break;
        }
        if (!claimed)
            break;
        if (c->n < c->cap)
            c->claimed[c->n++] = j.id;
        char result[64];
        snprintf(result, sizeof result, "{\"by\":\"%s\",\"job\":%lld}", owner, (long long)j.id);
        /* Every other job reports progress first: more writes racing with the claims. */
        if ((j.id & 1) && store_progress(s, j.id, owner, j.partitions) != G16_OK) {
            printf("  claimer %d: progress: %s\n", c->index, g16_last_error());
            c->failed = true;
        }
        if (store_finish(s, j.id, owner, result) != G16_OK) {
            printf("  claimer %d: finish %lld: %s\n", c->index, (long long)j.id,
                   g16_last_error());
            c->failed = true;
        }
        store_job_clear(&j);
    }
    store_close(s);
    return NULL;
}

static void test_concurrent_claims(const backend *b)
{
    char url[512];
    job_store *s = open_fresh(b, url, sizeof url);
    if (!s)
        return;
    enum { THREADS = 4 };
    size_t jobs = test_count(300);
    int64_t *ids = calloc(jobs, sizeof *ids);
    int *seen = calloc(jobs, sizeof *seen);
    claimer c[THREADS];
    memset(c, 0, sizeof c);
    bool alloc_ok = ids && seen;
    for (int t = 0; t < THREADS; t++) {
        c[t] = (claimer){.url = url, .index = t, .claimed = calloc(jobs, sizeof(int64_t)),
                         .cap = jobs};
        alloc_ok = alloc_ok && c[t].claimed;
    }
    if (!CHECK(alloc_ok))
        goto out;
    for (size_t i = 0; i < jobs; i++)
        ids[i] = submit(s, "{}", (int)(test_rand64() % 5), 1);

    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, claimer_main, &c[t]) == 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &w1);

    /* Each job claimed by exactly one thread; none lost; all done with one attempt. */
    size_t total = 0, twice = 0, unknown = 0;
    for (int t = 0; t < THREADS; t++) {
        CHECK(!c[t].failed);
        total += c[t].n;
        for (size_t k = 0; k < c[t].n; k++) {
            int64_t id = c[t].claimed[k];
            size_t i = (size_t)(id - ids[0]);
            if (id < ids[0] || i >= jobs || ids[i] != id)
                unknown++;
            else if (seen[i]++)
                twice++;
        }
    }
    CHECK(total == jobs && twice == 0 && unknown == 0);
    printf("  %s: %d threads claimed %zu of %zu jobs in %.2f s (per thread:", b->name, THREADS,
           total, jobs, (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) * 1e-9);
    for (int t = 0; t < THREADS; t++)
        printf(" %zu", c[t].n);
    printf("), %zu twice, %zu unknown\n", twice, unknown);
    uint64_t counts[5];
    CHECK(ok(store_counts(s, counts)) && counts[STORE_DONE] == jobs && counts[STORE_QUEUED] == 0 &&
          counts[STORE_RUNNING] == 0);
    for (size_t i = 0; i < jobs; i += jobs / 7 + 1) {
        store_job j = get(s, ids[i]);
        CHECK(j.state == STORE_DONE && j.attempts == 1 && j.result && strstr(j.result, "thread-"));
        store_job_clear(&j);
    }
out:
    for (int t = 0; t < THREADS; t++)
        free(c[t].claimed);
    free(ids);
    free(seen);
    store_close(s);
}

/* Several handles open one new store at once: the schema is created once, and all work. */
typedef struct {
    const char *url;
    g16_status st;
    char error[256];
} opener;

static void *opener_main(void *arg)
{
    opener *o = arg;
    job_store *s = NULL;
    o->st = store_open(&s, o->url);
    if (o->st == G16_OK) {
        int64_t id;
        o->st = store_submit(s, &id, "{}", 0, 1);
    }
    if (o->st != G16_OK)
        snprintf(o->error, sizeof o->error, "%s", g16_last_error());
    store_close(s);
    return NULL;
}

static void test_concurrent_open(const backend *b)
{
    char url[512];
    if (!CHECK(b->fresh(url, sizeof url)))
        return;
    enum { N = 4 };
    opener o[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        o[i] = (opener){.url = url};
        CHECK(pthread_create(&th[i], NULL, opener_main, &o[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        if (!CHECK(o[i].st == G16_OK))
            printf("  opener %d: %s\n", i, o[i].error);
    }
    job_store *s = NULL;
    uint64_t counts[5] = {0};
    CHECK(ok(store_open(&s, url)) && ok(store_counts(s, counts)) && counts[STORE_QUEUED] == N);
    store_close(s);
}

static void run_suite(const backend *b)
{
    printf("%s:\n", b->name);
    test_submit_get_list_counts(b);
    test_priority_order(b);
    test_lease_and_ownership(b);
    test_cancel(b);
    test_requeue_owner(b);
    test_durability(b);
    test_schema_version(b);
    test_concurrent_open(b);
    test_concurrent_claims(b);
}

/* --- opening: URLs and files that are not stores --------------------------------------- */

static void expect_open_fails(const char *url, g16_status want, const char *message)
{
    job_store *s = (job_store *)&s; /* must come back NULL */
    g16_status st = store_open(&s, url);
    bool good = st == want && !s && strstr(g16_last_error(), message);
    if (!CHECK(good))
        printf("  store_open(\"%s\"): status %d, want %d with \"%s\": %s\n", url, (int)st,
               (int)want, message, g16_last_error());
    if (st == G16_OK)
        store_close(s);
}

static void test_urls(void)
{
    printf("urls and files:\n");
    expect_open_fails("mysql://localhost/db", G16_ERR_FORMAT, "unknown store URL scheme \"mysql\"");
    expect_open_fails("redis://x", G16_ERR_FORMAT, "redis");
    expect_open_fails("", G16_ERR_INVALID_ARGUMENT, "empty");
    expect_open_fails("sqlite:", G16_ERR_INVALID_ARGUMENT, "names no file");
    CHECK(store_open(NULL, "x.db") == G16_ERR_INVALID_ARGUMENT);

    char path[512];
    snprintf(path, sizeof path, "sqlite:%s/no/such/dir/jobs.db", g_tmpdir);
    expect_open_fails(path, G16_ERR_IO, "unable to open");

    /* "sqlite:PATH", "sqlite://PATH" and PATH name one file. */
    snprintf(path, sizeof path, "sqlite:%s/named.db", g_tmpdir);
    job_store *s = NULL;
    CHECK(ok(store_open(&s, path)) && s && strcmp(store_kind(s), "sqlite") == 0);
    if (s)
        submit(s, "{}", 0, 1);
    store_close(s);
    s = NULL;
    snprintf(path, sizeof path, "sqlite://%s/named.db", g_tmpdir);
    uint64_t counts[5] = {0};
    CHECK(ok(store_open(&s, path)) && ok(store_counts(s, counts)) && counts[STORE_QUEUED] == 1);
    store_close(s);
    s = NULL;
    snprintf(path, sizeof path, "%s/named.db", g_tmpdir);
    CHECK(ok(store_open(&s, path)) && ok(store_counts(s, counts)) && counts[STORE_QUEUED] == 1);
    store_close(s);

    /* Files that are not SQLite databases, or are damaged ones: an error naming the file,
     * never a crash. */
    snprintf(path, sizeof path, "%s/text.db", g_tmpdir);
    FILE *f = fopen(path, "wb");
    if (CHECK(f != NULL)) {
        for (int i = 0; i < 200; i++)
            fputs("this is a text file, not a database\n", f);
        fclose(f);
        expect_open_fails(path, G16_ERR_FORMAT, "not a database");
        expect_open_fails(path, G16_ERR_FORMAT, path);
    }
    /* A real store with random bytes over everything after its header page. */
    snprintf(path, sizeof path, "%s/damaged.db", g_tmpdir);
    s = NULL;
    if (CHECK(ok(store_open(&s, path)))) {
        for (int i = 0; i < 50; i++)
            submit(s, "{\"padding\":\"................................................\"}", 0, 1);
        store_close(s);
        /* The WAL holds the jobs until a checkpoint; the last close checkpointed it. */
        f = fopen(path, "r+b");
        if (CHECK(f != NULL)) {
            fseek(f, 0, SEEK_END);
            long size = ftell(f);
            CHECK(size > 4096);
            fseek(f, 100, SEEK_SET);
            for (long i = 100; i < size; i++)
                fputc((int)(test_rand64() & 0xff), f);
            fclose(f);
            s = NULL;
            g16_status st = store_open(&s, path);
            /* The header survives, so opening may succeed; reading must then fail cleanly. */
            if (st == G16_OK) {
                uint64_t c[5];
                st = store_counts(s, c);
                store_close(s);
            }
            CHECK(st == G16_ERR_FORMAT || st == G16_ERR_IO);
            printf("  damaged file: status %d: %s\n", (int)st, g16_last_error());
        }
    }
}

static void remove_tmpdir(void)
{
    char cmd[300];
    if (strncmp(g_tmpdir, "/", 1) == 0 && strstr(g_tmpdir, "g16-store-")) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmpdir);
        if (system(cmd) != 0)
            printf("could not remove %s\n", g_tmpdir);
    }
}

int main(int argc, char **argv)
{
    test_init("test_store");
    bool postgres_only = argc > 1 && strcmp(argv[1], "--postgres") == 0;
    g_pg_url = getenv("G16_PG_URL");
    if (g_pg_url && !*g_pg_url)
        g_pg_url = NULL;
    if (postgres_only && !g_pg_url) {
        printf("test_store --postgres: G16_PG_URL is not set (tests/daemon/pg_server.sh sets it)\n");
        return 1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(g_tmpdir, sizeof g_tmpdir, "%s/g16-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_tmpdir)) {
        printf("test_store: cannot create %s\n", g_tmpdir);
        return 1;
    }
    if (!postgres_only) {
        test_urls();
        run_suite(&sqlite_backend);
    }
    if (g_pg_url) {
        run_suite(&pg_backend);
        /* A server that does not answer: an error with libpq's reason, promptly. */
        printf("postgresql: unreachable server\n");
        expect_open_fails("postgresql://127.0.0.1:1/none?connect_timeout=3", G16_ERR_IO,
                          "connect");
        expect_open_fails("postgres://[::1", G16_ERR_IO, "postgresql store");
        pg_drop_schemas();
    } else {
        printf("postgresql: not run (G16_PG_URL not set; the ctest test_store_postgres runs it)\n");
    }
    remove_tmpdir();
    return test_finish();
}
