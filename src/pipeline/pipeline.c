/* The pipeline (pipeline.h): admission, queues, worker threads and job bookkeeping. */
#include "pipeline.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/backend.h"
#include "msm/msm.h"
#include "trace/trace.h"
#include "util/clock.h"
#include "util/host_memory.h"
#include "util/parallel.h"
#include "util/status.h"

enum { MAX_DEVICES = 64, FR_BYTES = 32 };

/* A partition's way through the stages. */
typedef enum {
    ITEM_WAITING = 0, /* not admitted yet */
    ITEM_SYNTH,       /* a synthesis thread has it (and a place and a slot) */
    ITEM_QUEUED,      /* on the prove queue (place and slot) */
    ITEM_PROVING,     /* a prover has it (slot) */
    ITEM_FINAL_QUEUED,
    ITEM_FINALIZING,
    ITEM_RESOLVED,    /* final state in the job's result */
} item_state;

typedef struct slot {
    struct slot *next_free;
    job_buffers bufs;
} slot;

typedef struct item {
    struct item *next; /* queue link */
    pipeline_job *pj;
    size_t partition;
    slot *slot;
    uint64_t queued_ns; /* when it entered its current queue */
    item_state state;
    bool budget_delayed; /* its admission waited for the memory budget */
} item;

struct pipeline_job {
    pipeline_job *next_admit;  /* the admission list: jobs with partitions to admit */
    pipeline_job *next_all;    /* every unreleased job */
    job_t *job;
    int32_t id;
    uint64_t seq;              /* submission order */
    size_t n;
    item *items;               /* [n] */
    size_t next;               /* next partition to admit */
    size_t resolved;           /* partitions with a final state */
    bool stop;                 /* failed or cancelled: admit nothing more */
    pipeline_job_state state;
    g16_status status;
    char error[320];
    double submit_ms, start_ms, end_ms;
};

typedef enum { ROLE_SYNTH, ROLE_PROVER, ROLE_FINALIZE } thread_role;

typedef struct {
    pipeline *pl;
    pthread_t tid;
    bool running;
    thread_role role;
    unsigned index;
    int device;         /* prover: the GPU, or TRACE_CPU */
    unsigned lane;      /* prover: its place among the device's workers (0, 1, ...) */
    backend *be;        /* prover: opened (and closed) by the thread itself */
    struct item *claimed;    /* prover: the partition it proves next, taken from the prove
                              * queue during the one in progress (claim_next) */
    uint64_t inputs_staged;  /* prover: its backend's count, as last added to the stats */
} worker;

struct pipeline {
    pipeline_config cfg;
    bool gpu;
    unsigned gpu_devices, workers_per_device;
    backend_key_placement key_placement; /* GPU: RESIDENT or STREAMED, chosen at create */
    bool msm_glv;                        /* GPU: H's MSM through GLV (pipeline_plan_glv) */
    unsigned msm_slices;                 /* ... its windows in this many slices (1: whole) */
    uint64_t msm_slice_digits;           /* ... of about this many digits (0: whole) */
    bool msm_arena;                      /* ... the rounds' buffers in a device arena */
    uint64_t stream_chunk;               /* GPU, key streamed: its chunk in bytes */
    unsigned key_resident_arrays;        /* ... but for these arrays (pipeline_plan_stream) */
    bool stage_inputs;                   /* GPU: the next partition's a staged (pipeline_plan_stage) */
    uint64_t device_reserved;            /* GPU: bytes per device it holds in the ledger */
    char description[1024];
    pthread_mutex_t lock;
    pthread_cond_t synth_cv, prove_cv, final_cv, done_cv, open_cv;

    pipeline_job *admit_head, *admit_tail;
    pipeline_job *all_jobs;
    size_t active_jobs;        /* submitted, not finished */
    size_t places_free;        /* lookahead places */

    slot *slots, *free_slots;
    size_t n_slots;
    uint64_t admitted_bytes;

    item *prove_head, *prove_tail;
    item *final_head, *final_tail;

    worker *workers;
    size_t n_workers;
    size_t provers_opening;    /* provers that have not reported their backend yet */
    g16_status open_status;
    char open_error[512];

    bool accepting, stopping, shut;
    double first_submit_ms, last_end_ms;
    pipeline_stats stats;
};

/* --- small helpers --------------------------------------------------------------------- */

/* Takes the lock; a contended wait of a thread working for a job is a LOCK_WAIT of that
 * job's partition. A thread that works for no job yet (starting, idle) delays no
 * partition, and its waits are left out: they would make a "job -1" in the report. */
static void pl_lock(pipeline *pl)
{
    if (pthread_mutex_trylock(&pl->lock) == 0)
        return;
    int32_t job, partition;
    trace_context_get(&job, &partition);
    if (job < 0) {
        pthread_mutex_lock(&pl->lock);
        return;
    }
    uint64_t wait = trace_begin();
    pthread_mutex_lock(&pl->lock);
    trace_end(wait, TRACE_LOCK_WAIT, "pipeline");
}

static void pl_unlock(pipeline *pl) { pthread_mutex_unlock(&pl->lock); }

static double ns_ms(uint64_t ns) { return (double)ns / 1e6; }

/* A wait of one thread, recorded as one span while its kind and subject stay the same.
 * Its duration is summed into *total (under the pipeline lock). */
typedef struct {
    bool on;
    trace_kind kind;
    int32_t job, partition;
    int device;
    const char *name;
    double *total;
    uint64_t start;
} wait_span;

static void wait_end(wait_span *w)
{
    if (!w->on)
        return;
    uint64_t now = trace_now_ns();
    if (w->total)
        *w->total += ns_ms(now - w->start);
    trace_span(w->kind, w->job, w->partition, w->device, 0, w->name, w->start, now);
    w->on = false;
}

static void wait_begin(wait_span *w, trace_kind kind, int32_t job, int32_t partition,
                       int device, const char *name, double *total)
{
    if (w->on && w->kind == kind && w->job == job && w->partition == partition &&
        w->name == name)
        return;
    wait_end(w);
    *w = (wait_span){.on = true, .kind = kind, .job = job, .partition = partition,
                     .device = device, .name = name, .total = total,
                     .start = trace_now_ns()};
}

static void push(item **head, item **tail, item *it)
{
    it->next = NULL;
    if (*tail)
        (*tail)->next = it;
    else
        *head = it;
    *tail = it;
}

static item *pop(item **head, item **tail)
{
    item *it = *head;
    if (it) {
        *head = it->next;
        if (!*head)
            *tail = NULL;
        it->next = NULL;
    }
    return it;
}

/* Removes every item of pj from a queue, in order, onto *out (linked through next). */
static item *take_job_items(item **head, item **tail, const pipeline_job *pj)
{
    item *out = NULL, **out_end = &out, *keep = NULL, *keep_tail = NULL;
    for (item *it = *head, *next; it; it = next) {
        next = it->next;
        it->next = NULL;
        if (it->pj == pj) {
            *out_end = it;
            out_end = &it->next;
        } else {
            if (keep_tail)
                keep_tail->next = it;
            else
                keep = it;
            keep_tail = it;
        }
    }
    *head = keep;
    *tail = keep_tail;
    return out;
}

static const char *strip_partition_prefix(const char *msg)
{
    /* Job messages often start "partition P: "; the job's error names it already. */
    size_t p;
    int used = 0;
    if (sscanf(msg, "partition %zu: %n", &p, &used) == 1 && used > 0)
        return msg + used;
    return msg;
}

/* --- slots and the budget ---------------------------------------------------------------- */

