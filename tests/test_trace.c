/* The timeline: recording (from several threads, while draining), the file format and its
 * rotation, the analysis against synthetic traces whose gaps and causes are planted (so
 * every figure has one right answer), the Chrome export, the picture, and a real CPU run
 * of `g16 bench --trace` whose report must account for its wall time. */
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "trace/trace.h"
#include "trace/trace_analysis.h"
#include "trace/trace_file.h"
#include "trace/trace_output.h"

#define MS 1000000ull /* ns */

static char g_dir[] = "/tmp/g16_test_trace_XXXXXX";

static const char *tmp_path(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
    return buf[k];
}

static void discard(void *ctx, const trace_event *e)
{
    (void)e;
    ++*(size_t *)ctx;
}

static size_t drain_all(void)
{
    size_t n = 0;
    trace_drain(discard, &n);
    return n;
}

/* An event of a synthetic trace, times in ms. */
static trace_event ev(trace_kind kind, int job, int part, int dev, uint32_t thread,
                      const char *name, uint64_t s_ms, uint64_t e_ms)
{
    trace_event e = {.start_ns = s_ms * MS, .end_ns = e_ms * MS, .job = job, .partition = part,
                     .device = (int16_t)dev, .kind = (uint8_t)kind, .thread = thread};
    snprintf(e.name, sizeof e.name, "%s", name);
    return e;
}

static bool near(double got, double want) { return fabs(got - want) < 1e-9 * (1 + fabs(want)); }

