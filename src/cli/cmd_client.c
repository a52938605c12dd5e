/* The daemon's client commands, over HTTP with libcurl:
 *   g16 submit [CONN] (--key ID --witness W.wtns [--witness ...] |
 *                      --constraints N --partitions P [--seed S] [--public K])
 *                     [--priority K] [--wait [--out DIR] [--timeout S]]
 *   g16 status [CONN] [ID]
 *   g16 wait   [CONN] ID [--out DIR] [--timeout S]
 *   g16 cancel [CONN] ID
 *   g16 bench --daemon URL -c N -j J --constraints N --partitions P [--seed S] [CONN]
 * CONN: --url URL (else $G16_DAEMON_URL, else STATE_DIR/port, else
 * http://127.0.0.1:7816), --token-file FILE (else $G16_TOKEN_FILE, else STATE_DIR/token),
 * --state-dir DIR (default g16-state, the daemon's default).
 * submit prints the job id; wait writes verification_key.json, proof_<i>.json and
 * public_<i>.json into DIR, which `g16 verify` checks. Exit status: 0 done, 1 the job
 * failed or was cancelled, 2 a usage, connection or HTTP error (its message printed). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

#ifdef G16_HAVE_DAEMON
#include "io/snarkjs_json.h"
#include "util/buffer.h"
#include "util/input_file.h"
#include "util/status.h"
#include <curl/curl.h>
#include <jansson.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char *cmd;        /* "g16 submit", for messages */
    char url[1024];
    char auth[600];         /* "Authorization: Bearer ..." or "" */
    CURL *curl;
} client;

typedef struct {
    buffer b;
    bool too_big;
} body;

/* Answers above this are refused: a result of 1000 proofs is ~2 MB. */
enum { MAX_ANSWER = 256 << 20 };

static size_t on_data(char *ptr, size_t size, size_t n, void *ctx)
{
    body *b = ctx;
    size_t add = size * n;
    if (b->b.len + add + 1 > MAX_ANSWER) {
        b->too_big = true;
        return 0;
    }
    return buffer_append(&b->b, ptr, add) ? add : 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A small file's text without trailing white space; false when it cannot be read (the
 * reason in g16_last_error) or is empty (g16_last_error says so). */
static bool read_small_file(char *out, size_t cap, const char *path)
{
    FILE *f;
    if (input_file_open(&f, path))
        return false;
    size_t n = fread(out, 1, cap - 1, f);
    fclose(f);
    out[n] = 0;
    while (n && strchr(" \t\r\n", out[n - 1]))
        out[--n] = 0;
    if (!n)
        status_fail(G16_ERR_FORMAT, "%s: empty", path);
    return n > 0;
}

/* Connection flags; returns the number of arguments consumed at argv[i] (0: not one). */
typedef struct {
    const char *url, *token_file, *state_dir;
} conn_opts;

static int conn_flag(conn_opts *o, int argc, char **argv, int i)
{
    if (i + 1 >= argc)
        return 0;
    if (!strcmp(argv[i], "--url") || !strcmp(argv[i], "--daemon"))
        o->url = argv[i + 1];
    else if (!strcmp(argv[i], "--token-file"))
        o->token_file = argv[i + 1];
    else if (!strcmp(argv[i], "--state-dir"))
        o->state_dir = argv[i + 1];
    else
        return 0;
    return 2;
}

