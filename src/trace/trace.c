#include "trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 256 events of 64 bytes: 16 KiB per chunk, one allocation per 256 spans. */
enum { CHUNK_EVENTS = 256 };

typedef struct chunk {
    _Atomic(struct chunk *) next; /* set by the owner before it writes the next chunk */
    atomic_size_t count;          /* events written; stored with release after each */
    trace_event ev[CHUNK_EVENTS];
} chunk;

/* A recording thread. The owner touches only tail (and the chunk it points to); the
 * reader only head and read. Registered threads are never freed (their names are needed
 * by files written after they exit, and a record is ~100 bytes); their chunks are, as
 * they are drained, the last one too once the thread has exited. */
typedef struct thread_rec {
    struct thread_rec *next_thread; /* registry list, written under registry_lock */
    chunk *tail;                    /* owner */
    chunk *head;                    /* reader; the first chunk not yet fully consumed */
    size_t read;                    /* reader: events of head already handed out */
    uint32_t id;
    char name[TRACE_NAME_BYTES];    /* written under registry_lock */
    int32_t job, partition;         /* owner: trace_context_set */
    atomic_bool exited;             /* set by the thread's destructor */
} thread_rec;

int trace_on_flag;
static atomic_uint_fast64_t epoch_ns;
static atomic_uint_fast64_t dropped;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static thread_rec *registry;
static uint32_t next_id = 1;
static _Thread_local thread_rec *self;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* A thread's exit: its record will take no more events (a span recorded by a later
 * destructor registers the thread anew), so a drain may free its last chunk. */
static void on_thread_exit(void *p)
{
    thread_rec *t = p;
    if (self == t)
        self = NULL;
    atomic_store(&t->exited, true);
}
static void make_exit_key(void) { pthread_key_create(&exit_key, on_thread_exit); }

static const char *const KIND_NAMES[TRACE_KIND_COUNT] = {
    "SYNTH", "QUEUE_WAIT", "BUDGET_WAIT", "UPLOAD",    "GPU",        "KERNEL",
    "B2_MSM", "FINALIZE",  "LOCK_WAIT",   "EVENT_WAIT", "PROVE",     "VERIFY",
};

const char *trace_kind_name(trace_kind kind)
{
    return (unsigned)kind < TRACE_KIND_COUNT ? KIND_NAMES[kind] : NULL;
}

trace_kind trace_kind_parse(const char *s)
{
    for (int k = 0; k < TRACE_KIND_COUNT; k++)
        if (!strcmp(s, KIND_NAMES[k]))
            return (trace_kind)k;
    return TRACE_KIND_COUNT;
}

uint64_t trace_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool trace_enable(bool on)
{
    if (on) {
        uint_fast64_t zero = 0;
        atomic_compare_exchange_strong(&epoch_ns, &zero, trace_now_ns());
    }
    return __atomic_exchange_n(&trace_on_flag, on ? 1 : 0, __ATOMIC_SEQ_CST) != 0;
}

uint64_t trace_epoch_ns(void) { return atomic_load(&epoch_ns); }

uint64_t trace_dropped(void) { return atomic_load(&dropped); }

static void copy_name(char dst[TRACE_NAME_BYTES], const char *src)
{
    size_t n = src ? strnlen(src, TRACE_NAME_BYTES - 1) : 0;
    memcpy(dst, src ? src : "", n);
    memset(dst + n, 0, TRACE_NAME_BYTES - n);
}

static chunk *chunk_new(void)
{
    chunk *c = malloc(sizeof *c);
    if (c) {
        atomic_init(&c->next, NULL);
        atomic_init(&c->count, 0);
    }
    return c;
}

/* The calling thread's record, registering it on first use; NULL if out of memory. */
static thread_rec *thread_self(void)
{
    if (self)
        return self;
    thread_rec *t = calloc(1, sizeof *t);
    chunk *c = chunk_new();
    if (!t || !c) {
        free(t);
        free(c);
        return NULL;
    }
    t->tail = t->head = c;
    t->job = t->partition = -1;
    atomic_init(&t->exited, false);
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, t);
    pthread_mutex_lock(&registry_lock);
    t->id = next_id++;
    snprintf(t->name, sizeof t->name, "thread %u", (unsigned)t->id);
    /* Appended at the end, so drains and thread lists keep registration order. */
    thread_rec **p = &registry;
    while (*p)
        p = &(*p)->next_thread;
    *p = t;
    pthread_mutex_unlock(&registry_lock);
    self = t;
    return t;
}

