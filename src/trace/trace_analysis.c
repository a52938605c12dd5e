#include "trace_analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

static const char *const CAUSE_KEYS[TRACE_CAUSE_COUNT] = {
    "lock_wait", "event_wait", "budget_wait", "upload", "cpu_msm",
    "synthesis", "finalize",   "queue_wait",  "unexplained", "idle",
};
static const char *const CAUSE_LABELS[TRACE_CAUSE_COUNT] = {
    "waiting for locks",     "waiting for events",  "waiting for the budget",
    "waiting for uploads",   "CPU-side MSM",        "waiting for synthesis",
    "finalize and verify",   "waiting in queues",   "unexplained",
    "idle between partitions",
};

const char *trace_cause_key(trace_cause c)
{
    return (unsigned)c < TRACE_CAUSE_COUNT ? CAUSE_KEYS[c] : "busy";
}

const char *trace_cause_label(trace_cause c)
{
    return (unsigned)c < TRACE_CAUSE_COUNT ? CAUSE_LABELS[c] : "busy";
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }

/* --- interval sets ------------------------------------------------------------------------ */

typedef struct {
    uint64_t s, e;
} span;

typedef struct {
    span *v;
    size_t n, cap;
} spans;

static bool spans_add(spans *l, uint64_t s, uint64_t e)
{
    if (e <= s)
        return true; /* empty spans cover nothing */
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        span *p = realloc(l->v, cap * sizeof *p);
        if (!p)
            return false;
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = (span){s, e};
    return true;
}

static int span_cmp(const void *pa, const void *pb)
{
    const span *a = pa, *b = pb;
    return a->s < b->s ? -1 : a->s > b->s ? 1 : 0;
}

/* Sorts and joins overlapping or touching spans: a union of disjoint spans. */
static void spans_merge(spans *l)
{
    if (l->n < 2)
        return;
    qsort(l->v, l->n, sizeof *l->v, span_cmp);
    size_t k = 0;
    for (size_t i = 1; i < l->n; i++) {
        if (l->v[i].s <= l->v[k].e) {
            if (l->v[i].e > l->v[k].e)
                l->v[k].e = l->v[i].e;
        } else
            l->v[++k] = l->v[i];
    }
    l->n = k + 1;
}

static void spans_free(spans *l)
{
    free(l->v);
    *l = (spans){0};
}

/* --- lanes: every instant labelled busy or with one cause --------------------------------- */

enum { LABEL_BUSY = TRACE_CAUSE_COUNT };

typedef struct {
    int device;
    uint64_t *points; /* boundaries, sorted, distinct; segment i = [points[i], points[i+1]) */
    uint8_t *label;   /* per segment */
    size_t n_points;
} lane;

/* Which cause an event explains on the lane of `device` (gpu: a GPU lane), or -1. */
static int cause_of(const trace_event *e, bool gpu, int device)
{
    bool here = e->device == TRACE_CPU || e->device == device;
    switch ((trace_kind)e->kind) {
    case TRACE_LOCK_WAIT:
        return here ? TRACE_CAUSE_LOCK_WAIT : -1;
    case TRACE_EVENT_WAIT:
        return here ? TRACE_CAUSE_EVENT_WAIT : -1;
    case TRACE_BUDGET_WAIT:
        return here ? TRACE_CAUSE_BUDGET_WAIT : -1;
    case TRACE_UPLOAD:
        return here ? TRACE_CAUSE_UPLOAD : -1;
    case TRACE_KERNEL:
    case TRACE_B2_MSM:
        return gpu && e->device == TRACE_CPU ? TRACE_CAUSE_CPU_MSM : -1;
    case TRACE_SYNTH:
        return here ? TRACE_CAUSE_SYNTH : -1;
    case TRACE_QUEUE_WAIT:
        return here ? TRACE_CAUSE_QUEUE_WAIT : -1;
    case TRACE_FINALIZE:
    case TRACE_VERIFY:
        return here ? TRACE_CAUSE_FINALIZE : -1;
    default:
        return -1;
    }
}

static bool is_busy(const trace_event *e, bool gpu, int device)
{
    if (e->kind != TRACE_KERNEL && e->kind != TRACE_B2_MSM)
        return false;
    return gpu ? e->device == device : e->device == TRACE_CPU;
}

