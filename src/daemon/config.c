/* The daemon's settings table (config.h). */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/bytes.h"
#include "util/input_file.h"
#include "util/parallel.h"
#include "util/status.h"

typedef enum {
    SET_STRING,
    SET_CHOICE,  /* a string from `choices` */
    SET_INT,     /* int64_t within [min, max] */
    SET_BYTES,   /* uint64_t: "0", or bytes_parse's forms, within [min, max] */
    SET_SECONDS, /* double within [min, max] */
    SET_LIST,    /* daemon_list: a flag appends, the file gives an array */
    SET_KEYS,    /* "id=path": a flag appends, the file gives an object {id: path} */
} setting_type;

typedef struct {
    const char *name;
    const char *flag_alias; /* a second flag name (singular for lists), or NULL */
    setting_type type;
    size_t offset;
    const char *def;        /* the default, as text, set through the same parser */
    double min, max;
    const char *choices;    /* SET_CHOICE: "a|b|c" */
    const char *help;
} setting;

#define AT(field) offsetof(daemon_config, field)
#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* Every setting. The README's table is `g16 daemon --config-table` (tests/daemon checks
 * that they agree). */
static const setting SETTINGS[] = {
    {"listen", NULL, SET_STRING, AT(listen), "127.0.0.1", 0, 0, NULL,
     "address the HTTP API binds to (another address exposes it beyond this machine)"},
    {"port", NULL, SET_INT, AT(port), "7816", 0, 65535, NULL,
     "TCP port; 0 picks a free one. The port in use is written to STATE_DIR/port"},
    {"token_file", NULL, SET_STRING, AT(token_file), "", 0, 0, NULL,
     "file holding the bearer token that state-changing calls need; \"\": "
     "STATE_DIR/token, made (mode 0600) when missing"},
    {"max_body", NULL, SET_BYTES, AT(max_body), "1M", KIB, 64 * MIB, NULL,
     "largest request body; larger ones get 413"},
    {"http_threads", NULL, SET_INT, AT(http_threads), "4", 1, 64, NULL,
     "threads serving HTTP requests"},
    {"state_dir", NULL, SET_STRING, AT(state_dir), "g16-state", 0, 0, NULL,
     "directory for the job store, native keys, the token, the port file and the lock"},
    {"store", NULL, SET_STRING, AT(store), "", 0, 0, NULL,
     "job store: \"\" is sqlite:STATE_DIR/jobs.db; postgresql://... shares one queue "
     "among daemons"},
    {"owner", NULL, SET_STRING, AT(owner), "", 0, 0, NULL,
     "this daemon's id in the store (unique per daemon); \"\": the host name and a hash "
     "of STATE_DIR, the same across restarts"},
    {"max_queued", NULL, SET_INT, AT(max_queued), "1000", 1, 1000000, NULL,
     "queued jobs beyond which submissions get 429"},
    {"max_partitions", NULL, SET_INT, AT(max_partitions), "1024", 1, 100000, NULL,
     "partitions (native) or witnesses (zkey) per job"},
    {"max_constraints", NULL, SET_INT, AT(max_constraints), "1048576", 1024, 134217728, NULL,
     "largest native circuit a job may ask for (its key is made on demand)"},
    {"max_attempts", NULL, SET_INT, AT(max_attempts), "3", 1, 100, NULL,
     "claims of one job (a daemon died while proving it) before it is failed"},
    {"lease", NULL, SET_SECONDS, AT(lease), "30", 1, 3600, NULL,
     "seconds a claimed job stays this daemon's without a heartbeat (every lease/3)"},
    {"poll", NULL, SET_SECONDS, AT(poll), "0.5", 0.01, 60, NULL,
     "seconds between looks at the store for work when idle"},
    {"shutdown_grace", NULL, SET_SECONDS, AT(shutdown_grace), "30", 0, 86400, NULL,
     "seconds SIGTERM waits for jobs in flight before putting them back in the queue"},
    {"input_dirs", "input-dir", SET_LIST, AT(input_dirs), "", 0, 0, NULL,
     "directories witness paths must resolve into (realpath: no escape by .. or links); "
     "relative paths are taken from the first"},
    {"keys", "key", SET_KEYS, AT(keys), "", 0, 0, NULL,
     "proving keys by id: ID=PATH.zkey (file: an object {\"ID\": \"PATH\"})"},
    {"preload", NULL, SET_LIST, AT(preload), "", 0, 0, NULL,
     "key ids loaded at start (zkey ids, or native ids such as synthetic-4096)"},
    {"key_budget", NULL, SET_BYTES, AT(key_budget), "0", 0, 4611686018427387904.0, NULL,
     "bytes of loaded keys; the least recently used unused key is evicted to fit; 0: half "
     "of MemAvailable"},
    {"backend", NULL, SET_CHOICE, AT(backend), "auto", 0, 0, "cpu|cuda|auto",
     "where proofs run: auto is CUDA when a device answers, else the CPU"},
    {"concurrency", NULL, SET_INT, AT(concurrency), "1", 1, 64, NULL, "jobs in flight"},
    {"threads", NULL, SET_INT, AT(threads), "0", 0, PARALLEL_MAX_THREADS, NULL,
     "CPU threads for proving; 0: every CPU"},
    {"synth_threads", NULL, SET_INT, AT(synth_threads), "0", 0, 256, NULL,
     "pipeline synthesis threads per key; 0: 1"},
    {"lookahead", NULL, SET_INT, AT(lookahead), "0", 0, 1024, NULL,
     "pipeline lookahead; 0: synthesis threads + 1"},
    {"provers", NULL, SET_INT, AT(provers), "0", 0, 64, NULL,
     "pipeline CPU prover workers; 0: 1"},
    {"mem_budget", NULL, SET_BYTES, AT(mem_budget), "0", 0, 4611686018427387904.0, NULL,
     "host bytes of each pipeline: its key's points, then its partition buffers; "
     "0: 3/4 of MemAvailable"},
};
enum { N_SETTINGS = sizeof SETTINGS / sizeof SETTINGS[0] };

