#include "snarkjs_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "curve/pairing.h"
#include "decimal.h"
#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/status.h"

/* --- reading ----------------------------------------------------------------------------- */

typedef struct {
    const char *path;
    const char *field; /* e.g. "pi_a" */
} ctx;

static g16_status bad(const ctx *c, const char *what)
{
    return status_fail(G16_ERR_FORMAT, "%s: %s: %s", c->path, c->field, what);
}

static g16_status load(json_t **root, const char *path)
{
    *root = NULL;
    FILE *f;
    g16_status st = input_file_open(&f, path);
    if (st)
        return st;
    json_error_t err;
    *root = json_loadf(f, JSON_REJECT_DUPLICATES, &err);
    bool read_failed = ferror(f) != 0;
    fclose(f);
    if (!*root && read_failed)
        return status_fail(G16_ERR_IO, "%s: read error", path);
    if (!*root)
        return status_fail(G16_ERR_FORMAT, "%s: line %d: %s", path, err.line, err.text);
    return G16_OK;
}

static g16_status read_fp(fp_t *r, const ctx *c, json_t *v)
{
    uint64_t limbs[6];
    if (!json_is_string(v))
        return bad(c, "expected a decimal string");
    if (!decimal_to_limbs(limbs, 6, json_string_value(v)) || !fp_from_limbs(r, limbs))
        return bad(c, "not a canonical base-field element (a decimal below p)");
    return G16_OK;
}

static g16_status read_fr(fr_t *r, const ctx *c, json_t *v)
{
    uint64_t limbs[4];
    if (!json_is_string(v))
        return bad(c, "expected a decimal string");
    if (!decimal_to_limbs(limbs, 4, json_string_value(v)) || !fr_from_limbs(r, limbs))
        return bad(c, "not a canonical scalar (a decimal below r)");
    return G16_OK;
}

/* The projective "z" entry: "1" for an affine point, "0" for infinity. */
static g16_status read_z(bool *infinity, const ctx *c, json_t *v)
{
    const char *s = json_string_value(v);
    if (s && !strcmp(s, "1")) {
        *infinity = false;
        return G16_OK;
    }
    if (s && !strcmp(s, "0")) {
        *infinity = true;
        return G16_OK;
    }
    return bad(c, "third coordinate must be \"1\" (affine) or \"0\" (infinity)");
}

static g16_status read_g1(g1_affine_t *p, const ctx *c, json_t *v)
{
    g16_status st;
    bool inf;
    if (!json_is_array(v) || json_array_size(v) != 3)
        return bad(c, "expected [x, y, z]");
    if ((st = read_z(&inf, c, json_array_get(v, 2))))
        return st;
    if (inf) {
        g1_affine_set_infinity(p);
        return G16_OK;
    }
    if ((st = read_fp(&p->x, c, json_array_get(v, 0))) ||
        (st = read_fp(&p->y, c, json_array_get(v, 1))))
        return st;
    if (!g1_affine_is_on_curve(p))
        return status_fail(G16_ERR_NOT_ON_CURVE, "%s: %s: point is not on the G1 curve",
                           c->path, c->field);
    if (!g1_affine_is_in_subgroup(p))
        return status_fail(G16_ERR_NOT_IN_SUBGROUP, "%s: %s: point is not in G1", c->path,
                           c->field);
    return G16_OK;
}

static g16_status read_fp2(fp2_t *r, const ctx *c, json_t *v)
{
    g16_status st;
    if (!json_is_array(v) || json_array_size(v) != 2)
        return bad(c, "expected an Fp2 element [c0, c1]");
    if ((st = read_fp(&r->c0, c, json_array_get(v, 0))) ||
        (st = read_fp(&r->c1, c, json_array_get(v, 1))))
        return st;
    return G16_OK;
}

static g16_status read_g2(g2_affine_t *p, const ctx *c, json_t *v)
{
    g16_status st;
    if (!json_is_array(v) || json_array_size(v) != 3)
        return bad(c, "expected [[x0, x1], [y0, y1], [z0, z1]]");
    json_t *z = json_array_get(v, 2);
    if (!json_is_array(z) || json_array_size(z) != 2 || !json_is_string(json_array_get(z, 1)) ||
        strcmp(json_string_value(json_array_get(z, 1)), "0") != 0)
        return bad(c, "third coordinate must be [\"1\", \"0\"] or [\"0\", \"0\"]");
    bool inf;
    if ((st = read_z(&inf, c, json_array_get(z, 0))))
        return st;
    if (inf) {
        g2_affine_set_infinity(p);
        return G16_OK;
    }
    if ((st = read_fp2(&p->x, c, json_array_get(v, 0))) ||
        (st = read_fp2(&p->y, c, json_array_get(v, 1))))
        return st;
    if (!g2_affine_is_on_curve(p))
        return status_fail(G16_ERR_NOT_ON_CURVE, "%s: %s: point is not on the G2 curve",
                           c->path, c->field);
    if (!g2_affine_is_in_subgroup(p))
        return status_fail(G16_ERR_NOT_IN_SUBGROUP, "%s: %s: point is not in G2", c->path,
                           c->field);
    return G16_OK;
}