static bool is_window(const trace_event *e, bool gpu, int device)
{
    return gpu ? e->kind == TRACE_GPU && e->device == device : e->kind == TRACE_PROVE;
}

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b ? 1 : 0;
}

/* The interval sets a lane is made of: one per cause that an event can explain (the
 * causes before UNEXPLAINED) for the events of the lane's own device, the same for the
 * CPU's events (device TRACE_CPU, which every lane sees), then the lane's busy time, then
 * its windows. The lane's own events explain an instant before the CPU's: a streamed
 * key's upload on this GPU is why its prover is not running kernels, even while a
 * synthesis thread waits for the budget (run 109's gaps, blamed on that wait before). */
enum {
    SET_WIDE = TRACE_CAUSE_UNEXPLAINED,
    SET_BUSY = 2 * TRACE_CAUSE_UNEXPLAINED,
    SET_WINDOWS,
    SET_COUNT
};

/* Builds the lane's labelled segmentation of [run_s, run_e). */
static g16_status lane_build(lane *ln, const trace_event *ev, size_t n, bool gpu, int device,
                             uint64_t run_s, uint64_t run_e)
{
    spans sets[SET_COUNT] = {{0}};
    bool ok = true;
    ln->device = device;
    for (size_t i = 0; i < n && ok; i++) {
        const trace_event *e = &ev[i];
        int c = cause_of(e, gpu, device);
        if (is_busy(e, gpu, device))
            ok = spans_add(&sets[SET_BUSY], e->start_ns, e->end_ns);
        else if (is_window(e, gpu, device))
            ok = spans_add(&sets[SET_WINDOWS], e->start_ns, e->end_ns);
        else if (c >= 0)
            ok = spans_add(&sets[e->device == device ? c : SET_WIDE + c], e->start_ns,
                           e->end_ns);
    }
    size_t total = 2;
    for (int c = 0; c < SET_COUNT; c++) {
        spans_merge(&sets[c]);
        total += 2 * sets[c].n;
    }
    ln->points = ok ? malloc(total * sizeof *ln->points) : NULL;
    ln->label = ok ? malloc(total * sizeof *ln->label) : NULL;
    g16_status st = G16_OK;
    if (!ln->points || !ln->label) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
        goto out;
    }
    size_t k = 0;
    ln->points[k++] = run_s;
    ln->points[k++] = run_e;
    for (int c = 0; c < SET_COUNT; c++)
        for (size_t i = 0; i < sets[c].n; i++) {
            ln->points[k++] = sets[c].v[i].s;
            ln->points[k++] = sets[c].v[i].e;
        }
    qsort(ln->points, k, sizeof *ln->points, u64_cmp);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        uint64_t x = ln->points[i];
        if (x >= run_s && x <= run_e && (!m || x != ln->points[m - 1]))
            ln->points[m++] = x;
    }
    ln->n_points = m;
    /* A sweep: at each segment's start, each set (disjoint, sorted) covers it or not, and
     * then it does for the whole segment. */
    size_t at[SET_COUNT] = {0};
    for (size_t i = 0; i + 1 < m; i++) {
        uint64_t x = ln->points[i];
        bool covered[SET_COUNT];
        for (int c = 0; c < SET_COUNT; c++) {
            while (at[c] < sets[c].n && sets[c].v[at[c]].e <= x)
                at[c]++;
            covered[c] = at[c] < sets[c].n && sets[c].v[at[c]].s <= x;
        }
        int label = covered[SET_WINDOWS] ? TRACE_CAUSE_UNEXPLAINED : TRACE_CAUSE_IDLE;
        for (int c = TRACE_CAUSE_UNEXPLAINED - 1; c >= 0; c--)
            if (covered[SET_WIDE + c])
                label = c; /* the first in priority order wins */
        for (int c = TRACE_CAUSE_UNEXPLAINED - 1; c >= 0; c--)
            if (covered[c])
                label = c; /* and the lane's own events before the CPU's */
        if (covered[SET_BUSY])
            label = LABEL_BUSY;
        ln->label[i] = (uint8_t)label;
    }
out:
    for (int c = 0; c < SET_COUNT; c++)
        spans_free(&sets[c]);
    return st;
}

