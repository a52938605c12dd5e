/* g16 trace report: the analysis (trace_analysis.c) as text for an 80-column terminal or as
 * JSON. Every line of the text form is at most 80 columns: names are cut to their column. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_analysis.h"
#include "util/status.h"

static const char *lane_name(char *buf, size_t cap, int device)
{
    if (device == TRACE_CPU)
        snprintf(buf, cap, "cpu");
    else
        snprintf(buf, cap, "gpu %d", device);
    return buf;
}

/* Prints prefix then text, broken at spaces into lines of at most 80 columns (a word
 * longer than a line is cut). */
static void wrap(FILE *out, const char *prefix, const char *text)
{
    const int width = 80, indent = 4;
    int col = fprintf(out, "%s", prefix);
    while (*text) {
        while (*text == ' ')
            text++;
        int word = (int)strcspn(text, " ");
        if (!word)
            break;
        if (col + 1 + word > width && col > indent) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        }
        int room = width - col - (col > indent ? 1 : 0);
        col += fprintf(out, "%s%.*s", col > indent ? " " : "", word < room ? word : room, text);
        text += word;
    }
    fputc('\n', out);
}

static double share(double part, double whole) { return whole > 0 ? 100 * part / whole : 0; }

static void human_bytes(char *buf, size_t cap, double b)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(buf, cap, u ? "%.2f %s" : "%.0f %s", b, units[u]);
}

/* The largest cause of a partition's gap, or "-" when it has none. */
static const char *main_cause(const trace_partition_stats *p)
{
    int best = -1;
    for (int c = 0; c < TRACE_CAUSE_COUNT; c++)
        if (p->gap_ms_by[c] > 0 && (best < 0 || p->gap_ms_by[c] > p->gap_ms_by[best]))
            best = c;
    return best < 0 ? "-" : trace_cause_key((trace_cause)best);
}

static void text_run(FILE *out, const trace_analysis *a, const trace_data *d, const char *source)
{
    fprintf(out, "g16 trace report: %.60s\n", source);
    if (d) {
        fprintf(out, "  %s v%u, g16 %.12s, %zu events, %zu threads\n", TRACE_FORMAT_NAME,
                d->version, d->g16_version[0] ? d->g16_version : "?", a->n_events, d->n_threads);
        if (d->command[0])
            wrap(out, "  command:", d->command);
    }
    if (a->gpu)
        fprintf(out, "  lanes: %zu GPU%s; busy = union of kernel intervals per GPU\n",
                a->n_devices, a->n_devices == 1 ? "" : "s");
    else
        fprintf(out, "  lanes: cpu (no GPU events: busy = union of the CPU prover's compute\n"
                     "  stages, windows = PROVE spans)\n");
    fprintf(out, "\nrun: wall %.1f ms, busy %.1f ms, utilisation %.1f%%", a->wall_ms,
            a->busy_ms, 100 * a->utilisation);
    if (a->steady_utilisation >= 0)
        fprintf(out, ", steady state %.1f%%\n", 100 * a->steady_utilisation);
    else
        fprintf(out, ",\n  steady state n/a (needs 3 partitions on a lane)\n");
    if (a->upload_bytes || a->upload_ms > 0) {
        char b[32];
        human_bytes(b, sizeof b, (double)a->upload_bytes);
        fprintf(out, "  uploads: %s in %.1f ms (%.2f GB/s while copying)\n", b, a->upload_ms,
                a->upload_ms > 0 ? (double)a->upload_bytes / a->upload_ms / 1e6 : 0.0);
    }
}

static void text_lanes(FILE *out, const trace_analysis *a)
{
    char ln[16];
    for (size_t i = 0; i < a->n_devices; i++) {
        const trace_device_stats *ds = &a->devices[i];
        fprintf(out, "\nwhere the wall time went, lane %-6s %24s %9s\n",
                lane_name(ln, sizeof ln, ds->device), "ms", "share");
        fprintf(out, "  %-50.50s %9.1f %8.1f%%\n", a->gpu ? "busy (kernels)" : "busy (compute stages)",
                ds->busy_ms, share(ds->busy_ms, a->wall_ms));
        double sum = ds->busy_ms;
        for (int c = 0; c < TRACE_CAUSE_COUNT; c++) {
            sum += ds->cause_ms[c];
            if (ds->cause_ms[c] > 0)
                fprintf(out, "  %-50.50s %9.1f %8.1f%%\n", trace_cause_label((trace_cause)c),
                        ds->cause_ms[c], share(ds->cause_ms[c], a->wall_ms));
        }
        fprintf(out, "  %-50.50s %9.1f %8.1f%%\n", "total (= wall)", sum, share(sum, a->wall_ms));
        if (ds->steady_ms > 0)
            fprintf(out, "  steady state: %.1f ms busy of %.1f ms = %.1f%%\n", ds->steady_busy_ms,
                    ds->steady_ms, share(ds->steady_busy_ms, ds->steady_ms));
    }
}

