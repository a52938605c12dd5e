/* The timeline picture (SVG, optionally inside an HTML page). Plain SVG 1.1 shapes, no
 * script, no external reference: any browser shows it, and a test renders it in headless
 * Chromium. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_output.h"
#include "util/status.h"

enum {
    WIDTH = 1200,
    LEFT = 160,   /* lane labels */
    RIGHT = 24,
    TOP = 74,     /* title, summary, axis labels */
    DEVICE_ROW = 26,
    THREAD_ROW = 14,
    LANE_GAP = 6,
    LEGEND_ITEM = 170,
    LEGEND_ROW = 18,
};

static const char *const KIND_COLOURS[TRACE_KIND_COUNT] = {
    [TRACE_SYNTH] = "#4e79a7",      [TRACE_QUEUE_WAIT] = "#bab0ac",
    [TRACE_BUDGET_WAIT] = "#9c755f", [TRACE_UPLOAD] = "#76b7b2",
    [TRACE_GPU] = "#c9c9c9",        [TRACE_KERNEL] = "#b6992d",
    [TRACE_B2_MSM] = "#ff9da7",     [TRACE_FINALIZE] = "#59a14f",
    [TRACE_LOCK_WAIT] = "#e15759",  [TRACE_EVENT_WAIT] = "#f28e2b",
    [TRACE_PROVE] = "#d5d5ea",      [TRACE_VERIFY] = "#8cd17d",
};

static const struct {
    const char *name, *colour;
} STAGE_COLOURS[] = {
    {"NTT/H", "#edc948"},  {"MSM_A", "#b07aa1"}, {"MSM_B1", "#d4a6c8"},
    {"MSM_B2", "#17becf"}, {"MSM_C", "#9d7660"}, {"MSM_H", "#bcbd22"},
    {"batch_add", "#a0cbe8"}, {"scalars", "#499894"},
};

static const char *const SPARE_COLOURS[] = {"#86bcb6", "#e49444", "#fabfd2", "#b6992d",
                                            "#79706e", "#d37295", "#8cd17d", "#4e79a7"};

/* Gaps are hatched red, unlike any stage colour. */
#define GAP_COLOUR "url(#gap)"
#define IDLE_COLOUR "#f7f7f7"

static const char *colour_of(const trace_event *e)
{
    if (e->kind != TRACE_KERNEL)
        return KIND_COLOURS[e->kind < TRACE_KIND_COUNT ? e->kind : TRACE_KERNEL];
    for (size_t i = 0; i < sizeof STAGE_COLOURS / sizeof *STAGE_COLOURS; i++)
        if (!strcmp(e->name, STAGE_COLOURS[i].name))
            return STAGE_COLOURS[i].colour;
    uint32_t h = 2166136261u; /* FNV-1a: one name, one colour, in every picture */
    for (const char *p = e->name; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    return SPARE_COLOURS[h % (sizeof SPARE_COLOURS / sizeof *SPARE_COLOURS)];
}

/* The legend label of an event's colour. */
static void label_of(char *out, size_t cap, const trace_event *e)
{
    if (e->kind == TRACE_KERNEL)
        snprintf(out, cap, "%s", e->name[0] ? e->name : "KERNEL");
    else
        snprintf(out, cap, "%s", trace_kind_name((trace_kind)e->kind));
}

/* XML text: names come from code, but a thread name or a command could hold '<' or '&'. */
static void xml(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else if ((unsigned char)*s >= 0x20)
            fputc(*s, out);
    }
}

typedef struct {
    FILE *out;
    uint64_t t0, t1;
    double scale; /* px per ns */
} canvas;

static double xpos(const canvas *c, uint64_t t)
{
    return LEFT + (double)(t > c->t0 ? t - c->t0 : 0) * c->scale;
}

static void box(const canvas *c, uint64_t s, uint64_t e, double y, double h, const char *fill,
                const trace_event *tip, const char *tip_text)
{
    double x0 = xpos(c, s), w = xpos(c, e) - x0;
    if (w < 0.6)
        w = 0.6; /* a span too short for a pixel still shows */
    fprintf(c->out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\">",
            x0, y, w, h, fill);
    if (tip) {
        char label[64];
        label_of(label, sizeof label, tip);
        fputs("<title>", c->out);
        xml(c->out, label);
        fprintf(c->out, ", job %d partition %d, %.3f ms (at %.3f ms)", (int)tip->job,
                (int)tip->partition, (double)(tip->end_ns - tip->start_ns) / 1e6,
                (double)(tip->start_ns - c->t0) / 1e6);
        if (tip->bytes)
            fprintf(c->out, ", %" PRIu64 " bytes", tip->bytes);
        fputs("</title>", c->out);
    } else if (tip_text) {
        fprintf(c->out, "<title>%s</title>", tip_text);
    }
    fputs("</rect>\n", c->out);
}

static void lane_label(const canvas *c, double y, double h, const char *text)
{
    fprintf(c->out, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">", LEFT - 8,
            y + h / 2 + 4);
    xml(c->out, text);
    fputs("</text>\n", c->out);
}

