/* Loaded proving keys with LRU eviction under the key budget (key_cache.h). */
#include "key_cache.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuit/cs.h"
#include "circuit/synthetic.h"
#include "groth16/setup.h"
#include "native_key_id.h"
#include "util/status.h"

typedef struct {
    char id[80];
    key_kind kind;
    char *path;              /* zkey: as configured; native: STATE_DIR/keys/<id>.g16k */
    size_t param_n, param_k; /* native: the synthetic circuit's N and public inputs */
    bool shape_known;
    key_shape shape;
    /* Loading and use, under the cache's lock. */
    bool loaded, loading;
    unsigned refs;
    uint64_t bytes, last_used;
    /* The loaded key: written by the loading thread before `loaded` is set. */
    zkey_t zkey;
    native_key_t nkey;
    groth16_prover_key pk;
    groth16_vk vk;
    pipeline *pl;
    key_handle handle;
} key_entry;

struct key_cache {
    const daemon_config *cfg;
    uint64_t budget;
    pthread_mutex_t mu;
    pthread_cond_t changed; /* a load finished or a key was released */
    key_entry **entries;    /* pointers stay put while the array grows */
    size_t count, cap;
    uint64_t tick;
    size_t loads, evictions;
};

static uint64_t default_budget(void) { return pipeline_default_host_budget() / 3 * 2; }

static key_entry *add_entry(key_cache *kc, const char *id, key_kind kind, const char *path)
{
    if (kc->count == kc->cap) {
        size_t cap = kc->cap ? 2 * kc->cap : 8;
        key_entry **grown = realloc(kc->entries, cap * sizeof *grown);
        if (!grown)
            return NULL;
        kc->entries = grown;
        kc->cap = cap;
    }
    key_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->path = strdup(path))) {
        free(e);
        return NULL;
    }
    snprintf(e->id, sizeof e->id, "%s", id);
    e->kind = kind;
    kc->entries[kc->count++] = e;
    return e;
}

g16_status key_cache_create(key_cache **out, const daemon_config *cfg, uint64_t budget)
{
    key_cache *kc = calloc(1, sizeof *kc);
    if (!kc)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "key cache");
    kc->cfg = cfg;
    kc->budget = budget ? budget : default_budget();
    pthread_mutex_init(&kc->mu, NULL);
    pthread_cond_init(&kc->changed, NULL);
    for (size_t i = 0; i < cfg->n_keys; i++)
        if (!add_entry(kc, cfg->keys[i].id, KEY_ZKEY, cfg->keys[i].path)) {
            key_cache_free(kc);
            return status_fail(G16_ERR_OUT_OF_MEMORY, "key cache entry");
        }
    *out = kc;
    return G16_OK;
}

/* The resources of a loaded entry, moved out under the lock and freed outside it. */
typedef struct {
    zkey_t zkey;
    native_key_t nkey;
    groth16_vk vk;
    pipeline *pl;
    bool native, had_vk;
} unloaded;

static void take_loaded(unloaded *u, key_entry *e)
{
    u->zkey = e->zkey;
    u->nkey = e->nkey;
    u->vk = e->vk;
    u->pl = e->pl;
    u->native = e->kind == KEY_NATIVE;
    u->had_vk = true;
    memset(&e->zkey, 0, sizeof e->zkey);
    memset(&e->nkey, 0, sizeof e->nkey);
    memset(&e->vk, 0, sizeof e->vk);
    e->pl = NULL;
    e->loaded = false;
    e->bytes = 0;
}

static void free_unloaded(unloaded *u)
{
    pipeline_free(u->pl); /* before the key its slots were made for */
    if (u->had_vk)
        groth16_vk_free(&u->vk);
    if (u->native)
        native_key_close(&u->nkey);
    else
        zkey_close(&u->zkey);
}

void key_cache_free(key_cache *kc)
{
    if (!kc)
        return;
    for (size_t i = 0; i < kc->count; i++) {
        key_entry *e = kc->entries[i];
        if (e->loaded) {
            unloaded u = {0};
            take_loaded(&u, e);
            free_unloaded(&u);
        }
        free(e->path);
        free(e);
    }
    free(kc->entries);
    pthread_mutex_destroy(&kc->mu);
    pthread_cond_destroy(&kc->changed);
    free(kc);
}

