/* The daemon's HTTP/JSON API on libmicrohttpd (daemon.h; the README's "Daemon" section
 * lists the endpoints).
 *
 * Every answer is JSON (but /metrics, Prometheus text); errors are
 * {"error": "<what is wrong>", "status": <code>}: 400 a malformed or invalid request,
 * 401 no bearer token, 403 a wrong token or a path outside the input directories,
 * 404 no such job/route, 405 a wrong method, 409 a result that is not there yet,
 * 413 a body over max_body, 422 a request the daemon cannot serve (unknown key, a witness
 * of the wrong size or curve), 429 a full queue, 503 shutting down, 500 a store failure.
 * A request is answered, never the process taken down: bodies are bounded before they
 * are read, parsed by jansson, and every value is checked before the job is stored. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon_internal.h"
#include "submit_request.h"
#include "util/buffer.h"
#include "util/status.h"

/* Per request: the body as it arrives. */
typedef struct {
    buffer body;
    bool too_big;
} request;

static enum MHD_Result send_text(struct MHD_Connection *c, daemon_state *d, unsigned code,
                                 const char *type, const char *text, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    if (code == 401)
        MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
    if (code == 429)
        MHD_add_response_header(r, "Retry-After", "5");
    enum MHD_Result ok = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    if (code >= 500)
        atomic_fetch_add(&d->n.http_5xx, 1);
    else if (code >= 400)
        atomic_fetch_add(&d->n.http_4xx, 1);
    return ok;
}

/* Sends v (taking the reference). */
static enum MHD_Result send_json(struct MHD_Connection *c, daemon_state *d, unsigned code,
                                 json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
    json_decref(v);
    if (!text)
        return send_text(c, d, 500, "application/json",
                         "{\"error\":\"out of memory\",\"status\":500}", 38);
    size_t len = strlen(text);
    text[len] = 0;
    /* A trailing newline makes curl output readable in a terminal. */
    char *nl = realloc(text, len + 2);
    if (nl) {
        text = nl;
        text[len++] = '\n';
        text[len] = 0;
    }
    enum MHD_Result ok = send_text(c, d, code, "application/json", text, len);
    free(text);
    return ok;
}

__attribute__((format(printf, 4, 5))) static enum MHD_Result
send_error(struct MHD_Connection *c, daemon_state *d, unsigned code, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return send_json(c, d, code, json_pack("{s:s, s:i}", "error", msg, "status", (int)code));
}

/* "Authorization: Bearer <token>". 0 when it matches, else 401 (absent) or 403. */
static unsigned check_token(struct MHD_Connection *c, const daemon_state *d)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!h || strncasecmp(h, "Bearer ", 7) != 0)
        return 401;
    const char *t = h + 7;
    size_t n = strlen(t);
    /* Compared in time independent of where they differ. */
    unsigned char diff = n != d->token_len;
    for (size_t i = 0; i < d->token_len; i++)
        diff |= (unsigned char)(d->token[i] ^ (i < n ? t[i] : 0));
    return diff ? 403 : 0;
}

/* --- submissions ------------------------------------------------------------------------ */

static g16_status cached_key_shape(void *keys, key_shape *shape, const char *id)
{
    return key_cache_shape(keys, shape, id);
}

static enum MHD_Result submit(struct MHD_Connection *c, daemon_state *d, const request *rq)
{
    const submit_rules rules = {.cfg = d->cfg, .key_shape = cached_key_shape, .keys = d->keys};
    submit_request sr;
    submit_rejection r;
    bool ok = submit_request_parse(&sr, &r, &rules, rq->body.data, rq->body.len);
    json_t *norm = sr.norm;
    int64_t parts = sr.partitions, priority = sr.priority;
    char *text = ok ? json_dumps(norm, JSON_COMPACT) : NULL;
    if (ok && !text)
        ok = submit_reject(&r, 500, "out of memory");
    int64_t id = 0;
    if (ok) {
        uint64_t counts[5];
        pthread_mutex_lock(&d->http_mu);
        g16_status st = store_counts(d->http_store, counts);
        if (st)
            ok = submit_reject(&r, 500, "store: %s", g16_last_error());
        else if (counts[STORE_QUEUED] >= (uint64_t)d->cfg->max_queued)
            ok = submit_reject(&r, 429,
                               "the queue is full: %" PRIu64 " jobs queued (max_queued = %lld)",
                               counts[STORE_QUEUED], (long long)d->cfg->max_queued);
        else if ((st = store_submit(d->http_store, &id, text, (int)priority, (int)parts)))
            ok = submit_reject(&r, 500, "store: %s", g16_last_error());
        pthread_mutex_unlock(&d->http_mu);
        if (st)
            atomic_fetch_add(&d->n.store_errors, 1);
    }
    free(text);
    if (!ok) {
        json_decref(norm);
        atomic_fetch_add(&d->n.rejected, 1);
        return send_error(c, d, r.code, "%s", r.msg);
    }
    atomic_fetch_add(&d->n.submitted, 1);
    daemon_wake(d);
    json_t *key = json_object_get(norm, "key");
    json_t *resp = json_pack("{s:I, s:s, s:O, s:I, s:I}", "id", (json_int_t)id, "state",
                             "queued", "key", key, "partitions", (json_int_t)parts, "priority",
                             (json_int_t)priority);
    json_decref(norm);
    return send_json(c, d, 202, resp);
}