/* protocol must be "groth16" and curve "bls12381" when present; BN254 is named. */
static g16_status check_header(json_t *root, const char *path)
{
    ctx c = {path, "protocol"};
    json_t *proto = json_object_get(root, "protocol");
    if (proto && (!json_is_string(proto) || strcmp(json_string_value(proto), "groth16")))
        return status_fail(G16_ERR_UNSUPPORTED, "%s: protocol is not groth16", path);
    json_t *curve = json_object_get(root, "curve");
    c.field = "curve";
    if (curve) {
        const char *s = json_string_value(curve);
        if (!s)
            return bad(&c, "expected a string");
        if (!strcmp(s, "bn128") || !strcmp(s, "bn254"))
            return status_fail(G16_ERR_UNSUPPORTED, "%s: curve BN254 is not supported yet", path);
        if (strcmp(s, "bls12381"))
            return status_fail(G16_ERR_UNSUPPORTED, "%s: unsupported curve \"%s\"", path, s);
    }
    return G16_OK;
}

g16_status json_read_proof(groth16_proof *proof, const char *path)
{
    json_t *root;
    g16_status st = load(&root, path);
    if (st)
        return st;
    if (!json_is_object(root)) {
        json_decref(root);
        return status_fail(G16_ERR_FORMAT, "%s: expected a JSON object", path);
    }
    ctx a = {path, "pi_a"}, b = {path, "pi_b"}, c = {path, "pi_c"};
    if (!(st = check_header(root, path)) &&
        !(st = read_g1(&proof->a, &a, json_object_get(root, "pi_a"))) &&
        !(st = read_g2(&proof->b, &b, json_object_get(root, "pi_b"))))
        st = read_g1(&proof->c, &c, json_object_get(root, "pi_c"));
    json_decref(root);
    return st;
}

g16_status json_read_public(fr_t **inputs, size_t *n, const char *path)
{
    json_t *root;
    g16_status st = load(&root, path);
    *inputs = NULL;
    *n = 0;
    if (st)
        return st;
    if (!json_is_array(root)) {
        json_decref(root);
        return status_fail(G16_ERR_FORMAT, "%s: expected an array of decimal strings", path);
    }
    size_t count = json_array_size(root);
    fr_t *v = calloc(count ? count : 1, sizeof *v);
    if (!v) {
        json_decref(root);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "%s: %zu inputs", path, count);
    }
    char field[32];
    for (size_t i = 0; i < count && !st; i++) {
        snprintf(field, sizeof field, "entry %zu", i);
        ctx c = {path, field};
        st = read_fr(&v[i], &c, json_array_get(root, i));
    }
    json_decref(root);
    if (st) {
        free(v);
        return st;
    }
    *inputs = v;
    *n = count;
    return G16_OK;
}

g16_status json_read_vk(groth16_vk *vk, const char *path)
{
    json_t *root;
    g16_status st = load(&root, path);
    memset(vk, 0, sizeof *vk);
    if (st)
        return st;
    if (!json_is_object(root)) {
        json_decref(root);
        return status_fail(G16_ERR_FORMAT, "%s: expected a JSON object", path);
    }
    ctx c = {path, "IC"};
    json_t *ic = json_object_get(root, "IC");
    json_t *npub = json_object_get(root, "nPublic");
    if ((st = check_header(root, path)))
        goto out;
    if (!json_is_array(ic) || json_array_size(ic) == 0) {
        st = bad(&c, "expected a non-empty array of G1 points");
        goto out;
    }
    size_t n_public = json_array_size(ic) - 1;
    if (npub && (!json_is_integer(npub) || (size_t)json_integer_value(npub) != n_public)) {
        c.field = "nPublic";
        st = bad(&c, "does not match the number of IC points minus one");
        goto out;
    }
    if ((st = groth16_vk_alloc(vk, n_public)))
        goto out;
    ctx fa = {path, "vk_alpha_1"}, fb = {path, "vk_beta_2"}, fg = {path, "vk_gamma_2"},
        fd = {path, "vk_delta_2"};
    if ((st = read_g1(&vk->alpha1, &fa, json_object_get(root, "vk_alpha_1"))) ||
        (st = read_g2(&vk->beta2, &fb, json_object_get(root, "vk_beta_2"))) ||
        (st = read_g2(&vk->gamma2, &fg, json_object_get(root, "vk_gamma_2"))) ||
        (st = read_g2(&vk->delta2, &fd, json_object_get(root, "vk_delta_2"))))
        goto out;
    for (size_t i = 0; i <= n_public && !st; i++)
        st = read_g1(&vk->ic[i], &c, json_array_get(ic, i));
out:
    json_decref(root);
    if (st)
        groth16_vk_free(vk);
    return st;
}

/* --- writing ----------------------------------------------------------------------------- */