uint64_t pipeline_partition_host_bytes(const groth16_prover_key *pk, bool gpu,
                                       unsigned threads)
{
    uint64_t nv = pk->n_vars, n = pk->domain_size;
    uint64_t buffers = (nv + 3 * n) * FR_BYTES;
    uint64_t na = pk->density_a ? pk->n_a : nv, nb = pk->density_b ? pk->n_b : nv;
    if (gpu)
        return buffers + (na > nb ? na : nb) * FR_BYTES;
    /* The CPU prover prepares A's, B's (when compressed apart), C's and H's scalars:
     * indices and recoded digits, ~40 bytes each; then Pippenger buckets per pool thread
     * for the largest MSM (H, dense): 2^(c-1) buckets of ~320 bytes (XYZZ point, affine
     * staging, flags). */
    uint64_t n_aux = nv - pk->n_public - 1;
    uint64_t scalars = na + (pk->density_b ? nb : 0) + n_aux + n;
    unsigned c = msm_window_bits((size_t)n);
    uint64_t buckets = (uint64_t)1 << (c - 1);
    return buffers + 40 * scalars + (uint64_t)(threads ? threads : 1) * buckets * 320;
}

uint64_t pipeline_key_host_bytes(const groth16_prover_key *pk)
{
    return backend_key_device_bytes(pk); /* the same arrays as on the device */
}

/* Drops the host pages wholly inside [p, p + bytes): the kernel frees them (anonymous
 * memory then reads as zeros; a private file mapping reads back from the file). Returns
 * the bytes dropped. */
