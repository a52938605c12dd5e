#include "trace_session.h"

#include <stdlib.h>
#include <string.h>

#include "trace/trace_analysis.h"
#include "trace/trace_file.h"
#include "util/status.h"

struct trace_session {
    trace_writer *writer; /* NULL without --trace */
    FILE *timeline;       /* NULL without --timeline */
    trace_events all;     /* every event so far, for the TIMING lines */
    g16_status st;        /* the first error */
    char error[256];
};

static void keep_error(trace_session *s, g16_status st)
{
    if (st && !s->st) {
        s->st = st;
        status_text_fit(s->error, sizeof s->error, g16_last_error());
    }
}

g16_status trace_session_start(trace_session **out, const char *path, FILE *timeline,
                               const char *argv0, int argc, char **argv)
{
    *out = NULL;
    if (!path && !timeline)
        return G16_OK;
    trace_session *s = calloc(1, sizeof *s);
    if (!s)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace session");
    s->timeline = timeline;
    trace_enable(true);
    trace_thread_name("main");
    if (path) {
        char cmd[1024];
        size_t len = (size_t)snprintf(cmd, sizeof cmd, "%s", argv0);
        for (int i = 0; i < argc && len < sizeof cmd; i++)
            len += (size_t)snprintf(cmd + len, sizeof cmd - len, " %s", argv[i]);
        g16_status st = trace_writer_open(&s->writer, path, cmd, 0, 0);
        if (st) {
            trace_enable(false);
            free(s);
            return st;
        }
    }
    *out = s;
    return G16_OK;
}

/* A name or thread name as one token of a key=value list: no spaces, no commas. */
static void token(char *out, size_t cap, const char *s)
{
    size_t k = 0;
    for (; *s && k + 1 < cap; s++)
        out[k++] = (*s == ' ' || *s == ',' || *s == '\n') ? '_' : *s;
    out[k] = 0;
}

static void print_events(trace_session *s, const trace_event *ev, size_t n)
{
    uint64_t epoch = trace_epoch_ns();
    for (size_t i = 0; i < n; i++) {
        const trace_event *e = &ev[i];
        char name[TRACE_NAME_BYTES], dev[16];
        token(name, sizeof name, e->name);
        if (e->device == TRACE_CPU)
            snprintf(dev, sizeof dev, "cpu");
        else
            snprintf(dev, sizeof dev, "%d", (int)e->device);
        fprintf(s->timeline,
                "TIMELINE,%.3f,%s,%d,partition=%d device=%s name=%s ms=%.3f bytes=%llu "
                "thread=%u\n",
                (double)(e->start_ns > epoch ? e->start_ns - epoch : 0) / 1e6,
                trace_kind_name((trace_kind)e->kind), (int)e->job, (int)e->partition, dev,
                name[0] ? name : "-", (double)(e->end_ns - e->start_ns) / 1e6,
                (unsigned long long)e->bytes, (unsigned)e->thread);
    }
}

/* Takes the new events: into the file, onto stderr, into the session's copy. */
static void flush(trace_session *s)
{
    size_t before = s->all.n;
    keep_error(s, trace_events_drain(&s->all));
    const trace_event *fresh = s->all.ev + before;
    size_t n = s->all.n - before;
    if (s->writer && !s->st)
        keep_error(s, trace_writer_write(s->writer, fresh, n));
    if (s->timeline)
        print_events(s, fresh, n);
}

void trace_session_partition_done(trace_session *s, int32_t job, int32_t partition)
{
    if (!s)
        return;
    flush(s);
    if (!s->timeline)
        return;
    trace_analysis a;
    g16_status st = trace_analyze(&a, s->all.ev, s->all.n);
    keep_error(s, st);
    if (st)
        return;
    const trace_partition_stats *p = trace_analysis_find(&a, job, partition);
    if (p) {
        char line[4096];
        trace_timing_line(line, sizeof line, &a, p);
        fprintf(s->timeline, "%s\n", line);
    }
    fflush(s->timeline);
    trace_analysis_free(&a);
}

g16_status trace_session_finish(trace_session *s)
{
    if (!s)
        return G16_OK;
    trace_enable(false);
    flush(s);
    keep_error(s, trace_writer_close(s->writer));
    if (s->timeline)
        fflush(s->timeline);
    g16_status st = s->st;
    if (st)
        status_fail(st, "%s", s->error);
    trace_events_free(&s->all);
    free(s);
    return st;
}