static bool client_open(client *c, const char *cmd, const conn_opts *o)
{
    memset(c, 0, sizeof *c);
    c->cmd = cmd;
    const char *dir = o->state_dir ? o->state_dir : "g16-state";
    const char *url = o->url ? o->url : getenv("G16_DAEMON_URL");
    char path[4200], text[512];
    if (url) {
        snprintf(c->url, sizeof c->url, "%s", url);
    } else {
        snprintf(path, sizeof path, "%s/port", dir);
        if (read_small_file(text, sizeof text, path))
            snprintf(c->url, sizeof c->url, "http://127.0.0.1:%s", text);
        else
            snprintf(c->url, sizeof c->url, "http://127.0.0.1:7816");
    }
    size_t n = strlen(c->url);
    while (n && c->url[n - 1] == '/')
        c->url[--n] = 0;
    const char *tf = o->token_file ? o->token_file : getenv("G16_TOKEN_FILE");
    if (!tf) {
        snprintf(path, sizeof path, "%s/token", dir);
        tf = access(path, R_OK) == 0 ? path : NULL;
    }
    if (tf) {
        if (!read_small_file(text, sizeof text, tf)) {
            fprintf(stderr, "%s: token file %s\n", cmd, g16_last_error());
            return false;
        }
        snprintf(c->auth, sizeof c->auth, "Authorization: Bearer %s", text);
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || !(c->curl = curl_easy_init())) {
        fprintf(stderr, "%s: cannot initialise libcurl\n", cmd);
        return false;
    }
    return true;
}

static void client_close(client *c)
{
    if (c->curl)
        curl_easy_cleanup(c->curl);
    curl_global_cleanup();
}

/* One call: *code the HTTP status, *out the JSON answer (NULL when it is not JSON; then
 * *raw keeps the text). False after a transport failure (printed). */
static bool call(client *c, long *code, json_t **out, body *raw, const char *method,
                 const char *path, const char *payload)
{
    char url[1200];
    snprintf(url, sizeof url, "%s%s", c->url, path);
    body b = {0};
    struct curl_slist *headers = NULL;
    if (*c->auth)
        headers = curl_slist_append(headers, c->auth);
    if (payload)
        headers = curl_slist_append(headers, "Content-Type: application/json");
    CURL *h = c->curl;
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 600L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    if (!strcmp(method, "POST")) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload ? payload : "");
    }
    CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) {
        fprintf(stderr, "%s: %s %s: %s\n", c->cmd, method, url,
                b.too_big ? "the answer is too large" : curl_easy_strerror(rc));
        free(b.b.data);
        return false;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code);
    *out = b.b.data ? json_loads(b.b.data, 0, NULL) : NULL;
    if (raw)
        *raw = b;
    else
        free(b.b.data);
    return true;
}

/* A call that must answer 2xx with JSON; otherwise the daemon's error is printed. */
static json_t *call_ok(client *c, const char *method, const char *path, const char *payload)
{
    long code = 0;
    json_t *v = NULL;
    body raw = {0};
    if (!call(c, &code, &v, &raw, method, path, payload))
        return NULL;
    if (code / 100 == 2 && v) {
        free(raw.b.data);
        return v;
    }
    const char *err = json_string_value(json_object_get(v, "error"));
    fprintf(stderr, "%s: HTTP %ld: %s\n", c->cmd, code,
            err ? err : raw.b.data ? raw.b.data : "(no answer)");
    json_decref(v);
    free(raw.b.data);
    return NULL;
}

static void print_json(json_t *v)
{
    char *text = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (text)
        printf("%s\n", text);
    free(text);
}