static void text_partitions(FILE *out, const trace_analysis *a)
{
    if (!a->n_parts)
        return;
    fprintf(out, "\npartitions (window = %s; lead-in = time since the lane's previous window)\n",
            a->gpu ? "GPU section" : "PROVE");
    fprintf(out, "  %4s %4s %5s %9s %9s %9s %9s %6s  %s\n", "job", "part", "lane", "lead-in",
            "window", "kernel", "gap", "gap%", "main cause");
    for (size_t i = 0; i < a->n_parts; i++) {
        const trace_partition_stats *p = &a->parts[i];
        char ln[16];
        if (p->device == TRACE_CPU)
            snprintf(ln, sizeof ln, "cpu");
        else
            snprintf(ln, sizeof ln, "%d", p->device);
        fprintf(out, "  %4d %4d %5s %9.1f %9.1f %9.1f %9.1f %5.1f%%  %.12s\n", (int)p->job,
                (int)p->partition, ln, p->before_ms, p->window_ms, p->kernel_ms, p->gap_ms,
                share(p->gap_ms, p->window_ms), main_cause(p));
    }
}

static void text_figures(FILE *out, const trace_figure *f, size_t n)
{
    if (!n)
        return;
    fprintf(out, "\nfigures per partition (ms)  %9s %9s %9s %9s %9s\n", "avg", "min", "p50",
            "p90", "max");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-24.24s  %9.2f %9.2f %9.2f %9.2f %9.2f\n", f[i].name, f[i].avg,
                f[i].min, f[i].p50, f[i].p90, f[i].max);
}

static void text_paths(FILE *out, const trace_analysis *a)
{
    for (size_t i = 0; i < a->n_paths; i++) {
        const trace_critical_path *p = &a->paths[i];
        fprintf(out, "\ncritical path, job %d: %.1f ms, %zu segments, %.1f ms with no event\n",
                (int)p->job, p->ms, p->n_segments, p->wait_ms);
        fprintf(out, "  %-30s %10s %7s %6s\n", "stage", "ms", "share", "count");
        for (size_t k = 0; k < p->n_stages; k++)
            fprintf(out, "  %-30.30s %10.1f %6.1f%% %6zu\n", p->stages[k].label, p->stages[k].ms,
                    share(p->stages[k].ms, p->ms), p->stages[k].count);
    }
}

/* --- JSON --------------------------------------------------------------------------------- */

static json_t *causes_json(const double by[TRACE_CAUSE_COUNT], bool with_idle)
{
    json_t *o = json_object();
    for (int c = 0; c < TRACE_CAUSE_COUNT; c++)
        if (with_idle || c != TRACE_CAUSE_IDLE)
            json_object_set_new(o, trace_cause_key((trace_cause)c), json_real(by[c]));
    return o;
}

static json_t *partition_json(const trace_analysis *a, const trace_partition_stats *p)
{
    json_t *kinds = json_object(), *stages = json_object();
    for (int k = 0; k < TRACE_KIND_COUNT; k++)
        if (p->kind_ms[k] > 0)
            json_object_set_new(kinds, trace_kind_name((trace_kind)k), json_real(p->kind_ms[k]));
    for (size_t s = 0; s < a->n_stages; s++)
        json_object_set_new(stages, a->stages[s], json_real(p->stage_ms[s]));
    return json_pack("{s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:o, s:f, s:f, s:o, s:o, s:o, s:I}",
                     "job", (int)p->job, "partition", (int)p->partition, "device", p->device,
                     "start_ms", (double)p->start_ns / 1e6, "end_ms", (double)p->end_ns / 1e6,
                     "window_ms", p->window_ms, "kernel_ms", p->kernel_ms, "gap_ms", p->gap_ms,
                     "gap", causes_json(p->gap_ms_by, false), "lead_in_ms", p->before_ms,
                     "lead_in_busy_ms", p->before_busy_ms, "lead_in",
                     causes_json(p->before_ms_by, true), "kinds", kinds, "stages", stages,
                     "upload_bytes", (json_int_t)p->upload_bytes);
}