static const setting *find_setting(const char *name, size_t len)
{
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (strlen(SETTINGS[i].name) == len && !strncmp(SETTINGS[i].name, name, len))
            return &SETTINGS[i];
    return NULL;
}

static void *field(daemon_config *cfg, const setting *s) { return (char *)cfg + s->offset; }
static const void *cfield(const daemon_config *cfg, const setting *s)
{
    return (const char *)cfg + s->offset;
}

static void list_clear(daemon_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

static g16_status list_append(daemon_list *l, const char *item)
{
    char **grown = realloc(l->items, (l->count + 1) * sizeof *grown);
    if (!grown)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "config list");
    l->items = grown;
    if (!(l->items[l->count] = strdup(item)))
        return status_fail(G16_ERR_OUT_OF_MEMORY, "config list item");
    l->count++;
    return G16_OK;
}

static void keys_clear(daemon_config *cfg)
{
    for (size_t i = 0; i < cfg->n_keys; i++) {
        free(cfg->keys[i].id);
        free(cfg->keys[i].path);
    }
    free(cfg->keys);
    cfg->keys = NULL;
    cfg->n_keys = 0;
}

/* Key ids appear in URLs and file names: letters, digits, '.', '_', '-', at most 64. */
static bool key_id_ok(const char *id, size_t len)
{
    if (len == 0 || len > 64 || id[0] == '.')
        return false;
    for (size_t i = 0; i < len; i++)
        if (!(id[i] >= 'a' && id[i] <= 'z') && !(id[i] >= 'A' && id[i] <= 'Z') &&
            !(id[i] >= '0' && id[i] <= '9') && !strchr("._-", id[i]))
            return false;
    return true;
}

static g16_status keys_add(daemon_config *cfg, const char *id, size_t id_len, const char *path,
                           const char *from)
{
    if (!key_id_ok(id, id_len))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "%s: key id '%.*s': use 1 to 64 letters, digits, '.', '_' or '-'",
                           from, (int)(id_len > 80 ? 80 : id_len), id);
    if (id_len >= 10 && !strncmp(id, "synthetic-", 10))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "%s: key id '%.*s': ids starting with synthetic- name native keys",
                           from, (int)id_len, id);
    if (!*path)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: key '%.*s' has no path", from,
                           (int)id_len, id);
    for (size_t i = 0; i < cfg->n_keys; i++)
        if (strlen(cfg->keys[i].id) == id_len && !strncmp(cfg->keys[i].id, id, id_len))
            return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: key id '%.*s' given twice",
                               from, (int)id_len, id);
    daemon_key_spec *grown = realloc(cfg->keys, (cfg->n_keys + 1) * sizeof *grown);
    if (!grown)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "config keys");
    cfg->keys = grown;
    daemon_key_spec *k = &cfg->keys[cfg->n_keys];
    k->id = strndup(id, id_len);
    k->path = strdup(path);
    if (!k->id || !k->path) {
        free(k->id);
        free(k->path);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "config key");
    }
    cfg->n_keys++;
    return G16_OK;
}

