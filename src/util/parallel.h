/* Data parallelism for the CPU algorithms (NTT, MSM, setup, synthesis).
 *
 * One process-wide pool of worker threads, created on first use with the configured
 * thread count. parallel_for splits [0, n) into chunks handed out through an atomic
 * counter, so uneven chunks balance themselves; the calling thread works too. Calls may
 * come from several threads at once: each call takes the pool in turn, and a call made
 * from inside a parallel_for body runs serially on its caller (no deadlock, no
 * oversubscription). */
#ifndef G16_UTIL_PARALLEL_H
#define G16_UTIL_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* body(ctx, begin, end, worker): process items [begin, end); worker < parallel_threads()
 * identifies the thread, for per-thread scratch. */
typedef void (*parallel_body)(void *ctx, size_t begin, size_t end, unsigned worker);

/* The most threads the pool runs. */
enum { PARALLEL_MAX_THREADS = 256 };

/* Number of threads parallel_for uses (the caller included). Default: G16_THREADS from
 * the environment when it is a number from 1 (above PARALLEL_MAX_THREADS: that many), else
 * the number of online CPUs. */
unsigned parallel_threads(void);

/* Set the thread count (1 = everything on the caller; clamped to 1..PARALLEL_MAX_THREADS).
 * Call before parallel work starts; it resizes the pool. Returns the count in effect. */
unsigned parallel_set_threads(unsigned threads);

/* Runs body over [0, n) in chunks of at least min_chunk items and returns when every
 * item is done. */
void parallel_for(size_t n, size_t min_chunk, parallel_body body, void *ctx);

/* memcpy of bytes from src to dst (not overlapping) on at most `ways` of the pool's
 * threads at once (0: all of them), in `ways` pieces or blocks of 4 MiB: one thread
 * copies a few GB/s, the host's memory moves several times that, and a caller beside
 * other users of that memory (a GPU's DMA) may want only part of it. */
void parallel_memcpy(void *dst, const void *src, size_t bytes, unsigned ways);

#ifdef __cplusplus
}
#endif

#endif