/* The entry for id, adding a native one on first mention. Under the lock. */
static g16_status find_entry(key_cache *kc, key_entry **out, const char *id)
{
    for (size_t i = 0; i < kc->count; i++)
        if (!strcmp(kc->entries[i]->id, id)) {
            *out = kc->entries[i];
            return G16_OK;
        }
    size_t n, k;
    if (!native_key_id_parse(&n, &k, id, kc->cfg->max_constraints))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "unknown key '%.80s' (configured: the keys setting; native: "
                           "synthetic-N with N from %zu to %lld)",
                           id, SYNTHETIC_MIN_CONSTRAINTS, (long long)kc->cfg->max_constraints);
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/keys/%s.g16k", kc->cfg->state_dir, id) >=
        (int)sizeof path)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "state directory path too long");
    key_entry *e = add_entry(kc, id, KEY_NATIVE, path);
    if (!e)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "key cache entry");
    e->param_n = n;
    e->param_k = k;
    e->shape = (key_shape){.kind = KEY_NATIVE, .n_public = (uint32_t)k};
    e->shape_known = true;
    *out = e;
    return G16_OK;
}

g16_status key_cache_shape(key_cache *kc, key_shape *shape, const char *id)
{
    pthread_mutex_lock(&kc->mu);
    key_entry *e = NULL;
    g16_status st = find_entry(kc, &e, id);
    bool known = !st && e->shape_known;
    if (known)
        *shape = e->shape;
    pthread_mutex_unlock(&kc->mu);
    if (st || known)
        return st;
    /* A zkey's header: opening maps the file and checks its sections (O(1) each). */
    zkey_t z;
    if ((st = zkey_open(&z, e->path)))
        return st;
    key_shape s = {.kind = KEY_ZKEY, .n_vars = z.n_vars, .n_public = z.n_public};
    zkey_close(&z);
    pthread_mutex_lock(&kc->mu);
    e->shape = s;
    e->shape_known = true;
    pthread_mutex_unlock(&kc->mu);
    *shape = s;
    return G16_OK;
}

static uint64_t file_bytes(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

static uint64_t loaded_bytes(const key_cache *kc)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < kc->count; i++)
        sum += kc->entries[i]->bytes;
    return sum;
}

/* Evicts unused keys, least recently used first, until need more bytes fit; the
 * evicted resources go to out (at most kc->count). Returns whether they fit. Under the
 * lock. */
static bool make_room(key_cache *kc, uint64_t need, unloaded *out, size_t *n_out)
{
    while (loaded_bytes(kc) + need > kc->budget) {
        key_entry *lru = NULL;
        for (size_t i = 0; i < kc->count; i++) {
            key_entry *e = kc->entries[i];
            if (e->loaded && !e->refs && (!lru || e->last_used < lru->last_used))
                lru = e;
        }
        if (!lru)
            return false;
        take_loaded(&out[(*n_out)++], lru);
        kc->evictions++;
    }
    return true;
}

static void setup_progress(const char *stage) { (void)stage; }

/* The synthetic circuit's key by the development setup, written to e->path. */
static g16_status make_native_key(const key_entry *e)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", e->path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return status_fail(G16_ERR_IO, "%s: %s", dir, strerror(errno));
    }
    synthetic_params params = {.n_constraints = e->param_n, .n_public = e->param_k, .seed = 0};
    cs_t *cs = NULL;
    constraint_matrices matrices = {0};
    groth16_setup_key key = {0};
    g16_status st = cs_create(&cs, CS_SETUP, e->param_k, NULL);
    if (!st)
        st = cs_synthesize(cs, synthetic_circuit, &params);
    if (!st)
        st = cs_take_matrices(cs, &matrices);
    cs_free(cs);
    if (!st)
        st = groth16_setup(&key, &matrices, setup_progress);
    constraint_matrices_free(&matrices);
    if (!st)
        st = native_key_write(e->path, &key, "synthetic", e->param_n, e->param_k);
    groth16_setup_key_free(&key);
    return st;
}

/* Opens e's key into e's fields (outside the lock: e is `loading`, nobody else touches
 * them). */