static g16_status out_of_bounds(const setting *s, const char *value, const char *from,
                                const char *unit)
{
    if (s->type == SET_BYTES)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "%s: %s = '%s': want bytes (4096, 512K, 8M, 1.5G) from %.0f to "
                           "%.0f%s", from, s->name, value, s->min, s->max,
                           s->min == 0 ? " (0: the default rule)" : "");
    return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: %s = '%s': want %s from %g to %g", from,
                       s->name, value, unit, s->min, s->max);
}

/* Whether v is one of the '|'-separated choices. */
static bool choice_ok(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *c = choices; *c;) {
        size_t len = strcspn(c, "|");
        if (len == n && n && !strncmp(c, v, n))
            return true;
        c += len + (c[len] == '|');
    }
    return false;
}

static g16_status set_string(void *f, const setting *s, const char *v, const char *from)
{
    if (strlen(v) > PATH_MAX)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: %s is longer than %d bytes", from,
                           s->name, PATH_MAX);
    char *copy = strdup(v);
    if (!copy)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "config %s", s->name);
    free(*(char **)f);
    *(char **)f = copy;
    return G16_OK;
}

static g16_status set_value(daemon_config *cfg, const setting *s, const char *v,
                            const char *from)
{
    void *f = field(cfg, s);
    switch (s->type) {
    case SET_CHOICE:
        if (!choice_ok(s->choices, v))
            return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: %s = '%s': want one of %s", from,
                               s->name, v, s->choices);
        return set_string(f, s, v, from);
    case SET_STRING:
        return set_string(f, s, v, from);
    case SET_INT: {
        char *end;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (errno || end == v || *end || n < s->min || n > s->max)
            return out_of_bounds(s, v, from, "an integer");
        *(int64_t *)f = n;
        return G16_OK;
    }
    case SET_BYTES: {
        uint64_t n = 0;
        if (strcmp(v, "0") != 0 && !bytes_parse(&n, v))
            return out_of_bounds(s, v, from, "bytes");
        if ((double)n < s->min || (double)n > s->max)
            return out_of_bounds(s, v, from, "bytes");
        *(uint64_t *)f = n;
        return G16_OK;
    }
    case SET_SECONDS: {
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (errno || end == v || *end || !(d >= s->min && d <= s->max))
            return out_of_bounds(s, v, from, "seconds");
        *(double *)f = d;
        return G16_OK;
    }
    case SET_LIST:
        if (!*v)
            return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: %s: an empty item", from,
                               s->name);
        return list_append(f, v);
    case SET_KEYS: {
        const char *eq = strchr(v, '=');
        if (!eq)
            return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: %s = '%s': want ID=PATH", from,
                               s->name, v);
        return keys_add(cfg, v, (size_t)(eq - v), eq + 1, from);
    }
    }
    return status_fail(G16_ERR_INTERNAL, "setting %s has an unknown type", s->name);
}

/* Empties a list or key setting (before the file's value, or a command line's first). */
static void clear_setting(daemon_config *cfg, const setting *s)
{
    if (s->type == SET_LIST)
        list_clear(field(cfg, s));
    else if (s->type == SET_KEYS)
        keys_clear(cfg);
}

g16_status config_set(daemon_config *cfg, const char *name, const char *value,
                      const char *from)
{
    const setting *s = find_setting(name, strlen(name));
    if (!s)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: unknown setting '%s'", from, name);
    return set_value(cfg, s, value, from);
}

g16_status config_defaults(daemon_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const setting *s = &SETTINGS[i];
        if ((s->type == SET_LIST || s->type == SET_KEYS) && !*s->def)
            continue;
        g16_status st = set_value(cfg, s, s->def, "default");
        if (st) {
            config_free(cfg);
            return st;
        }
    }
    return G16_OK;
}