/* Writes the event straight into the thread's tail chunk, then publishes it. */
static void record(thread_rec *t, trace_kind kind, int32_t job, int32_t partition,
                   int device, uint64_t bytes, const char *name, uint64_t start, uint64_t end)
{
    chunk *c = t->tail;
    size_t n = atomic_load_explicit(&c->count, memory_order_relaxed);
    if (n == CHUNK_EVENTS) {
        chunk *fresh = chunk_new();
        if (!fresh) {
            atomic_fetch_add(&dropped, 1);
            return;
        }
        atomic_store_explicit(&c->next, fresh, memory_order_release);
        t->tail = c = fresh;
        n = 0;
    }
    trace_event *e = &c->ev[n];
    e->start_ns = start;
    e->end_ns = end < start ? start : end;
    e->bytes = bytes;
    e->job = job;
    e->partition = partition;
    e->device = (int16_t)device;
    e->kind = (uint8_t)kind;
    e->reserved = 0;
    e->thread = t->id;
    copy_name(e->name, name);
    atomic_store_explicit(&c->count, n + 1, memory_order_release);
}

void trace_end_record(uint64_t begin, trace_kind kind, int device, uint64_t bytes,
                      const char *name)
{
    uint64_t end = trace_now_ns();
    thread_rec *t = thread_self();
    if (!t) {
        atomic_fetch_add(&dropped, 1);
        return;
    }
    record(t, kind, t->job, t->partition, device, bytes, name, begin, end);
}

void trace_span(trace_kind kind, int32_t job, int32_t partition, int device, uint64_t bytes,
                const char *name, uint64_t start_ns, uint64_t end_ns)
{
    if (!trace_enabled())
        return;
    thread_rec *t = thread_self();
    if (!t) {
        atomic_fetch_add(&dropped, 1);
        return;
    }
    record(t, kind, job, partition, device, bytes, name, start_ns, end_ns);
}

void trace_context_set(int32_t job, int32_t partition)
{
    thread_rec *t = thread_self();
    if (t) {
        t->job = job;
        t->partition = partition;
    }
}

void trace_context_get(int32_t *job, int32_t *partition)
{
    *job = self ? self->job : -1;
    *partition = self ? self->partition : -1;
}

void trace_thread_name(const char *name)
{
    thread_rec *t = thread_self();
    if (!t)
        return;
    pthread_mutex_lock(&registry_lock);
    copy_name(t->name, name);
    pthread_mutex_unlock(&registry_lock);
}

size_t trace_drain(trace_event_fn fn, void *ctx)
{
    size_t total = 0;
    pthread_mutex_lock(&drain_lock);
    pthread_mutex_lock(&registry_lock);
    thread_rec *first = registry;
    pthread_mutex_unlock(&registry_lock);
    /* Threads registered after this point are appended behind the ones seen here; the
     * next drain takes their events. next_thread is read under the lock: it may change. */
    for (thread_rec *t = first; t;) {
        /* exited is read before the chunks: an exited thread's events are all visible. */
        bool exited = atomic_load(&t->exited);
        while (t->head) {
            chunk *c = t->head;
            size_t n = atomic_load_explicit(&c->count, memory_order_acquire);
            for (; t->read < n; t->read++, total++)
                fn(ctx, &c->ev[t->read]);
            chunk *next = atomic_load_explicit(&c->next, memory_order_acquire);
            /* next != NULL: the owner has moved on and will never touch c again. Its count
             * was final before next was published, so everything in it was handed out. */
            if (!next && exited && t->read == n) {
                free(c); /* the owner is gone: nothing will be written here again */
                t->head = NULL;
                break;
            }
            if (!next || t->read < CHUNK_EVENTS)
                break;
            t->head = next;
            t->read = 0;
            free(c);
        }
        pthread_mutex_lock(&registry_lock);
        t = t->next_thread;
        pthread_mutex_unlock(&registry_lock);
    }
    pthread_mutex_unlock(&drain_lock);
    return total;
}

size_t trace_threads(trace_thread_info *out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&registry_lock);
    for (thread_rec *t = registry; t; t = t->next_thread, n++)
        if (n < cap) {
            out[n].id = t->id;
            memcpy(out[n].name, t->name, TRACE_NAME_BYTES);
        }
    pthread_mutex_unlock(&registry_lock);
    return n;
}
