/* A trace in other forms: Chrome trace-event JSON (Perfetto, chrome://tracing) and a
 * picture (SVG, or a self-contained HTML page holding the SVG).
 *
 * Lanes, in both: one per GPU (its partitions' GPU sections, kernels, and a copy lane for
 * uploads) and one per recording thread (the CPU work it did, nested spans stacked).
 * Events on a GPU (GPU, KERNEL, B2_MSM, UPLOAD with device >= 0) go to the GPU's lanes
 * whichever host thread recorded them; everything else to its thread's lane. */
#ifndef G16_TRACE_TRACE_OUTPUT_H
#define G16_TRACE_TRACE_OUTPUT_H

#include <stdio.h>

#include "g16.h"
#include "trace/trace_analysis.h"
#include "trace/trace_file.h"

/* The Chrome trace-event format ("JSON Object Format"): complete events ("ph":"X", times
 * in microseconds from the trace's epoch) with job, partition, device, thread and bytes in
 * args, plus process and thread name records. Every event of d becomes one "X" event;
 * kernels that overlap on one GPU go to separate tracks so that each track nests. */
g16_status trace_export_chrome(FILE *out, const trace_data *d);

/* The timeline picture: an axis in ms from the run's first event, lanes as above, colours
 * by stage (KERNEL by name, other events by kind), a device lane's gaps (inside a window,
 * no kernel) in red, time outside windows left blank, and a legend. Each box carries a
 * tooltip (<title>). html = true wraps it in a page with the run's summary. */
g16_status trace_plot(FILE *out, const trace_data *d, const trace_analysis *a, bool html);

#endif
