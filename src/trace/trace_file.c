#include "trace_file.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/status.h"

/* --- event arrays ----------------------------------------------------------------------- */

g16_status trace_events_push(trace_events *v, const trace_event *e)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 256;
        trace_event *p = realloc(v->ev, cap * sizeof *p);
        if (!p)
            return status_fail(G16_ERR_OUT_OF_MEMORY, "trace: %zu events", cap);
        v->ev = p;
        v->cap = cap;
    }
    v->ev[v->n++] = *e;
    return G16_OK;
}

static int by_time(const void *pa, const void *pb)
{
    const trace_event *a = pa, *b = pb;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    if (a->end_ns != b->end_ns)
        return a->end_ns > b->end_ns ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return (int)a->kind - (int)b->kind;
}

void trace_events_sort(trace_events *v)
{
    if (v->n > 1)
        qsort(v->ev, v->n, sizeof *v->ev, by_time);
}

void trace_events_free(trace_events *v)
{
    free(v->ev);
    *v = (trace_events){0};
}

typedef struct {
    trace_events *v;
    g16_status st;
} drain_ctx;

static void drain_one(void *p, const trace_event *e)
{
    drain_ctx *c = p;
    if (!c->st)
        c->st = trace_events_push(c->v, e);
}

g16_status trace_events_drain(trace_events *v)
{
    size_t before = v->n;
    drain_ctx c = {v, G16_OK};
    trace_drain(drain_one, &c);
    /* Sort only what came in: earlier events keep their place. */
    trace_events tail = {v->ev + before, v->n - before, v->n - before};
    trace_events_sort(&tail);
    return c.st;
}

/* --- writing ------------------------------------------------------------------------------ */

/* A JSON string body (without quotes): names and commands come from code and command
 * lines, so quotes, backslashes and control bytes are escaped; other bytes pass. */
static size_t json_escape(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        char tmp[8];
        const char *piece = tmp;
        if (ch == '"' || ch == '\\')
            snprintf(tmp, sizeof tmp, "\\%c", ch);
        else if (ch < 0x20)
            snprintf(tmp, sizeof tmp, "\\u%04x", ch);
        else {
            tmp[0] = (char)ch;
            tmp[1] = 0;
        }
        size_t len = strlen(piece);
        if (n + len >= cap)
            break;
        memcpy(out + n, piece, len);
        n += len;
    }
    if (cap)
        out[n < cap ? n : cap - 1] = 0;
    return n;
}

int trace_event_format(char *buf, size_t cap, const trace_event *e, uint64_t epoch_ns)
{
    char name[4 * TRACE_NAME_BYTES + 8];
    char raw[TRACE_NAME_BYTES];
    memcpy(raw, e->name, TRACE_NAME_BYTES);
    raw[TRACE_NAME_BYTES - 1] = 0;
    json_escape(name, sizeof name, raw);
    const char *kind = trace_kind_name((trace_kind)e->kind);
    /* Times before the epoch (a span begun just before recording started) count as 0. */
    uint64_t s = e->start_ns > epoch_ns ? e->start_ns - epoch_ns : 0;
    uint64_t t = e->end_ns > epoch_ns ? e->end_ns - epoch_ns : 0;
    return snprintf(buf, cap,
                    "{\"kind\":\"%s\",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
                    ",\"job\":%" PRId32 ",\"partition\":%" PRId32 ",\"device\":%d,"
                    "\"thread\":%" PRIu32 ",\"bytes\":%" PRIu64 ",\"name\":\"%s\"}",
                    kind ? kind : "KERNEL", s, t, e->job, e->partition, (int)e->device,
                    e->thread, e->bytes, name);
}

struct trace_writer {
    FILE *f;
    char *path;
    char *command;
    uint64_t epoch_ns, max_bytes, bytes;
    unsigned keep, segment;
    uint32_t *named; /* thread ids whose name line this file has */
    size_t n_named, cap_named;
};

static g16_status writer_fail(trace_writer *w, const char *what)
{
    return status_fail(G16_ERR_IO, "%s: %s: %s", w->path, what, strerror(errno));
}

static g16_status put(trace_writer *w, const char *line, int len)
{
    if (len < 0 || fwrite(line, 1, (size_t)len, w->f) != (size_t)len || fputc('\n', w->f) == EOF)
        return writer_fail(w, "writing the trace");
    w->bytes += (uint64_t)len + 1;
    return G16_OK;
}