static json_t *path_json(const trace_critical_path *p)
{
    json_t *stages = json_array(), *segs = json_array();
    for (size_t k = 0; k < p->n_stages; k++)
        json_array_append_new(stages, json_pack("{s:s, s:f, s:I}", "stage", p->stages[k].label,
                                                "ms", p->stages[k].ms, "count",
                                                (json_int_t)p->stages[k].count));
    for (size_t k = 0; k < p->n_segments; k++) {
        const trace_path_segment *g = &p->segments[k];
        const char *kind = g->kind == TRACE_KIND_COUNT ? "WAIT" : trace_kind_name(g->kind);
        json_array_append_new(segs, json_pack("{s:s, s:s, s:i, s:f, s:f}", "kind", kind, "name",
                                              g->name, "partition", (int)g->partition,
                                              "start_ms", (double)g->start_ns / 1e6, "end_ms",
                                              (double)g->end_ns / 1e6));
    }
    return json_pack("{s:i, s:f, s:f, s:f, s:f, s:o, s:o}", "job", (int)p->job, "ms", p->ms,
                     "wait_ms", p->wait_ms, "start_ms", (double)p->start_ns / 1e6, "end_ms",
                     (double)p->end_ns / 1e6, "stages", stages, "segments", segs);
}

static json_t *report_json(const trace_analysis *a, const trace_data *d, const char *source,
                           const trace_figure *f, size_t nf)
{
    json_t *devices = json_array(), *parts = json_array(), *figs = json_array();
    json_t *paths = json_array();
    for (size_t i = 0; i < a->n_devices; i++) {
        const trace_device_stats *ds = &a->devices[i];
        json_array_append_new(
            devices, json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:o, s:I}", "device", ds->device,
                               "busy_ms", ds->busy_ms, "utilisation", ds->utilisation,
                               "tail_ms", ds->tail_ms, "steady_ms", ds->steady_ms,
                               "steady_busy_ms", ds->steady_busy_ms, "causes",
                               causes_json(ds->cause_ms, true), "partitions",
                               (json_int_t)ds->count));
    }
    for (size_t i = 0; i < a->n_parts; i++)
        json_array_append_new(parts, partition_json(a, &a->parts[i]));
    for (size_t i = 0; i < nf; i++)
        json_array_append_new(figs, json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:I}", "name",
                                              f[i].name, "avg", f[i].avg, "min", f[i].min, "p50",
                                              f[i].p50, "p90", f[i].p90, "max", f[i].max, "count",
                                              (json_int_t)f[i].count));
    for (size_t i = 0; i < a->n_paths; i++)
        json_array_append_new(paths, path_json(&a->paths[i]));
    json_t *steady = a->steady_utilisation >= 0 ? json_real(a->steady_utilisation) : json_null();
    json_t *run = json_pack("{s:f, s:f, s:f, s:f, s:f, s:o, s:I, s:f, s:I}", "start_ms",
                            (double)a->start_ns / 1e6, "end_ms", (double)a->end_ns / 1e6,
                            "wall_ms", a->wall_ms, "busy_ms", a->busy_ms, "utilisation",
                            a->utilisation, "steady_utilisation", steady, "upload_bytes",
                            (json_int_t)a->upload_bytes, "upload_ms", a->upload_ms, "events",
                            (json_int_t)a->n_events);
    json_t *trace = json_pack("{s:s, s:s}", "source", source, "format", TRACE_FORMAT_NAME);
    if (d) {
        json_object_set_new(trace, "version", json_integer(d->version));
        json_object_set_new(trace, "command", json_string(d->command));
        json_object_set_new(trace, "g16", json_string(d->g16_version));
    }
    return json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o}", "trace", trace, "lanes",
                     a->gpu ? "gpu" : "cpu", "run", run, "devices", devices, "partitions", parts,
                     "figures", figs, "critical_paths", paths);
}

g16_status trace_report_write(FILE *out, const trace_analysis *a, const trace_data *d,
                              const char *source, bool json)
{
    trace_figure *f;
    size_t nf;
    g16_status st = trace_figures(&f, &nf, a);
    if (st)
        return st;
    if (json) {
        json_t *root = report_json(a, d, source, f, nf);
        if (!root || json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0)
            st = status_fail(G16_ERR_IO, "writing the JSON report");
        else
            fputc('\n', out);
        json_decref(root);
    } else {
        text_run(out, a, d, source);
        text_lanes(out, a);
        text_partitions(out, a);
        text_figures(out, f, nf);
        text_paths(out, a);
    }
    free(f);
    if (!st && ferror(out))
        st = status_fail(G16_ERR_IO, "writing the report");
    return st;
}