static uint64_t drop_pages(const void *p, size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    if (!p || page <= 0)
        return 0;
    uintptr_t lo = ((uintptr_t)p + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
    uintptr_t hi = ((uintptr_t)p + bytes) / (uintptr_t)page * (uintptr_t)page;
    if (hi <= lo || madvise((void *)lo, hi - lo, MADV_DONTNEED) != 0)
        return 0;
    return hi - lo;
}

uint64_t pipeline_default_host_budget(void)
{
    uint64_t avail = host_memory_available();
    if (avail)
        return avail / 4 * 3;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : (uint64_t)1 << 30;
}

static g16_status slot_alloc(pipeline *pl, slot *s)
{
    const groth16_prover_key *pk = pl->cfg.key;
    size_t nv = pk->n_vars, n = pk->domain_size;
    /* For a GPU the slots are pinned: uploads from them are asynchronous and run at the
     * bus's speed, and they are pinned once, here. */
    s->bufs = (job_buffers){.n_vars = nv, .domain_size = n};
    g16_status st;
    if ((st = backend_host_alloc((void **)&s->bufs.z, nv * sizeof(fr_t), pl->gpu)) ||
        (st = backend_host_alloc((void **)&s->bufs.a, n * sizeof(fr_t), pl->gpu)) ||
        (st = backend_host_alloc((void **)&s->bufs.b, n * sizeof(fr_t), pl->gpu)) ||
        (st = backend_host_alloc((void **)&s->bufs.c, n * sizeof(fr_t), pl->gpu)))
        return status_fail(st, "pipeline: buffers for %zu wires and a domain of %zu: %s", nv,
                           n, g16_last_error());
    pl->stats.buffer_allocations += 4;
    return G16_OK;
}

static void slot_free(pipeline *pl, slot *s)
{
    backend_host_free(s->bufs.z, pl->gpu);
    backend_host_free(s->bufs.a, pl->gpu);
    backend_host_free(s->bufs.b, pl->gpu);
    backend_host_free(s->bufs.c, pl->gpu);
    s->bufs = (job_buffers){0};
}

static void slot_release(pipeline *pl, item *it)
{
    if (!it->slot)
        return;
    it->slot->next_free = pl->free_slots;
    pl->free_slots = it->slot;
    it->slot = NULL;
    pl->admitted_bytes -= pl->stats.partition_bytes;
    pthread_cond_broadcast(&pl->synth_cv);
}

static void place_release(pipeline *pl)
{
    pl->places_free++;
    pthread_cond_broadcast(&pl->synth_cv);
}

/* --- job bookkeeping (all under the lock) ----------------------------------------------- */

static void admit_list_remove(pipeline *pl, pipeline_job *pj)
{
    pipeline_job **pp = &pl->admit_head, *prev = NULL;
    while (*pp && *pp != pj) {
        prev = *pp;
        pp = &(*pp)->next_admit;
    }
    if (!*pp)
        return;
    *pp = pj->next_admit;
    if (pl->admit_tail == pj)
        pl->admit_tail = prev;
    pj->next_admit = NULL;
}

static void finish_job(pipeline *pl, pipeline_job *pj)
{
    size_t proved = 0;
    for (size_t p = 0; p < pj->n; p++)
        proved += job_get_result(pj->job, p)->state == JOB_PARTITION_PROVED;
    if (pj->status != G16_OK) {
        pj->state = pj->status == G16_ERR_CANCELLED ? PIPELINE_JOB_CANCELLED
                                                     : PIPELINE_JOB_FAILED;
        if (pj->state == PIPELINE_JOB_CANCELLED)
            snprintf(pj->error, sizeof pj->error,
                     "job %d: cancelled (%zu of %zu partitions proved)", (int)pj->id, proved,
                     pj->n);
    } else {
        pj->state = PIPELINE_JOB_DONE;
    }
    pj->end_ms = clock_ms();
    pl->last_end_ms = pj->end_ms;
    pl->active_jobs--;
    pl->stats.jobs_done += pj->state == PIPELINE_JOB_DONE;
    pl->stats.jobs_failed += pj->state == PIPELINE_JOB_FAILED;
    pl->stats.jobs_cancelled += pj->state == PIPELINE_JOB_CANCELLED;
}

/* A partition has its final state. */
static void resolve(pipeline *pl, item *it)
{
    pipeline_job *pj = it->pj;
    job_partition_state s = job_get_result(pj->job, it->partition)->state;
    if (s != JOB_PARTITION_PROVED && s != JOB_PARTITION_FAILED)
        job_cancel_partition(pj->job, it->partition);
    s = job_get_result(pj->job, it->partition)->state;
    pl->stats.partitions_proved += s == JOB_PARTITION_PROVED;
    pl->stats.partitions_failed += s == JOB_PARTITION_FAILED;
    pl->stats.partitions_cancelled += s == JOB_PARTITION_CANCELLED;
    it->state = ITEM_RESOLVED;
    if (++pj->resolved == pj->n)
        finish_job(pl, pj);
    pthread_cond_broadcast(&pl->done_cv);
    pthread_cond_broadcast(&pl->prove_cv); /* "upstream" may have changed for idle provers */
}

/* Stops a job: nothing more is admitted, queued partitions are dropped; partitions in a
 * stage are dropped by their thread when the stage returns. The first reason stays. */
static void stop_job(pipeline *pl, pipeline_job *pj, g16_status st, const char *error)
{
    if (pj->stop || pj->state >= PIPELINE_JOB_DONE)
        return;
    pj->stop = true;
    pj->status = st;
    status_text_fit(pj->error, sizeof pj->error, error);
    admit_list_remove(pl, pj);
    for (item *it = take_job_items(&pl->prove_head, &pl->prove_tail, pj), *next; it;
         it = next) {
        next = it->next;
        place_release(pl);
        slot_release(pl, it);
        resolve(pl, it);
    }
    for (item *it = take_job_items(&pl->final_head, &pl->final_tail, pj), *next; it;
         it = next) {
        next = it->next;
        slot_release(pl, it); /* held there only with g2_on_cpu */
        resolve(pl, it);
    }
    /* Not admitted: cancelled now; resolving the last one may finish the job. */
    while (pj->next < pj->n) {
        item *it = &pj->items[pj->next++];
        resolve(pl, it);
    }
    pthread_cond_broadcast(&pl->synth_cv);
}

static void fail_job(pipeline *pl, pipeline_job *pj, size_t p, g16_status st)
{
    const job_result *r = job_get_result(pj->job, p);
    char msg[sizeof r->error + 64];
    snprintf(msg, sizeof msg, "job %d, partition %zu: %s", (int)pj->id, p,
             strip_partition_prefix(r->error[0] ? r->error : g16_status_message(st)));
    stop_job(pl, pj, st, msg);
}

/* The partition the provers wait for when their queue is empty: the earliest one in
 * synthesis, else the next to be admitted. False when no work is upstream (the provers
 * are then idle, not waiting). *budget: that partition's admission waited for the memory
 * budget, which is then the first cause of the wait (with room for it, it would have been
 * synthesized ahead). */
static bool next_for_provers(const pipeline *pl, int32_t *job, int32_t *partition,
                             bool *budget)
{
    const pipeline_job *best = NULL;
    size_t best_p = 0;
    for (const pipeline_job *pj = pl->all_jobs; pj; pj = pj->next_all) {
        if (pj->stop || pj->state >= PIPELINE_JOB_DONE || (best && pj->seq > best->seq))
            continue;
        size_t p = 0;
        while (p < pj->next && pj->items[p].state != ITEM_SYNTH)
            p++;
        if (p == pj->n)
            continue; /* every partition admitted and past synthesis */
        best = pj;
        best_p = p;
    }
    if (!best)
        return false;
    *job = best->id;
    *partition = (int32_t)best_p;
    *budget = best_p < best->next && best->items[best_p].budget_delayed;
    return true;
}

/* --- threads ------------------------------------------------------------------------------ */

static void *synth_main(void *arg)
{
    worker *w = arg;
    pipeline *pl = w->pl;
    char name[TRACE_NAME_BYTES];
    snprintf(name, sizeof name, "synth-%u", w->index);
    trace_thread_name(name);
    wait_span ws = {0};
    pl_lock(pl);
    while (!pl->stopping) {
        pipeline_job *pj = pl->admit_head;
        if (!pj) {
            wait_end(&ws);
            pthread_cond_wait(&pl->synth_cv, &pl->lock);
            continue;
        }
        if (pl->places_free == 0) {
            wait_begin(&ws, TRACE_QUEUE_WAIT, pj->id, (int32_t)pj->next, TRACE_CPU,
                       "lookahead full", &pl->stats.lookahead_wait_ms);
            pthread_cond_wait(&pl->synth_cv, &pl->lock);
            continue;
        }
        if (!pl->free_slots) {
            wait_begin(&ws, TRACE_BUDGET_WAIT, pj->id, (int32_t)pj->next, TRACE_CPU,
                       "host budget", &pl->stats.budget_wait_ms);
            pthread_cond_wait(&pl->synth_cv, &pl->lock);
            continue;
        }
        bool budget_delayed = ws.on && ws.kind == TRACE_BUDGET_WAIT;
        wait_end(&ws);
        /* Admission: a place, a slot, the budget's bytes. */
        item *it = &pj->items[pj->next++];
        it->budget_delayed = budget_delayed;
        if (pj->next == pj->n)
            admit_list_remove(pl, pj);
        if (pj->state == PIPELINE_JOB_QUEUED) {
            pj->state = PIPELINE_JOB_RUNNING;
            pj->start_ms = clock_ms();
        }
        pl->places_free--;
        it->slot = pl->free_slots;
        pl->free_slots = it->slot->next_free;
        pl->admitted_bytes += pl->stats.partition_bytes;
        if (pl->admitted_bytes > pl->stats.peak_admitted_bytes)
            pl->stats.peak_admitted_bytes = pl->admitted_bytes;
        pl->stats.slot_acquisitions++;
        it->state = ITEM_SYNTH;
        pl_unlock(pl);

        uint64_t t0 = trace_now_ns();
        g16_status st = job_synthesize_partition(pj->job, it->partition, &it->slot->bufs);
        uint64_t t1 = trace_now_ns();

        pl_lock(pl);
        pl->stats.synth_busy_ms += ns_ms(t1 - t0);
        pl->stats.partitions_synthesized += st == G16_OK;
        if (st || pj->stop) {
            place_release(pl);
            slot_release(pl, it);
            if (st)
                fail_job(pl, pj, it->partition, st);
            resolve(pl, it);
            continue;
        }
        it->state = ITEM_QUEUED;
        it->queued_ns = t1;
        push(&pl->prove_head, &pl->prove_tail, it);
        pthread_cond_signal(&pl->prove_cv);
    }
    wait_end(&ws);
    pl_unlock(pl);
    return NULL;
}

/* A prover takes a partition off the prove queue (lock held). */
static void take_for_prover(pipeline *pl, worker *w, item *it)
{
    uint64_t now = trace_now_ns();
    pl->stats.queue_wait_ms += ns_ms(now - it->queued_ns);
    trace_span(TRACE_QUEUE_WAIT, it->pj->id, (int32_t)it->partition, w->device, 0, "prove queue",
               it->queued_ns, now);
    place_release(pl);
    it->state = ITEM_PROVING;
}

/* backend.next_input of the pipeline's only prover (pipeline_plan_stage): the partition
 * it proves next, claimed now from the prove queue if one waits there (with one prover,
 * the one it would pop next anyway), so that its backend copies that partition's a up
 * during the partition in progress. Called on the prover's thread, from inside its
 * backend's partition. */
static const fr_t *claim_next(void *arg)
{
    worker *w = arg;
    pipeline *pl = w->pl;
    pl_lock(pl);
    if (!w->claimed && (w->claimed = pop(&pl->prove_head, &pl->prove_tail)))
        take_for_prover(pl, w, w->claimed);
    const fr_t *a = w->claimed ? w->claimed->slot->bufs.a : NULL;
    pl_unlock(pl);
    return a;
}

/* Opens the prover's backend on this thread and reports to pipeline_create. */
static bool prover_open(worker *w)
{
    pipeline *pl = w->pl;
    g16_status st = w->device >= 0 ? backend_cuda_open(&w->be, w->device)
                                   : backend_open(&w->be, "cpu");
    double prepare_ms = 0;
    if (!st) {
        w->be->key_placement = pl->key_placement;
        w->be->key_upload_at_prepare = pl->cfg.release_key_host;
        w->be->msm_glv = pl->msm_glv;
        w->be->msm_slice_digits = pl->msm_slice_digits;
        w->be->msm_arena = pl->msm_arena;
        w->be->stream_chunk_bytes = pl->stream_chunk;
        w->be->key_resident_arrays = pl->key_resident_arrays;
        if (pl->stage_inputs) {
            w->be->next_input = claim_next;
            w->be->next_input_arg = w;
        }
        uint64_t span = trace_begin();
        st = backend_prepare_key(w->be, pl->cfg.key, &prepare_ms);
        if (pl->key_placement == BACKEND_KEY_STREAMED) /* host work, once, at start-up */
            trace_end(span, TRACE_KERNEL, /* a split key's resident arrays go up too */
                      pl->key_resident_arrays ? "key pinned + uploaded" : "pinning the key");
        else if (pl->cfg.release_key_host)
            trace_end_on(span, TRACE_UPLOAD, w->device, pipeline_key_host_bytes(pl->cfg.key),
                         "key points (at start-up)");
    }
    pl_lock(pl);
    if (st && !pl->open_status) {
        pl->open_status = st;
        snprintf(pl->open_error, sizeof pl->open_error, "%s", g16_last_error());
    }
    if (prepare_ms > pl->stats.key_prepare_ms)
        pl->stats.key_prepare_ms = prepare_ms;
    pl->provers_opening--;
    pthread_cond_broadcast(&pl->open_cv);
    pl_unlock(pl);
    return st == G16_OK;
}

static void *prover_main(void *arg)
{
    worker *w = arg;
    pipeline *pl = w->pl;
    char name[TRACE_NAME_BYTES];
    if (w->device >= 0 && w->lane)
        snprintf(name, sizeof name, "gpu-%d.%u", w->device & 63, w->lane & 63u);
    else if (w->device >= 0)
        snprintf(name, sizeof name, "gpu-%d", w->device);
    else
        snprintf(name, sizeof name, "prover-%u", w->index);
    trace_thread_name(name);
    if (!prover_open(w))
        return NULL;
    groth16_prove_options route = {0};
    backend_prove_options(w->be, &route);
    route.g2_on_cpu = pl->cfg.g2_on_cpu;
    wait_span ws = {0};
    pl_lock(pl);
    for (;;) {
        /* The partition claimed during the last one (claim_next) comes first: its a is on
         * the device already. */
        item *it = w->claimed;
        w->claimed = NULL;
        w->be->staged_input = it ? it->slot->bufs.a : NULL;
        if (!it && (it = pop(&pl->prove_head, &pl->prove_tail)))
            take_for_prover(pl, w, it);
        if (!it) {
            if (pl->stopping)
                break;
            int32_t job, part;
            bool budget;
            if (next_for_provers(pl, &job, &part, &budget))
                wait_begin(&ws, budget ? TRACE_BUDGET_WAIT : TRACE_QUEUE_WAIT, job, part,
                           w->device, budget ? "prover idle: budget" : "prover idle", NULL);
            else
                wait_end(&ws);
            pthread_cond_wait(&pl->prove_cv, &pl->lock);
            continue;
        }
        wait_end(&ws);
        pipeline_job *pj = it->pj;
        if (pj->stop) { /* claimed, then its job stopped: dropped as stop_job drops them */
            slot_release(pl, it);
            resolve(pl, it);
            continue;
        }
        pl_unlock(pl);

        /* With g2_on_cpu the worker's backend does all but the B2 MSM, which the finalize
         * stage computes on the CPU from the witness: the slot goes along with it, and the
         * device takes the next partition meanwhile. */
        bool defer = pl->cfg.g2_on_cpu;
        uint64_t t0 = trace_now_ns();
        g16_status st =
            defer ? job_prove_partial(pj->job, it->partition, &it->slot->bufs, &route)
                  : job_prove_synthesized(pj->job, it->partition, &it->slot->bufs, &route);
        uint64_t t1 = trace_now_ns();

        backend_memory mem = {0};
        bool has_mem = w->be->memory && w->be->memory(w->be, &mem);

        pl_lock(pl);
        pl->stats.prove_busy_ms += ns_ms(t1 - t0);
        if (has_mem) {
            pl->stats.inputs_staged += mem.inputs_staged - w->inputs_staged;
            w->inputs_staged = mem.inputs_staged;
            if (mem.device_peak_used > pl->stats.device_peak_bytes)
                pl->stats.device_peak_bytes = mem.device_peak_used;
            pl->stats.device_resident_bytes = mem.resident_bytes;
            pl->stats.key_streamed = mem.key_streamed;
            pl->stats.key_stream_pinned = mem.stream_pinned;
            if (mem.pool_bytes > pl->stats.device_pool_bytes)
                pl->stats.device_pool_bytes = mem.pool_bytes;
            if (mem.arena_bytes > pl->stats.device_arena_bytes)
                pl->stats.device_arena_bytes = mem.arena_bytes;
        }
        if (!defer || st || pj->stop)
            slot_release(pl, it);
        if (st || pj->stop) {
            if (st)
                fail_job(pl, pj, it->partition, st);
            resolve(pl, it);
            continue;
        }
        it->state = ITEM_FINAL_QUEUED;
        it->queued_ns = t1;
        push(&pl->final_head, &pl->final_tail, it);
        pthread_cond_signal(&pl->final_cv);
    }
    wait_end(&ws);
    pl_unlock(pl);
    backend_close(w->be);
    w->be = NULL;
    return NULL;
}

static void *finalize_main(void *arg)
{
    worker *w = arg;
    pipeline *pl = w->pl;
    char name[TRACE_NAME_BYTES];
    if (pl->cfg.finalize_threads > 1)
        snprintf(name, sizeof name, "finalize-%u", w->index);
    else
        snprintf(name, sizeof name, "finalize");
    trace_thread_name(name);
    pl_lock(pl);
    for (;;) {
        item *it = pop(&pl->final_head, &pl->final_tail);
        if (!it) {
            if (pl->stopping)
                break;
            pthread_cond_wait(&pl->final_cv, &pl->lock);
            continue;
        }
        pipeline_job *pj = it->pj;
        uint64_t now = trace_now_ns();
        pl->stats.finalize_wait_ms += ns_ms(now - it->queued_ns);
        trace_span(TRACE_QUEUE_WAIT, pj->id, (int32_t)it->partition, TRACE_CPU, 0,
                   "finalize queue", it->queued_ns, now);
        it->state = ITEM_FINALIZING;
        pl_unlock(pl);

        uint64_t t0 = trace_now_ns();
        g16_status st = G16_OK;
        if (it->slot) /* g2_on_cpu: the B2 MSM and the proof, then the slot goes back */
            st = job_finish_partial(pj->job, it->partition, &it->slot->bufs);
        if (it->slot && !st) {
            pl_lock(pl);
            slot_release(pl, it);
            pl_unlock(pl);
        }
        if (!st)
            st = job_verify_partition(pj->job, it->partition);
        uint64_t t1 = trace_now_ns();

        pl_lock(pl);
        slot_release(pl, it); /* after a failed finish */
        pl->stats.finalize_busy_ms += ns_ms(t1 - t0);
        if (st)
            fail_job(pl, pj, it->partition, st);
        resolve(pl, it);
    }
    pl_unlock(pl);
    return NULL;
}

/* --- life cycle ---------------------------------------------------------------------------- */

static g16_status start_worker(pipeline *pl, thread_role role, unsigned index, int device,
                               unsigned lane)
{
    worker *w = &pl->workers[pl->n_workers];
    *w = (worker){.pl = pl, .role = role, .index = index, .device = device, .lane = lane};
    void *(*fn)(void *) = role == ROLE_SYNTH    ? synth_main
                          : role == ROLE_PROVER ? prover_main
                                                : finalize_main;
    if (pthread_create(&w->tid, NULL, fn, w) != 0)
        return status_fail(G16_ERR_INTERNAL, "pipeline: cannot start a thread");
    w->running = true;
    pl->n_workers++;
    return G16_OK;
}

static void join_workers(pipeline *pl)
{
    pl_lock(pl);
    pl->stopping = true;
    pthread_cond_broadcast(&pl->synth_cv);
    pthread_cond_broadcast(&pl->prove_cv);
    pthread_cond_broadcast(&pl->final_cv);
    pl_unlock(pl);
    for (size_t i = 0; i < pl->n_workers; i++)
        if (pl->workers[i].running) {
            pthread_join(pl->workers[i].tid, NULL);
            pl->workers[i].running = false;
        }
}

static void gib(char *out, size_t cap, uint64_t bytes)
{
    if (bytes >= ((uint64_t)1 << 30))
        snprintf(out, cap, "%.2f GiB", (double)bytes / 1073741824.0);
    else if (bytes >= ((uint64_t)1 << 20))
        snprintf(out, cap, "%.1f MiB", (double)bytes / 1048576.0);
    else /* a budget of a few KiB must not read as 0.0 MiB */
        snprintf(out, cap, "%.1f KiB", (double)bytes / 1024.0);
}

/* Device bytes held by this process's live pipelines (each uses every visible device
 * alike, so one figure serves all devices): a second pipeline, such as the daemon's for a
 * second key, plans within what the first left instead of both planning for the whole
 * device. */
static pthread_mutex_t g_device_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_device_reserved;

bool pipeline_plan_device(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                          uint64_t key, uint64_t part_resident, uint64_t part_streamed,
                          unsigned workers, backend_key_placement placement)
{
    uint64_t avail = !budget ? UINT64_MAX : budget > reserved ? budget - reserved : 0;
    if (placement == BACKEND_KEY_AUTO)
        placement = key + part_resident <= avail ? BACKEND_KEY_RESIDENT : BACKEND_KEY_STREAMED;
    bool streamed = placement == BACKEND_KEY_STREAMED;
    uint64_t part = streamed ? part_streamed : part_resident, held = streamed ? 0 : key;
    unsigned k = workers ? workers : 1;
    while (k > 1 && held + k * part > avail)
        k--;
    plan->placement = placement;
    plan->workers = k;
    plan->reserved = budget ? held + k * part : 0;
    return held + k * part <= avail;
}

bool pipeline_plan_glv(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                       uint64_t key, uint64_t table, uint64_t part_glv)
{
    if (plan->placement != BACKEND_KEY_RESIDENT || !budget)
        return false;
    uint64_t avail = budget > reserved ? budget - reserved : 0;
    uint64_t need = key + table + plan->workers * part_glv;
    if (need > avail)
        return false;
    plan->reserved = need;
    return true;
}

unsigned pipeline_plan_glv_slices(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                                  const groth16_prover_key *pk, uint64_t *digits, bool *arena)
{
    *digits = 0;
    *arena = false;
    uint64_t key = backend_key_device_bytes(pk), table = backend_glv_table_bytes(pk);
    for (unsigned k = 1; k <= BACKEND_GLV_MAX_SLICES; k++) {
        uint64_t d = backend_glv_slice_digits(pk, k);
        if (pipeline_plan_glv(plan, budget, reserved, key, table,
                              backend_partition_device_bytes(pk, 0, true, d, false))) {
            *digits = d;
            return k;
        }
        /* Whole windows did not fit in each worker's pool: in one arena, then? */
        if (k == 1 && plan->workers > 1 &&
            pipeline_plan_glv(plan, budget, reserved, key, table + backend_msm_arena_bytes(pk, true),
                              backend_partition_device_bytes(pk, 0, true, 0, true))) {
            *arena = true;
            return 1;
        }
    }
    return 0;
}

/* The arrays kept on the device, in backend_key_arrays' indices: A, C, B2, B1, H. */
static const int SPLIT_ORDER[BACKEND_KEY_ARRAYS] = {0, 3, 2, 1, 4};

/* The most arrays (in SPLIT_ORDER, skipping those that do not fit) kept on the device with
 * `workers` partitions streaming the rest in chunks of `chunk` within avail; *need: what
 * that takes (UINT64_MAX when not even none fits). */
static unsigned split_key(const groth16_prover_key *pk, unsigned workers, uint64_t chunk,
                          uint64_t avail, bool split, uint64_t *need)
{
    unsigned mask = 0;
    *need = workers * backend_partition_device_bytes_split(pk, chunk, 0);
    if (*need > avail) {
        *need = UINT64_MAX;
        return 0;
    }
    for (int i = 0; split && i < BACKEND_KEY_ARRAYS; i++) {
        unsigned m = mask | 1u << SPLIT_ORDER[i];
        uint64_t n = backend_key_arrays_bytes(pk, m) +
                     workers * backend_partition_device_bytes_split(pk, chunk, m);
        if (n <= avail) {
            mask = m;
            *need = n;
        }
    }
    return mask;
}

uint64_t pipeline_plan_stream(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                              const groth16_prover_key *pk, uint64_t chunk, bool may_double,
                              bool split, unsigned *resident)
{
    *resident = 0;
    if (plan->placement != BACKEND_KEY_STREAMED || !budget)
        return chunk;
    uint64_t avail = budget > reserved ? budget - reserved : 0, need1, need2;
    unsigned m1 = split_key(pk, plan->workers, chunk, avail, split, &need1);
    unsigned m2 = may_double ? split_key(pk, plan->workers, 2 * chunk, avail, split, &need2) : 0;
    if (may_double && need2 != UINT64_MAX &&
        backend_key_arrays_bytes(pk, m2) >= backend_key_arrays_bytes(pk, m1)) {
        *resident = m2;
        plan->reserved = need2;
        return 2 * chunk;
    }
    if (need1 == UINT64_MAX) /* the plan's partitions did not fit: leave it as it is */
        return chunk;
    *resident = m1;
    plan->reserved = need1;
    return chunk;
}

bool pipeline_plan_stage(pipeline_device_plan *plan, uint64_t budget, uint64_t reserved,
                         unsigned provers, uint64_t vec)
{
    if (provers != 1 || plan->workers != 1)
        return false;
    if (!budget)
        return true;
    uint64_t avail = budget > reserved ? budget - reserved : 0;
    if (plan->reserved + vec > avail)
        return false;
    plan->reserved += vec;
    return true;
}

unsigned pipeline_default_gpu_workers(uint64_t slots, unsigned devices)
{
    uint64_t spare = devices && slots > devices ? (slots - 1) / devices : 1;
    return spare >= 2 ? 2 : 1;
}

/* The host budget's split: the bytes a partition in flight is charged (*per), the key's
 * host pages charged before any (*key_bytes: B2's alone, or none, when release_key_host
 * drops them once resident), and how many partitions' buffer slots fit beside those and
 * the caller's reserved bytes (returned; the lookahead may cap it further). */
static uint64_t host_slots_fit(const pipeline_config *c, bool gpu, uint64_t *per,
                               uint64_t *key_bytes)
{
    *per = pipeline_partition_host_bytes(c->key, gpu, parallel_threads());
    *key_bytes = pipeline_key_host_bytes(c->key);
    if (c->release_key_host) {
        /* Only B2 stays in host memory, and only for the CPU's B2 MSMs. */
        const uint8_t *ptr[BACKEND_KEY_ARRAYS];
        size_t bytes[BACKEND_KEY_ARRAYS];
        backend_key_arrays(c->key, ptr, bytes);
        *key_bytes = c->g2_on_cpu ? bytes[2] : 0;
    }
    uint64_t held = *key_bytes + c->host_reserved;
    return *per && c->host_budget > held ? (c->host_budget - held) / *per : 0;
}

/* Which backend: "cuda" and "auto" (when device 0 opens) take every visible device. */
static g16_status choose_backend(pipeline *pl, unsigned *provers)
{
    const char *kind = pl->cfg.backend ? pl->cfg.backend : "auto";
    bool want_cuda = !strcmp(kind, "cuda");
    if (!want_cuda && strcmp(kind, "auto") && strcmp(kind, "cpu"))
        return status_fail(G16_ERR_INVALID_ARGUMENT, "unknown backend '%s' (cpu, cuda or auto)",
                           kind);
    /* G16_GPU_KEY is checked whatever the backend: a typo should not pass unnoticed. */
    pl->key_placement = pl->cfg.key_placement;
    g16_status pst;
    if (pl->key_placement == BACKEND_KEY_AUTO &&
        (pst = backend_key_placement_default(&pl->key_placement)))
        return pst;
    const bool placement_free = pl->key_placement == BACKEND_KEY_AUTO; /* else forced */
    uint64_t device_total = 0;
    if (!strcmp(kind, "auto")) {
        backend *probe = NULL;
        want_cuda = backend_cuda_device_count() > 0 && backend_cuda_open(&probe, 0) == G16_OK;
        backend_memory m;
        if (want_cuda && probe->memory && probe->memory(probe, &m))
            device_total = m.device_total;
        backend_close(probe);
    } else if (want_cuda) {
        backend *probe = NULL;
        g16_status st = backend_cuda_open(&probe, 0); /* its message says why */
        backend_memory m;
        if (!st && probe->memory && probe->memory(probe, &m))
            device_total = m.device_total;
        backend_close(probe);
        if (st)
            return st;
    }
    pl->gpu = want_cuda;
    if (want_cuda) {
        int n = backend_cuda_device_count();
        pl->gpu_devices = (unsigned)(n > MAX_DEVICES ? MAX_DEVICES : n);
        /* The key stays resident on each device when it fits beside one partition's
         * buffers within the device budget (all of its memory by default, less ~5% for
         * the CUDA context and the NTT tables), else it streams from host memory
         * (cfg.key_placement forces either). Workers per device: two by default, so that
         * one partition's upload and host-side steps overlap the other's kernels; one
         * when the host budget's slots would all be proving at once
         * (pipeline_default_gpu_workers); fewer when the device budget cannot hold that
         * many partitions' buffers (and the key). */
        uint64_t budget = pl->cfg.device_budget ? pl->cfg.device_budget
                                                : device_total / 20 * 19;
        pipeline_device_plan plan;
        uint64_t chunk = backend_stream_chunk_bytes(), per, key_bytes;
        uint64_t slots = host_slots_fit(&pl->cfg, true, &per, &key_bytes);
        pthread_mutex_lock(&g_device_lock);
        bool fits = pipeline_plan_device(&plan, budget, g_device_reserved,
                                         backend_key_device_bytes(pl->cfg.key),
                                         backend_partition_device_bytes(pl->cfg.key, 0, false, 0, false),
                                         backend_partition_device_bytes(pl->cfg.key, chunk, false, 0, false),
                                         pl->cfg.gpu_workers ? pl->cfg.gpu_workers
                                                             : pipeline_default_gpu_workers(
                                                                   slots, pl->gpu_devices),
                                         pl->key_placement);
        /* H's MSM through GLV where its table and scratch cost no worker: its windows in
         * the fewest slices that fit (more slices, smaller point buffers, more rounds),
         * whole ones through the workers' shared arena before 2 slices. */
        pl->msm_slices = fits ? pipeline_plan_glv_slices(&plan, budget, g_device_reserved,
                                                         pl->cfg.key, &pl->msm_slice_digits,
                                                         &pl->msm_arena)
                              : 0;
        pl->msm_glv = pl->msm_slices > 0;
        /* A streamed key: the arrays kept on the device all the same where they fit
         * (unless the placement was forced), and chunks twice the default where that
         * keeps as many (unless G16_GPU_STREAM_CHUNK sets them); neither costs a worker. */
        pl->stream_chunk = fits ? pipeline_plan_stream(&plan, budget, g_device_reserved,
                                                       pl->cfg.key, chunk,
                                                       !getenv("G16_GPU_STREAM_CHUNK"),
                                                       placement_free, &pl->key_resident_arrays)
                                : chunk;
        /* The next partition's a staged during the current one (off with
         * G16_GPU_STAGE_NEXT=0), where one vector more fits: last, as the smallest lever
         * (run 116: a's copy ~80 ms of a 1.32 s partition on an 80 GB card). */
        pl->stage_inputs = fits && backend_stage_next() &&
                           pipeline_plan_stage(&plan, budget, g_device_reserved,
                                               pl->gpu_devices * plan.workers,
                                               (uint64_t)pl->cfg.key->domain_size * FR_BYTES);
        if (fits) {
            g_device_reserved += plan.reserved;
            pl->device_reserved = plan.reserved;
        }
        uint64_t others = g_device_reserved - pl->device_reserved;
        pthread_mutex_unlock(&g_device_lock);
        if (!fits)
            return status_fail(G16_ERR_OUT_OF_MEMORY,
                               "pipeline: one partition needs %.2f GiB of device memory (%s), "
                               "%.2f GiB of the device budget of %.2f GiB is left beside "
                               "this process's other pipelines (raise --device-budget, or "
                               "free other keys)",
                               plan.reserved / 1073741824.0,
                               plan.placement == BACKEND_KEY_STREAMED ? "with the key streamed"
                                                                      : "with the key resident",
                               (budget > others ? budget - others : 0) / 1073741824.0,
                               budget / 1073741824.0);
        pl->key_placement = plan.placement;
        pl->workers_per_device = plan.workers;
        *provers = pl->gpu_devices * plan.workers;
    } else {
        *provers = pl->cfg.cpu_workers;
    }
    return G16_OK;
}

g16_status pipeline_create(pipeline **out, const pipeline_config *cfg)
{
    *out = NULL;
    if (!cfg || !cfg->key)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "pipeline: no key to size buffers for");
    pipeline *pl = calloc(1, sizeof *pl);
    if (!pl)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "pipeline");
    pl->cfg = *cfg;
    pipeline_config *c = &pl->cfg;
    if (!c->synth_threads)
        c->synth_threads = 1;
    if (!c->lookahead)
        c->lookahead = c->synth_threads + 1;
    if (!c->cpu_workers)
        c->cpu_workers = 1;
    if (!c->finalize_threads)
        c->finalize_threads = 1;
    if (!c->host_budget)
        c->host_budget = pipeline_default_host_budget();
    pthread_mutex_init(&pl->lock, NULL);
    pthread_cond_init(&pl->synth_cv, NULL);
    pthread_cond_init(&pl->prove_cv, NULL);
    pthread_cond_init(&pl->final_cv, NULL);
    pthread_cond_init(&pl->done_cv, NULL);
    pthread_cond_init(&pl->open_cv, NULL);
    pl->accepting = true;

    unsigned provers = 0;
    g16_status st = choose_backend(pl, &provers);
    if (st) {
        pl->shut = true;
        pipeline_free(pl);
        return st;
    }
    if (c->synth_threads > 1024 || c->lookahead > 1024 || provers > 1024 ||
        c->finalize_threads > 1024) {
        pl->shut = true;
        pipeline_free(pl);
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "pipeline: at most 1024 threads, places or workers per stage");
    }

    /* The budget: how many partitions may hold buffers at once, beside the key's points
     * and what the caller holds (at 2^27 the key alone is ~48 GB: left out, a 100G
     * budget admitted four partitions of 21 GB and the process was killed at 150 GB). */
    if (c->release_key_host && (!pl->gpu || pl->key_placement != BACKEND_KEY_RESIDENT)) {
        const char *why = pl->gpu ? "the key streamed from host memory" : "the CPU";
        pl->shut = true;
        pipeline_free(pl);
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "pipeline: releasing the key's host pages needs the key "
                           "resident on the GPU (this pipeline: %s)", why);
    }
    uint64_t per, key_bytes;
    uint64_t fit = host_slots_fit(c, pl->gpu, &per, &key_bytes);
    uint64_t held = key_bytes + c->host_reserved;
    pl->stats.partition_bytes = per;
    pl->stats.key_stream_chunk = pl->gpu ? pl->stream_chunk : 0;
    pl->stats.key_resident_arrays = pl->gpu ? pl->key_resident_arrays : 0;
    pl->stats.inputs_staging = pl->gpu && pl->stage_inputs;
    pl->stats.host_budget = c->host_budget;
    pl->stats.key_host_bytes = key_bytes;
    pl->stats.host_reserved = c->host_reserved;
    if (fit == 0) {
        char need[32], buffers[32], key[32], reserved[32], all[32], budget[32];
        gib(need, sizeof need, per);
        gib(buffers, sizeof buffers,
            ((uint64_t)c->key->n_vars + 3 * (uint64_t)c->key->domain_size) * FR_BYTES);
        gib(key, sizeof key, key_bytes);
        gib(reserved, sizeof reserved, c->host_reserved);
        gib(all, sizeof all, held + per);
        gib(budget, sizeof budget, c->host_budget);
        pl->shut = true;
        pipeline_free(pl);
        return status_fail(G16_ERR_OUT_OF_MEMORY,
                           "pipeline: one partition needs %s of host memory (%s of buffers "
                           "z, a, b, c and the prover's scratch) beside the key's %s and %s "
                           "held by the caller: %s in all, more than the memory budget of %s "
                           "(raise --mem-budget)",
                           need, buffers, key, reserved, all, budget);
    }
    size_t want = (size_t)c->lookahead + provers;
    pl->n_slots = fit < want ? (size_t)fit : want;
    pl->places_free = c->lookahead;
    pl->slots = calloc(pl->n_slots, sizeof *pl->slots);
    pl->workers = calloc((size_t)c->synth_threads + provers + c->finalize_threads,
                         sizeof *pl->workers);
    if (!pl->slots || !pl->workers)
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "pipeline: %zu slots", pl->n_slots);
    for (size_t i = 0; !st && i < pl->n_slots; i++) {
        st = slot_alloc(pl, &pl->slots[i]);
        pl->slots[i].next_free = pl->free_slots;
        pl->free_slots = &pl->slots[i];
    }
    pl->stats.slots = pl->n_slots;
    pl->stats.synth_threads = c->synth_threads;
    pl->stats.lookahead = c->lookahead;
    pl->stats.prover_workers = provers;
    pl->stats.gpu_devices = pl->gpu_devices;
    pl->stats.gpu_workers_per_device = pl->workers_per_device;
    pl->stats.finalize_threads = c->finalize_threads;

    /* Provers first: their backends must open before anything is admitted. */
    pl->provers_opening = provers;
    for (unsigned i = 0; !st && i < provers; i++)
        if ((st = start_worker(pl, ROLE_PROVER, i,
                               pl->gpu ? (int)(i % pl->gpu_devices) : TRACE_CPU,
                               pl->gpu ? i / pl->gpu_devices : 0)))
            pl->provers_opening -= provers - i;
    pl_lock(pl);
    while (pl->provers_opening > 0)
        pthread_cond_wait(&pl->open_cv, &pl->lock);
    if (!st && pl->open_status)
        st = status_fail(pl->open_status, "%s", pl->open_error);
    pl_unlock(pl);
    /* Every worker has uploaded the key: its host pages can go (B2's stay for the CPU's
     * B2 MSMs). */
    if (!st && c->release_key_host) {
        const uint8_t *ptr[BACKEND_KEY_ARRAYS];
        size_t bytes[BACKEND_KEY_ARRAYS];
        backend_key_arrays(c->key, ptr, bytes);
        for (int k = 0; k < BACKEND_KEY_ARRAYS; k++)
            if (!(k == 2 && c->g2_on_cpu))
                pl->stats.key_host_released += drop_pages(ptr[k], bytes[k]);
    }
    for (unsigned i = 0; !st && i < c->finalize_threads; i++)
        st = start_worker(pl, ROLE_FINALIZE, i, TRACE_CPU, 0);
    for (unsigned i = 0; !st && i < c->synth_threads; i++)
        st = start_worker(pl, ROLE_SYNTH, i, TRACE_CPU, 0);
    if (st) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", g16_last_error());
        pipeline_free(pl);
        return status_fail(st, "%s", msg);
    }

    if (pl->gpu) {
        size_t len = (size_t)snprintf(pl->description, sizeof pl->description,
                                      "cuda: %u device%s, %u worker%s each: ", pl->gpu_devices,
                                      pl->gpu_devices == 1 ? "" : "s", pl->workers_per_device,
                                      pl->workers_per_device == 1 ? "" : "s");
        for (size_t i = 0; i < pl->n_workers && len < sizeof pl->description; i++)
            if (pl->workers[i].role == ROLE_PROVER && pl->workers[i].be && !pl->workers[i].lane)
                len += (size_t)snprintf(pl->description + len, sizeof pl->description - len,
                                        "%s%s", pl->workers[i].index ? "; " : "",
                                        pl->workers[i].be->description + 6 /* "cuda: " */);
        if (len < sizeof pl->description) {
            char glv[64] = "without GLV (budget)";
            /* H streamed: each chunk's table is made beside it, none kept with the key. */
            bool h_streamed = pl->key_placement == BACKEND_KEY_STREAMED &&
                              !(pl->key_resident_arrays & BACKEND_KEY_BIT_H);
            if (h_streamed)
                snprintf(glv, sizeof glv, "%s", backend_stream_glv()
                                                    ? "by GLV, a table a streamed chunk"
                                                    : "without GLV (G16_GPU_STREAM_GLV=0)");
            else if (pl->msm_glv && pl->msm_slices > 1)
                snprintf(glv, sizeof glv, "by GLV, its windows in %u slices (budget)",
                         pl->msm_slices);
            else if (pl->msm_glv && pl->msm_arena)
                snprintf(glv, sizeof glv, "by GLV, the rounds' buffers in one arena a device");
            else if (pl->msm_glv)
                snprintf(glv, sizeof glv, "by GLV");
            len += (size_t)snprintf(pl->description + len, sizeof pl->description - len,
                                    "; H's MSM %s", glv);
        }
        if (len < sizeof pl->description && pl->stage_inputs) {
            snprintf(pl->description + len, sizeof pl->description - len,
                     "; the next partition's a staged during the current one");
        }
    } else {
        snprintf(pl->description, sizeof pl->description, "cpu (%u threads), %u prover worker%s",
                 parallel_threads(), provers, provers == 1 ? "" : "s");
    }
    *out = pl;
    return G16_OK;
}

