/* Chrome trace-event JSON (the "JSON Object Format" with complete "X" events), which
 * Perfetto and chrome://tracing load. Written with jansson so that every string is
 * escaped correctly. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_output.h"
#include "util/status.h"

enum {
    PID_CPU = 1,       /* the host: one track per recording thread */
    PID_GPU0 = 100,    /* GPU d is process PID_GPU0 + d */
    TID_WINDOWS = 1,   /* a GPU's partition windows */
    TID_KERNELS = 10,  /* kernel tracks 10, 11, ... (overlapping kernels) */
    TID_COPIES = 1000, /* copy tracks 1000, 1001, ... */
};

/* Tracks that never overlap: the first whose last span has ended takes the next span. */
typedef struct {
    uint64_t *end;
    size_t n;
} tracks;

static int track_for(tracks *t, uint64_t s, uint64_t e)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->end[i] <= s) {
            t->end[i] = e;
            return (int)i;
        }
    uint64_t *p = realloc(t->end, (t->n + 1) * sizeof *p);
    if (!p)
        return 0; /* out of memory: share track 0 (still a valid file) */
    t->end = p;
    t->end[t->n] = e;
    return (int)t->n++;
}

static bool on_gpu(const trace_event *e)
{
    return e->device >= 0 && (e->kind == TRACE_GPU || e->kind == TRACE_KERNEL ||
                              e->kind == TRACE_B2_MSM || e->kind == TRACE_UPLOAD);
}

static json_t *meta(const char *what, int pid, int tid, const char *name)
{
    return json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", what, "ph", "M", "pid", pid, "tid",
                     tid, "args", "name", name);
}

g16_status trace_export_chrome(FILE *out, const trace_data *d)
{
    json_t *events = json_array();
    int max_dev = -1;
    for (size_t i = 0; i < d->events.n; i++)
        if (on_gpu(&d->events.ev[i]) && d->events.ev[i].device > max_dev)
            max_dev = d->events.ev[i].device;
    tracks *kern = calloc((size_t)max_dev + 2, sizeof *kern);
    tracks *copy = calloc((size_t)max_dev + 2, sizeof *copy);
    if (!events || !kern || !copy) {
        json_decref(events);
        free(kern);
        free(copy);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "chrome export");
    }
    json_array_append_new(events, meta("process_name", PID_CPU, 0, "CPU"));
    for (size_t i = 0; i < d->n_threads; i++)
        json_array_append_new(events, meta("thread_name", PID_CPU, (int)d->threads[i].id,
                                           d->threads[i].name));
    for (size_t i = 0; i < d->events.n; i++) {
        const trace_event *e = &d->events.ev[i];
        int pid = PID_CPU, tid = (int)e->thread;
        if (on_gpu(e)) {
            pid = PID_GPU0 + e->device;
            if (e->kind == TRACE_GPU)
                tid = TID_WINDOWS;
            else if (e->kind == TRACE_UPLOAD)
                tid = TID_COPIES + track_for(&copy[e->device], e->start_ns, e->end_ns);
            else
                tid = TID_KERNELS + track_for(&kern[e->device], e->start_ns, e->end_ns);
        }
        const char *kind = trace_kind_name((trace_kind)e->kind);
        json_array_append_new(
            events,
            json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:{s:i, s:i, s:i, s:i, s:I}}", "name",
                      e->name[0] ? e->name : kind, "cat", kind, "ph", "X", "ts",
                      (double)e->start_ns / 1e3, "dur", (double)(e->end_ns - e->start_ns) / 1e3,
                      "pid", pid, "tid", tid, "args", "job", (int)e->job, "partition",
                      (int)e->partition, "device", (int)e->device, "thread", (int)e->thread,
                      "bytes", (json_int_t)e->bytes));
    }
    for (int dev = 0; dev <= max_dev; dev++) {
        char name[32];
        snprintf(name, sizeof name, "GPU %d", dev);
        json_array_append_new(events, meta("process_name", PID_GPU0 + dev, 0, name));
        json_array_append_new(events, meta("thread_name", PID_GPU0 + dev, TID_WINDOWS,
                                           "partitions (GPU sections)"));
        for (size_t k = 0; k < kern[dev].n; k++) {
            snprintf(name, sizeof name, "kernels %zu", k);
            json_array_append_new(events,
                                  meta("thread_name", PID_GPU0 + dev, TID_KERNELS + (int)k, name));
        }
        for (size_t k = 0; k < copy[dev].n; k++) {
            snprintf(name, sizeof name, "copies %zu", k);
            json_array_append_new(events,
                                  meta("thread_name", PID_GPU0 + dev, TID_COPIES + (int)k, name));
        }
        free(kern[dev].end);
        free(copy[dev].end);
    }
    free(kern);
    free(copy);
    json_t *root = json_pack("{s:o, s:s, s:{s:s, s:s, s:i, s:I}}", "traceEvents", events,
                             "displayTimeUnit", "ms", "otherData", "format", TRACE_FORMAT_NAME,
                             "command", d->command, "version", (int)d->version, "epoch_ns",
                             (json_int_t)d->epoch_ns);
    g16_status st = G16_OK;
    if (!root || json_dumpf(root, out, JSON_COMPACT) != 0 || fputc('\n', out) == EOF)
        st = status_fail(G16_ERR_IO, "writing the Chrome trace");
    json_decref(root);
    return st;
}