#define CHECK_MS(got, want)                                                                  \
    do {                                                                                     \
        double g_ = (got), w_ = (want);                                                      \
        if (!CHECK(near(g_, w_)))                                                            \
            printf("  %s = %.9f, want %.9f\n", #got, g_, w_);                                \
    } while (0)

/* --- recording ---------------------------------------------------------------------------- */

typedef struct {
    int32_t job;
    size_t n;
} worker_arg;

static void *record_worker(void *p)
{
    worker_arg *w = p;
    trace_context_set(w->job, 7);
    char name[16];
    snprintf(name, sizeof name, "worker-%d", (int)w->job);
    trace_thread_name(name);
    for (size_t i = 0; i < w->n; i++) {
        uint64_t t = trace_begin();
        trace_end_on(t, TRACE_KERNEL, 3, i, "seq");
    }
    return NULL;
}

typedef struct {
    size_t *next; /* per job: the next sequence number expected */
    size_t jobs, total, bad;
} order_ctx;

static void check_order(void *p, const trace_event *e)
{
    order_ctx *c = p;
    c->total++;
    if (e->job < 0 || (size_t)e->job >= c->jobs || e->partition != 7 || e->device != 3 ||
        e->kind != TRACE_KERNEL || strcmp(e->name, "seq") != 0 || e->end_ns < e->start_ns ||
        e->bytes != c->next[e->job]++)
        c->bad++;
}

static void test_threads(void)
{
    enum { THREADS = 4 };
    size_t per = test_count(20000);
    pthread_t th[THREADS];
    worker_arg args[THREADS];
    size_t next[THREADS] = {0};
    order_ctx c = {next, THREADS, 0, 0};
    drain_all();
    trace_enable(true);
    for (int i = 0; i < THREADS; i++) {
        args[i] = (worker_arg){i, per};
        CHECK(pthread_create(&th[i], NULL, record_worker, &args[i]) == 0);
    }
    /* Drains while the workers record: every event once, in each thread's order. */
    for (int r = 0; r < 50; r++) {
        trace_drain(check_order, &c);
        usleep(200);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    trace_drain(check_order, &c);
    trace_drain(check_order, &c); /* the exited threads' last chunks are freed here */
    trace_enable(false);
    CHECK(c.total == THREADS * per);
    CHECK(c.bad == 0);
    for (int i = 0; i < THREADS; i++)
        CHECK(next[i] == per);
    CHECK(trace_dropped() == 0);
    trace_thread_info info[64];
    size_t n = trace_threads(info, 64), named = 0;
    for (size_t i = 0; i < n && i < 64; i++)
        named += !strncmp(info[i].name, "worker-", 7);
    CHECK(named == THREADS);
}

static void test_recording(void)
{
    drain_all();
    trace_enable(false);
    CHECK(trace_begin() == 0);
    trace_end(trace_begin(), TRACE_SYNTH, "off");
    trace_span(TRACE_GPU, 0, 0, 0, 0, "off", 1, 2);
    CHECK(drain_all() == 0);

    trace_enable(true);
    CHECK(trace_epoch_ns() != 0);
    trace_context_set(5, 6);
    int32_t job, part;
    trace_context_get(&job, &part);
    CHECK(job == 5 && part == 6);
    uint64_t t = trace_begin();
    CHECK(t != 0);
    trace_end(t, TRACE_SYNTH, "a name longer than twenty-three bytes");
    trace_span(TRACE_KERNEL, 1, 2, 0, 99, "k", 1000, 500); /* end before start: clamped */
    trace_enable(false);
    trace_events v = {0};
    CHECK(trace_events_drain(&v) == G16_OK);
    CHECK(v.n == 2);
    if (v.n == 2) {
        const trace_event *k = v.ev[0].kind == TRACE_KERNEL ? &v.ev[0] : &v.ev[1];
        const trace_event *s = v.ev[0].kind == TRACE_SYNTH ? &v.ev[0] : &v.ev[1];
        CHECK(s->kind == TRACE_SYNTH && s->job == 5 && s->partition == 6 && s->device == -1);
        CHECK(s->start_ns == t && s->end_ns >= t);
        CHECK(strlen(s->name) == TRACE_NAME_BYTES - 1 && !strncmp(s->name, "a name longer", 13));
        CHECK(k->job == 1 && k->partition == 2 && k->device == 0 && k->bytes == 99);
        CHECK(k->start_ns == 1000 && k->end_ns == 1000);
    }
    trace_events_free(&v);
    for (int k = 0; k < TRACE_KIND_COUNT; k++)
        CHECK(trace_kind_parse(trace_kind_name((trace_kind)k)) == (trace_kind)k);
    CHECK(trace_kind_parse("NOPE") == TRACE_KIND_COUNT);
    trace_context_set(-1, -1);
}

/* The cost of a span, on and off: printed for the README's overhead figure. */
static void test_cost(void)
{
    size_t n = test_count(200000);
    drain_all();
    for (int on = 0; on < 2; on++) {
        trace_enable(on);
        uint64_t t0 = trace_now_ns();
        for (size_t i = 0; i < n; i++) {
            uint64_t t = trace_begin();
            trace_end(t, TRACE_KERNEL, "cost");
        }
        double ns = (double)(trace_now_ns() - t0) / (double)n;
        trace_enable(false);
        size_t got = drain_all();
        CHECK(got == (on ? n : 0));
        printf("  a span %s: %.1f ns\n", on ? "recorded" : "with recording off", ns);
        CHECK(ns < 5000); /* far above any real machine, sanitizers included */
    }
}

/* --- files -------------------------------------------------------------------------------- */

static void test_file_roundtrip(void)
{
    trace_enable(true); /* fixes the epoch */
    trace_enable(false);
    uint64_t epoch = trace_epoch_ns();
    trace_event in[3] = {
        ev(TRACE_UPLOAD, 0, 1, 2, 40, "h2d \"quoted\"\\", 1, 3),
        ev(TRACE_GPU, 3, -1, 2, 41, "", 2, 9),
        ev(TRACE_VERIFY, -1, -1, -1, 40, "v", 10, 10),
    };
    in[0].bytes = 123456789012ull;
    for (int i = 0; i < 3; i++) {
        in[i].start_ns += epoch;
        in[i].end_ns += epoch;
    }
    trace_writer *w;
    const char *path = tmp_path("roundtrip.trace");
    CHECK(trace_writer_open(&w, path, "bench \"x\" <y>", 0, 0) == G16_OK);
    CHECK(trace_writer_write(w, in, 3) == G16_OK);
    CHECK(trace_writer_close(w) == G16_OK);
    trace_data d;
    CHECK(trace_load(&d, path) == G16_OK);
    CHECK(d.version == TRACE_FORMAT_VERSION && d.epoch_ns == epoch && d.segment == 0);
    CHECK(!strcmp(d.command, "bench \"x\" <y>"));
    CHECK(d.events.n == 3);
    for (size_t i = 0; i < d.events.n && i < 3; i++) {
        trace_event want = in[i];
        want.start_ns -= epoch;
        want.end_ns -= epoch;
        CHECK(memcmp(&d.events.ev[i], &want, sizeof want) == 0);
    }
    CHECK(d.n_threads == 2);
    char buf[32];
    CHECK(!strcmp(trace_data_thread_name(&d, 40, buf), "thread 40"));
    trace_data_free(&d);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_file_errors(void)
{
    static const char *const head =
        "{\"format\":\"g16-trace\",\"version\":1,\"epoch_ns\":5,\"command\":\"c\"}\n";
    static const char *const event =
        "{\"kind\":\"SYNTH\",\"start_ns\":1,\"end_ns\":2,\"job\":0,\"partition\":0,\"device\":-1,"
        "\"thread\":1,\"bytes\":0,\"name\":\"s\",\"future_key\":[1]}\n";
    const char *path = tmp_path("bad.trace");
    trace_data d;
    char text[1024];

    /* A last line cut short is ignored; unknown keys are too. */
    snprintf(text, sizeof text, "%s%s{\"kind\":\"SYN", head, event);
    write_text(path, text);
    CHECK(trace_load(&d, path) == G16_OK);
    CHECK(d.events.n == 1);
    trace_data_free(&d);

    write_text(path, "{\"format\":\"other\",\"version\":1,\"epoch_ns\":5}\n");
    CHECK(trace_load(&d, path) == G16_ERR_FORMAT);
    write_text(path, "{\"format\":\"g16-trace\",\"version\":2,\"epoch_ns\":5}\n");
    CHECK(trace_load(&d, path) == G16_ERR_UNSUPPORTED);
    CHECK(strstr(g16_last_error(), "version 2") != NULL);
    snprintf(text, sizeof text, "%s{\"kind\":\"NOPE\",\"start_ns\":1,\"end_ns\":2,\"job\":0,"
             "\"partition\":0,\"device\":-1,\"thread\":1,\"bytes\":0}\n", head);
    write_text(path, text);
    CHECK(trace_load(&d, path) == G16_ERR_FORMAT);
    CHECK(strstr(g16_last_error(), "line 2") != NULL);
    snprintf(text, sizeof text, "%s{\"kind\":\"SYNTH\",\"start_ns\":3,\"end_ns\":2,\"job\":0,"
             "\"partition\":0,\"device\":-1,\"thread\":1,\"bytes\":0}\n", head);
    write_text(path, text);
    CHECK(trace_load(&d, path) == G16_ERR_FORMAT);
    write_text(path, "");
    CHECK(trace_load(&d, path) == G16_ERR_FORMAT);
    CHECK(trace_load(&d, tmp_path("missing.trace")) == G16_ERR_IO);

    /* A line past TRACE_LINE_MAX ends the read there: the file is not a trace (a large
     * binary file, /dev/zero: reading on would only grow the line). Up to it, a line of
     * padding spaces is as good as a short one. */
    size_t big = TRACE_LINE_MAX + 100, head_len = strlen(head);
    char *long_text = malloc(head_len + big + 2);
    CHECK(long_text != NULL);
    if (long_text) {
        memcpy(long_text, head, head_len);
        memset(long_text + head_len, ' ', big);
        memcpy(long_text + head_len + big, "\n", 2);
        write_text(path, long_text);
        CHECK(trace_load(&d, path) == G16_ERR_FORMAT);
        CHECK(strstr(g16_last_error(), "line 2 is over 64 KiB") != NULL);
        size_t pad = TRACE_LINE_MAX - strlen(event);
        memset(long_text + head_len, ' ', pad);
        memcpy(long_text + head_len + pad, event, strlen(event) + 1);
        write_text(path, long_text);
        CHECK(trace_load(&d, path) == G16_OK && d.events.n == 1);
        trace_data_free(&d);
        free(long_text);
    }
    /* An endless file: refused by name (not a regular file), and as a stream by the line
     * bound. */
    CHECK(trace_load(&d, "/dev/zero") == G16_ERR_IO);
    CHECK(strstr(g16_last_error(), "not a regular file") != NULL);
    FILE *zero = fopen("/dev/zero", "r");
    if (CHECK(zero != NULL)) {
        CHECK(trace_load_stream(&d, zero, "/dev/zero") == G16_ERR_FORMAT);
        CHECK(strstr(g16_last_error(), "line 1 is over") != NULL);
        fclose(zero);
    }
    /* A NUL byte inside a line: not JSON. */
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs(head, f);
        fwrite("{\"kind\"\0:1}\n", 1, 12, f);
        fclose(f);
        CHECK(trace_load(&d, path) == G16_ERR_FORMAT);
        CHECK(strstr(g16_last_error(), "line 2") != NULL);
    }
}

static void test_rotation(void)
{
    const char *path = tmp_path("rot.trace");
    trace_writer *w;
    CHECK(trace_writer_open(&w, path, "rotating", 2000, 2) == G16_OK);
    enum { N = 100 };
    uint64_t epoch = trace_epoch_ns();
    for (int i = 0; i < N; i++) {
        trace_event e = ev(TRACE_KERNEL, 0, i, 0, 1, "k", (uint64_t)i, (uint64_t)i + 1);
        e.start_ns += epoch;
        e.end_ns += epoch;
        CHECK(trace_writer_write(w, &e, 1) == G16_OK);
    }
    CHECK(trace_writer_close(w) == G16_OK);
    struct stat sb;
    char p3[300];
    snprintf(p3, sizeof p3, "%s.3", path);
    CHECK(stat(p3, &sb) != 0); /* keep = 2: the third-oldest file is gone */
    /* Newest first: PATH, PATH.1, PATH.2, each a whole trace, events continuing. */
    int next_first = N;
    unsigned seg = 0;
    for (int k = 0; k < 3; k++) {
        char p[300];
        if (k)
            snprintf(p, sizeof p, "%s.%d", path, k);
        else
            snprintf(p, sizeof p, "%s", path);
        CHECK(stat(p, &sb) == 0 && sb.st_size < 2000 + 400);
        trace_data d;
        if (!CHECK(trace_load(&d, p) == G16_OK))
            continue;
        CHECK(d.n_threads == 1 && !strcmp(d.command, "rotating"));
        CHECK(d.events.n > 0);
        if (k == 0)
            seg = d.segment;
        else
            CHECK(d.segment == seg - (unsigned)k);
        if (d.events.n) {
            CHECK(d.events.ev[d.events.n - 1].partition == next_first - 1);
            next_first = d.events.ev[0].partition;
            for (size_t i = 1; i < d.events.n; i++)
                CHECK(d.events.ev[i].partition == d.events.ev[i - 1].partition + 1);
        }
        trace_data_free(&d);
    }
    CHECK(seg >= 3);
}

/* --- the analysis, on planted gaps --------------------------------------------------------- */

/* One GPU, three partitions; every gap's cause is planted (times in ms):
 *   0-20 SYNTH p0, 20-30 UPLOAD p0 (GPU 0)
 *   GPU p0 30-130: kernels 30-50 NTT/H, 60-90 MSM_A, 100-120 MSM_H; 50-60 EVENT_WAIT;
 *     90-100 nothing; 120-125 LOCK_WAIT (beats SYNTH p1 115-128, which overlaps it);
 *     125-128 synthesis; 128-130 nothing
 *   130-140 MSM_B2 on the CPU; 140-145 a LOCK_WAIT on GPU 1 (not GPU 0's cause); 145-150
 *     FINALIZE p0
 *   GPU p1 150-200: MSM_A 150-200
 *   200-210 nothing
 *   GPU p2 210-260: MSM_A 210-230, BUDGET_WAIT 230-240, QUEUE_WAIT (CPU) 240-250,
 *     MSM_H 250-260
 *   260-270 VERIFY p2 */
static size_t planted_gpu(trace_event *e)
{
    size_t n = 0;
    e[n++] = ev(TRACE_SYNTH, 0, 0, -1, 1, "s", 0, 20);
    e[n++] = ev(TRACE_UPLOAD, 0, 0, 0, 2, "h2d", 20, 30);
    e[n - 1].bytes = 1000;
    e[n++] = ev(TRACE_GPU, 0, 0, 0, 2, "", 30, 130);
    e[n++] = ev(TRACE_KERNEL, 0, 0, 0, 2, "NTT/H", 30, 50);
    e[n++] = ev(TRACE_EVENT_WAIT, 0, 0, 0, 2, "", 50, 60);
    e[n++] = ev(TRACE_KERNEL, 0, 0, 0, 2, "MSM_A", 60, 90);
    e[n++] = ev(TRACE_KERNEL, 0, 0, 0, 2, "MSM_H", 100, 120);
    e[n++] = ev(TRACE_LOCK_WAIT, 0, 0, 0, 2, "", 120, 125);
    e[n++] = ev(TRACE_SYNTH, 0, 1, -1, 1, "s", 115, 128);
    e[n++] = ev(TRACE_KERNEL, 0, 0, -1, 3, "MSM_B2", 130, 140);
    e[n++] = ev(TRACE_LOCK_WAIT, 1, 0, 1, 4, "", 140, 145);
    e[n++] = ev(TRACE_FINALIZE, 0, 0, -1, 3, "", 145, 150);
    e[n++] = ev(TRACE_GPU, 0, 1, 0, 2, "", 150, 200);
    e[n++] = ev(TRACE_KERNEL, 0, 1, 0, 2, "MSM_A", 150, 200);
    e[n++] = ev(TRACE_GPU, 0, 2, 0, 2, "", 210, 260);
    e[n++] = ev(TRACE_KERNEL, 0, 2, 0, 2, "MSM_A", 210, 230);
    e[n++] = ev(TRACE_BUDGET_WAIT, 0, 2, 0, 2, "", 230, 240);
    e[n++] = ev(TRACE_QUEUE_WAIT, 0, 2, -1, 1, "", 240, 250);
    e[n++] = ev(TRACE_KERNEL, 0, 2, 0, 2, "MSM_H", 250, 260);
    e[n++] = ev(TRACE_VERIFY, 0, 2, -1, 3, "", 260, 270);
    return n;
}

/* A gap a GPU's own upload explains is the upload's, though a CPU thread waits for the
 * budget meanwhile (the lane's own events before the CPU's); where only that wait covers
 * it, the wait's. The uploads carry no bytes (a streamed key's waits): none of the run's
 * copy rate. GPU 0 p0 0-100: kernels 0-40 and 90-100, UPLOAD (GPU 0) 40-70,
 * BUDGET_WAIT (CPU) 30-90; a second GPU's upload at 70-80 explains nothing of GPU 0's. */
static void test_own_device_first(void)
{
    trace_event e[8];
    size_t n = 0;
    e[n++] = ev(TRACE_GPU, 0, 0, 0, 2, "", 0, 100);
    e[n++] = ev(TRACE_KERNEL, 0, 0, 0, 2, "MSM_H", 0, 40);
    e[n++] = ev(TRACE_UPLOAD, 0, 0, 0, 2, "key chunks", 40, 70);
    e[n++] = ev(TRACE_BUDGET_WAIT, 0, 1, -1, 5, "", 30, 90);
    e[n++] = ev(TRACE_UPLOAD, 0, 2, 1, 6, "key chunks", 70, 80);
    e[n++] = ev(TRACE_KERNEL, 0, 0, 0, 2, "MSM_A", 90, 100);
    trace_analysis a;
    if (!CHECK(trace_analyze(&a, e, n) == G16_OK))
        return;
    const trace_partition_stats *p0 = trace_analysis_find(&a, 0, 0);
    if (CHECK(p0 != NULL)) {
        CHECK_MS(p0->gap_ms, 50);
        CHECK_MS(p0->gap_ms_by[TRACE_CAUSE_UPLOAD], 30);
        CHECK_MS(p0->gap_ms_by[TRACE_CAUSE_BUDGET_WAIT], 20);
    }
    /* Waits without bytes count in the gaps, not in the copy rate. */
    CHECK(a.upload_bytes == 0);
    CHECK_MS(a.upload_ms, 0);
    trace_analysis_free(&a);
}

static const trace_path_stage *path_stage(const trace_critical_path *p, const char *label)
{
    for (size_t i = 0; i < p->n_stages; i++)
        if (!strcmp(p->stages[i].label, label))
            return &p->stages[i];
    return NULL;
}

static void test_planted_gpu(void)
{
    trace_event e[32];
    size_t n = planted_gpu(e);
    /* Any order in, the same answer out. */
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(test_rand64() % (i + 1));
        trace_event t = e[i];
        e[i] = e[j];
        e[j] = t;
    }
    trace_analysis a;
    if (!CHECK(trace_analyze(&a, e, n) == G16_OK))
        return;
    CHECK(a.gpu && a.n_devices == 2 && a.n_parts == 3);
    CHECK_MS(a.wall_ms, 270);
    const trace_device_stats *d0 = &a.devices[0];
    CHECK(d0->device == 0 && d0->count == 3);
    CHECK_MS(d0->busy_ms, 150);
    static const double want[TRACE_CAUSE_COUNT] = {
        [TRACE_CAUSE_LOCK_WAIT] = 5,    [TRACE_CAUSE_EVENT_WAIT] = 10,
        [TRACE_CAUSE_BUDGET_WAIT] = 10, [TRACE_CAUSE_UPLOAD] = 10,
        [TRACE_CAUSE_CPU_MSM] = 10,     [TRACE_CAUSE_SYNTH] = 23,
        [TRACE_CAUSE_QUEUE_WAIT] = 10,  [TRACE_CAUSE_FINALIZE] = 15,
        [TRACE_CAUSE_UNEXPLAINED] = 12, [TRACE_CAUSE_IDLE] = 15,
    };
    double sum = d0->busy_ms;
    for (int c = 0; c < TRACE_CAUSE_COUNT; c++) {
        CHECK_MS(d0->cause_ms[c], want[c]);
        sum += d0->cause_ms[c];
    }
    CHECK_MS(sum, a.wall_ms);
    CHECK_MS(d0->tail_ms, 10);
    CHECK_MS(d0->steady_ms, 70);
    CHECK_MS(d0->steady_busy_ms, 50);
    CHECK_MS(a.steady_utilisation, 50.0 / 70.0);
    CHECK_MS(a.utilisation, 150.0 / (270.0 * 2)); /* GPU 1 idles the whole run */
    CHECK(a.upload_bytes == 1000);

    const trace_partition_stats *p0 = trace_analysis_find(&a, 0, 0);
    const trace_partition_stats *p1 = trace_analysis_find(&a, 0, 1);
    const trace_partition_stats *p2 = trace_analysis_find(&a, 0, 2);
    if (!CHECK(p0 && p1 && p2))
        goto out;
    CHECK_MS(p0->window_ms, 100);
    CHECK_MS(p0->kernel_ms, 70);
    CHECK_MS(p0->gap_ms, 30);
    CHECK_MS(p0->gap_ms_by[TRACE_CAUSE_EVENT_WAIT], 10);
    CHECK_MS(p0->gap_ms_by[TRACE_CAUSE_UNEXPLAINED], 12);
    CHECK_MS(p0->gap_ms_by[TRACE_CAUSE_LOCK_WAIT], 5);
    CHECK_MS(p0->gap_ms_by[TRACE_CAUSE_SYNTH], 3);
    CHECK_MS(p0->before_ms, 30);
    CHECK_MS(p0->before_ms_by[TRACE_CAUSE_SYNTH], 20);
    CHECK_MS(p0->before_ms_by[TRACE_CAUSE_UPLOAD], 10);
    CHECK_MS(p0->kind_ms[TRACE_SYNTH], 20);
    CHECK_MS(p0->kind_ms[TRACE_FINALIZE], 5);
    CHECK(p0->upload_bytes == 1000);
    static const char *const stages[] = {"NTT/H", "MSM_A", "MSM_H", "MSM_B2"};
    static const double stage_ms[] = {20, 30, 20, 10};
    CHECK(a.n_stages == 4);
    for (size_t s = 0; s < a.n_stages && s < 4; s++) {
        CHECK(!strcmp(a.stages[s], stages[s]));
        CHECK_MS(p0->stage_ms[s], stage_ms[s]);
    }
    CHECK_MS(p1->gap_ms, 0);
    CHECK_MS(p1->before_ms, 20);
    CHECK_MS(p1->before_ms_by[TRACE_CAUSE_CPU_MSM], 10);
    CHECK_MS(p1->before_ms_by[TRACE_CAUSE_IDLE], 5);
    CHECK_MS(p1->before_ms_by[TRACE_CAUSE_FINALIZE], 5);
    CHECK_MS(p1->kind_ms[TRACE_SYNTH], 13);
    CHECK_MS(p2->before_ms_by[TRACE_CAUSE_IDLE], 10);
    CHECK_MS(p2->gap_ms_by[TRACE_CAUSE_BUDGET_WAIT], 10);
    CHECK_MS(p2->gap_ms_by[TRACE_CAUSE_QUEUE_WAIT], 10);
    CHECK_MS(p2->kernel_ms, 30);

    /* The critical path of job 0 (see planted_gpu): 270 ms, 42 of them with no event. */
    const trace_critical_path *path = NULL;
    for (size_t i = 0; i < a.n_paths; i++)
        if (a.paths[i].job == 0)
            path = &a.paths[i];
    CHECK(a.n_paths == 2);
    if (CHECK(path != NULL)) {
        CHECK_MS(path->ms, 270);
        CHECK_MS(path->wait_ms, 42);
        const trace_path_stage *msm_a = path_stage(path, "MSM_A");
        const trace_path_stage *synth = path_stage(path, "SYNTH");
        CHECK(msm_a && msm_a->count == 3 && near(msm_a->ms, 100));
        CHECK(synth && synth->count == 2 && near(synth->ms, 33));
        CHECK(path_stage(path, "GPU") == NULL);
        double total = 0;
        for (size_t i = 0; i < path->n_stages; i++)
            total += path->stages[i].ms;
        CHECK_MS(total, 270);
        for (size_t i = 1; i < path->n_segments; i++)
            CHECK(path->segments[i].start_ns == path->segments[i - 1].end_ns);
    }

    /* The JSON report carries the same numbers. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(trace_report_write(f, &a, NULL, "planted", true) == G16_OK);
    fclose(f);
    json_error_t err;
    json_t *root = json_loads(buf, 0, &err);
    if (CHECK(root != NULL)) {
        json_t *dev0 = json_array_get(json_object_get(root, "devices"), 0);
        CHECK(near(json_real_value(json_object_get(dev0, "busy_ms")), 150));
        CHECK(near(json_real_value(json_object_get(json_object_get(dev0, "causes"), "synthesis")), 23));
        CHECK(json_array_size(json_object_get(root, "partitions")) == 3);
    }
    json_decref(root);
    free(buf);
out:
    trace_analysis_free(&a);
}

/* The CPU backend (no GPU events): the compute stages are the lane, PROVE the windows; a
 * worker's batch_add without a partition is adopted by the window it falls in.
 *   0-10 SYNTH p0; PROVE p0 10-60: NTT/H 10-20, MSM_A 20-40, batch_add (thread 2, no
 *   partition) 25-45, 45-50 nothing, FINALIZE 50-60; VERIFY 60-65; 65-70 nothing;
 *   SYNTH p1 70-80; PROVE p1 80-100: MSM_H 80-100. */
static void test_planted_cpu(void)
{
    trace_event e[] = {
        ev(TRACE_SYNTH, 0, 0, -1, 1, "", 0, 10),     ev(TRACE_PROVE, 0, 0, -1, 1, "", 10, 60),
        ev(TRACE_KERNEL, 0, 0, -1, 1, "NTT/H", 10, 20), ev(TRACE_KERNEL, 0, 0, -1, 1, "MSM_A", 20, 40),
        ev(TRACE_KERNEL, -1, -1, -1, 2, "batch_add", 25, 45),
        ev(TRACE_FINALIZE, 0, 0, -1, 1, "", 50, 60), ev(TRACE_VERIFY, 0, 0, -1, 1, "", 60, 65),
        ev(TRACE_SYNTH, 0, 1, -1, 1, "", 70, 80),    ev(TRACE_PROVE, 0, 1, -1, 1, "", 80, 100),
        ev(TRACE_KERNEL, 0, 1, -1, 1, "MSM_H", 80, 100),
    };
    trace_analysis a;
    if (!CHECK(trace_analyze(&a, e, sizeof e / sizeof *e) == G16_OK))
        return;
    CHECK(!a.gpu && a.n_devices == 1 && a.devices[0].device == TRACE_CPU && a.n_parts == 2);
    CHECK_MS(a.wall_ms, 100);
    CHECK_MS(a.busy_ms, 55);
    CHECK_MS(a.utilisation, 0.55);
    CHECK(a.steady_utilisation < 0);
    const trace_device_stats *d = &a.devices[0];
    CHECK_MS(d->cause_ms[TRACE_CAUSE_SYNTH], 20);
    CHECK_MS(d->cause_ms[TRACE_CAUSE_UNEXPLAINED], 5);
    CHECK_MS(d->cause_ms[TRACE_CAUSE_FINALIZE], 15);
    CHECK_MS(d->cause_ms[TRACE_CAUSE_IDLE], 5);
    const trace_partition_stats *p0 = trace_analysis_find(&a, 0, 0);
    const trace_partition_stats *p1 = trace_analysis_find(&a, 0, 1);
    if (CHECK(p0 && p1)) {
        CHECK_MS(p0->window_ms, 50);
        CHECK_MS(p0->kernel_ms, 35);
        CHECK_MS(p0->gap_ms_by[TRACE_CAUSE_FINALIZE], 10);
        CHECK_MS(p0->gap_ms_by[TRACE_CAUSE_UNEXPLAINED], 5);
        size_t batch = a.n_stages;
        for (size_t s = 0; s < a.n_stages; s++)
            if (!strcmp(a.stages[s], "batch_add"))
                batch = s;
        CHECK(batch < a.n_stages && near(p0->stage_ms[batch], 20));
        CHECK_MS(p1->before_ms, 20);
        CHECK_MS(p1->before_ms_by[TRACE_CAUSE_SYNTH], 10);
        CHECK_MS(p1->before_ms_by[TRACE_CAUSE_FINALIZE], 5);
        CHECK_MS(p1->before_ms_by[TRACE_CAUSE_IDLE], 5);
        char line[2048];
        trace_timing_line(line, sizeof line, &a, p0);
        CHECK(strstr(line, "TIMING job=0 partition=0 device=cpu window_ms=50.000 kernel_ms=35.000") == line);
        CHECK(strstr(line, " ntt_h_ms=10.000") && strstr(line, " batch_add_ms=20.000"));
        CHECK(strstr(line, " gap_finalize_ms=10.000") && strstr(line, " synth_ms=10.000"));
    }
    trace_analysis_free(&a);
}

static void test_figures(void)
{
    /* Ten CPU partitions with windows of 1..10 ms (in shuffled order). */
    trace_event e[10];
    uint64_t at = 0;
    for (int i = 0; i < 10; i++) {
        uint64_t len = (uint64_t)((i * 7) % 10 + 1);
        e[i] = ev(TRACE_PROVE, 0, i, -1, 1, "", at, at + len);
        at += len + 1;
    }
    trace_analysis a;
    if (!CHECK(trace_analyze(&a, e, 10) == G16_OK))
        return;
    trace_figure *f;
    size_t n;
    CHECK(trace_figures(&f, &n, &a) == G16_OK);
    const trace_figure *w = NULL;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].name, "window"))
            w = &f[i];
    if (CHECK(w != NULL)) {
        CHECK_MS(w->avg, 5.5);
        CHECK_MS(w->min, 1);
        CHECK_MS(w->p50, 5); /* nearest rank: the 5th of 10 */
        CHECK_MS(w->p90, 9);
        CHECK_MS(w->max, 10);
        CHECK(w->count == 10);
    }
    free(f);
    /* Utilisation is busy time, not windows: no kernel at all is 0%. */
    CHECK(a.busy_ms == 0 && a.utilisation == 0);
    trace_analysis_free(&a);

    trace_analysis empty;
    CHECK(trace_analyze(&empty, NULL, 0) == G16_OK);
    CHECK(empty.n_parts == 0 && empty.wall_ms == 0);
    trace_analysis_free(&empty);
}