static g16_status start_file(trace_writer *w)
{
    g16_status st = output_file_open(&w->f, w->path);
    if (st)
        return status_fail(st, "creating the trace file %s", g16_last_error());
    w->bytes = 0;
    w->n_named = 0;
    char cmd[1024], line[1400];
    json_escape(cmd, sizeof cmd, w->command ? w->command : "");
    int len = snprintf(line, sizeof line,
                       "{\"format\":\"%s\",\"version\":%d,\"clock\":\"CLOCK_MONOTONIC\","
                       "\"epoch_ns\":%" PRIu64 ",\"g16\":\"%s\",\"command\":\"%s\","
                       "\"segment\":%u}",
                       TRACE_FORMAT_NAME, TRACE_FORMAT_VERSION, w->epoch_ns, G16_VERSION, cmd,
                       w->segment);
    return put(w, line, len);
}

g16_status trace_writer_open(trace_writer **out, const char *path, const char *command,
                             uint64_t max_bytes, unsigned keep)
{
    *out = NULL;
    trace_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path)) || (command && !(w->command = strdup(command)))) {
        if (w) {
            free(w->path);
            free(w);
        }
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace writer");
    }
    w->epoch_ns = trace_epoch_ns();
    w->max_bytes = max_bytes;
    w->keep = keep;
    g16_status st = start_file(w);
    if (st) {
        trace_writer_close(w);
        return st;
    }
    *out = w;
    return G16_OK;
}

/* PATH -> PATH.1 -> ... -> PATH.keep (the oldest removed), then a fresh PATH. */
static g16_status rotate(trace_writer *w)
{
    if (fclose(w->f) != 0) {
        w->f = NULL;
        return writer_fail(w, "closing the trace");
    }
    w->f = NULL;
    size_t len = strlen(w->path) + 16;
    char *from = malloc(len), *to = malloc(len);
    if (!from || !to) {
        free(from);
        free(to);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace rotation");
    }
    g16_status st = G16_OK;
    if (w->keep == 0) {
        remove(w->path);
    } else {
        snprintf(to, len, "%s.%u", w->path, w->keep);
        remove(to);
        for (unsigned i = w->keep; i > 1 && !st; i--) {
            snprintf(from, len, "%s.%u", w->path, i - 1);
            snprintf(to, len, "%s.%u", w->path, i);
            if (rename(from, to) != 0 && errno != ENOENT)
                st = writer_fail(w, "rotating");
        }
        snprintf(to, len, "%s.1", w->path);
        if (!st && rename(w->path, to) != 0)
            st = writer_fail(w, "rotating");
    }
    free(from);
    free(to);
    w->segment++;
    return st ? st : start_file(w);
}

static g16_status name_thread(trace_writer *w, uint32_t id)
{
    for (size_t i = 0; i < w->n_named; i++)
        if (w->named[i] == id)
            return G16_OK;
    if (w->n_named == w->cap_named) {
        size_t cap = w->cap_named ? 2 * w->cap_named : 16;
        uint32_t *p = realloc(w->named, cap * sizeof *p);
        if (!p)
            return status_fail(G16_ERR_OUT_OF_MEMORY, "trace writer");
        w->named = p;
        w->cap_named = cap;
    }
    w->named[w->n_named++] = id;
    trace_thread_info info[64], *all = info;
    size_t n = trace_threads(info, 64);
    if (n > 64) {
        if (!(all = malloc(n * sizeof *all)))
            return status_fail(G16_ERR_OUT_OF_MEMORY, "trace writer");
        size_t again = trace_threads(all, n); /* threads only ever get added */
        n = again < n ? again : n;
    }
    char name[4 * TRACE_NAME_BYTES + 8] = "";
    snprintf(name, sizeof name, "thread %" PRIu32, id);
    for (size_t i = 0; i < n; i++)
        if (all[i].id == id)
            json_escape(name, sizeof name, all[i].name);
    if (all != info)
        free(all);
    char line[256];
    return put(w, line, snprintf(line, sizeof line, "{\"thread\":%" PRIu32 ",\"name\":\"%s\"}",
                                 id, name));
}

g16_status trace_writer_write(trace_writer *w, const trace_event *ev, size_t n)
{
    g16_status st;
    for (size_t i = 0; i < n; i++) {
        if (w->max_bytes && w->bytes >= w->max_bytes && (st = rotate(w)))
            return st;
        if ((st = name_thread(w, ev[i].thread)))
            return st;
        char line[512];
        if ((st = put(w, line, trace_event_format(line, sizeof line, &ev[i], w->epoch_ns))))
            return st;
    }
    return G16_OK;
}