/* Sums [lo, hi) of the lane: busy nanoseconds, and by cause into by[] (milliseconds). */
static uint64_t lane_sum(const lane *ln, uint64_t lo, uint64_t hi, double by[TRACE_CAUSE_COUNT])
{
    uint64_t busy = 0;
    if (hi <= lo || ln->n_points < 2)
        return 0;
    /* First segment whose end is past lo. */
    size_t a = 0, b = ln->n_points - 1;
    while (a < b) {
        size_t mid = (a + b) / 2;
        if (ln->points[mid + 1] <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    for (size_t i = a; i + 1 < ln->n_points && ln->points[i] < hi; i++) {
        uint64_t s = ln->points[i] > lo ? ln->points[i] : lo;
        uint64_t e = ln->points[i + 1] < hi ? ln->points[i + 1] : hi;
        if (e <= s)
            continue;
        if (ln->label[i] == LABEL_BUSY)
            busy += e - s;
        else if (by)
            by[ln->label[i]] += ms(e - s);
    }
    return busy;
}

static void lane_free(lane *ln)
{
    free(ln->points);
    free(ln->label);
}

/* --- windows and partitions --------------------------------------------------------------- */

typedef struct {
    int device;
    int32_t job, partition;
    uint64_t s, e;
} window;

static int window_cmp(const void *pa, const void *pb)
{
    const window *a = pa, *b = pb;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    return a->partition < b->partition ? -1 : a->partition > b->partition;
}

/* One window per (lane, job, partition): the span of its window events. */
static g16_status collect_windows(window **out, size_t *count, const trace_event *ev, size_t n,
                                  bool gpu)
{
    window *w = NULL;
    size_t k = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_event *e = &ev[i];
        if (!is_window(e, gpu, e->device))
            continue;
        int dev = gpu ? e->device : TRACE_CPU;
        size_t j = 0;
        while (j < k && !(w[j].device == dev && w[j].job == e->job && w[j].partition == e->partition))
            j++;
        if (j < k) {
            if (e->start_ns < w[j].s)
                w[j].s = e->start_ns;
            if (e->end_ns > w[j].e)
                w[j].e = e->end_ns;
            continue;
        }
        if (k == cap) {
            cap = cap ? 2 * cap : 16;
            window *p = realloc(w, cap * sizeof *p);
            if (!p) {
                free(w);
                return status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
            }
            w = p;
        }
        w[k++] = (window){dev, e->job, e->partition, e->start_ns, e->end_ns};
    }
    if (k > 1)
        qsort(w, k, sizeof *w, window_cmp);
    *out = w;
    *count = k;
    return G16_OK;
}

/* Events without a partition take the one whose window holds their midpoint. */
static void adopt(trace_event *ev, size_t n, const window *w, size_t nw, bool gpu)
{
    for (size_t i = 0; i < n; i++) {
        trace_event *e = &ev[i];
        if (e->partition >= 0 || e->kind == TRACE_GPU || e->kind == TRACE_PROVE)
            continue;
        uint64_t mid = e->start_ns + (e->end_ns - e->start_ns) / 2;
        for (size_t j = 0; j < nw; j++) {
            if (gpu && e->device >= 0 && w[j].device != e->device)
                continue;
            if (w[j].s <= mid && mid < w[j].e) {
                e->job = w[j].job;
                e->partition = w[j].partition;
                break;
            }
        }
    }
}

static size_t stage_index(const trace_analysis *a, const char *name)
{
    for (size_t i = 0; i < a->n_stages; i++)
        if (!strncmp(a->stages[i], name, TRACE_NAME_BYTES))
            return i;
    return a->n_stages;
}

static g16_status collect_stages(trace_analysis *a, const trace_event *ev, size_t n)
{
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind != TRACE_KERNEL || stage_index(a, ev[i].name) < a->n_stages)
            continue;
        if (a->n_stages == cap) {
            cap = cap ? 2 * cap : 16;
            char(*p)[TRACE_NAME_BYTES] = realloc(a->stages, cap * sizeof *p);
            if (!p)
                return status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
            a->stages = p;
        }
        memcpy(a->stages[a->n_stages], ev[i].name, TRACE_NAME_BYTES);
        a->stages[a->n_stages][TRACE_NAME_BYTES - 1] = 0;
        a->n_stages++;
    }
    return G16_OK;
}

