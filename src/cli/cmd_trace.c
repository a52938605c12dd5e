/* g16 trace report TRACE [--json]
 * g16 trace export --format chrome TRACE -o OUT.json
 * g16 trace plot TRACE -o OUT.svg|OUT.html
 * Reads a trace file written by `g16 bench --trace` or `g16 prove --trace` (format in
 * src/trace/trace_file.h) and prints the report (src/trace/trace_analysis.h says what each
 * figure means), writes Chrome/Perfetto JSON, or draws the timeline. Exit 0 done, 2 bad
 * arguments or an unreadable trace. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "trace/trace_analysis.h"
#include "trace/trace_file.h"
#include "trace/trace_output.h"
#include "util/atomic_file.h"

static int usage(void) { return cli_usage_error("trace"); }

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

int cmd_trace(int argc, char **argv)
{
    if (argc < 1)
        return usage();
    const char *what = argv[0], *path = NULL, *out_path = NULL, *format = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) && i + 1 < argc)
            out_path = argv[++i];
        else if (!strcmp(argv[i], "--format") && i + 1 < argc)
            format = argv[++i];
        else if (argv[i][0] == '-' || path)
            return usage();
        else
            path = argv[i];
    }
    bool report = !strcmp(what, "report"), export = !strcmp(what, "export");
    bool plot = !strcmp(what, "plot");
    if (!path || !(report || export || plot) || (!report && !out_path) || (report && out_path) ||
        (json && !report) || (format && !export))
        return usage();
    if (export && (!format || strcmp(format, "chrome") != 0)) {
        fprintf(stderr, "g16 trace export: --format chrome is the one format\n");
        return 2;
    }
    bool html = plot && (ends_with(out_path, ".html") || ends_with(out_path, ".htm"));
    if (plot && !html && !ends_with(out_path, ".svg")) {
        fprintf(stderr, "g16 trace plot: -o must name a .svg or .html file\n");
        return 2;
    }

    const cli_path in[] = {{"trace", path}}, out[] = {{"output", out_path}};
    char cmd[32];
    snprintf(cmd, sizeof cmd, "g16 trace %s", what);
    if (!cli_paths_apart(cmd, in, 1, out, 1))
        return 2;

    trace_data d;
    trace_analysis a = {0};
    g16_status st = trace_load(&d, path);
    if (st) {
        fprintf(stderr, "g16 trace: %s\n", g16_last_error());
        return 2;
    }
    if (!export && (st = trace_analyze(&a, d.events.ev, d.events.n))) {
        fprintf(stderr, "g16 trace: %s\n", g16_last_error());
        trace_data_free(&d);
        return 2;
    }
    /* An export or a plot replaces its file whole: a failure keeps the old one. */
    atomic_file file = {0};
    if (!report)
        st = atomic_file_open(&file, out_path);
    if (!st) {
        if (report)
            st = trace_report_write(stdout, &a, &d, path, json);
        else if (export)
            st = trace_export_chrome(file.f, &d);
        else
            st = trace_plot(file.f, &d, &a, html);
        if (!report && st)
            atomic_file_discard(&file);
        else if (!report)
            st = atomic_file_commit(&file);
    }
    int rc = 0;
    if (st) {
        fprintf(stderr, "g16 trace %s: %s\n", what, g16_last_error());
        rc = 2;
    }
    trace_analysis_free(&a);
    trace_data_free(&d);
    return rc;
}