static g16_status load_entry(key_entry *e)
{
    g16_status st;
    if (e->kind == KEY_ZKEY) {
        if ((st = zkey_open(&e->zkey, e->path)))
            return st;
        /* Once per load rather than per job (an O(nCoefs) pass): a loaded key serves many
         * jobs, whose synthesis indexes by the coefficients unchecked (job.h,
         * zkey_coefs_checked; the daemon's zkey jobs set it). */
        if ((st = zkey_validate_coefs(&e->zkey)) ||
            (st = groth16_vk_from_zkey(&e->vk, &e->zkey))) {
            zkey_close(&e->zkey);
            return st;
        }
        groth16_prover_key_from_zkey(&e->pk, &e->zkey);
        e->handle = (key_handle){.kind = KEY_ZKEY, .zkey = &e->zkey,
                                 .n_public = e->zkey.n_public};
    } else {
        if (access(e->path, F_OK) != 0 && (st = make_native_key(e)))
            return st;
        if ((st = native_key_open(&e->nkey, e->path)))
            return st;
        if (strcmp(e->nkey.circuit, "synthetic") != 0 || e->nkey.param_n != e->param_n ||
            e->nkey.param_public != e->param_k) {
            native_key_close(&e->nkey);
            return status_fail(G16_ERR_FORMAT,
                               "%s: a key for circuit %s with N = %llu, K = %llu, not %s",
                               e->path, e->nkey.circuit, (unsigned long long)e->nkey.param_n,
                               (unsigned long long)e->nkey.param_public, e->id);
        }
        if ((st = groth16_vk_from_native(&e->vk, &e->nkey))) {
            native_key_close(&e->nkey);
            return st;
        }
        groth16_prover_key_from_native(&e->pk, &e->nkey);
        e->handle = (key_handle){.kind = KEY_NATIVE, .n_constraints = e->nkey.n_constraints,
                                 .n_public = e->nkey.n_public};
    }
    e->handle.id = e->id;
    e->handle.pk = &e->pk;
    e->handle.vk = &e->vk;
    return G16_OK;
}

g16_status key_cache_acquire(key_cache *kc, key_handle **out, const char *id)
{
    pthread_mutex_lock(&kc->mu);
    key_entry *e = NULL;
    g16_status st = find_entry(kc, &e, id);
    /* Evicted keys are freed outside the lock (unmapping, joining a pipeline's threads);
     * make_room adds at most one entry per loaded key, so count entries suffice. */
    unloaded *evicted = NULL;
    size_t n_evicted = 0;
    if (!st && !(evicted = calloc(kc->count, sizeof *evicted)))
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "key cache eviction list");
    size_t cap = st ? 0 : kc->count;
    while (!st) {
        if (n_evicted) {
            pthread_mutex_unlock(&kc->mu);
            for (size_t i = 0; i < n_evicted; i++)
                free_unloaded(&evicted[i]);
            n_evicted = 0;
            pthread_mutex_lock(&kc->mu);
        }
        if (kc->count > cap) { /* native entries added meanwhile */
            unloaded *grown = realloc(evicted, kc->count * sizeof *grown);
            if (!grown) {
                st = status_fail(G16_ERR_OUT_OF_MEMORY, "key cache eviction list");
                break;
            }
            evicted = grown;
            cap = kc->count;
        }
        if (e->loaded) {
            e->refs++;
            e->last_used = ++kc->tick;
            *out = &e->handle;
            break;
        }
        if (e->loading) {
            pthread_cond_wait(&kc->changed, &kc->mu);
            continue;
        }
        uint64_t need = file_bytes(e->path);
        if (need > kc->budget) {
            st = status_fail(G16_ERR_OUT_OF_MEMORY,
                             "key %s needs %llu bytes, more than the key budget of %llu "
                             "(key_budget)", id, (unsigned long long)need,
                             (unsigned long long)kc->budget);
            break;
        }
        if (!make_room(kc, need, evicted, &n_evicted)) {
            if (n_evicted)
                continue; /* free what was evicted, then look again */
            /* Keys in use hold the budget: wait for one to be released. */
            pthread_cond_wait(&kc->changed, &kc->mu);
            continue;
        }
        if (n_evicted)
            continue;
        e->loading = true;
        pthread_mutex_unlock(&kc->mu);
        st = load_entry(e);
        pthread_mutex_lock(&kc->mu);
        e->loading = false;
        if (!st) {
            e->loaded = true;
            e->bytes = file_bytes(e->path);
            e->last_used = ++kc->tick;
            kc->loads++;
        }
        pthread_cond_broadcast(&kc->changed);
        /* Loaded: the next turn takes a reference. A native key just made was not charged
         * before its load; the next acquire's make_room settles the budget. */
    }
    pthread_mutex_unlock(&kc->mu);
    for (size_t i = 0; i < n_evicted; i++)
        free_unloaded(&evicted[i]);
    free(evicted);
    return st;
}

