/* libFuzzer target: what the daemon reads from others. The input's first byte picks the
 * reader by its parity (even, as '0': a job submission, POST /v1/jobs's body; odd, as '1':
 * a config file), the rest is the text.
 *
 * A submission is checked by submit_request_parse against fixed rules: input directory
 * TMP/in (good.wtns and sub/good.wtns of the key's length, short.wtns of another, junk.wtns
 * that is no witness, a link to TMP/out, which holds another good.wtns, and a dangling
 * link), keys "zk" (a zkey of ZK_VARS values) and "nat" (native), max_partitions 4.
 * - A refusal is 400, 403 or 422 with a message that ends in no empty detail (500
 *   cannot happen: nothing here fails to read).
 * - An accepted job is within every limit: its partitions, priority, seed and
 *   constraints in their ranges, a native key id that the key cache parses back to the
 *   job's constraints and public inputs, every witness resolved inside TMP/in and of the
 *   key's length.
 * - The same text gets the same answer twice, and the job rebuilt from what was stored
 *   (the normalized request) is accepted as the same job.
 * A config file that loads comes back equal through config_to_json and config_load_file
 * (what `g16 daemon --print-config` prints is a config file that means the same); one
 * that does not is refused as malformed or invalid, with a message. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuit/synthetic.h"
#include "daemon/config.h"
#include "daemon/native_key_id.h"
#include "daemon/submit_request.h"
#include "field/fr.h"
#include "fuzz_files.h"
#include "io/iden3_write.h"
#include "io/wtns.h"
#include "util/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { ZK_VARS = 5, MAX_PARTITIONS = 4 };

static void require(int ok)
{
    if (!ok)
        __builtin_trap();
}

static char root[256], in_dir[PATH_MAX], cfg_path[300], cfg_path2[300];
static daemon_config rules_cfg;

/* A .wtns of n zero values (a valid witness file of length n). */
static void write_wtns(const char *path, uint32_t n)
{
    iden3_writer *w;
    require(iden3_writer_open(&w, path) == G16_OK);
    iden3_put_file_header(w, "wtns", 2, 2);
    iden3_put_section(w, 1, 4 + 32 + 4);
    iden3_put_u32(w, 32);
    for (int i = 0; i < 4; i++)
        iden3_put_u64(w, FR_MODULUS[i]);
    iden3_put_u32(w, n);
    iden3_put_section(w, 2, (uint64_t)n * 32);
    for (uint32_t i = 0; i < n * 4; i++)
        iden3_put_u64(w, 0);
    require(iden3_writer_commit(w) == G16_OK);
}

static void at(char *out, size_t cap, const char *name)
{
    require(snprintf(out, cap, "%s/%s", root, name) < (int)cap);
}

static void setup(void)
{
    if (root[0])
        return;
    fuzz_scratch_dir(root, sizeof root, "daemon");
    char p[PATH_MAX], q[PATH_MAX];
    at(p, sizeof p, "in");
    require(mkdir(p, 0755) == 0);
    at(p, sizeof p, "in/sub");
    require(mkdir(p, 0755) == 0);
    at(p, sizeof p, "out");
    require(mkdir(p, 0755) == 0);
    at(p, sizeof p, "in/good.wtns");
    write_wtns(p, ZK_VARS);
    at(p, sizeof p, "in/sub/good.wtns");
    write_wtns(p, ZK_VARS);
    at(p, sizeof p, "in/short.wtns");
    write_wtns(p, ZK_VARS - 2);
    at(p, sizeof p, "out/good.wtns");
    write_wtns(p, ZK_VARS);
    at(p, sizeof p, "in/junk.wtns");
    FILE *f = fopen(p, "wb");
    require(f && fputs("not a witness", f) >= 0 && fclose(f) == 0);
    at(p, sizeof p, "in/outside");
    at(q, sizeof q, "out");
    require(symlink(q, p) == 0);
    at(p, sizeof p, "in/dangling");
    require(symlink("nowhere.wtns", p) == 0);
    at(cfg_path, sizeof cfg_path, "config.json");
    at(cfg_path2, sizeof cfg_path2, "config2.json");

    at(p, sizeof p, "in");
    require(realpath(p, in_dir) != NULL);
    require(config_defaults(&rules_cfg) == G16_OK);
    require(config_set(&rules_cfg, "input_dirs", in_dir, "fuzz") == G16_OK);
    require(config_set(&rules_cfg, "max_partitions", "4", "fuzz") == G16_OK);
    require(config_set(&rules_cfg, "max_constraints", "100000", "fuzz") == G16_OK);
}

static g16_status fixed_keys(void *keys, key_shape *shape, const char *id)
{
    (void)keys;
    if (!strcmp(id, "zk")) {
        *shape = (key_shape){.kind = KEY_ZKEY, .n_vars = ZK_VARS, .n_public = 1};
        return G16_OK;
    }
    if (!strcmp(id, "nat")) {
        *shape = (key_shape){.kind = KEY_NATIVE, .n_public = 16};
        return G16_OK;
    }
    return status_fail(G16_ERR_INVALID_ARGUMENT, "unknown key '%.80s'", id);
}