const char *pipeline_describe(const pipeline *pl) { return pl->description; }

g16_status pipeline_submit(pipeline *pl, pipeline_job **out, job_t *job)
{
    *out = NULL;
    if (!job)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "pipeline: no job");
    const job_config *jc = job_get_config(job);
    const groth16_prover_key *pk = jc->pk, *shape = pl->cfg.key;
    if (pk->n_vars > shape->n_vars || pk->domain_size > shape->domain_size)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "pipeline: job %d needs buffers for %zu wires and a domain of %zu, "
                           "the pipeline's are for %zu and %zu", (int)jc->id, pk->n_vars,
                           pk->domain_size, shape->n_vars, shape->domain_size);
    bool streamed = pl->key_placement == BACKEND_KEY_STREAMED;
    unsigned kept = pl->key_resident_arrays;
    uint64_t device_need =
        streamed ? backend_key_arrays_bytes(pk, kept) +
                       backend_partition_device_bytes_split(pk, pl->stream_chunk, kept)
                 : backend_key_device_bytes(pk) +
                       (pl->msm_glv ? backend_glv_table_bytes(pk) : 0) +
                       (pl->msm_arena ? backend_msm_arena_bytes(pk, pl->msm_glv) : 0) +
                       backend_partition_device_bytes(pk, 0, pl->msm_glv, pl->msm_slice_digits,
                                                      pl->msm_arena);
    if (pl->gpu && pl->device_reserved && device_need > pl->device_reserved)
        return status_fail(G16_ERR_OUT_OF_MEMORY,
                           "pipeline: job %d needs %llu device bytes (%s one partition), "
                           "the pipeline holds %llu", (int)jc->id,
                           (unsigned long long)device_need,
                           streamed ? "with the key streamed," : "key and",
                           (unsigned long long)pl->device_reserved);
    size_t n = job_num_partitions(job);
    pipeline_job *pj = calloc(1, sizeof *pj);
    item *items = pj ? calloc(n, sizeof *items) : NULL;
    if (!items) {
        free(pj);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "pipeline: job of %zu partitions", n);
    }
    *pj = (pipeline_job){.job = job, .id = jc->id, .n = n, .items = items,
                         .submit_ms = clock_ms()};
    for (size_t p = 0; p < n; p++)
        items[p] = (item){.pj = pj, .partition = p};
    pl_lock(pl);
    if (!pl->accepting) {
        pl_unlock(pl);
        free(items);
        free(pj);
        return status_fail(G16_ERR_INVALID_ARGUMENT, "pipeline: shut down, no more jobs");
    }
    pj->seq = pl->stats.jobs_submitted;
    if (pl->stats.jobs_submitted++ == 0)
        pl->first_submit_ms = pj->submit_ms;
    pj->next_all = pl->all_jobs;
    pl->all_jobs = pj;
    if (pl->admit_tail)
        pl->admit_tail->next_admit = pj;
    else
        pl->admit_head = pj;
    pl->admit_tail = pj;
    pl->active_jobs++;
    pthread_cond_broadcast(&pl->synth_cv);
    pthread_cond_broadcast(&pl->prove_cv);
    pl_unlock(pl);
    *out = pj;
    return G16_OK;
}