static bool on_gpu(const trace_event *e)
{
    return e->device >= 0 && (e->kind == TRACE_GPU || e->kind == TRACE_KERNEL ||
                              e->kind == TRACE_B2_MSM || e->kind == TRACE_UPLOAD);
}

/* A device lane: windows in red (gap), busy spans over them in their colours, the rest of
 * the lane pale. Returns the height used. */
static double device_lane(const canvas *c, const trace_data *d, const trace_analysis *a,
                          int device, double y)
{
    char label[32];
    if (device == TRACE_CPU)
        snprintf(label, sizeof label, "CPU prover (busy)");
    else
        snprintf(label, sizeof label, "GPU %d", device);
    lane_label(c, y, DEVICE_ROW, label);
    box(c, c->t0, c->t1, y, DEVICE_ROW, IDLE_COLOUR, NULL, "idle: outside every window");
    for (size_t i = 0; i < a->n_parts; i++) {
        const trace_partition_stats *p = &a->parts[i];
        if (p->device != device)
            continue;
        char tip[96];
        snprintf(tip, sizeof tip, "partition %d: window %.3f ms, kernels %.3f ms, gap %.3f ms",
                 (int)p->partition, p->window_ms, p->kernel_ms, p->gap_ms);
        box(c, p->start_ns, p->end_ns, y, DEVICE_ROW, GAP_COLOUR, NULL, tip);
    }
    for (size_t i = 0; i < d->events.n; i++) {
        const trace_event *e = &d->events.ev[i];
        bool busy = (e->kind == TRACE_KERNEL || e->kind == TRACE_B2_MSM) &&
                    (device == TRACE_CPU ? e->device == TRACE_CPU : e->device == device);
        if (busy)
            box(c, e->start_ns, e->end_ns, y + 2, DEVICE_ROW - 4, colour_of(e), e, NULL);
    }
    double h = DEVICE_ROW;
    if (device != TRACE_CPU) {
        bool copies = false;
        for (size_t i = 0; i < d->events.n; i++) {
            const trace_event *e = &d->events.ev[i];
            if (e->kind == TRACE_UPLOAD && e->device == device) {
                if (!copies) {
                    snprintf(label, sizeof label, "GPU %d copies", device);
                    lane_label(c, y + h + 2, THREAD_ROW, label);
                    copies = true;
                }
                box(c, e->start_ns, e->end_ns, y + h + 2, THREAD_ROW, colour_of(e), e, NULL);
            }
        }
        if (copies)
            h += THREAD_ROW + 2;
    }
    return h;
}

/* A thread's lane: its CPU events, each nested span one row lower. */
static double thread_lane(const canvas *c, const trace_data *d, uint32_t thread, double y)
{
    uint64_t stack[32];
    size_t depth_max = 0;
    bool any = false;
    for (int pass = 0; pass < 2; pass++) {
        size_t depth = 0;
        for (size_t i = 0; i < d->events.n; i++) {
            const trace_event *e = &d->events.ev[i];
            if (e->thread != thread || on_gpu(e))
                continue;
            while (depth > 0 && stack[depth - 1] <= e->start_ns)
                depth--;
            size_t row = depth < 31 ? depth : 31;
            if (pass == 0) {
                any = true;
                if (row + 1 > depth_max)
                    depth_max = row + 1;
            } else {
                box(c, e->start_ns, e->end_ns, y + (double)row * THREAD_ROW, THREAD_ROW - 1,
                    colour_of(e), e, NULL);
            }
            if (depth < 32)
                stack[depth++] = e->end_ns;
        }
        if (pass == 0 && any) {
            char buf[32];
            lane_label(c, y, THREAD_ROW, trace_data_thread_name(d, thread, buf));
            box(c, c->t0, c->t1, y, (double)depth_max * THREAD_ROW, IDLE_COLOUR, NULL, NULL);
        }
    }
    return any ? (double)depth_max * THREAD_ROW : 0;
}

/* A tick step of 1, 2 or 5 times a power of ten giving at most 12 ticks. */
static double tick_step(double span_ms)
{
    if (span_ms <= 0)
        return 1;
    double base = pow(10, floor(log10(span_ms / 10))); /* span / base in [10, 100) */
    static const double mult[] = {1, 2, 5, 10};
    for (size_t i = 0; i < 3; i++)
        if (span_ms / (base * mult[i]) <= 12)
            return base * mult[i];
    return base * mult[3];
}

static void axis(const canvas *c, double y_top, double y_bottom)
{
    double span = (double)(c->t1 - c->t0) / 1e6;
    double step = tick_step(span);
    fprintf(c->out, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">ms</text>\n",
            LEFT - 8, y_top - 6);
    for (double t = 0; t <= span * (1 + 1e-9); t += step) {
        double x = LEFT + t * 1e6 * c->scale;
        fprintf(c->out, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                x, y_top, x, y_bottom);
        fprintf(c->out, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%g</text>\n",
                x, y_top - 6, t);
    }
}

typedef struct {
    char label[40];
    const char *colour;
} legend_item;