/* Writes a done job's result: verification_key.json, proof_<i>.json, public_<i>.json. */
static bool write_result(const char *cmd, json_t *result, const char *dir)
{
    if (!cli_out_dir(cmd, dir))
        return false;
    json_t *proofs = json_object_get(result, "proofs");
    json_t *pubs = json_object_get(result, "public_signals");
    json_t *vk = json_object_get(result, "verification_key");
    if (!json_is_array(proofs) || !json_is_array(pubs) || !vk ||
        json_array_size(pubs) != json_array_size(proofs)) {
        fprintf(stderr, "%s: the result's proofs, public_signals (as many) or "
                        "verification_key are missing\n", cmd);
        return false;
    }
    /* All of them or none: a failure (a full disk) leaves the directory's old files,
     * never a new proof beside an old one's public inputs. */
    size_t np = json_array_size(proofs), n = 1 + 2 * np;
    char **paths = calloc(n, sizeof *paths);
    json_t **values = calloc(n, sizeof *values);
    bool ok = paths && values;
    for (size_t i = 0; ok && i < n; i++) {
        size_t k = (i - 1) / 2; /* the proof's index, for i >= 1 */
        int len = i == 0     ? asprintf(&paths[i], "%s/verification_key.json", dir)
                  : i % 2 ? asprintf(&paths[i], "%s/proof_%zu.json", dir, k)
                           : asprintf(&paths[i], "%s/public_%zu.json", dir, k);
        if (len < 0)
            paths[i] = NULL; /* asprintf leaves it undefined */
        ok = paths[i] != NULL;
        values[i] = i == 0 ? vk : json_array_get(i % 2 ? proofs : pubs, k);
    }
    if (!ok)
        fprintf(stderr, "%s: out of memory\n", cmd);
    else if (json_write_files((const char *const *)paths, values, n) != G16_OK) {
        fprintf(stderr, "%s: %s\n", cmd, g16_last_error());
        ok = false;
    }
    for (size_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
    free(values);
    return ok;
}

/* Polls job id until it is done, failed or cancelled (or timeout_s passes; 0 = none).
 * Returns the final job object, NULL on error or timeout (printed). */
static json_t *wait_job(client *c, long long id, double timeout_s)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%lld", id);
    double t0 = now_s(), pause = 0.05;
    for (;;) {
        json_t *j = call_ok(c, "GET", path, NULL);
        if (!j)
            return NULL;
        const char *state = json_string_value(json_object_get(j, "state"));
        if (state && (!strcmp(state, "done") || !strcmp(state, "failed") ||
                      !strcmp(state, "cancelled")))
            return j;
        json_decref(j);
        if (timeout_s > 0 && now_s() - t0 > timeout_s) {
            fprintf(stderr, "%s: job %lld: not finished after %.0f s\n", c->cmd, id, timeout_s);
            return NULL;
        }
        usleep((useconds_t)(pause * 1e6));
        pause = pause < 0.5 ? pause * 1.5 : 0.5;
    }
}

/* Waits, reports and, when done, fetches the result into out_dir. Exit status. */
static int finish_wait(client *c, long long id, const char *out_dir, double timeout_s)
{
    json_t *j = wait_job(c, id, timeout_s);
    if (!j)
        return 2;
    const char *state = json_string_value(json_object_get(j, "state"));
    int rc = 0;
    if (strcmp(state, "done") != 0) {
        const char *err = json_string_value(json_object_get(j, "error"));
        fprintf(stderr, "%s: job %lld %s: %s\n", c->cmd, id, state, err ? err : "");
        rc = 1;
    } else if (out_dir) {
        char path[64];
        snprintf(path, sizeof path, "/v1/jobs/%lld/result", id);
        json_t *r = call_ok(c, "GET", path, NULL);
        rc = r && write_result(c->cmd, r, out_dir) ? 0 : 2;
        if (!rc)
            printf("job %lld: done, %zu proof%s in %s\n", id,
                   json_array_size(json_object_get(r, "proofs")),
                   json_array_size(json_object_get(r, "proofs")) == 1 ? "" : "s", out_dir);
        json_decref(r);
    } else {
        printf("job %lld: done\n", id);
    }
    json_decref(j);
    return rc;
}