g16_status pipeline_cancel(pipeline *pl, pipeline_job *pj)
{
    pl_lock(pl);
    char msg[64];
    snprintf(msg, sizeof msg, "job %d: cancelled", (int)pj->id);
    stop_job(pl, pj, G16_ERR_CANCELLED, msg);
    pl_unlock(pl);
    return G16_OK;
}

static bool job_finished(const pipeline_job *pj) { return pj->state >= PIPELINE_JOB_DONE; }

g16_status pipeline_wait(pipeline *pl, pipeline_job *pj)
{
    pl_lock(pl);
    while (!job_finished(pj))
        pthread_cond_wait(&pl->done_cv, &pl->lock);
    g16_status st = pj->status;
    if (st)
        status_fail(st, "%s", pj->error);
    pl_unlock(pl);
    return st;
}

g16_status pipeline_wait_partition(pipeline *pl, pipeline_job *pj, size_t p)
{
    if (p >= pj->n)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "pipeline: job %d has no partition %zu",
                           (int)pj->id, p);
    pl_lock(pl);
    while (pj->items[p].state != ITEM_RESOLVED)
        pthread_cond_wait(&pl->done_cv, &pl->lock);
    const job_result *r = job_get_result(pj->job, p);
    g16_status st = r->status;
    if (st)
        status_fail(st, "%s", r->error);
    pl_unlock(pl);
    return st;
}