void config_free(daemon_config *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const setting *s = &SETTINGS[i];
        if (s->type == SET_STRING || s->type == SET_CHOICE) {
            free(*(char **)field(cfg, s));
            *(char **)field(cfg, s) = NULL;
        } else {
            clear_setting(cfg, s);
        }
    }
}

/* One JSON value of the file as the text a flag would give. */
static g16_status json_scalar_text(char *buf, size_t cap, const setting *s, json_t *v,
                                   const char *from)
{
    if (json_is_string(v)) {
        if (json_string_length(v) >= cap)
            return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: %s is too long", from, s->name);
        snprintf(buf, cap, "%s", json_string_value(v));
    } else if (json_is_integer(v) && s->type != SET_STRING && s->type != SET_CHOICE) {
        snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v) && s->type != SET_STRING && s->type != SET_CHOICE) {
        snprintf(buf, cap, "%.17g", json_real_value(v));
    } else {
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: %s: want a %s", from, s->name,
                           s->type == SET_STRING || s->type == SET_CHOICE ? "string"
                                                                          : "number or string");
    }
    return G16_OK;
}

static g16_status apply_json(daemon_config *cfg, const setting *s, json_t *v, const char *from)
{
    char buf[PATH_MAX + 2];
    g16_status st;
    if (s->type == SET_LIST) {
        if (!json_is_array(v))
            return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: %s: want an array of strings",
                               from, s->name);
        clear_setting(cfg, s);
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) {
            if (!json_is_string(item))
                return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: %s[%zu]: want a string",
                                   from, s->name, i);
            if ((st = set_value(cfg, s, json_string_value(item), from)))
                return st;
        }
        return G16_OK;
    }
    if (s->type == SET_KEYS) {
        if (!json_is_object(v))
            return status_fail(G16_ERR_INVALID_ARGUMENT,
                               "%s: keys: want an object {\"id\": \"path.zkey\"}", from);
        clear_setting(cfg, s);
        const char *id;
        json_t *path;
        json_object_foreach(v, id, path) {
            if (!json_is_string(path))
                return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: keys.%s: want a path string",
                                   from, id);
            if ((st = keys_add(cfg, id, strlen(id), json_string_value(path), from)))
                return st;
        }
        return G16_OK;
    }
    if ((st = json_scalar_text(buf, sizeof buf, s, v, from)))
        return st;
    return set_value(cfg, s, buf, from);
}

g16_status config_load_file(daemon_config *cfg, const char *path)
{
    FILE *f;
    g16_status st = input_file_open(&f, path);
    if (st)
        return st;
    json_error_t err;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &err);
    bool read_failed = ferror(f) != 0;
    fclose(f);
    if (!root && read_failed)
        return status_fail(G16_ERR_IO, "%s: read error", path);
    if (!root)
        return status_fail(G16_ERR_FORMAT, "%s: line %d: %s", path, err.line, err.text);
    if (!json_is_object(root))
        st = status_fail(G16_ERR_INVALID_ARGUMENT, "%s: want a JSON object of settings", path);
    const char *name;
    json_t *v;
    json_object_foreach(root, name, v) {
        if (st)
            break;
        const setting *s = find_setting(name, strlen(name));
        if (!s)
            st = status_fail(G16_ERR_INVALID_ARGUMENT,
                             "%s: unknown setting '%s' (g16 daemon --help lists them)", path,
                             name);
        else
            st = apply_json(cfg, s, v, path);
    }
    json_decref(root);
    return st;
}

/* The setting a flag names ("--mem-budget", "--key"); *len_out is the name's length when
 * the flag carries "=VALUE". */
static const setting *flag_setting(const char *flag, size_t len)
{
    char name[64];
    if (len >= sizeof name)
        return NULL;
    for (size_t i = 0; i < len; i++)
        name[i] = flag[i] == '-' ? '_' : flag[i];
    name[len] = 0;
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (!strcmp(SETTINGS[i].name, name) ||
            (SETTINGS[i].flag_alias && strlen(SETTINGS[i].flag_alias) == len &&
             !strncmp(SETTINGS[i].flag_alias, flag, len)))
            return &SETTINGS[i];
    return NULL;
}

