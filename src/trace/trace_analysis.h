/* What a trace says: device busy time against wall time, per partition and over the run,
 * and where every gap went.
 *
 * Lanes. A "device lane" is what the report keeps busy: each GPU that has events
 * (device >= 0), or, when the trace has none (a CPU-backend run), one lane for the CPU
 * prover. Its busy time is the union of its compute intervals: KERNEL and B2_MSM events on
 * that device (on the CPU lane: those with device -1). Busy time is always a union of
 * intervals, never a window: a window that holds 1.8 s of kernels in 3.7 s is 49% busy,
 * however its kernels are spread.
 *
 * Windows. A partition's window on a lane is the span of its GPU events on that device
 * (the CPU lane: its PROVE events). Window minus busy time is the partition's gap.
 *
 * Attribution. Every instant of the run on a lane is exactly one of: busy, or a gap cause.
 * An idle instant goes to the first cause in trace_cause order that has an event covering
 * it: the waits that block a device worker directly first (locks, CUDA events, the memory
 * budget), then uploads, CPU-side MSMs (KERNEL/B2_MSM on device -1 while the lane is a
 * GPU), synthesis, finalize/verify, and queues last: a partition sitting in a queue is
 * mostly the mark of a busy stage after it (the pipeline records every partition's queue
 * time), so a queue explains an instant only when no work does. An instant with no
 * covering event is
 * "unexplained" inside a partition's window and "idle" outside every window. Events on
 * another device never explain a lane's gap; CPU events (device -1) explain every lane's.
 * So, per lane, busy + the sum of the causes = the run's wall time, exactly.
 *
 * Events recorded without a partition (worker threads, -1) are assigned to the partition
 * whose window contains their midpoint, when there is one.
 *
 * Steady state: the part of the run between the end of a lane's first window and the end
 * of its second-to-last, i.e. whole cycles (lead-in plus window) of every partition but
 * the first and the last; defined from three partitions on.
 *
 * Critical path of a job: walking back from the job's last event, each step takes the
 * job's event that ends last before the current point (the longest, if several end
 * together), so the path is a chain of events and the waits between them that spans the
 * job from its first event to its last. GPU and PROVE events take part only when no
 * other event of the job lies inside them (they are containers).
 */
#ifndef G16_TRACE_TRACE_ANALYSIS_H
#define G16_TRACE_TRACE_ANALYSIS_H

#include <stdio.h>

#include "g16.h"
#include "trace/trace.h"
#include "trace/trace_file.h"

typedef enum {
    TRACE_CAUSE_LOCK_WAIT = 0,
    TRACE_CAUSE_EVENT_WAIT,
    TRACE_CAUSE_BUDGET_WAIT,
    TRACE_CAUSE_UPLOAD,
    TRACE_CAUSE_CPU_MSM,
    TRACE_CAUSE_SYNTH,
    TRACE_CAUSE_FINALIZE,
    TRACE_CAUSE_QUEUE_WAIT,
    TRACE_CAUSE_UNEXPLAINED, /* inside a window, no event covers it */
    TRACE_CAUSE_IDLE,        /* outside every window, no event covers it */
    TRACE_CAUSE_COUNT
} trace_cause;

/* "lock_wait", "event_wait", ..., "idle": the JSON keys; trace_cause_label gives the
 * words of the text report ("waiting for synthesis", ...). */
const char *trace_cause_key(trace_cause c);
const char *trace_cause_label(trace_cause c);

typedef struct {
    int32_t job, partition;
    int device;                  /* the lane: a GPU, or TRACE_CPU */
    uint64_t start_ns, end_ns;   /* the window */
    double window_ms, kernel_ms, gap_ms;
    double gap_ms_by[TRACE_CAUSE_COUNT];    /* inside the window; sums to gap_ms */
    double before_ms;            /* from the previous window's end on the lane (the run's
                                    start for the first) to this window's start */
    double before_ms_by[TRACE_CAUSE_COUNT]; /* sums to before_ms (less its busy part) */
    double before_busy_ms;       /* busy time before the window (another partition's) */
    double kind_ms[TRACE_KIND_COUNT];  /* summed durations of the partition's events */
    uint64_t upload_bytes;
    double *stage_ms;            /* [analysis n_stages]: summed KERNEL durations by name */
} trace_partition_stats;