int cmd_submit(int argc, char **argv)
{
    conn_opts co = {0};
    const char *key = NULL, *out_dir = NULL;
    json_t *witnesses = json_array(), *req = json_object();
    long long v, timeout = 0;
    bool wait = false, native = false;
    int rc = 2;
    if (!witnesses || !req)
        goto out;
    for (int i = 0; i < argc; i++) {
        int used = conn_flag(&co, argc, argv, i);
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (used) {
            i += used - 1;
        } else if (!strcmp(a, "--wait")) {
            wait = true;
        } else if (!val) {
            rc = cli_usage_error("submit");
            goto out;
        } else if (!strcmp(a, "--key")) {
            key = argv[++i];
        } else if (!strcmp(a, "--witness")) {
            json_array_append_new(witnesses, json_string(argv[++i]));
        } else if (!strcmp(a, "--out")) {
            out_dir = argv[++i];
        } else if (!strcmp(a, "--timeout")) {
            if (!cli_int_arg(&timeout, "g16 submit", a, argv[++i], 1, 1 << 30))
                goto out;
        } else if (!strcmp(a, "--circuit")) {
            json_object_set_new(req, "circuit", json_string(argv[++i]));
            native = true;
        } else if (!strcmp(a, "--constraints") || !strcmp(a, "--partitions") ||
                   !strcmp(a, "--seed") || !strcmp(a, "--public") || !strcmp(a, "--priority")) {
            /* Numbers go as they are; the daemon checks their bounds and says which. */
            if (!cli_int_arg(&v, "g16 submit", a, argv[++i], -(1LL << 53), 1LL << 53))
                goto out;
            json_object_set_new(req, a + 2, json_integer(v));
            native |= strcmp(a, "--priority") != 0;
        } else {
            rc = cli_usage_error("submit");
            goto out;
        }
    }
    if (native && !json_object_get(req, "circuit"))
        json_object_set_new(req, "circuit", json_string("synthetic"));
    if (native == (key != NULL) || (key && !json_array_size(witnesses))) {
        rc = cli_usage_error("submit");
        goto out;
    }
    if (key) {
        json_object_set_new(req, "key", json_string(key));
        json_object_set(req, "witnesses", witnesses);
    }
    char *payload = json_dumps(req, JSON_COMPACT);
    client c;
    if (!payload || !client_open(&c, "g16 submit", &co)) {
        free(payload);
        goto out;
    }
    json_t *ans = call_ok(&c, "POST", "/v1/jobs", payload);
    free(payload);
    if (ans) {
        long long id = (long long)json_integer_value(json_object_get(ans, "id"));
        printf("%lld\n", id);
        fflush(stdout);
        rc = wait ? finish_wait(&c, id, out_dir, (double)timeout) : 0;
        json_decref(ans);
    }
    client_close(&c);
out:
    json_decref(witnesses);
    json_decref(req);
    return rc;
}

/* The job id argument and connection flags of status/wait/cancel; false on bad usage. */
static bool id_args(conn_opts *co, long long *id, const char **out_dir, long long *timeout,
                    const char *cmd, int argc, char **argv)
{
    *id = 0;
    for (int i = 0; i < argc; i++) {
        int used = conn_flag(co, argc, argv, i);
        if (used) {
            i += used - 1;
        } else if (out_dir && !strcmp(argv[i], "--out") && i + 1 < argc) {
            *out_dir = argv[++i];
        } else if (timeout && !strcmp(argv[i], "--timeout") && i + 1 < argc) {
            if (!cli_int_arg(timeout, cmd, "--timeout", argv[++i], 1, 1 << 30))
                return false;
        } else if (argv[i][0] != '-' && !*id) {
            if (!cli_int_arg(id, cmd, "the job id", argv[i], 1, 1LL << 62))
                return false;
        } else {
            fprintf(stderr, "%s: unexpected argument '%s'\n", cmd, argv[i]);
            return false;
        }
    }
    return true;
}

/* status and cancel: one call about a job (or the daemon), its answer printed. */
static int one_call(int argc, char **argv, const char *cmd, bool cancel)
{
    conn_opts co = {0};
    long long id;
    if (!id_args(&co, &id, NULL, NULL, cmd, argc, argv))
        return cli_usage_error(cancel ? "cancel" : "status");
    if (cancel && !id)
        return cli_usage_error("cancel");
    client c;
    if (!client_open(&c, cmd, &co))
        return 2;
    char path[64];
    if (cancel)
        snprintf(path, sizeof path, "/v1/jobs/%lld/cancel", id);
    else if (id)
        snprintf(path, sizeof path, "/v1/jobs/%lld", id);
    else
        snprintf(path, sizeof path, "/status");
    json_t *v = call_ok(&c, cancel ? "POST" : "GET", path, NULL);
    if (v && cancel)
        printf("job %lld: %s\n", id, json_string_value(json_object_get(v, "state")));
    else if (v)
        print_json(v);
    json_decref(v);
    client_close(&c);
    return v ? 0 : 2;
}