void pipeline_job_info_get(pipeline *pl, const pipeline_job *pj, pipeline_job_info *out)
{
    pl_lock(pl);
    *out = (pipeline_job_info){.state = pj->state, .partitions = pj->n,
                               .submit_ms = pj->submit_ms, .start_ms = pj->start_ms,
                               .end_ms = pj->end_ms};
    if (job_finished(pj)) {
        out->status = pj->status;
        status_text_fit(out->error, sizeof out->error, pj->error);
    }
    for (size_t p = 0; p < pj->n; p++) {
        if (pj->items[p].state != ITEM_RESOLVED)
            continue;
        job_partition_state s = job_get_result(pj->job, p)->state;
        out->proved += s == JOB_PARTITION_PROVED;
        out->failed += s == JOB_PARTITION_FAILED;
        out->cancelled += s == JOB_PARTITION_CANCELLED;
    }
    pl_unlock(pl);
}

job_t *pipeline_job_get(const pipeline_job *pj) { return pj->job; }

static void job_handle_free(pipeline *pl, pipeline_job *pj)
{
    pipeline_job **pp = &pl->all_jobs;
    while (*pp && *pp != pj)
        pp = &(*pp)->next_all;
    if (*pp)
        *pp = pj->next_all;
    free(pj->items);
    free(pj);
}