/* Partitions ordered by (job, partition), for looking events' partitions up. */
typedef struct {
    int32_t job, partition;
    size_t index; /* into the analysis's parts */
} part_key;

typedef struct {
    part_key *keys;
    size_t n;
} part_index;

static int part_key_cmp(const void *pa, const void *pb)
{
    const part_key *a = pa, *b = pb;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    if (a->partition != b->partition)
        return a->partition < b->partition ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The first position in keys[] of (job, partition), or n. */
static size_t part_find(const part_index *ix, int32_t job, int32_t partition)
{
    part_key want = {job, partition, 0};
    size_t a = 0, b = ix->n;
    while (a < b) {
        size_t mid = (a + b) / 2;
        if (part_key_cmp(&ix->keys[mid], &want) < 0)
            a = mid + 1;
        else
            b = mid;
    }
    if (a < ix->n && ix->keys[a].job == job && ix->keys[a].partition == partition)
        return a;
    return ix->n;
}

/* Sums each event's duration into its partition's figures (every window it has). */
static void sum_kinds(trace_analysis *a, const trace_event *ev, size_t n, const part_index *ix)
{
    for (size_t i = 0; i < n; i++) {
        const trace_event *e = &ev[i];
        size_t stage = e->kind == TRACE_KERNEL ? stage_index(a, e->name) : a->n_stages;
        for (size_t k = part_find(ix, e->job, e->partition); k < ix->n; k++) {
            if (ix->keys[k].job != e->job || ix->keys[k].partition != e->partition)
                break;
            trace_partition_stats *p = &a->parts[ix->keys[k].index];
            p->kind_ms[e->kind] += ms(e->end_ns - e->start_ns);
            if (stage < a->n_stages)
                p->stage_ms[stage] += ms(e->end_ns - e->start_ns);
            if (e->kind == TRACE_UPLOAD)
                p->upload_bytes += e->bytes;
        }
    }
}

/* --- critical paths ----------------------------------------------------------------------- */

static int end_cmp(const void *pa, const void *pb)
{
    const trace_event *a = *(const trace_event *const *)pa, *b = *(const trace_event *const *)pb;
    if (a->end_ns != b->end_ns)
        return a->end_ns < b->end_ns ? -1 : 1;
    return a->start_ns > b->start_ns ? -1 : a->start_ns < b->start_ns; /* longest last */
}

static void path_label(char *out, size_t cap, trace_kind kind, const char *name)
{
    if (kind == TRACE_KIND_COUNT)
        snprintf(out, cap, "wait (no event)");
    else if (kind == TRACE_KERNEL && name[0])
        snprintf(out, cap, "%.*s", TRACE_NAME_BYTES - 1, name);
    else
        snprintf(out, cap, "%s", trace_kind_name(kind));
}

static g16_status path_add(trace_critical_path *p, trace_kind kind, const char *name,
                           int32_t partition, uint64_t s, uint64_t e, size_t *cap)
{
    if (p->n_segments == *cap) {
        *cap = *cap ? 2 * *cap : 32;
        trace_path_segment *q = realloc(p->segments, *cap * sizeof *q);
        if (!q)
            return status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
        p->segments = q;
    }
    trace_path_segment *g = &p->segments[p->n_segments++];
    *g = (trace_path_segment){.kind = kind, .partition = partition, .start_ns = s, .end_ns = e};
    snprintf(g->name, sizeof g->name, "%.*s", TRACE_NAME_BYTES - 1, name ? name : "");
    return G16_OK;
}

static int stage_cmp(const void *pa, const void *pb)
{
    const trace_path_stage *a = pa, *b = pb;
    return a->ms > b->ms ? -1 : a->ms < b->ms;
}

static g16_status path_stages(trace_critical_path *p)
{
    p->stages = calloc(p->n_segments ? p->n_segments : 1, sizeof *p->stages);
    if (!p->stages)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
    for (size_t i = 0; i < p->n_segments; i++) {
        const trace_path_segment *g = &p->segments[i];
        char label[sizeof p->stages->label];
        path_label(label, sizeof label, g->kind, g->name);
        size_t k = 0;
        while (k < p->n_stages && strcmp(p->stages[k].label, label))
            k++;
        if (k == p->n_stages)
            memcpy(p->stages[p->n_stages++].label, label, sizeof label);
        p->stages[k].ms += ms(g->end_ns - g->start_ns);
        p->stages[k].count++;
        if (g->kind == TRACE_KIND_COUNT)
            p->wait_ms += ms(g->end_ns - g->start_ns);
    }
    qsort(p->stages, p->n_stages, sizeof *p->stages, stage_cmp);
    return G16_OK;
}

/* Whether the container event ev[i] (GPU, PROVE) holds another event of its job. ev is
 * sorted by start, so only events from the first that starts with it up to the last that
 * starts before its end can be inside. */
static bool holds_other(const trace_event *ev, size_t n, size_t i)
{
    const trace_event *c = &ev[i];
    size_t k = i;
    while (k > 0 && ev[k - 1].start_ns == c->start_ns)
        k--;
    for (; k < n && ev[k].start_ns < c->end_ns; k++) {
        const trace_event *e = &ev[k];
        if (k != i && e->job == c->job && e->kind != TRACE_GPU && e->kind != TRACE_PROVE &&
            e->end_ns <= c->end_ns)
            return true;
    }
    return false;
}

static g16_status critical_path(trace_critical_path *p, int32_t job, const trace_event *ev,
                                size_t n)
{
    const trace_event **leaf = malloc((n ? n : 1) * sizeof *leaf);
    if (!leaf)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_event *e = &ev[i];
        if (e->job != job)
            continue;
        if ((e->kind == TRACE_GPU || e->kind == TRACE_PROVE) && holds_other(ev, n, i))
            continue;
        leaf[k++] = e;
    }
    *p = (trace_critical_path){.job = job};
    g16_status st = G16_OK;
    if (k == 0)
        goto out;
    qsort(leaf, k, sizeof *leaf, end_cmp);
    p->end_ns = leaf[k - 1]->end_ns;
    p->start_ns = p->end_ns;
    for (size_t i = 0; i < k; i++)
        if (leaf[i]->start_ns < p->start_ns)
            p->start_ns = leaf[i]->start_ns;
    /* Backwards: the segments come out last first and are reversed at the end. */
    size_t cap = 0, hi = k; /* candidates: leaf[0 .. hi) end at or before cur */
    uint64_t cur = p->end_ns;
    while (!st && cur > p->start_ns) {
        while (hi > 0 && leaf[hi - 1]->end_ns > cur)
            hi--;
        if (hi == 0) {
            st = path_add(p, TRACE_KIND_COUNT, NULL, -1, p->start_ns, cur, &cap);
            break;
        }
        const trace_event *e = leaf[hi - 1]; /* ends last; among those, the longest */
        if (e->end_ns < cur)
            st = path_add(p, TRACE_KIND_COUNT, NULL, -1, e->end_ns, cur, &cap);
        if (!st)
            st = path_add(p, (trace_kind)e->kind, e->name, e->partition, e->start_ns,
                          e->end_ns, &cap);
        cur = e->start_ns;
        hi--;
    }
    for (size_t i = 0, j = p->n_segments; i + 1 < j; i++, j--) {
        trace_path_segment t = p->segments[i];
        p->segments[i] = p->segments[j - 1];
        p->segments[j - 1] = t;
    }
    p->ms = ms(p->end_ns - p->start_ns);
    if (!st)
        st = path_stages(p);
out:
    free(leaf);
    return st;
}