/* --- export and picture ------------------------------------------------------------------- */

static trace_data planted_data(void)
{
    trace_data d = {.version = 1};
    trace_event e[32];
    size_t n = planted_gpu(e);
    for (size_t i = 0; i < n; i++)
        trace_events_push(&d.events, &e[i]);
    /* Two kernels overlapping on GPU 0 (two streams): separate tracks in the export. */
    trace_event k = ev(TRACE_KERNEL, 0, 0, 0, 2, "overlap", 35, 45);
    trace_events_push(&d.events, &k);
    trace_events_sort(&d.events);
    d.threads = calloc(1, sizeof *d.threads);
    d.threads[0].id = 1;
    snprintf(d.threads[0].name, TRACE_NAME_BYTES, "synth <&>");
    d.n_threads = 1;
    snprintf(d.command, sizeof d.command, "planted");
    return d;
}

static void test_chrome(void)
{
    trace_data d = planted_data();
    const char *path = tmp_path("chrome.json");
    FILE *f = fopen(path, "w");
    CHECK(trace_export_chrome(f, &d) == G16_OK);
    fclose(f);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!CHECK(root != NULL)) {
        printf("  %s\n", err.text);
        trace_data_free(&d);
        return;
    }
    json_t *events = json_object_get(root, "traceEvents");
    size_t x = 0, meta = 0;
    bool *seen = calloc(d.events.n, sizeof *seen);
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *o = json_array_get(events, i);
        const char *ph = json_string_value(json_object_get(o, "ph"));
        if (ph && !strcmp(ph, "M"))
            meta++;
        if (!ph || strcmp(ph, "X"))
            continue;
        x++;
        double ts = json_number_value(json_object_get(o, "ts"));
        double dur = json_number_value(json_object_get(o, "dur"));
        const char *cat = json_string_value(json_object_get(o, "cat"));
        json_t *args = json_object_get(o, "args");
        /* Match it to an event of the trace not matched yet. */
        for (size_t k = 0; k < d.events.n; k++) {
            const trace_event *e = &d.events.ev[k];
            if (!seen[k] && cat && !strcmp(cat, trace_kind_name((trace_kind)e->kind)) &&
                near(ts, (double)e->start_ns / 1e3) &&
                near(dur, (double)(e->end_ns - e->start_ns) / 1e3) &&
                json_integer_value(json_object_get(args, "partition")) == e->partition) {
                seen[k] = true;
                break;
            }
        }
    }
    CHECK(x == d.events.n);
    size_t matched = 0;
    for (size_t k = 0; k < d.events.n; k++)
        matched += seen[k];
    CHECK(matched == d.events.n);
    CHECK(meta >= 4); /* process and thread names */
    free(seen);
    json_decref(root);
    trace_data_free(&d);
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static void test_plot(void)
{
    trace_data d = planted_data();
    trace_analysis a;
    CHECK(trace_analyze(&a, d.events.ev, d.events.n) == G16_OK);
    for (int html = 0; html < 2; html++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK(trace_plot(f, &d, &a, html) == G16_OK);
        fclose(f);
        CHECK(count(buf, "<svg") == 1 && count(buf, "</svg>") == 1);
        CHECK(html ? !strncmp(buf, "<!DOCTYPE html>", 15) : !strncmp(buf, "<?xml", 5));
        CHECK(count(buf, "<rect") >= d.events.n);   /* every event drawn */
        CHECK(count(buf, "url(#gap)") >= 3);        /* the planted gaps' windows */
        CHECK(strstr(buf, "GPU 0") && strstr(buf, "synth &lt;&amp;&gt;"));
        CHECK(!strstr(buf, "<&>"));
        free(buf);
    }
    trace_analysis_free(&a);
    trace_data_free(&d);
}