static size_t legend_add(legend_item *items, size_t n, size_t cap, const char *label,
                         const char *colour)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(items[i].label, label))
            return n;
    if (n == cap)
        return n;
    snprintf(items[n].label, sizeof items[n].label, "%s", label);
    items[n].colour = colour;
    return n + 1;
}

static double legend(const canvas *c, const trace_data *d, double y)
{
    legend_item items[64];
    size_t n = 0;
    n = legend_add(items, n, 64, "gap (window, no kernel)", GAP_COLOUR);
    for (size_t i = 0; i < d->events.n; i++) {
        char label[40];
        if (d->events.ev[i].kind == TRACE_GPU)
            continue; /* GPU sections are drawn as their gaps, under the kernels */
        label_of(label, sizeof label, &d->events.ev[i]);
        n = legend_add(items, n, 64, label, colour_of(&d->events.ev[i]));
    }
    int per_row = (WIDTH - LEFT) / LEGEND_ITEM;
    for (size_t i = 0; i < n; i++) {
        double x = LEFT + (double)(i % (size_t)per_row) * LEGEND_ITEM;
        double yy = y + (double)(i / (size_t)per_row) * LEGEND_ROW;
        fprintf(c->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" "
                        "stroke=\"#555555\" stroke-width=\"0.5\"/>\n", x, yy, items[i].colour);
        fprintf(c->out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x + 17, yy + 10);
        xml(c->out, items[i].label);
        fputs("</text>\n", c->out);
    }
    return (double)((n + (size_t)per_row - 1) / (size_t)per_row) * LEGEND_ROW;
}

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* Lanes are drawn in a first pass to a scratch stream so that the SVG's height is known
 * before its opening tag. */
static g16_status draw(FILE *out, const trace_data *d, const trace_analysis *a, double *height)
{
    canvas c = {out, a->start_ns, a->end_ns > a->start_ns ? a->end_ns : a->start_ns + 1, 0};
    c.scale = (double)(WIDTH - LEFT - RIGHT) / (double)(c.t1 - c.t0);
    double y = TOP;
    for (size_t i = 0; i < a->n_devices; i++)
        y += device_lane(&c, d, a, a->devices[i].device, y) + LANE_GAP;
    /* One lane per thread that recorded CPU work, by thread id (registration order). */
    uint32_t *ids = malloc((d->events.n ? d->events.n : 1) * sizeof *ids);
    if (!ids)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "timeline picture");
    size_t n_ids = 0;
    for (size_t i = 0; i < d->events.n; i++)
        if (!on_gpu(&d->events.ev[i]))
            ids[n_ids++] = d->events.ev[i].thread;
    qsort(ids, n_ids, sizeof *ids, u32_cmp);
    for (size_t i = 0; i < n_ids; i++)
        if (!i || ids[i] != ids[i - 1]) {
            double h = thread_lane(&c, d, ids[i], y);
            y += h ? h + LANE_GAP : 0;
        }
    free(ids);
    axis(&c, TOP, y);
    y += 12;
    y += legend(&c, d, y) + 8;
    *height = y;
    return ferror(out) ? status_fail(G16_ERR_IO, "drawing the timeline") : G16_OK;
}

static void summary(FILE *out, const trace_analysis *a)
{
    fprintf(out, "wall %.1f ms, busy %.1f ms, utilisation %.1f%%", a->wall_ms, a->busy_ms,
            100 * a->utilisation);
    if (a->steady_utilisation >= 0)
        fprintf(out, " (steady state %.1f%%)", 100 * a->steady_utilisation);
    fprintf(out, "; %zu partitions, %zu events", a->n_parts, a->n_events);
}

g16_status trace_plot(FILE *out, const trace_data *d, const trace_analysis *a, bool html)
{
    char *body = NULL;
    size_t body_len = 0;
    FILE *scratch = open_memstream(&body, &body_len);
    if (!scratch)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "timeline picture");
    double height;
    g16_status st = draw(scratch, d, a, &height);
    if (fclose(scratch) != 0 && !st)
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "timeline picture");
    if (st) {
        free(body);
        return st;
    }
    if (html) {
        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<title>g16 timeline</title>\n<style>body{margin:12px;font-family:sans-serif;"
              "background:#ffffff}</style></head><body>\n", out);
    } else {
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    }
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
                 "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\">\n", WIDTH, ceil(height),
            WIDTH, ceil(height));
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#ffffff\"/>\n", WIDTH,
            ceil(height));
    fputs("<defs><pattern id=\"gap\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fbdada\"/>"
          "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#d62728\" stroke-width=\"2\"/>"
          "</pattern></defs>\n", out);
    fputs("<text x=\"12\" y=\"22\" font-size=\"15\"><tspan font-weight=\"bold\">g16 timeline"
          "</tspan> ", out);
    xml(out, d->command);
    fputs("</text>\n<text x=\"12\" y=\"42\" font-size=\"12\">", out);
    summary(out, a);
    fputs("</text>\n", out);
    fwrite(body, 1, body_len, out);
    fputs("</svg>\n", out);
    if (html)
        fputs("</body></html>\n", out);
    free(body);
    return ferror(out) ? status_fail(G16_ERR_IO, "writing the timeline") : G16_OK;
}