static int i32_cmp(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    return a < b ? -1 : a > b;
}

static g16_status critical_paths(trace_analysis *a, const trace_event *ev, size_t n)
{
    int32_t *jobs = malloc((n ? n : 1) * sizeof *jobs);
    if (!jobs)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
    for (size_t i = 0; i < n; i++)
        jobs[i] = ev[i].job;
    qsort(jobs, n, sizeof *jobs, i32_cmp);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || jobs[i] != jobs[i - 1])
            jobs[distinct++] = jobs[i];
    g16_status st = G16_OK;
    a->paths = calloc(distinct ? distinct : 1, sizeof *a->paths);
    if (!a->paths)
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
    for (size_t j = 0; !st && j < distinct; j++, a->n_paths++)
        st = critical_path(&a->paths[j], jobs[j], ev, n);
    free(jobs);
    return st;
}

/* --- the analysis ------------------------------------------------------------------------- */

static int int_cmp(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return a < b ? -1 : a > b;
}

static g16_status analyze_lanes(trace_analysis *a, const trace_event *ev, size_t n,
                                const window *w, size_t nw)
{
    int *devs = malloc((n + 1) * sizeof *devs);
    if (!devs)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
    size_t nd = 0;
    if (a->gpu) {
        for (size_t i = 0; i < n; i++)
            if (ev[i].device >= 0)
                devs[nd++] = ev[i].device;
        qsort(devs, nd, sizeof *devs, int_cmp);
        size_t m = 0;
        for (size_t i = 0; i < nd; i++)
            if (!m || devs[i] != devs[m - 1])
                devs[m++] = devs[i];
        nd = m;
    } else
        devs[nd++] = TRACE_CPU;
    g16_status st = G16_OK;
    a->devices = calloc(nd, sizeof *a->devices);
    a->parts = calloc(nw ? nw : 1, sizeof *a->parts);
    double *stage_ms = calloc((nw ? nw : 1) * (a->n_stages ? a->n_stages : 1), sizeof *stage_ms);
    if (!a->devices || !a->parts || !stage_ms) {
        free(stage_ms);
        free(devs);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
    }
    a->parts[0].stage_ms = stage_ms; /* the block's owner, even with no partition */
    for (size_t i = 0; i < nw; i++)
        a->parts[i].stage_ms = stage_ms + i * a->n_stages;
    a->n_devices = nd;
    a->n_parts = nw;
    double steady_ms = 0, steady_busy = 0;
    size_t wi = 0;
    for (size_t d = 0; d < nd && !st; d++) {
        trace_device_stats *ds = &a->devices[d];
        lane ln = {0};
        ds->device = devs[d];
        if ((st = lane_build(&ln, ev, n, a->gpu, devs[d], a->start_ns, a->end_ns)))
            break;
        ds->busy_ms = ms(lane_sum(&ln, a->start_ns, a->end_ns, ds->cause_ms));
        ds->utilisation = a->wall_ms > 0 ? ds->busy_ms / a->wall_ms : 0;
        ds->first = wi;
        uint64_t prev_end = a->start_ns;
        for (; wi < nw && w[wi].device == devs[d]; wi++) {
            trace_partition_stats *p = &a->parts[wi];
            p->job = w[wi].job;
            p->partition = w[wi].partition;
            p->device = w[wi].device;
            p->start_ns = w[wi].s;
            p->end_ns = w[wi].e;
            p->window_ms = ms(w[wi].e - w[wi].s);
            p->kernel_ms = ms(lane_sum(&ln, w[wi].s, w[wi].e, p->gap_ms_by));
            p->gap_ms = p->window_ms - p->kernel_ms;
            if (prev_end < w[wi].s) {
                p->before_ms = ms(w[wi].s - prev_end);
                p->before_busy_ms = ms(lane_sum(&ln, prev_end, w[wi].s, p->before_ms_by));
            }
            if (w[wi].e > prev_end)
                prev_end = w[wi].e;
        }
        ds->count = wi - ds->first;
        ds->tail_ms = prev_end < a->end_ns ? ms(a->end_ns - prev_end) : 0;
        if (ds->count >= 3) {
            uint64_t s = w[ds->first].e, e = w[ds->first + ds->count - 2].e;
            if (e > s) {
                ds->steady_ms = ms(e - s);
                ds->steady_busy_ms = ms(lane_sum(&ln, s, e, NULL));
                steady_ms += ds->steady_ms;
                steady_busy += ds->steady_busy_ms;
            }
        }
        a->busy_ms += ds->busy_ms;
        lane_free(&ln);
    }
    a->utilisation = a->wall_ms > 0 ? a->busy_ms / (a->wall_ms * (double)nd) : 0;
    a->steady_utilisation = steady_ms > 0 ? steady_busy / steady_ms : -1;
    free(devs);
    return st;
}

