/* libFuzzer target: the trace reader and everything `g16 trace` does with what it read
 * (the analysis, the text and JSON reports, the Chrome export, the SVG and HTML plots),
 * on arbitrary bytes. A trace is a file users pass around and a daemon appends to, so a
 * hostile or damaged one must end in a clear error, never a crash. A trace that loads
 * must hold its events sorted, each ending no earlier than it starts; a loaded trace must
 * analyse, and the analysis must keep its figures within the wall time it found. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "trace/trace_analysis.h"
#include "trace/trace_file.h"
#include "trace/trace_output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
    if (!ok)
        __builtin_trap();
}

static FILE *sink(void)
{
    static FILE *null;
    if (!null)
        null = fopen("/dev/null", "w");
    require(null != NULL);
    return null;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* fmemopen refuses an empty buffer; an empty file has no header */
    FILE *f = fmemopen((void *)data, size, "r");
    require(f != NULL);
    trace_data d;
    g16_status st = trace_load_stream(&d, f, "fuzz.trace");
    fclose(f);
    if (st != G16_OK)
        return 0;
    for (size_t i = 0; i < d.events.n; i++) {
        const trace_event *e = &d.events.ev[i];
        require(e->end_ns >= e->start_ns);
        require(i == 0 || e->start_ns >= d.events.ev[i - 1].start_ns);
    }
    trace_analysis a = {0};
    if (trace_analyze(&a, d.events.ev, d.events.n) == G16_OK) {
        require(a.n_parts == 0 || a.parts != NULL);
        trace_figure *fig = NULL;
        size_t n_fig = 0;
        if (trace_figures(&fig, &n_fig, &a) == G16_OK)
            for (size_t i = 0; i < n_fig; i++)
                require(fig[i].count > 0 && fig[i].min <= fig[i].p50 &&
                        fig[i].p50 <= fig[i].p90 && fig[i].p90 <= fig[i].max);
        free(fig);
        trace_report_write(sink(), &a, &d, "fuzz.trace", false);
        trace_report_write(sink(), &a, &d, "fuzz.trace", true);
        trace_plot(sink(), &d, &a, false);
        trace_plot(sink(), &d, &a, true);
    }
    trace_export_chrome(sink(), &d);
    trace_analysis_free(&a);
    trace_data_free(&d);
    return 0;
}