/* --- jobs -------------------------------------------------------------------------------- */

/* The answer when a store call on job id failed (500) or found nothing (404); 0 when
 * neither, and the caller goes on. */
static int store_answer(struct MHD_Connection *c, daemon_state *d, g16_status st, bool found,
                        int64_t id, enum MHD_Result *ok)
{
    if (st) {
        atomic_fetch_add(&d->n.store_errors, 1);
        *ok = send_error(c, d, 500, "store: %s", g16_last_error());
        return 500;
    }
    if (!found) {
        *ok = send_error(c, d, 404, "no job %" PRId64, id);
        return 404;
    }
    return 0;
}

static json_t *time_or_null(double s) { return s > 0 ? json_real(s) : json_null(); }

static json_t *job_json(daemon_state *d, const store_job *j, bool detail)
{
    json_t *o = json_pack("{s:I, s:s, s:i, s:i, s:i, s:i, s:s, s:o, s:o, s:o, s:s?}", "id",
                          (json_int_t)j->id, "state", store_state_name(j->state), "priority",
                          j->priority, "partitions", j->partitions, "partitions_done",
                          j->partitions_done, "attempts", j->attempts, "owner", j->owner,
                          "created", time_or_null(j->created_s), "started",
                          time_or_null(j->started_s), "finished", time_or_null(j->finished_s),
                          "error", j->error);
    if (!o)
        return NULL;
    json_t *req = j->request ? json_loads(j->request, 0, NULL) : NULL;
    if (req) {
        json_object_set(o, "kind", json_object_get(req, "kind"));
        json_object_set(o, "key", json_object_get(req, "key"));
        if (detail)
            json_object_set(o, "request", req);
        json_decref(req);
    }
    if (detail && j->state == STORE_RUNNING) {
        /* Per-partition stages when the job runs here; another daemon's job has only
         * partitions_done. */
        json_t *progress = daemon_job_progress(d, j->id);
        if (progress)
            json_object_set_new(o, "progress", progress);
    }
    return o;
}

static bool parse_id(int64_t *id, const char *s, size_t len)
{
    if (len == 0 || len > 18)
        return false;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *id = v;
    return v > 0;
}

static enum MHD_Result get_job(struct MHD_Connection *c, daemon_state *d, int64_t id,
                               bool result)
{
    store_job j = {0};
    bool found = false;
    pthread_mutex_lock(&d->http_mu);
    g16_status st = store_get(d->http_store, &j, &found, id);
    pthread_mutex_unlock(&d->http_mu);
    enum MHD_Result ok;
    if (store_answer(c, d, st, found, id, &ok))
        return ok;
    if (!result) {
        ok = send_json(c, d, 200, job_json(d, &j, true));
    } else if (j.state == STORE_DONE && j.result) {
        ok = send_text(c, d, 200, "application/json", j.result, strlen(j.result));
    } else {
        json_t *e = json_pack("{s:s, s:i, s:s, s:s?}", "error",
                              j.state == STORE_FAILED      ? "the job failed"
                              : j.state == STORE_CANCELLED ? "the job was cancelled"
                                                           : "the job is not done yet",
                              "status", 409, "state", store_state_name(j.state), "reason",
                              j.error);
        ok = send_json(c, d, 409, e);
    }
    store_job_clear(&j);
    return ok;
}

