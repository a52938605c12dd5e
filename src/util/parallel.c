#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"


typedef struct {
    parallel_body body;
    void *ctx;
    size_t n, chunk;
    atomic_size_t next;      /* next unclaimed item */
    atomic_uint active;      /* workers still inside this job */
} job;

static struct {
    pthread_mutex_t lock;      /* guards the fields below */
    pthread_cond_t wake;       /* workers wait here for a job */
    pthread_cond_t done;       /* the submitter waits here for the workers */
    pthread_mutex_t submit;    /* one parallel_for at a time owns the pool */
    pthread_t workers[PARALLEL_MAX_THREADS];
    unsigned nworkers;         /* threads besides the caller */
    atomic_uint threads;       /* configured count, caller included; read without locks */
    unsigned long generation;  /* bumped per job so workers see each one once */
    unsigned long start_generation; /* generation when the current workers started */
    job *current;
    bool stop;
    atomic_bool initialised;
} pool = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
    .submit = PTHREAD_MUTEX_INITIALIZER,
};

static _Thread_local bool inside_body;

static void run_chunks(job *j, unsigned worker)
{
    inside_body = true;
    for (;;) {
        size_t begin = atomic_fetch_add(&j->next, j->chunk);
        if (begin >= j->n)
            break;
        size_t end = begin + j->chunk < j->n ? begin + j->chunk : j->n;
        j->body(j->ctx, begin, end, worker);
    }
    inside_body = false;
}

static void *worker_main(void *arg)
{
    unsigned id = (unsigned)(size_t)arg;
    pthread_mutex_lock(&pool.lock);
    /* Jobs posted before this worker existed are not its business; those posted after
     * start_workers returned are (the submitter counts this worker in). */
    unsigned long seen = pool.start_generation;
    for (;;) {
        while (!pool.stop && pool.generation == seen)
            pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.stop)
            break;
        seen = pool.generation;
        job *j = pool.current;
        pthread_mutex_unlock(&pool.lock);
        run_chunks(j, id);
        pthread_mutex_lock(&pool.lock);
        if (atomic_fetch_sub(&j->active, 1) == 1)
            pthread_cond_signal(&pool.done);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

static unsigned default_threads(void)
{
    /* A value that is not a count (a typo, 0, a negative) leaves the default: every
     * online CPU, not one thread. */
    const char *env = getenv("G16_THREADS");
    char *end = NULL;
    long n = env && *env ? strtol(env, &end, 10) : 0;
    if (!env || !*env || *end || n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > PARALLEL_MAX_THREADS)
        n = PARALLEL_MAX_THREADS;
    return (unsigned)n;
}

/* Stops and joins the workers; pool.submit must be held. */
static void stop_workers(void)
{
    pthread_mutex_lock(&pool.lock);
    pool.stop = true;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (unsigned i = 0; i < pool.nworkers; i++)
        pthread_join(pool.workers[i], NULL);
    pool.nworkers = 0;
    pool.stop = false;
}

/* Starts threads-1 workers; pool.submit must be held. A worker that cannot be created
 * just leaves the pool smaller. */
static void start_workers(unsigned threads)
{
    pool.threads = threads;
    pool.start_generation = pool.generation;
    for (unsigned i = 1; i < threads; i++) {
        if (pthread_create(&pool.workers[pool.nworkers], NULL, worker_main,
                           (void *)(size_t)i) != 0)
            break;
        pool.nworkers++;
    }
    pool.threads = pool.nworkers + 1;
    pool.initialised = true;
}

unsigned parallel_threads(void)
{
    /* Lock-free once started: bodies running inside parallel_for (which holds
     * pool.submit) call this to size their scratch. */
    if (atomic_load(&pool.initialised))
        return atomic_load(&pool.threads);
    pthread_mutex_lock(&pool.submit);
    if (!pool.initialised)
        start_workers(default_threads());
    unsigned t = pool.threads;
    pthread_mutex_unlock(&pool.submit);
    return t;
}

unsigned parallel_set_threads(unsigned threads)
{
    if (threads < 1)
        threads = 1;
    if (threads > PARALLEL_MAX_THREADS)
        threads = PARALLEL_MAX_THREADS;
    pthread_mutex_lock(&pool.submit);
    if (pool.initialised)
        stop_workers();
    start_workers(threads);
    unsigned t = pool.threads;
    pthread_mutex_unlock(&pool.submit);
    return t;
}

void parallel_for(size_t n, size_t min_chunk, parallel_body body, void *ctx)
{
    if (n == 0)
        return;
    if (min_chunk == 0)
        min_chunk = 1;
    if (inside_body || n <= min_chunk) {
        body(ctx, 0, n, 0);
        return;
    }
    /* Callers from several threads (the pipeline's CPU prover workers) take the pool in
     * turn; the wait for it is a lock wait in the timeline. */
    if (pthread_mutex_trylock(&pool.submit) != 0) {
        uint64_t wait = trace_begin();
        pthread_mutex_lock(&pool.submit);
        trace_end(wait, TRACE_LOCK_WAIT, "thread pool");
    }
    if (!pool.initialised)
        start_workers(default_threads());
    /* About four chunks per thread: small enough to balance, large enough to amortise. */
    size_t chunk = n / (4 * (size_t)pool.threads);
    if (chunk < min_chunk)
        chunk = min_chunk;
    job j = {.body = body, .ctx = ctx, .n = n, .chunk = chunk};
    atomic_init(&j.next, 0);
    atomic_init(&j.active, pool.nworkers);
    if (pool.nworkers > 0) {
        pthread_mutex_lock(&pool.lock);
        pool.current = &j;
        pool.generation++;
        pthread_cond_broadcast(&pool.wake);
        pthread_mutex_unlock(&pool.lock);
    }
    run_chunks(&j, 0);
    if (pool.nworkers > 0) {
        pthread_mutex_lock(&pool.lock);
        while (atomic_load(&j.active) != 0)
            pthread_cond_wait(&pool.done, &pool.lock);
        pool.current = NULL;
        pthread_mutex_unlock(&pool.lock);
    }
    pthread_mutex_unlock(&pool.submit);
}

typedef struct {
    char *dst;
    const char *src;
    size_t bytes, block;
} memcpy_job;

enum { MEMCPY_BLOCK = 4u << 20 };

static void memcpy_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const memcpy_job *j = ctx;
    size_t lo = begin * j->block, hi = end * j->block;
    if (hi > j->bytes)
        hi = j->bytes;
    if (lo < hi)
        memcpy(j->dst + lo, j->src + lo, hi - lo);
}

void parallel_memcpy(void *dst, const void *src, size_t bytes, unsigned ways)
{
    memcpy_job j = {dst, src, bytes, MEMCPY_BLOCK};
    if (ways && bytes / ways > MEMCPY_BLOCK) /* ways pieces: no more threads than that */
        j.block = (bytes + ways - 1) / ways;
    parallel_for((bytes + j.block - 1) / j.block, 1, memcpy_body, &j);
}