/* --- a real run -------------------------------------------------------------------------- */

static void test_real_run(void)
{
    const char *cli = getenv("G16_CLI");
    if (!cli || !*cli) {
        printf("  G16_CLI not set: the real run is left out\n");
        return;
    }
    const char *path = tmp_path("bench.trace");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s bench --backend cpu --constraints 4096 --partitions 2 --trace %s > %s",
             cli, path, tmp_path("bench.out"));
    if (!CHECK(system(cmd) == 0))
        return;
    trace_data d;
    if (!CHECK(trace_load(&d, path) == G16_OK))
        return;
    trace_analysis a;
    if (!CHECK(trace_analyze(&a, d.events.ev, d.events.n) == G16_OK)) {
        trace_data_free(&d);
        return;
    }
    CHECK(!a.gpu && a.n_devices == 1 && a.n_parts == 2);
    /* Accounting: busy + every cause = the wall time, and what no event explains is small. */
    const trace_device_stats *dv = &a.devices[0];
    double sum = dv->busy_ms;
    for (int c = 0; c < TRACE_CAUSE_COUNT; c++)
        sum += dv->cause_ms[c];
    CHECK(fabs(sum - a.wall_ms) < 1e-6 * a.wall_ms);
    double lost = dv->cause_ms[TRACE_CAUSE_UNEXPLAINED] + dv->cause_ms[TRACE_CAUSE_IDLE];
    printf("  real run: wall %.1f ms, busy %.1f ms, unexplained + idle %.3f ms\n", a.wall_ms,
           a.busy_ms, lost);
    CHECK(lost < 0.05 * a.wall_ms);
    CHECK(a.busy_ms > 0.5 * a.wall_ms);
    CHECK(dv->cause_ms[TRACE_CAUSE_SYNTH] > 0 && dv->cause_ms[TRACE_CAUSE_FINALIZE] > 0);
    static const char *const stages[] = {"NTT/H", "scalars", "MSM_A", "MSM_B1", "MSM_C",
                                         "MSM_H", "MSM_B2", "batch_add"};
    for (size_t s = 0; s < sizeof stages / sizeof *stages; s++) {
        bool found = false;
        for (size_t k = 0; k < a.n_stages; k++)
            found |= !strcmp(a.stages[k], stages[s]);
        if (!CHECK(found))
            printf("  stage %s missing\n", stages[s]);
    }
    for (size_t i = 0; i < a.n_parts; i++) {
        const trace_partition_stats *p = &a.parts[i];
        CHECK(p->kind_ms[TRACE_SYNTH] > 0 && p->kind_ms[TRACE_VERIFY] > 0);
        CHECK(p->kernel_ms > 0 && p->kernel_ms <= p->window_ms);
    }
    CHECK(a.n_paths == 1 && a.paths[0].job == 0 && near(a.paths[0].ms, a.wall_ms));
    /* The command's JSON report says the same. */
    snprintf(cmd, sizeof cmd, "%s trace report %s --json", cli, path);
    FILE *p = popen(cmd, "r");
    json_error_t err;
    json_t *root = p ? json_loadf(p, 0, &err) : NULL;
    if (p)
        CHECK(pclose(p) == 0);
    if (CHECK(root != NULL)) {
        json_t *run = json_object_get(root, "run");
        CHECK(near(json_real_value(json_object_get(run, "wall_ms")), a.wall_ms));
        CHECK(near(json_real_value(json_object_get(run, "busy_ms")), a.busy_ms));
    }
    json_decref(root);
    trace_analysis_free(&a);
    trace_data_free(&d);
}

int main(void)
{
    test_init("test_trace");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_recording();
    test_threads();
    test_cost();
    test_file_roundtrip();
    test_file_errors();
    test_rotation();
    test_planted_gpu();
    test_own_device_first();
    test_planted_cpu();
    test_figures();
    test_chrome();
    test_plot();
    test_real_run();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0)
        printf("  could not remove %s\n", g_dir);
    return test_finish();
}