void pipeline_job_release(pipeline *pl, pipeline_job *pj)
{
    if (!pj)
        return;
    pipeline_cancel(pl, pj);
    pipeline_wait(pl, pj);
    pl_lock(pl);
    job_handle_free(pl, pj);
    pl_unlock(pl);
}

g16_status pipeline_shutdown(pipeline *pl, pipeline_stop how)
{
    pl_lock(pl);
    if (pl->shut) {
        pl_unlock(pl);
        return G16_OK;
    }
    pl->accepting = false;
    if (how == PIPELINE_CANCEL)
        for (pipeline_job *pj = pl->all_jobs; pj; pj = pj->next_all) {
            char msg[64];
            snprintf(msg, sizeof msg, "job %d: cancelled", (int)pj->id);
            stop_job(pl, pj, G16_ERR_CANCELLED, msg);
        }
    /* Drain: every job finishes; cancel: the partitions inside a stage come out. */
    while (pl->active_jobs > 0)
        pthread_cond_wait(&pl->done_cv, &pl->lock);
    pl_unlock(pl);
    join_workers(pl);
    pl->shut = true;
    return G16_OK;
}

void pipeline_stats_get(pipeline *pl, pipeline_stats *out)
{
    pl_lock(pl);
    *out = pl->stats;
    if (pl->stats.jobs_submitted) {
        double end = pl->active_jobs ? clock_ms() : pl->last_end_ms;
        out->active_ms = end - pl->first_submit_ms;
    }
    pl_unlock(pl);
}

void pipeline_free(pipeline *pl)
{
    if (!pl)
        return;
    if (!pl->shut && pl->workers)
        pipeline_shutdown(pl, PIPELINE_CANCEL);
    else
        join_workers(pl); /* a pipeline_create that failed half way */
    while (pl->all_jobs)
        job_handle_free(pl, pl->all_jobs);
    for (size_t i = 0; pl->slots && i < pl->n_slots; i++)
        slot_free(pl, &pl->slots[i]);
    free(pl->slots);
    free(pl->workers);
    pthread_mutex_lock(&g_device_lock);
    g_device_reserved -= pl->device_reserved;
    pthread_mutex_unlock(&g_device_lock);
    pthread_mutex_destroy(&pl->lock);
    pthread_cond_destroy(&pl->synth_cv);
    pthread_cond_destroy(&pl->prove_cv);
    pthread_cond_destroy(&pl->final_cv);
    pthread_cond_destroy(&pl->done_cv);
    pthread_cond_destroy(&pl->open_cv);
    free(pl);
}