static json_t *dec_fp(const fp_t *a)
{
    uint64_t limbs[6];
    char buf[160];
    fp_to_limbs(limbs, a);
    limbs_to_decimal(buf, sizeof buf, limbs, 6);
    return json_string(buf);
}

static json_t *dec_fr(const fr_t *a)
{
    uint64_t limbs[4];
    char buf[160];
    fr_to_limbs(limbs, a);
    limbs_to_decimal(buf, sizeof buf, limbs, 4);
    return json_string(buf);
}

static json_t *js_fp2(const fp2_t *a) { return json_pack("[oo]", dec_fp(&a->c0), dec_fp(&a->c1)); }

static json_t *js_g1(const g1_affine_t *p)
{
    if (g1_affine_is_infinity(p))
        return json_pack("[sss]", "0", "1", "0");
    return json_pack("[oos]", dec_fp(&p->x), dec_fp(&p->y), "1");
}

static json_t *js_g2(const g2_affine_t *p)
{
    if (g2_affine_is_infinity(p))
        return json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
    return json_pack("[oo[ss]]", js_fp2(&p->x), js_fp2(&p->y), "1", "0");
}

static json_t *js_fp6(const fp6_t *a)
{
    return json_pack("[ooo]", js_fp2(&a->c0), js_fp2(&a->c1), js_fp2(&a->c2));
}

g16_status json_finish(atomic_file *af, json_t *root)
{
    g16_status st = G16_OK;
    if (!root)
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "%s: building JSON", af->name);
    else if (json_dumpf(root, af->f, JSON_INDENT(1) | JSON_ENCODE_ANY) != 0)
        st = status_fail(G16_ERR_IO, "%s: write failed: %s", af->name, strerror(errno));
    json_decref(root);
    if (st) {
        atomic_file_discard(af);
        return st;
    }
    return atomic_file_finish(af);
}

g16_status json_commit(atomic_file *af, json_t *root)
{
    g16_status st = json_finish(af, root);
    return st ? st : atomic_file_commit(af);
}

g16_status json_write_file(const char *path, const json_t *root)
{
    json_t *const roots[1] = {(json_t *)root};
    return json_write_files(&path, roots, 1);
}

g16_status json_write_files(const char *const *paths, json_t *const *roots, size_t n)
{
    atomic_file *staged = calloc(n ? n : 1, sizeof *staged);
    if (!staged)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "%zu files to write", n);
    g16_status st = G16_OK;
    for (size_t i = 0; !st && i < n; i++) {
        if (!roots[i])
            st = status_fail(G16_ERR_INVALID_ARGUMENT, "%s: nothing to write", paths[i]);
        else if (!(st = atomic_file_open(&staged[i], paths[i])))
            st = json_finish(&staged[i], json_incref(roots[i]));
    }
    for (size_t i = 0; i < n; i++) {
        if (!st)
            st = atomic_file_commit(&staged[i]);
        else if (staged[i].name) /* finished, or never opened (released: name NULL) */
            atomic_file_discard(&staged[i]);
    }
    free(staged);
    return st;
}

/* root (NULL: building it ran out of memory) written as path, then released. */
static g16_status dump(json_t *root, const char *path)
{
    atomic_file af;
    g16_status st = atomic_file_open(&af, path);
    if (st) {
        json_decref(root);
        return st;
    }
    return json_commit(&af, root);
}

json_t *json_proof_object(const groth16_proof *proof)
{
    return json_pack("{s:o, s:o, s:o, s:s, s:s}", "pi_a", js_g1(&proof->a), "pi_b",
                     js_g2(&proof->b), "pi_c", js_g1(&proof->c), "protocol", "groth16", "curve",
                     "bls12381");
}

json_t *json_public_array(const fr_t *inputs, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, dec_fr(&inputs[i])) != 0) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

json_t *json_vk_object(const groth16_vk *vk)
{
    fp12_t ab;
    pairing(&ab, &vk->alpha1, &vk->beta2);
    json_t *ic = json_array();
    for (size_t i = 0; ic && i <= vk->n_public; i++)
        json_array_append_new(ic, js_g1(&vk->ic[i]));
    return json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:[oo], s:o}", "protocol", "groth16",
                     "curve", "bls12381", "nPublic", (json_int_t)vk->n_public, "vk_alpha_1",
                     js_g1(&vk->alpha1), "vk_beta_2", js_g2(&vk->beta2), "vk_gamma_2",
                     js_g2(&vk->gamma2), "vk_delta_2", js_g2(&vk->delta2), "vk_alphabeta_12",
                     js_fp6(&ab.c0), js_fp6(&ab.c1), "IC", ic);
}

g16_status json_write_proof(const char *path, const groth16_proof *proof)
{
    return dump(json_proof_object(proof), path);
}

g16_status json_write_public(const char *path, const fr_t *inputs, size_t n)
{
    return dump(json_public_array(inputs, n), path);
}

g16_status json_write_vk(const char *path, const groth16_vk *vk)
{
    return dump(json_vk_object(vk), path);
}