g16_status trace_analyze(trace_analysis *a, const trace_event *events, size_t n)
{
    memset(a, 0, sizeof *a);
    a->steady_utilisation = -1;
    a->n_events = n;
    trace_event *ev = malloc((n ? n : 1) * sizeof *ev);
    if (!ev)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis of %zu events", n);
    if (n)
        memcpy(ev, events, n * sizeof *ev);
    trace_events sorted = {ev, n, n};
    trace_events_sort(&sorted);
    window *w = NULL;
    size_t nw = 0;
    g16_status st = G16_OK;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].device >= 0)
            a->gpu = true;
        if (!i || ev[i].start_ns < a->start_ns)
            a->start_ns = ev[i].start_ns;
        if (!i || ev[i].end_ns > a->end_ns)
            a->end_ns = ev[i].end_ns;
        if (ev[i].kind == TRACE_UPLOAD && ev[i].bytes) { /* copies, not waits (no bytes) */
            a->upload_bytes += ev[i].bytes;
            a->upload_ms += ms(ev[i].end_ns - ev[i].start_ns);
        }
    }
    a->wall_ms = ms(a->end_ns - a->start_ns);
    if ((st = collect_stages(a, ev, n)) || (st = collect_windows(&w, &nw, ev, n, a->gpu)))
        goto out;
    adopt(ev, n, w, nw, a->gpu);
    if ((st = analyze_lanes(a, ev, n, w, nw)))
        goto out;
    part_index ix = {malloc((nw ? nw : 1) * sizeof(part_key)), nw};
    if (!ix.keys) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "trace analysis");
        goto out;
    }
    for (size_t i = 0; i < nw; i++)
        ix.keys[i] = (part_key){a->parts[i].job, a->parts[i].partition, i};
    qsort(ix.keys, nw, sizeof *ix.keys, part_key_cmp);
    sum_kinds(a, ev, n, &ix);
    free(ix.keys);
    st = critical_paths(a, ev, n);