static const submit_rules RULES = {.cfg = &rules_cfg, .key_shape = fixed_keys};

static int64_t int_of(const json_t *o, const char *name)
{
    const json_t *v = json_object_get(o, name);
    require(json_is_integer(v));
    return json_integer_value(v);
}

/* An accepted job: within every limit. */
static void check_job(const submit_request *sr)
{
    const json_t *n = sr->norm;
    require(json_is_object(n));
    require(sr->partitions >= 1 && sr->partitions <= MAX_PARTITIONS);
    require(sr->priority >= -1000000 && sr->priority <= 1000000);
    require(int_of(n, "priority") == sr->priority);
    const char *kind = json_string_value(json_object_get(n, "kind"));
    const char *key = json_string_value(json_object_get(n, "key"));
    require(kind && key);
    if (!strcmp(kind, "native")) {
        int64_t c = int_of(n, "constraints"), k = int_of(n, "public");
        require(c >= (int64_t)SYNTHETIC_MIN_CONSTRAINTS && c <= rules_cfg.max_constraints);
        require(k >= 1 && k <= NATIVE_KEY_MAX_PUBLIC);
        require(int_of(n, "partitions") == sr->partitions);
        require(int_of(n, "seed") >= 0 && int_of(n, "seed") <= (int64_t)1 << 53);
        /* The key it names is the one the key cache will load. */
        size_t kn, kk;
        require(native_key_id_parse(&kn, &kk, key, rules_cfg.max_constraints));
        require((int64_t)kn == c && (int64_t)kk == k);
        return;
    }
    require(!strcmp(kind, "zkey") && !strcmp(key, "zk"));
    const json_t *ws = json_object_get(n, "witnesses");
    require(json_is_array(ws) && (int64_t)json_array_size(ws) == sr->partitions);
    size_t len = strlen(in_dir);
    for (size_t i = 0; i < json_array_size(ws); i++) {
        const char *path = json_string_value(json_array_get(ws, i));
        require(path && !strncmp(path, in_dir, len) && path[len] == '/');
        char real[PATH_MAX];
        require(realpath(path, real) && !strcmp(real, path));
        wtns_t w;
        require(wtns_open(&w, path) == G16_OK);
        require(w.n_witness == ZK_VARS);
        wtns_close(&w);
    }
}

/* The request that the stored job says was made. */
static char *request_of(const json_t *norm)
{
    json_t *req = json_deep_copy(norm);
    require(req != NULL);
    json_object_del(req, "kind");
    if (!strcmp(json_string_value(json_object_get(norm, "kind")), "native"))
        json_object_del(req, "key");
    char *text = json_dumps(req, JSON_COMPACT);
    require(text != NULL);
    json_decref(req);
    return text;
}

static void check_submission(const uint8_t *data, size_t size)
{
    submit_request a, b;
    submit_rejection ra, rb;
    status_clear(); /* a refusal that quotes g16_last_error() quotes this parse's error */
    bool ok = submit_request_parse(&a, &ra, &RULES, (const char *)data, size);
    status_clear();
    require(submit_request_parse(&b, &rb, &RULES, (const char *)data, size) == ok);
    if (!ok) {
        require(ra.code == 400 || ra.code == 403 || ra.code == 422);
        /* Says what is wrong: no message ends in an empty quoted detail. */
        size_t len = strlen(ra.msg);
        require(len > 0 && !(len >= 2 && ra.msg[len - 2] == ':' && ra.msg[len - 1] == ' '));
        require(rb.code == ra.code && !strcmp(ra.msg, rb.msg));
        require(!a.norm && !b.norm);
        return;
    }
    check_job(&a);
    require(json_equal(a.norm, b.norm) && b.partitions == a.partitions &&
            b.priority == a.priority);
    char *again = request_of(a.norm);
    submit_request c;
    require(submit_request_parse(&c, &rb, &RULES, again, strlen(again)));
    require(json_equal(a.norm, c.norm) && c.partitions == a.partitions);
    free(again);
    json_decref(a.norm);
    json_decref(b.norm);
    json_decref(c.norm);
}

static void check_config(const uint8_t *data, size_t size)
{
    fuzz_put(cfg_path, data, size);
    daemon_config cfg;
    require(config_defaults(&cfg) == G16_OK);
    status_clear();
    g16_status st = config_load_file(&cfg, cfg_path);
    if (st != G16_OK) {
        require(st == G16_ERR_FORMAT || st == G16_ERR_INVALID_ARGUMENT);
        require(g16_last_error()[0] != '\0');
        config_free(&cfg);
        return;
    }
    char *text = config_to_json(&cfg);
    require(text != NULL);
    fuzz_put(cfg_path2, text, strlen(text));
    daemon_config again;
    require(config_defaults(&again) == G16_OK);
    require(config_load_file(&again, cfg_path2) == G16_OK);
    char *text2 = config_to_json(&again);
    require(text2 && !strcmp(text, text2));
    free(text);
    free(text2);
    config_free(&cfg);
    config_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    setup();
    if (data[0] % 2 == 0)
        check_submission(data + 1, size - 1);
    else
        check_config(data + 1, size - 1);
    return 0;
}