static enum MHD_Result list_jobs(struct MHD_Connection *c, daemon_state *d)
{
    const char *state = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "state");
    const char *lim = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    int want = -1;
    if (state) {
        for (int s = 0; s < 5; s++)
            if (!strcmp(state, store_state_name((store_state)s)))
                want = s;
        if (want < 0)
            return send_error(c, d, 400, "state must be queued, running, done, failed or "
                                         "cancelled");
    }
    int64_t limit = 100;
    if (lim && (!parse_id(&limit, lim, strlen(lim)) || limit > 1000))
        return send_error(c, d, 400, "limit must be an integer from 1 to 1000");
    store_job *jobs = calloc((size_t)limit, sizeof *jobs);
    if (!jobs)
        return send_error(c, d, 500, "out of memory");
    size_t n = 0;
    pthread_mutex_lock(&d->http_mu);
    g16_status st = store_list(d->http_store, jobs, &n, (size_t)limit, want);
    pthread_mutex_unlock(&d->http_mu);
    json_t *arr = st ? NULL : json_array();
    for (size_t i = 0; arr && i < n; i++)
        json_array_append_new(arr, job_json(d, &jobs[i], false));
    for (size_t i = 0; i < n; i++)
        store_job_clear(&jobs[i]);
    free(jobs);
    if (st) {
        atomic_fetch_add(&d->n.store_errors, 1);
        return send_error(c, d, 500, "store: %s", g16_last_error());
    }
    return send_json(c, d, 200, json_pack("{s:o}", "jobs", arr));
}

static enum MHD_Result cancel_job(struct MHD_Connection *c, daemon_state *d, int64_t id)
{
    bool found = false;
    pthread_mutex_lock(&d->http_mu);
    g16_status st = store_cancel(d->http_store, &found, id, "cancelled through the API");
    pthread_mutex_unlock(&d->http_mu);
    enum MHD_Result ok;
    if (store_answer(c, d, st, found, id, &ok))
        return ok;
    /* A job running here stops now rather than at its next heartbeat. */
    daemon_cancel_local(d, id);
    return get_job(c, d, id, false);
}

/* --- keys ---------------------------------------------------------------------------------- */

static enum MHD_Result key_action(struct MHD_Connection *c, daemon_state *d, const char *id,
                                  const char *action)
{
    if (!strcmp(action, "load")) {
        key_handle *kh;
        g16_status st = key_cache_acquire(d->keys, &kh, id);
        if (st == G16_ERR_INVALID_ARGUMENT)
            return send_error(c, d, 404, "%s", g16_last_error());
        if (st)
            return send_error(c, d, 422, "key %s: %s", id, g16_last_error());
        key_cache_release(d->keys, kh);
    } else {
        bool evicted;
        g16_status st = key_cache_evict(d->keys, &evicted, id);
        if (st)
            return send_error(c, d, strstr(g16_last_error(), "in use") ? 409 : 404, "%s",
                              g16_last_error());
    }
    return send_json(c, d, 200, json_pack("{s:o}", "keys", key_cache_list(d->keys)));
}

/* --- routing ------------------------------------------------------------------------------ */