out:
    free(w);
    free(ev);
    if (st)
        trace_analysis_free(a);
    return st;
}

void trace_analysis_free(trace_analysis *a)
{
    if (a->parts)
        free(a->parts[0].stage_ms);
    free(a->parts);
    free(a->devices);
    free(a->stages);
    for (size_t i = 0; i < a->n_paths; i++) {
        free(a->paths[i].stages);
        free(a->paths[i].segments);
    }
    free(a->paths);
    memset(a, 0, sizeof *a);
}

const trace_partition_stats *trace_analysis_find(const trace_analysis *a, int32_t job,
                                                 int32_t partition)
{
    for (size_t i = 0; i < a->n_parts; i++)
        if (a->parts[i].job == job && a->parts[i].partition == partition)
            return &a->parts[i];
    return NULL;
}

/* --- figures ------------------------------------------------------------------------------ */

static int dbl_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* Nearest rank: the smallest value with at least q of the values at or below it. */
static double percentile(const double *sorted, size_t n, double q)
{
    size_t rank = (size_t)ceil(q * (double)n);
    return sorted[rank ? rank - 1 : 0];
}

static void summarise(trace_figure *f, double *v, size_t n)
{
    qsort(v, n, sizeof *v, dbl_cmp);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    f->count = n;
    f->avg = sum / (double)n;
    f->min = v[0];
    f->max = v[n - 1];
    f->p50 = percentile(v, n, 0.5);
    f->p90 = percentile(v, n, 0.9);
}

enum { FIG_WINDOW, FIG_KERNEL, FIG_GAP, FIG_GAP_CAUSE, FIG_LEAD_IN = FIG_GAP_CAUSE + TRACE_CAUSE_COUNT,
       FIG_KIND, FIG_STAGE = FIG_KIND + TRACE_KIND_COUNT };

static double figure_value(const trace_analysis *a, const trace_partition_stats *p, size_t id)
{
    if (id == FIG_WINDOW)
        return p->window_ms;
    if (id == FIG_KERNEL)
        return p->kernel_ms;
    if (id == FIG_GAP)
        return p->gap_ms;
    if (id < FIG_LEAD_IN)
        return p->gap_ms_by[id - FIG_GAP_CAUSE];
    if (id == FIG_LEAD_IN)
        return p->before_ms;
    if (id < FIG_STAGE)
        return p->kind_ms[id - FIG_KIND];
    return p->stage_ms[id - FIG_STAGE];
}