g16_status trace_writer_drain(trace_writer *w)
{
    trace_events v = {0};
    g16_status st = trace_events_drain(&v);
    if (!st)
        st = trace_writer_write(w, v.ev, v.n);
    if (!st && fflush(w->f) != 0)
        st = writer_fail(w, "writing the trace");
    trace_events_free(&v);
    return st;
}

g16_status trace_writer_close(trace_writer *w)
{
    if (!w)
        return G16_OK;
    g16_status st = G16_OK;
    if (w->f && fclose(w->f) != 0)
        st = writer_fail(w, "writing the trace");
    free(w->path);
    free(w->command);
    free(w->named);
    free(w);
    return st;
}

/* --- reading ------------------------------------------------------------------------------ */

static g16_status bad_line(const char *path, size_t line, const char *what)
{
    return status_fail(G16_ERR_FORMAT, "%s: line %zu: %s", path, line, what);
}

/* An integer member, or the reason it is missing. */
static bool get_int(json_t *o, const char *key, json_int_t *v)
{
    json_t *x = json_object_get(o, key);
    if (!json_is_integer(x))
        return false;
    *v = json_integer_value(x);
    return true;
}

static g16_status read_header(trace_data *d, json_t *o, const char *path)
{
    json_t *fmt = json_object_get(o, "format");
    json_int_t version, epoch, segment = 0;
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), TRACE_FORMAT_NAME) != 0)
        return status_fail(G16_ERR_FORMAT, "%s: not a g16 trace (no \"format\":\"%s\" header)",
                           path, TRACE_FORMAT_NAME);
    if (!get_int(o, "version", &version) || !get_int(o, "epoch_ns", &epoch) || epoch < 0)
        return bad_line(path, 1, "the header lacks version or epoch_ns");
    if (version < 1 || version > TRACE_FORMAT_VERSION)
        return status_fail(G16_ERR_UNSUPPORTED, "%s: trace format version %lld (this g16 "
                           "reads version %d)", path, (long long)version, TRACE_FORMAT_VERSION);
    get_int(o, "segment", &segment);
    d->version = (unsigned)version;
    d->segment = (unsigned)segment;
    d->epoch_ns = (uint64_t)epoch;
    json_t *cmd = json_object_get(o, "command"), *ver = json_object_get(o, "g16");
    if (json_is_string(cmd))
        snprintf(d->command, sizeof d->command, "%s", json_string_value(cmd));
    if (json_is_string(ver))
        snprintf(d->g16_version, sizeof d->g16_version, "%s", json_string_value(ver));
    return G16_OK;
}

static g16_status read_thread(trace_data *d, json_t *o, json_int_t id, const char *path,
                              size_t line)
{
    json_t *name = json_object_get(o, "name");
    if (id < 0 || id > UINT32_MAX || !json_is_string(name))
        return bad_line(path, line, "a thread line needs an id and a name");
    trace_thread_info *p = realloc(d->threads, (d->n_threads + 1) * sizeof *p);
    if (!p)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace threads");
    d->threads = p;
    p[d->n_threads].id = (uint32_t)id;
    snprintf(p[d->n_threads].name, TRACE_NAME_BYTES, "%s", json_string_value(name));
    d->n_threads++;
    return G16_OK;
}

static g16_status read_event(trace_data *d, json_t *o, const char *path, size_t line)
{
    json_t *kind = json_object_get(o, "kind"), *name = json_object_get(o, "name");
    json_int_t s, t, job, part, dev, thread, bytes;
    if (!json_is_string(kind) || !get_int(o, "start_ns", &s) || !get_int(o, "end_ns", &t) ||
        !get_int(o, "job", &job) || !get_int(o, "partition", &part) ||
        !get_int(o, "device", &dev) || !get_int(o, "thread", &thread) ||
        !get_int(o, "bytes", &bytes))
        return bad_line(path, line, "an event needs kind, start_ns, end_ns, job, partition, "
                                    "device, thread and bytes");
    trace_kind k = trace_kind_parse(json_string_value(kind));
    if (k == TRACE_KIND_COUNT)
        return bad_line(path, line, "unknown event kind");
    if (s < 0 || t < s || job < -1 || job > INT32_MAX || part < -1 || part > INT32_MAX ||
        dev < -1 || dev > INT16_MAX || thread < 0 || thread > UINT32_MAX || bytes < 0)
        return bad_line(path, line, "a value out of range (end before start?)");
    trace_event e = {.start_ns = (uint64_t)s, .end_ns = (uint64_t)t, .bytes = (uint64_t)bytes,
                     .job = (int32_t)job, .partition = (int32_t)part, .device = (int16_t)dev,
                     .kind = (uint8_t)k, .thread = (uint32_t)thread};
    if (json_is_string(name))
        snprintf(e.name, TRACE_NAME_BYTES, "%s", json_string_value(name));
    return trace_events_push(&d->events, &e);
}