int cmd_status(int argc, char **argv) { return one_call(argc, argv, "g16 status", false); }
int cmd_cancel(int argc, char **argv) { return one_call(argc, argv, "g16 cancel", true); }

int cmd_wait(int argc, char **argv)
{
    conn_opts co = {0};
    long long id, timeout = 0;
    const char *out_dir = NULL;
    if (!id_args(&co, &id, &out_dir, &timeout, "g16 wait", argc, argv) || !id)
        return cli_usage_error("wait");
    client c;
    if (!client_open(&c, "g16 wait", &co))
        return 2;
    int rc = finish_wait(&c, id, out_dir, (double)timeout);
    client_close(&c);
    return rc;
}

/* --- g16 bench --daemon ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least q of the sample at or below it. */
static double percentile(const double *sorted, size_t n, double q)
{
    size_t rank = (size_t)(q * (double)n + 0.999999);
    rank = rank < 1 ? 1 : rank > n ? n : rank;
    return sorted[rank - 1];
}

int client_bench(int argc, char **argv)
{
    conn_opts co = {0};
    long long count = 1, conc = 1, n = 1 << 16, parts = 2, seed = 0, pub = 16;
    const char *cmd = "g16 bench --daemon";
    for (int i = 0; i < argc; i++) {
        int used = conn_flag(&co, argc, argv, i);
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (used) {
            i += used - 1;
            continue;
        }
        if (!v) {
            ok = false;
        } else if (!strcmp(a, "-c") || !strcmp(a, "--count")) {
            ok = cli_int_arg(&count, cmd, a, argv[++i], 1, 100000);
        } else if (!strcmp(a, "-j") || !strcmp(a, "--concurrency")) {
            ok = cli_int_arg(&conc, cmd, a, argv[++i], 1, 100000);
        } else if (!strcmp(a, "--constraints")) {
            ok = cli_int_arg(&n, cmd, a, argv[++i], 1, 1LL << 40);
        } else if (!strcmp(a, "--partitions")) {
            ok = cli_int_arg(&parts, cmd, a, argv[++i], 1, 100000);
        } else if (!strcmp(a, "--seed")) {
            ok = cli_int_arg(&seed, cmd, a, argv[++i], 0, 1LL << 50);
        } else if (!strcmp(a, "--public")) {
            ok = cli_int_arg(&pub, cmd, a, argv[++i], 1, 1024);
        } else if (!strcmp(a, "--circuit") && !strcmp(v, "synthetic")) {
            i++;
        } else {
            fprintf(stderr, "%s: unknown or unsupported option '%s' (with --daemon: -c, -j, "
                            "--constraints, --partitions, --seed, --public, --token-file)\n",
                    cmd, a);
            return 2;
        }
        if (!ok)
            return 2;
    }
    if (conc > count)
        conc = count;
    client c;
    if (!client_open(&c, cmd, &co))
        return 2;
    long long *ids = calloc((size_t)count, sizeof *ids);
    double *submit_t = calloc((size_t)count, sizeof *submit_t);
    double *latency = calloc((size_t)count, sizeof *latency);
    long long *inflight = calloc((size_t)conc, sizeof *inflight);
    int rc = 2;
    size_t failed = 0, finished = 0, next = 0;
    if (!ids || !submit_t || !latency || !inflight) {
        fprintf(stderr, "%s: out of memory\n", cmd);
        goto out;
    }
    printf("g16 bench --daemon %s: %lld job%s of %lld partitions (synthetic, %lld constraints), "
           "%lld in flight\n", c.url, count, count == 1 ? "" : "s", parts, n, conc);
    fflush(stdout);
    double t0 = now_s();
    /* inflight[k]: the index of the job in flight slot k, -1 when free. */
    for (long long k = 0; k < conc; k++)
        inflight[k] = -1;
    while (finished < (size_t)count) {
        for (long long k = 0; k < conc && next < (size_t)count; k++) {
            if (inflight[k] >= 0)
                continue;
            /* Job j's partitions use seeds seed + j P ...: every proof distinct. */
            json_t *req = json_pack("{s:s, s:I, s:I, s:I, s:I}", "circuit", "synthetic",
                                    "constraints", (json_int_t)n, "partitions",
                                    (json_int_t)parts, "seed",
                                    (json_int_t)(seed + (long long)next * parts), "public",
                                    (json_int_t)pub);
            char *payload = req ? json_dumps(req, JSON_COMPACT) : NULL;
            json_decref(req);
            submit_t[next] = now_s();
            json_t *ans = payload ? call_ok(&c, "POST", "/v1/jobs", payload) : NULL;
            free(payload);
            if (!ans)
                goto out;
            ids[next] = (long long)json_integer_value(json_object_get(ans, "id"));
            json_decref(ans);
            inflight[k] = (long long)next++;
        }
        usleep(20000);
        for (long long k = 0; k < conc; k++) {
            if (inflight[k] < 0)
                continue;
            char path[64];
            long long j = inflight[k];
            snprintf(path, sizeof path, "/v1/jobs/%lld", ids[j]);
            json_t *st = call_ok(&c, "GET", path, NULL);
            if (!st)
                goto out;
            const char *state = json_string_value(json_object_get(st, "state"));
            bool done = state && !strcmp(state, "done");
            if (done || (state && (!strcmp(state, "failed") || !strcmp(state, "cancelled")))) {
                latency[finished++] = now_s() - submit_t[j];
                if (!done) {
                    failed++;
                    const char *err = json_string_value(json_object_get(st, "error"));
                    fprintf(stderr, "%s: job %lld %s: %s\n", cmd, ids[j], state,
                            err ? err : "");
                }
                inflight[k] = -1;
            }
            json_decref(st);
        }
    }
    double wall = now_s() - t0;
    qsort(latency, (size_t)count, sizeof *latency, cmp_double);
    printf("  %lld job%s in %.2f s: %.3f jobs/s, %.1f jobs/hour, %.1f proofs/hour (one a partition)\n",
           count, count == 1 ? "" : "s", wall, (double)count / wall,
           3600 * (double)count / wall, 3600 * (double)(count * parts) / wall);
    printf("  latency (submission to done) s: p50 %.3f, p90 %.3f, p99 %.3f, max %.3f\n",
           percentile(latency, (size_t)count, 0.50), percentile(latency, (size_t)count, 0.90),
           percentile(latency, (size_t)count, 0.99), latency[count - 1]);
    printf("  %zu done, %zu failed or cancelled\n", (size_t)count - failed, failed);
    rc = failed ? 1 : 0;
out:
    client_close(&c);
    free(ids);
    free(submit_t);
    free(latency);
    free(inflight);
    return rc;
}

#else

static int no_daemon(const char *cmd)
{
    fprintf(stderr, "g16 %s: this g16 was built without the daemon and its client (they need "
                    "libmicrohttpd, SQLite, libpq and libcurl: cmake -DG16_DAEMON=ON)\n", cmd);
    return 2;
}

int cmd_submit(int argc, char **argv) { (void)argc; (void)argv; return no_daemon("submit"); }
int cmd_status(int argc, char **argv) { (void)argc; (void)argv; return no_daemon("status"); }
int cmd_wait(int argc, char **argv) { (void)argc; (void)argv; return no_daemon("wait"); }
int cmd_cancel(int argc, char **argv) { (void)argc; (void)argv; return no_daemon("cancel"); }
int client_bench(int argc, char **argv) { (void)argc; (void)argv; return no_daemon("bench --daemon"); }

#endif