typedef struct {
    int device;
    size_t first, count;          /* its partitions: parts[first .. first + count) */
    double busy_ms, utilisation;  /* busy / the run's wall time */
    double cause_ms[TRACE_CAUSE_COUNT];  /* busy + these = the run's wall time */
    double tail_ms;               /* after the last window */
    double steady_ms, steady_busy_ms;    /* 0, 0 with fewer than 3 windows */
} trace_device_stats;

typedef struct {
    char label[TRACE_NAME_BYTES + 12]; /* "SYNTH", "MSM_A" (kernel names), "wait" */
    double ms;
    size_t count;
} trace_path_stage;

typedef struct {
    trace_kind kind;  /* TRACE_KIND_COUNT for a wait with no event */
    int32_t partition;
    uint64_t start_ns, end_ns;
    char name[TRACE_NAME_BYTES];
} trace_path_segment;

typedef struct {
    int32_t job;
    uint64_t start_ns, end_ns;
    double ms, wait_ms;
    trace_path_stage *stages;     /* by time on the path, longest first */
    size_t n_stages;
    trace_path_segment *segments; /* in time order */
    size_t n_segments;
} trace_critical_path;

typedef struct {
    bool gpu;                    /* lanes are GPUs (else the one CPU lane) */
    size_t n_events;
    uint64_t start_ns, end_ns;   /* the run: first event's start to last event's end */
    double wall_ms;
    double busy_ms;              /* summed over lanes */
    double utilisation;          /* busy / (wall x lanes) */
    double steady_utilisation;   /* over the lanes' steady parts; < 0 if undefined */
    uint64_t upload_bytes;
    double upload_ms;            /* the uploads that carry their bytes: a streamed key's
                                  * waits (no bytes, backend_cuda.c) would understate the
                                  * copy rate (run 111: 15 GB/s reported, ~41 copying) */
    trace_device_stats *devices;
    size_t n_devices;
    trace_partition_stats *parts; /* by lane, then window start */
    size_t n_parts;
    char (*stages)[TRACE_NAME_BYTES]; /* KERNEL names in order of first appearance */
    size_t n_stages;
    trace_critical_path *paths;  /* one per job (job -1 included when it has events) */
    size_t n_paths;
} trace_analysis;

/* Analyses events (any order; times in any common origin). */
g16_status trace_analyze(trace_analysis *a, const trace_event *ev, size_t n);
void trace_analysis_free(trace_analysis *a);

/* The partition (job, partition) on any lane, or NULL. */
const trace_partition_stats *trace_analysis_find(const trace_analysis *a, int32_t job,
                                                 int32_t partition);

/* A figure of the report's table: one value per partition, summarised. */
typedef struct {
    char name[48];
    double avg, min, p50, p90, max; /* nearest-rank percentiles */
    size_t count;
} trace_figure;

/* The figures over every partition: window, kernel, gap, each gap cause that occurs,
 * lead-in, each event kind that occurs, each KERNEL name. *out is malloc'd. */
g16_status trace_figures(trace_figure **out, size_t *n, const trace_analysis *a);

/* The report: text for an 80-column terminal, or JSON (json = true). source names the
 * trace in the heading. */
g16_status trace_report_write(FILE *out, const trace_analysis *a, const trace_data *d,
                              const char *source, bool json);

/* One key=value line for a partition (the --timeline "TIMING" line), without newline:
 *   TIMING job=0 partition=1 device=cpu window_ms=.. kernel_ms=.. gap_ms=.. <kind>_ms=..
 *   upload_bytes=.. <stage>_ms=.. gap_<cause>_ms=..
 * kinds and causes always appear (0 when absent), stages as they occur; stage names are
 * lowercased with other characters than letters and digits turned into '_' (NTT/H ->
 * ntt_h_ms). */
int trace_timing_line(char *buf, size_t cap, const trace_analysis *a,
                      const trace_partition_stats *p);

#endif