static void figure_name(char *out, size_t cap, const trace_analysis *a, size_t id)
{
    static const char *const fixed[] = {"window", "kernel busy", "gap"};
    if (id < FIG_GAP_CAUSE)
        snprintf(out, cap, "%s", fixed[id]);
    else if (id < FIG_LEAD_IN)
        snprintf(out, cap, "gap: %s", trace_cause_key((trace_cause)(id - FIG_GAP_CAUSE)));
    else if (id == FIG_LEAD_IN)
        snprintf(out, cap, "lead-in");
    else if (id < FIG_STAGE)
        snprintf(out, cap, "%s", trace_kind_name((trace_kind)(id - FIG_KIND)));
    else
        snprintf(out, cap, "stage %s", a->stages[id - FIG_STAGE]);
}

g16_status trace_figures(trace_figure **out, size_t *count, const trace_analysis *a)
{
    size_t ids = FIG_STAGE + a->n_stages, k = 0;
    *out = NULL;
    *count = 0;
    if (a->n_parts == 0)
        return G16_OK;
    trace_figure *f = calloc(ids, sizeof *f);
    double *v = malloc(a->n_parts * sizeof *v);
    if (!f || !v) {
        free(f);
        free(v);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "trace figures");
    }
    for (size_t id = 0; id < ids; id++) {
        bool any = id < FIG_GAP_CAUSE || id == FIG_LEAD_IN || id >= FIG_STAGE;
        for (size_t i = 0; i < a->n_parts; i++) {
            v[i] = figure_value(a, &a->parts[i], id);
            any |= v[i] != 0;
        }
        /* GPU (and PROVE on the CPU lane) are the window already; KERNEL is by stage. */
        if (!any || id == FIG_KIND + TRACE_GPU || id == FIG_KIND + TRACE_KERNEL ||
            (id == FIG_KIND + TRACE_PROVE && !a->gpu))
            continue;
        figure_name(f[k].name, sizeof f[k].name, a, id);
        summarise(&f[k++], v, a->n_parts);
    }
    free(v);
    *out = f;
    *count = k;
    return G16_OK;
}

/* --- the TIMING line ----------------------------------------------------------------------- */

/* NTT/H -> ntt_h */
static void key_of(char *out, size_t cap, const char *name)
{
    size_t k = 0;
    for (; *name && k + 1 < cap; name++) {
        char c = *name;
        out[k++] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a')
                   : ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) ? c : '_';
    }
    out[k] = 0;
}

#define APPEND(...)                                                             \
    do {                                                                        \
        int r_ = snprintf(buf + len, len < cap ? cap - len : 0, __VA_ARGS__);  \
        if (r_ > 0)                                                             \
            len += (size_t)r_;                                                  \
    } while (0)

int trace_timing_line(char *buf, size_t cap, const trace_analysis *a,
                      const trace_partition_stats *p)
{
    size_t len = 0;
    char dev[16], key[TRACE_NAME_BYTES + 4];
    if (p->device == TRACE_CPU)
        snprintf(dev, sizeof dev, "cpu");
    else
        snprintf(dev, sizeof dev, "%d", p->device);
    APPEND("TIMING job=%d partition=%d device=%s window_ms=%.3f kernel_ms=%.3f gap_ms=%.3f",
           (int)p->job, (int)p->partition, dev, p->window_ms, p->kernel_ms, p->gap_ms);
    for (int k = 0; k < TRACE_KIND_COUNT; k++) {
        if (k == TRACE_GPU || k == TRACE_KERNEL || k == TRACE_PROVE)
            continue;
        key_of(key, sizeof key, trace_kind_name((trace_kind)k));
        APPEND(" %s_ms=%.3f", key, p->kind_ms[k]);
    }
    APPEND(" upload_bytes=%llu", (unsigned long long)p->upload_bytes);
    for (size_t s = 0; s < a->n_stages; s++) {
        key_of(key, sizeof key, a->stages[s]);
        APPEND(" %s_ms=%.3f", key[0] ? key : "kernel", p->stage_ms[s]);
    }
    for (int c = 0; c < TRACE_CAUSE_IDLE; c++)
        APPEND(" gap_%s_ms=%.3f", trace_cause_key((trace_cause)c), p->gap_ms_by[c]);
    APPEND(" lead_in_ms=%.3f", p->before_ms);
    return (int)len;
}
