/* A job submission's body, checked and normalized (submit_request.h). */
#include "submit_request.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/synthetic.h"
#include "io/wtns.h"
#include "native_key_id.h"
#include "util/status.h"

bool submit_reject(submit_rejection *r, unsigned code, const char *fmt, ...)
{
    r->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
    return false;
}

/* An optional integer field within [lo, hi] (def when absent). */
static bool int_field(int64_t *out, submit_rejection *r, json_t *req, const char *name,
                      int64_t lo, int64_t hi, int64_t def, bool required)
{
    json_t *v = json_object_get(req, name);
    if (!v) {
        if (required)
            return submit_reject(r, 400, "missing field '%s'", name);
        *out = def;
        return true;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return submit_reject(r, 400, "'%s' must be an integer from %" PRId64 " to %" PRId64,
                             name, lo, hi);
    *out = json_integer_value(v);
    return true;
}

static bool only_fields(submit_rejection *r, json_t *req, const char *const *allowed)
{
    const char *name;
    json_t *v;
    json_object_foreach(req, name, v) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = !strcmp(*a, name);
        if (!ok)
            return submit_reject(r, 400, "unknown field '%.64s'", name);
    }
    return true;
}

static bool validate_native(const submit_rules *rules, json_t *req, json_t **norm, int64_t *parts,
                            int64_t priority, submit_rejection *r)
{
    static const char *const FIELDS[] = {"circuit", "constraints", "partitions", "seed",
                                         "public", "priority", NULL};
    const daemon_config *cfg = rules->cfg;
    int64_t n = 0, k = 0, seed = 0;
    if (!only_fields(r, req, FIELDS))
        return false;
    const char *circuit = json_string_value(json_object_get(req, "circuit"));
    if (!circuit)
        return submit_reject(r, 400, "'circuit' must be a string");
    if (strcmp(circuit, "synthetic") != 0)
        return submit_reject(r, 422, "unknown circuit '%.64s' (available: synthetic)", circuit);
    if (!int_field(&n, r, req, "constraints", (int64_t)SYNTHETIC_MIN_CONSTRAINTS,
                   cfg->max_constraints, 0, true) ||
        !int_field(parts, r, req, "partitions", 1, cfg->max_partitions, 0, true) ||
        !int_field(&seed, r, req, "seed", 0, (int64_t)1 << 53, 0, false) ||
        !int_field(&k, r, req, "public", 1, NATIVE_KEY_MAX_PUBLIC, NATIVE_KEY_DEFAULT_PUBLIC,
                   false))
        return false;
    char id[80];
    native_key_id_format(id, sizeof id, (size_t)n, (size_t)k);
    *norm = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "kind", "native", "key", id,
                      "circuit", "synthetic", "constraints", (json_int_t)n, "public",
                      (json_int_t)k, "partitions", (json_int_t)*parts, "seed",
                      (json_int_t)seed, "priority", (json_int_t)priority);
    return *norm ? true : submit_reject(r, 500, "out of memory");
}

/* The status a witness-file problem gets: the file's fault (422), or where it is (403). */
static bool witness_ok(const submit_rules *rules, json_t *resolved, size_t i, const char *given,
                       const key_shape *shape, const char *key, submit_rejection *r)
{
    char *path = NULL;
    g16_status st = config_confine_path(&path, &rules->cfg->input_dirs, given);
    if (st == G16_ERR_INVALID_ARGUMENT)
        return submit_reject(r, 403, "witnesses[%zu]: %s", i, g16_last_error());
    if (st)
        return submit_reject(r, 422, "witnesses[%zu]: %s", i, g16_last_error());
    wtns_t w;
    st = wtns_open(&w, path);
    if (st) {
        free(path);
        return submit_reject(r, 422, "witnesses[%zu]: %s", i, g16_last_error());
    }
    uint32_t got = w.n_witness;
    wtns_close(&w);
    if (got != shape->n_vars) {
        free(path);
        return submit_reject(r, 422,
                             "witnesses[%zu]: %.200s holds %u values, key %s wants %u (a "
                             "witness of another circuit)", i, given, got, key, shape->n_vars);
    }
    bool ok = !json_array_append_new(resolved, json_string(path));
    free(path);
    return ok ? true : submit_reject(r, 500, "out of memory");
}

static bool validate_zkey(const submit_rules *rules, json_t *req, json_t **norm, int64_t *parts,
                          int64_t priority, submit_rejection *r)
{
    static const char *const FIELDS[] = {"key", "witnesses", "priority", NULL};
    if (!only_fields(r, req, FIELDS))
        return false;
    const char *key = json_string_value(json_object_get(req, "key"));
    if (!key)
        return submit_reject(r, 400, "'key' must be a string (or give 'circuit')");
    key_shape shape;
    g16_status st = rules->key_shape(rules->keys, &shape, key);
    if (st == G16_ERR_INVALID_ARGUMENT)
        return submit_reject(r, 422, "%s", g16_last_error());
    if (st)
        return submit_reject(r, 500, "key %.80s cannot be opened: %s", key, g16_last_error());
    if (shape.kind != KEY_ZKEY)
        return submit_reject(r, 400,
                             "key %.80s is native: submit {\"circuit\": \"synthetic\", "
                             "\"constraints\": N, ...}", key);
    json_t *ws = json_object_get(req, "witnesses");
    if (!json_is_array(ws) || !json_array_size(ws))
        return submit_reject(r, 400, "'witnesses' must be a non-empty array of paths");
    if (json_array_size(ws) > (size_t)rules->cfg->max_partitions)
        return submit_reject(r, 400, "%zu witnesses: at most %lld per job (max_partitions)",
                             json_array_size(ws), (long long)rules->cfg->max_partitions);
    json_t *resolved = json_array();
    if (!resolved)
        return submit_reject(r, 500, "out of memory");
    size_t i;
    json_t *w;
    json_array_foreach(ws, i, w) {
        if (!json_is_string(w)) {
            json_decref(resolved);
            return submit_reject(r, 400, "witnesses[%zu] must be a path string", i);
        }
        if (!witness_ok(rules, resolved, i, json_string_value(w), &shape, key, r)) {
            json_decref(resolved);
            return false;
        }
    }
    *parts = (int64_t)json_array_size(ws);
    *norm = json_pack("{s:s, s:s, s:o, s:I}", "kind", "zkey", "key", key, "witnesses",
                      resolved, "priority", (json_int_t)priority);
    return *norm ? true : submit_reject(r, 500, "out of memory");
}

bool submit_request_parse(submit_request *out, submit_rejection *why, const submit_rules *rules,
                          const char *body, size_t len)
{
    *out = (submit_request){0};
    *why = (submit_rejection){0};
    json_error_t jerr;
    json_t *req = json_loadb(body ? body : "", body ? len : 0, JSON_REJECT_DUPLICATES, &jerr);
    bool ok;
    if (!req)
        ok = submit_reject(why, 400, "malformed JSON: line %d, column %d: %s", jerr.line,
                           jerr.column, jerr.text);
    else if (!json_is_object(req))
        ok = submit_reject(why, 400, "the request must be a JSON object");
    else
        ok = int_field(&out->priority, why, req, "priority", -1000000, 1000000, 0, false) &&
             (json_object_get(req, "circuit")
                  ? validate_native(rules, req, &out->norm, &out->partitions, out->priority,
                                    why)
                  : validate_zkey(rules, req, &out->norm, &out->partitions, out->priority,
                                  why));
    json_decref(req);
    if (!ok) {
        json_decref(out->norm);
        out->norm = NULL;
    }
    return ok;
}
