/* The daemon's proving keys: loaded on first use (or at start, `preload`), kept while
 * jobs use them, and evicted least recently used first when the loaded keys would exceed
 * the key budget.
 *
 * Two kinds, by id:
 *   zkey     an id from the configuration's `keys` (id = path of a snarkjs .zkey), mapped
 *            with zkey_open; its verifying key comes from the file.
 *   native   "synthetic-N" (the synthetic circuit of N constraints, 16 public inputs) or
 *            "synthetic-N-pK" (K public inputs): STATE_DIR/keys/<id>.g16k, made by the
 *            development setup when missing (as `g16 bench --key`), then mapped.
 * Either kind carries a pipeline (pipeline/pipeline.h) whose buffer slots fit its
 * partitions (a zkey's witnesses, a native circuit's partitions), made on first use and
 * freed with the key (evicted or at key_cache_free).
 *
 * Budget. A key is charged its file's size (the mapping that proving reads; the pipeline's
 * buffers are under mem_budget instead). Before a key is loaded, unused keys are evicted,
 * least recently used first, until it fits; when keys in use hold the budget, the load
 * waits for them to be released; a key larger than the whole budget is an error naming
 * both sizes. A native key made by the setup is charged once it exists.
 *
 * Thread safety: every function may be called from any thread. Loading runs outside the
 * cache's lock (a setup can take minutes); a second caller for the same key waits for the
 * first one's load. */
#ifndef G16_DAEMON_KEY_CACHE_H
#define G16_DAEMON_KEY_CACHE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/config.h"
#include "g16.h"
#include "groth16/groth16.h"
#include "groth16/prove.h"
#include "io/native_key.h"
#include "io/zkey.h"
#include "pipeline/pipeline.h"

typedef struct key_cache key_cache;

typedef enum { KEY_ZKEY, KEY_NATIVE } key_kind;

/* A loaded key, valid between key_cache_acquire and key_cache_release. */
typedef struct {
    const char *id;
    key_kind kind;
    const groth16_prover_key *pk;
    const groth16_vk *vk;
    const zkey_t *zkey;          /* KEY_ZKEY */
    size_t n_constraints;        /* KEY_NATIVE: the circuit's rows */
    size_t n_public;
} key_handle;

/* What a request is checked against before it is accepted, without loading the key:
 * a zkey's header (read once), or a native key's parameters. */
typedef struct {
    key_kind kind;
    uint32_t n_vars;             /* KEY_ZKEY: the witness length it expects */
    uint32_t n_public;
} key_shape;

/* budget: bytes (0: half of MemAvailable). cfg must outlive the cache (its keys, state
 * directory and pipeline settings are used). */
g16_status key_cache_create(key_cache **kc, const daemon_config *cfg, uint64_t budget);
/* Frees every key and pipeline; no key may be in use. */
void key_cache_free(key_cache *kc);


/* A zkey id's shape (its header is read on the first call) or a native id's. G16_ERR_
 * INVALID_ARGUMENT "unknown key" for an id that is neither; the reader's error for a zkey
 * that cannot be opened. */
g16_status key_cache_shape(key_cache *kc, key_shape *shape, const char *id);

/* Loads the key (see the budget above) and holds it for the caller. */
g16_status key_cache_acquire(key_cache *kc, key_handle **key, const char *id);
void key_cache_release(key_cache *kc, key_handle *key);

/* The pipeline of a held key (zkey or native), made on first use. */
g16_status key_cache_pipeline(key_cache *kc, pipeline **pl, key_handle *key);

/* Unloads an unused key. *evicted false when it was not loaded; G16_ERR_INVALID_ARGUMENT
 * when it is in use or unknown. */
g16_status key_cache_evict(key_cache *kc, bool *evicted, const char *id);

typedef struct {
    uint64_t budget, loaded_bytes;
    size_t loaded, in_use, loads, evictions;
    /* Summed over the keys' pipelines. */
    size_t partitions_in_flight, partitions_proved;
    double prove_busy_ms, active_ms;
    uint64_t pipeline_budget_bytes, pipeline_admitted_peak;
} key_cache_stats;
void key_cache_stats_get(key_cache *kc, key_cache_stats *out);

/* [{"id":..., "kind":"zkey"|"native", "loaded":bool, "in_use":n, "bytes":n, "path":...}] */
json_t *key_cache_list(key_cache *kc);

#endif