/* One line of f into *buf (grown as needed, NUL-terminated), its '\n' included when it
 * has one. Returns the line's length, 0 at the end of the file, -1 when the line runs
 * past max bytes, -2 when memory runs out. A trace's lines are short (the writer's
 * longest, the header, stays under 1.5 KiB), so a longer one means the file is not a
 * trace, and reading on (a large binary file, /dev/zero) would only grow the buffer. */
static ssize_t read_line(FILE *f, char **buf, size_t *cap, size_t max)
{
    size_t n = 0;
    int ch;
    while ((ch = getc_unlocked(f)) != EOF) {
        if (n == max)
            return -1;
        if (n + 2 > *cap) {
            size_t grown = *cap ? 2 * *cap : 256;
            char *p = realloc(*buf, grown);
            if (!p)
                return -2;
            *buf = p;
            *cap = grown;
        }
        (*buf)[n++] = (char)ch;
        if (ch == '\n')
            break;
    }
    if (n > 0)
        (*buf)[n] = '\0';
    return (ssize_t)n;
}

g16_status trace_load(trace_data *d, const char *path)
{
    memset(d, 0, sizeof *d);
    FILE *f;
    g16_status st = input_file_open(&f, path);
    if (st)
        return st;
    st = trace_load_stream(d, f, path);
    fclose(f);
    return st;
}

g16_status trace_load_stream(trace_data *d, FILE *f, const char *path)
{
    memset(d, 0, sizeof *d);
    char *buf = NULL;
    size_t cap = 0, line = 0;
    ssize_t len;
    bool header = false;
    g16_status st = G16_OK;
    while (!st && (len = read_line(f, &buf, &cap, TRACE_LINE_MAX)) != 0) {
        line++;
        if (len == -2)
            st = status_fail(G16_ERR_OUT_OF_MEMORY, "%s: line %zu", path, line);
        else if (len < 0)
            st = status_fail(G16_ERR_FORMAT, "%s: line %zu is over %d KiB, which no line of a "
                             "trace is: not a g16 trace", path, line, TRACE_LINE_MAX / 1024);
        if (len < 0)
            break;
        if (buf[len - 1] != '\n')
            break; /* a last line cut short by a writer that died: ignored */
        if (len == 1)
            continue;
        json_error_t err;
        json_t *o = json_loadb(buf, (size_t)len, 0, &err);
        if (!json_is_object(o)) {
            st = bad_line(path, line, o ? "not a JSON object" : err.text);
        } else if (line == 1) {
            st = read_header(d, o, path);
            header = !st;
        } else {
            json_int_t id;
            if (get_int(o, "thread", &id) && !json_object_get(o, "kind"))
                st = read_thread(d, o, id, path, line);
            else
                st = read_event(d, o, path, line);
        }
        json_decref(o);
    }
    if (!st && ferror(f))
        st = status_fail(G16_ERR_IO, "%s: %s", path, strerror(errno));
    if (!st && !header)
        st = status_fail(G16_ERR_FORMAT, "%s: no header line: not a g16 trace", path);
    free(buf);
    if (st)
        trace_data_free(d);
    else
        trace_events_sort(&d->events);
    return st;
}

void trace_data_free(trace_data *d)
{
    trace_events_free(&d->events);
    free(d->threads);
    memset(d, 0, sizeof *d);
}

const char *trace_data_thread_name(const trace_data *d, uint32_t id, char buf[32])
{
    for (size_t i = d->n_threads; i-- > 0;) /* the latest name wins */
        if (d->threads[i].id == id)
            return d->threads[i].name;
    snprintf(buf, 32, "thread %" PRIu32, id);
    return buf;
}