g16_status config_parse_args(daemon_config *cfg, bool *help, bool *print, int argc,
                             char **argv)
{
    g16_status st;
    *help = *print = false;
    /* The file first, wherever --config appears, so that every flag overrides it. */
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--config") || !strncmp(argv[i], "--config=", 9)) {
            const char *path = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : NULL;
            if (!path)
                return status_fail(G16_ERR_INVALID_ARGUMENT, "--config needs a file");
            if ((st = config_load_file(cfg, path)))
                return st;
        }
    bool cleared[N_SETTINGS] = {false};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--config") || !strncmp(a, "--config=", 9)) {
            i += a[8] != '=';
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            *help = true;
            continue;
        }
        if (!strcmp(a, "--print-config")) {
            *print = true;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            return status_fail(G16_ERR_INVALID_ARGUMENT, "unexpected argument '%s'", a);
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        const setting *s = flag_setting(a + 2, len);
        if (!s)
            return status_fail(G16_ERR_INVALID_ARGUMENT,
                               "unknown option '%.*s' (g16 daemon --help lists them)",
                               (int)(len + 2), a);
        const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!v)
            return status_fail(G16_ERR_INVALID_ARGUMENT, "%s needs a value", a);
        size_t k = (size_t)(s - SETTINGS);
        if (!cleared[k]) {
            clear_setting(cfg, s);
            cleared[k] = true;
        }
        if ((st = set_value(cfg, s, v, "command line")))
            return st;
    }
    return G16_OK;
}

static const char *type_word(const setting *s)
{
    switch (s->type) {
    case SET_STRING: return "string";
    case SET_CHOICE: return s->choices;
    case SET_INT: return "integer";
    case SET_BYTES: return "bytes";
    case SET_SECONDS: return "seconds";
    case SET_LIST: return "list";
    case SET_KEYS: return "ID=PATH list";
    }
    return "?";
}

static void bounds_text(char *buf, size_t cap, const setting *s)
{
    buf[0] = 0;
    if (s->type == SET_INT || s->type == SET_BYTES)
        snprintf(buf, cap, "%.0f..%.0f", s->min, s->max);
    else if (s->type == SET_SECONDS)
        snprintf(buf, cap, "%g..%g", s->min, s->max);
    else if (s->type == SET_CHOICE) /* "a|b|c" as "a, b, c" (a '|' would split a table row) */
        for (const char *c = s->choices; *c && strlen(buf) + 3 < cap; c++)
            strncat(buf, *c == '|' ? ", " : (char[2]){*c, 0}, cap - strlen(buf) - 1);
}

static void flag_name(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "--%s", name);
    for (char *p = buf; *p; p++)
        if (*p == '_')
            *p = '-';
}

void config_print_usage(FILE *out)
{
    fprintf(out, "usage: g16 daemon [--config FILE.json] [--SETTING VALUE ...] [--print-config]\n"
                 "         [--config-table]\n");
}

void config_print_help(FILE *out)
{
    config_print_usage(out);
    fprintf(out, "  --print-config: the settings in effect as a config file; --config-table: "
                 "this table in Markdown\n"
                 "Settings (flags override the file; the file is a JSON object of the same "
                 "names):\n");
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const setting *s = &SETTINGS[i];
        char flag[64], bounds[64];
        flag_name(flag, sizeof flag, s->flag_alias ? s->flag_alias : s->name);
        bounds_text(bounds, sizeof bounds, s);
        fprintf(out, "  %-18s %-14s default \"%s\"%s%s\n      %s\n", flag, type_word(s),
                s->def, *bounds ? ", " : "", bounds, s->help);
    }
}

void config_print_markdown(FILE *out)
{
    fprintf(out, "| setting (file) | flag | type | default | bounds | meaning |\n"
                 "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const setting *s = &SETTINGS[i];
        char flag[64], bounds[64];
        flag_name(flag, sizeof flag, s->flag_alias ? s->flag_alias : s->name);
        bounds_text(bounds, sizeof bounds, s);
        fprintf(out, "| `%s` | `%s` | %s | `%s` | %s | ", s->name, flag,
                s->type == SET_CHOICE ? "choice" : type_word(s), *s->def ? s->def : "\"\"",
                bounds);
        /* The help text with '|' (choices) escaped for Markdown. */
        for (const char *h = s->help; *h; h++) {
            if (*h == '|')
                fputc('\\', out);
            fputc(*h, out);
        }
        fprintf(out, " |\n");
    }
}