static key_entry *entry_of(key_handle *h)
{
    return (key_entry *)((char *)h - offsetof(key_entry, handle));
}

void key_cache_release(key_cache *kc, key_handle *key)
{
    if (!key)
        return;
    pthread_mutex_lock(&kc->mu);
    key_entry *e = entry_of(key);
    if (e->refs)
        e->refs--;
    pthread_cond_broadcast(&kc->changed);
    pthread_mutex_unlock(&kc->mu);
}

g16_status key_cache_pipeline(key_cache *kc, pipeline **pl, key_handle *key)
{
    key_entry *e = entry_of(key);
    /* The lock serialises creation: two jobs of one key share one pipeline. pipeline_create
     * starts threads and allocates slots, which is quick next to a job. */
    pthread_mutex_lock(&kc->mu);
    g16_status st = G16_OK;
    if (!e->pl) {
        const daemon_config *c = kc->cfg;
        pipeline_config pc = {.backend = c->backend, .key = &e->pk,
                              .synth_threads = (unsigned)c->synth_threads,
                              .lookahead = (unsigned)c->lookahead,
                              .cpu_workers = (unsigned)c->provers, .host_budget = c->mem_budget};
        st = pipeline_create(&e->pl, &pc);
    }
    *pl = e->pl;
    pthread_mutex_unlock(&kc->mu);
    return st;
}

g16_status key_cache_evict(key_cache *kc, bool *evicted, const char *id)
{
    pthread_mutex_lock(&kc->mu);
    key_entry *e = NULL;
    g16_status st = find_entry(kc, &e, id);
    unloaded u = {0};
    *evicted = false;
    if (!st && (e->refs || e->loading))
        st = status_fail(G16_ERR_INVALID_ARGUMENT, "key %s is in use", id);
    else if (!st && e->loaded) {
        take_loaded(&u, e);
        kc->evictions++;
        *evicted = true;
        pthread_cond_broadcast(&kc->changed);
    }
    pthread_mutex_unlock(&kc->mu);
    if (*evicted)
        free_unloaded(&u);
    return st;
}

void key_cache_stats_get(key_cache *kc, key_cache_stats *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&kc->mu);
    out->budget = kc->budget;
    out->loads = kc->loads;
    out->evictions = kc->evictions;
    for (size_t i = 0; i < kc->count; i++) {
        key_entry *e = kc->entries[i];
        out->loaded += e->loaded;
        out->in_use += e->refs > 0;
        out->loaded_bytes += e->bytes;
        if (e->pl) {
            pipeline_stats ps;
            pipeline_stats_get(e->pl, &ps);
            out->partitions_proved += ps.partitions_proved;
            out->prove_busy_ms += ps.prove_busy_ms;
            out->active_ms += ps.active_ms;
            out->pipeline_budget_bytes += ps.host_budget;
            out->pipeline_admitted_peak += ps.peak_admitted_bytes;
        }
    }
    pthread_mutex_unlock(&kc->mu);
}

json_t *key_cache_list(key_cache *kc)
{
    json_t *arr = json_array();
    pthread_mutex_lock(&kc->mu);
    for (size_t i = 0; arr && i < kc->count; i++) {
        key_entry *e = kc->entries[i];
        json_t *o = json_pack("{s:s, s:s, s:b, s:b, s:I, s:I}", "id", e->id, "kind",
                              e->kind == KEY_ZKEY ? "zkey" : "native", "loaded", e->loaded,
                              "loading", e->loading, "in_use", (json_int_t)e->refs, "bytes",
                              (json_int_t)e->bytes);
        if (!o || json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    pthread_mutex_unlock(&kc->mu);
    return arr;
}
