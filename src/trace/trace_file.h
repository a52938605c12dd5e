/* Trace files: the format, a writer that can rotate, and the reader.
 *
 * Format "g16-trace", version 1: JSON lines (one JSON object per line, UTF-8, '\n'),
 * chosen so that a file is readable with any JSON tool, survives a crash up to its last
 * whole line, and can be appended to by a long-running daemon.
 *   line 1, the header:
 *     {"format":"g16-trace","version":1,"clock":"CLOCK_MONOTONIC","epoch_ns":E,
 *      "g16":"0.1.0","command":"bench --constraints 4096 ...","segment":0}
 *   thread names, before the first event of each thread in the file:
 *     {"thread":1,"name":"main"}
 *   events:
 *     {"kind":"KERNEL","start_ns":S,"end_ns":T,"job":0,"partition":1,"device":-1,
 *      "thread":1,"bytes":0,"name":"MSM_A"}
 * Times are nanoseconds of CLOCK_MONOTONIC counted from epoch_ns (the moment recording
 * was switched on); kind is a trace_kind name (trace.h); device -1 is the CPU; job and
 * partition are -1 when the recording thread did not know them. Readers ignore keys they
 * do not know, refuse another format, a newer version or a line over TRACE_LINE_MAX, and
 * ignore an unterminated last line (a writer that died mid-line). A rotated file (segment k > 0) starts with its own
 * header and thread lines, so each file stands alone.
 */
#ifndef G16_TRACE_TRACE_FILE_H
#define G16_TRACE_TRACE_FILE_H

#include <stdio.h>

#include "g16.h"
#include "trace/trace.h"

#define TRACE_FORMAT_NAME "g16-trace"
enum { TRACE_FORMAT_VERSION = 1 };
/* The reader refuses a file with a longer line (the writer's lines stay under 1.5 KiB). */
enum { TRACE_LINE_MAX = 64 * 1024 };

/* A growable array of events. */
typedef struct {
    trace_event *ev;
    size_t n, cap;
} trace_events;

g16_status trace_events_push(trace_events *v, const trace_event *e);
/* Sorts by start time, then end time (latest first: a container before what it holds),
 * then thread. */
void trace_events_sort(trace_events *v);
void trace_events_free(trace_events *v);

/* Moves every event recorded since the last drain into v (sorted). */
g16_status trace_events_drain(trace_events *v);

/* A trace file being written. max_bytes > 0 makes it rotate: once a file holds max_bytes
 * or more, it is renamed PATH.1 (PATH.1 becomes PATH.2, ... up to PATH.keep; the oldest
 * is removed) and a new PATH starts with the next segment number. max_bytes = 0: one
 * file, never rotated. */
typedef struct trace_writer trace_writer;

/* Creates (truncates) path and writes the header; command is recorded in it (may be
 * NULL). The epoch is trace_epoch_ns() at the time of opening. */
g16_status trace_writer_open(trace_writer **w, const char *path, const char *command,
                             uint64_t max_bytes, unsigned keep);
/* Appends events (absolute times, as recorded). */
g16_status trace_writer_write(trace_writer *w, const trace_event *ev, size_t n);
/* Drains every thread's new events (trace_drain) into the file: what a daemon calls from
 * a timer. */
g16_status trace_writer_drain(trace_writer *w);
/* Flushes and closes; w is freed even on error. */
g16_status trace_writer_close(trace_writer *w);

/* One event as a JSON object (the event line of the format, without the newline); times
 * relative to epoch_ns. Returns the length (snprintf's convention). */
int trace_event_format(char *buf, size_t cap, const trace_event *e, uint64_t epoch_ns);

/* A trace file read back. Event times are relative to the epoch (start_ns counts from
 * it); events are sorted as trace_events_sort does. */
typedef struct {
    trace_events events;
    trace_thread_info *threads;
    size_t n_threads;
    uint64_t epoch_ns;
    unsigned version, segment;
    char command[512];
    char g16_version[32];
} trace_data;

g16_status trace_load(trace_data *d, const char *path);
/* The same from an open stream (read to its end, not closed); path names it in errors. */
g16_status trace_load_stream(trace_data *d, FILE *f, const char *path);
void trace_data_free(trace_data *d);

/* The name of a thread id in d ("thread <id>" when the file does not name it). */
const char *trace_data_thread_name(const trace_data *d, uint32_t id, char buf[32]);

#endif
