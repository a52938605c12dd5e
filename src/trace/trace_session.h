/* The timeline of one command run (g16 bench, g16 prove): `--trace FILE` writes the trace
 * file, `--timeline` prints one-line records on stderr as partitions finish:
 *   TIMELINE,<ms>,<event>,<job>,<detail>
 *     one per event, in start order: ms = start, milliseconds since recording began;
 *     event = the kind (SYNTH, KERNEL, ...); detail = space-separated key=value pairs
 *     partition=, device= (cpu or the GPU index), name=, ms= (duration), bytes=, thread=
 *   TIMING job=<j> partition=<p> ... (trace_timing_line: window, kernel and gap ms, the
 *     summed ms of every event kind and every kernel stage, the gap by cause)
 * A session holds the run's events in memory (64 bytes each) for the TIMING lines; a
 * daemon, which runs for ever, uses trace_writer_drain with rotation instead.
 *
 * Every function accepts a NULL session and then does nothing, so a command calls them
 * unconditionally. */
#ifndef G16_TRACE_TRACE_SESSION_H
#define G16_TRACE_TRACE_SESSION_H

#include <stdio.h>

#include "g16.h"
#include "trace/trace.h"

typedef struct trace_session trace_session;

/* Starts recording when path or timeline is given (*s = NULL and nothing recorded when
 * neither): truncates path and writes its header (the command line is argv0 followed by
 * argv[0..argc)), names the calling thread "main". */
g16_status trace_session_start(trace_session **s, const char *path, FILE *timeline,
                               const char *argv0, int argc, char **argv);

/* A partition is done: its events (and any others recorded since) go to the file and the
 * TIMELINE lines, then its TIMING line. Errors are kept for trace_session_finish. */
void trace_session_partition_done(trace_session *s, int32_t job, int32_t partition);

/* Writes what is left, closes the file, stops recording and frees s. Returns the first
 * error of the session (writing the file). */
g16_status trace_session_finish(trace_session *s);

#endif