char *config_to_json(const daemon_config *cfg)
{
    json_t *root = json_object();
    for (size_t i = 0; root && i < N_SETTINGS; i++) {
        const setting *s = &SETTINGS[i];
        const void *f = cfield(cfg, s);
        json_t *v = NULL;
        switch (s->type) {
        case SET_STRING:
        case SET_CHOICE: v = json_string(*(char *const *)f ? *(char *const *)f : ""); break;
        case SET_INT: v = json_integer(*(const int64_t *)f); break;
        case SET_BYTES: v = json_integer((json_int_t) * (const uint64_t *)f); break;
        case SET_SECONDS: v = json_real(*(const double *)f); break;
        case SET_LIST: {
            const daemon_list *l = f;
            v = json_array();
            for (size_t k = 0; v && k < l->count; k++)
                json_array_append_new(v, json_string(l->items[k]));
            break;
        }
        case SET_KEYS:
            v = json_object();
            for (size_t k = 0; v && k < cfg->n_keys; k++)
                json_object_set_new(v, cfg->keys[k].id, json_string(cfg->keys[k].path));
            break;
        }
        if (!v || json_object_set_new(root, s->name, v) != 0) {
            json_decref(root);
            return NULL;
        }
    }
    char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    return text;
}

/* Whether path lies below dir (both resolved). */
static bool below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    /* "/data/in/x" for "/data/in", never "/data/input/x"; the root directory holds all. */
    return !strncmp(path, dir, n) && (path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/* Whether real (a resolved path) lies below one of the directories as resolved, or with
 * at_too is one of them. A missing directory confines nothing. */
static bool real_inside(const char *real, const daemon_list *dirs, bool at_too)
{
    for (size_t i = 0; i < dirs->count; i++) {
        char *dir = realpath(dirs->items[i], NULL);
        bool in = dir && (below(real, dir) || (at_too && !strcmp(real, dir)));
        free(dir);
        if (in)
            return true;
    }
    return false;
}

/* For a path that does not resolve: whether saying so tells nothing about what lies
 * outside the directories, i.e. the deepest part of it that exists resolves inside one
 * (or is one); not when that part is a dangling link (it could point anywhere). */
static bool missing_inside(const char *joined, const daemon_list *dirs)
{
    char part[2 * PATH_MAX + 2];
    snprintf(part, sizeof part, "%s", joined);
    for (;;) {
        struct stat st;
        if (lstat(part, &st) == 0) {
            char *real = realpath(part, NULL); /* NULL for a dangling link */
            bool in = real && real_inside(real, dirs, true);
            free(real);
            return in;
        }
        char *slash = strrchr(part, '/');
        if (!slash || slash == part)
            return false;
        *slash = 0;
    }
}

g16_status config_confine_path(char **resolved, const daemon_list *dirs, const char *path)
{
    *resolved = NULL;
    if (!dirs->count)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "%s: no input directories are configured (input_dirs)", path);
    if (!*path || strlen(path) >= PATH_MAX)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "an empty or too long path");
    char joined[2 * PATH_MAX + 2];
    int len = path[0] != '/' ? snprintf(joined, sizeof joined, "%s/%s", dirs->items[0], path)
                             : snprintf(joined, sizeof joined, "%s", path);
    if (len < 0 || (size_t)len >= sizeof joined)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: too long a path", path);
    /* Resolved, every link followed: the file must lie below one. One that does not
     * resolve is "missing" only where that says nothing of the outside (a missing name
     * outside, or through a link inside that leads out, is refused like the rest). */
    char *real = realpath(joined, NULL);
    if (!real) {
        int err = errno;
        if (missing_inside(joined, dirs))
            return status_fail(G16_ERR_IO, "%s: %s", path, strerror(err));
    } else if (real_inside(real, dirs, false)) {
        *resolved = real;
        return G16_OK;
    }
    free(real);
    return status_fail(G16_ERR_INVALID_ARGUMENT,
                       "%s: resolves outside the input directories (input_dirs)", path);
}