static enum MHD_Result route(struct MHD_Connection *c, daemon_state *d, const char *url,
                             const char *method, const request *rq)
{
    bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    bool post = !strcmp(method, "POST");
    if (!strcmp(url, "/metrics") || !strcmp(url, "/status")) {
        if (!get)
            return send_error(c, d, 405, "%s takes GET", url);
        if (url[1] == 's')
            return send_json(c, d, 200, metrics_status(d));
        char *text = metrics_prometheus(d);
        if (!text)
            return send_error(c, d, 500, "out of memory");
        enum MHD_Result ok =
            send_text(c, d, 200, "text/plain; version=0.0.4", text, strlen(text));
        free(text);
        return ok;
    }
    if (!strcmp(url, "/v1/jobs")) {
        if (post)
            return submit(c, d, rq);
        if (get)
            return list_jobs(c, d);
        return send_error(c, d, 405, "/v1/jobs takes GET (list) or POST (submit)");
    }
    if (!strncmp(url, "/v1/jobs/", 9)) {
        const char *rest = url + 9, *slash = strchr(rest, '/');
        int64_t id;
        if (!parse_id(&id, rest, slash ? (size_t)(slash - rest) : strlen(rest)))
            return send_error(c, d, 404, "no such job '%.40s'", rest);
        if (!slash && get)
            return get_job(c, d, id, false);
        if (slash && !strcmp(slash, "/result") && get)
            return get_job(c, d, id, true);
        if (slash && !strcmp(slash, "/cancel") && post)
            return cancel_job(c, d, id);
        return send_error(c, d, slash && strcmp(slash, "/result") && strcmp(slash, "/cancel")
                                    ? 404 : 405,
                          "%s %s: no such endpoint", method, url);
    }
    if (!strcmp(url, "/v1/keys"))
        return get ? send_json(c, d, 200, json_pack("{s:o}", "keys", key_cache_list(d->keys)))
                   : send_error(c, d, 405, "/v1/keys takes GET");
    if (!strncmp(url, "/v1/keys/", 9)) {
        char id[96];
        const char *rest = url + 9, *slash = strchr(rest, '/');
        if (slash && (size_t)(slash - rest) < sizeof id &&
            (!strcmp(slash, "/load") || !strcmp(slash, "/evict"))) {
            if (!post)
                return send_error(c, d, 405, "%s takes POST", url);
            snprintf(id, sizeof id, "%.*s", (int)(slash - rest), rest);
            return key_action(c, d, id, slash + 1);
        }
    }
    return send_error(c, d, 404, "%s %s: no such endpoint", method, url);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **ctx)
{
    daemon_state *d = cls;
    request *rq = *ctx;
    if (!rq) {
        /* Headers are in: refuse what needs no body to refuse, before reading one. */
        if (!(rq = calloc(1, sizeof *rq)))
            return MHD_NO;
        *ctx = rq;
        atomic_fetch_add(&d->n.http_requests, 1);
        bool changes = !strcmp(method, "POST") || !strcmp(method, "PUT") ||
                       !strcmp(method, "DELETE") || !strcmp(method, "PATCH");
        unsigned auth = changes ? check_token(c, d) : 0;
        if (auth == 401)
            return send_error(c, d, 401, "this call needs 'Authorization: Bearer <token>' "
                                         "(the daemon's token_file)");
        if (auth == 403)
            return send_error(c, d, 403, "wrong bearer token");
        const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (len && strtoull(len, NULL, 10) > d->cfg->max_body)
            return send_error(c, d, 413, "the body is %s bytes, more than max_body (%llu)",
                              len, (unsigned long long)d->cfg->max_body);
        if (changes) {
            pthread_mutex_lock(&d->mu);
            bool stopping = d->stopping;
            pthread_mutex_unlock(&d->mu);
            if (stopping)
                return send_error(c, d, 503, "the daemon is shutting down");
        }
        return MHD_YES;
    }
    if (*upload_size) {
        /* A body without a Content-Length (chunked) is bounded as it arrives. */
        size_t n = *upload_size;
        *upload_size = 0;
        if (rq->too_big || rq->body.len + n > d->cfg->max_body) {
            rq->too_big = true;
            return MHD_YES;
        }
        return buffer_append(&rq->body, upload_data, n) ? MHD_YES : MHD_NO;
    }
    (void)version;
    if (rq->too_big)
        return send_error(c, d, 413, "the body is more than max_body (%llu bytes)",
                          (unsigned long long)d->cfg->max_body);
    return route(c, d, url, method, rq);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **ctx,
                         enum MHD_RequestTerminationCode why)
{
    (void)cls;
    (void)c;
    (void)why;
    request *rq = *ctx;
    if (rq) {
        free(rq->body.data);
        free(rq);
        *ctx = NULL;
    }
}

g16_status http_start(daemon_state *d, void **server)
{
    const daemon_config *cfg = d->cfg;
    struct sockaddr_in in4 = {0};
    struct sockaddr_in6 in6 = {0};
    const struct sockaddr *addr;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
    if (inet_pton(AF_INET, cfg->listen, &in4.sin_addr) == 1) {
        in4.sin_family = AF_INET;
        in4.sin_port = htons((uint16_t)cfg->port);
        addr = (const struct sockaddr *)&in4;
    } else if (inet_pton(AF_INET6, cfg->listen, &in6.sin6_addr) == 1) {
        in6.sin6_family = AF_INET6;
        in6.sin6_port = htons((uint16_t)cfg->port);
        addr = (const struct sockaddr *)&in6;
        flags |= MHD_USE_IPv6;
    } else {
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "listen = '%s': want an IPv4 or IPv6 address", cfg->listen);
    }
    struct MHD_Daemon *mhd = MHD_start_daemon(
        flags, (uint16_t)cfg->port, NULL, NULL, on_request, d, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)cfg->http_threads, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, d, MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_CONNECTION_LIMIT,
        512u, MHD_OPTION_END);
    if (!mhd)
        return status_fail(G16_ERR_IO, "cannot listen on %s port %lld: %s", cfg->listen,
                           (long long)cfg->port, strerror(errno));
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(mhd, MHD_DAEMON_INFO_BIND_PORT);
    d->port = info ? info->port : (uint16_t)cfg->port;
    *server = mhd;
    return G16_OK;
}

void http_stop(void *server)
{
    if (server)
        MHD_stop_daemon(server);
}
