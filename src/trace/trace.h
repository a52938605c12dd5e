/* The timeline's recording side: spans of time, each with a kind, a job, a partition, a
 * device, the recording thread and the bytes moved.
 *
 * Who calls it: every layer that does work worth seeing (the prover's stages, synthesis,
 * the CUDA backend's kernels and copies, the pipeline's queues, budget and locks). So this
 * header and trace.c depend on nothing but libc and pthreads, unlike the rest of the
 * trace layer (files, report, pictures), which sits where DESIGN.md puts it.
 *
 * Cost. Off (the default), a span is one relaxed load and one branch in trace_begin and one
 * branch in trace_end, both inline. On, a span is two CLOCK_MONOTONIC reads (vDSO, ~20 ns
 * each) and one 64-byte store into the recording thread's own buffer: no lock and no
 * shared cache line on the hot path. A thread's buffer is a list of chunks; the thread
 * registers once (under a lock) at its first event and appends chunks as they fill. The
 * reader (trace_drain) takes a lock among readers only, and frees chunks the owner has
 * moved past, so a long-running process can drain while it records (single producer,
 * single consumer per thread; release/acquire on each chunk's count and next pointer).
 *
 * Use:
 *     uint64_t t = trace_begin();
 *     ... work ...
 *     trace_end(t, TRACE_KERNEL, "MSM_A");
 * The job and partition come from the thread's context (trace_context_set); trace_end_on
 * names a device and a byte count; trace_span records a span with explicit times (a GPU
 * kernel timed by CUDA events, converted to this clock by the caller).
 */
#ifndef G16_TRACE_TRACE_H
#define G16_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a span measures. The report's rules (trace_analysis.h) follow from these meanings;
 * the order is the file format's (names, not numbers, are written: see trace_kind_name). */
typedef enum {
    TRACE_SYNTH = 0,   /* synthesis of a partition's witness and a, b, c (CPU) */
    TRACE_QUEUE_WAIT,  /* a partition waiting in a queue for the next stage */
    TRACE_BUDGET_WAIT, /* waiting for the memory budget to admit a partition */
    TRACE_UPLOAD,      /* host-to-device copies (bytes = bytes copied) */
    TRACE_GPU,         /* a partition's GPU section on a device, first to last operation */
    TRACE_KERNEL,      /* one compute stage: a GPU kernel (device >= 0) or a CPU prover
                          stage (device -1): NTT/H, MSM_A, MSM_B1, MSM_B2, MSM_C, MSM_H,
                          batch_add, scalars, ... (the name says which) */
    TRACE_B2_MSM,      /* the G2 MSM as a pipeline stage of its own (finalize pool) */
    TRACE_FINALIZE,    /* assembly of the proof from the MSM results, storing it */
    TRACE_LOCK_WAIT,   /* waiting for a lock */
    TRACE_EVENT_WAIT,  /* waiting for a CUDA event or a stream */
    TRACE_PROVE,       /* a partition's whole proving call (after synthesis) */
    TRACE_VERIFY,      /* verification of a proof */
    TRACE_KIND_COUNT
} trace_kind;

/* "SYNTH", "QUEUE_WAIT", ...; NULL for an out-of-range kind. */
const char *trace_kind_name(trace_kind kind);
/* The kind named by s, or TRACE_KIND_COUNT if none. */
trace_kind trace_kind_parse(const char *s);

enum { TRACE_NAME_BYTES = 24 }; /* a name is cut to 23 bytes */
enum { TRACE_CPU = -1 };        /* device of CPU work */

/* One span, 64 bytes. Times are CLOCK_MONOTONIC nanoseconds (trace_now_ns). */
typedef struct {
    uint64_t start_ns, end_ns;
    uint64_t bytes;         /* bytes moved (uploads), 0 if none */
    int32_t job, partition; /* -1: not known to the recording thread */
    int16_t device;         /* CUDA device index, or TRACE_CPU */
    uint8_t kind;           /* trace_kind */
    uint8_t reserved;
    uint32_t thread;        /* the recording thread's trace id (1, 2, ...) */
    char name[TRACE_NAME_BYTES]; /* NUL-terminated, may be "" */
} trace_event;

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t trace_now_ns(void);

/* Turns recording on or off for every thread; returns the previous state. Spans begun
 * while off are not recorded even if they end while on. The first trace_enable(true)
 * fixes the epoch (trace_epoch_ns) that files count from. */
bool trace_enable(bool on);
/* The time of the first trace_enable(true), 0 before it. */
uint64_t trace_epoch_ns(void);

/* Read with a relaxed atomic load (a GCC/Clang builtin rather than <stdatomic.h>, so
 * that C++ and CUDA sources can include this header). */
extern int trace_on_flag;

static inline bool trace_enabled(void)
{
    return __atomic_load_n(&trace_on_flag, __ATOMIC_RELAXED) != 0;
}

/* A span's start, or 0 when recording is off (0 then makes trace_end do nothing). */
static inline uint64_t trace_begin(void) { return trace_enabled() ? trace_now_ns() : 0; }

/* Records [begin, now) on the calling thread, for its context's job and partition. */
void trace_end_record(uint64_t begin, trace_kind kind, int device, uint64_t bytes,
                      const char *name);
static inline void trace_end(uint64_t begin, trace_kind kind, const char *name)
{
    if (begin)
        trace_end_record(begin, kind, TRACE_CPU, 0, name);
}
static inline void trace_end_on(uint64_t begin, trace_kind kind, int device, uint64_t bytes,
                                const char *name)
{
    if (begin)
        trace_end_record(begin, kind, device, bytes, name);
}

/* Records [start_ns, end_ns) with everything explicit (end before start is clamped to an
 * empty span). Does nothing while recording is off. */
void trace_span(trace_kind kind, int32_t job, int32_t partition, int device, uint64_t bytes,
                const char *name, uint64_t start_ns, uint64_t end_ns);

/* The job and partition the calling thread works on (both -1 until set). */
void trace_context_set(int32_t job, int32_t partition);
void trace_context_get(int32_t *job, int32_t *partition);

/* Names the calling thread in files and pictures ("main", "gpu-0", ...; cut to 23 bytes).
 * Registers the thread if it is not yet. Unnamed threads are "thread <id>". */
void trace_thread_name(const char *name);

/* Hands every event recorded since the last drain to fn (per thread, in recording order;
 * threads one after another) and frees the chunks that were consumed. One drain runs at a
 * time; recording continues meanwhile. Returns the number of events. */
typedef void (*trace_event_fn)(void *ctx, const trace_event *e);
size_t trace_drain(trace_event_fn fn, void *ctx);

/* Events dropped because a chunk could not be allocated. */
uint64_t trace_dropped(void);

/* Thread id -> name, for every thread registered so far: writes up to cap (id, name)
 * pairs and returns how many threads there are. */
typedef struct {
    uint32_t id;
    char name[TRACE_NAME_BYTES];
} trace_thread_info;
size_t trace_threads(trace_thread_info *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
