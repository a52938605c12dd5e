#include "native_key.h"
#include "io/iden3_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "curve/encoding.h"
#include "groth16/density.h"
#include "util/status.h"

static const char *const SECTION_NAMES[] = {
    [NATIVE_KEY_SECTION_HEADER] = "header",
    [NATIVE_KEY_SECTION_VERIFYING] = "verifying points",
    [NATIVE_KEY_SECTION_DENSITY] = "density",
    [NATIVE_KEY_SECTION_A] = "A",
    [NATIVE_KEY_SECTION_B1] = "B1",
    [NATIVE_KEY_SECTION_B2] = "B2",
    [NATIVE_KEY_SECTION_C] = "C",
    [NATIVE_KEY_SECTION_H] = "H",
};

static const iden3_format_t NATIVE_KEY_FORMAT = {
    .magic = {'g', '1', '6', 'k'},
    .min_version = 1, /* opened to say plainly why it is refused */
    .max_version = NATIVE_KEY_VERSION,
    .section_names = SECTION_NAMES,
    .n_section_names = sizeof SECTION_NAMES / sizeof SECTION_NAMES[0],
};

_Static_assert((int)NATIVE_KEY_G1_BYTES == (int)G1_SNARKJS_BYTES, "G1 point bytes");
_Static_assert((int)NATIVE_KEY_G2_BYTES == (int)G2_SNARKJS_BYTES, "G2 point bytes");
_Static_assert(sizeof(g1_affine_t) == NATIVE_KEY_G1_BYTES, "g1_affine_t is the file's layout");
_Static_assert(sizeof(g2_affine_t) == NATIVE_KEY_G2_BYTES, "g2_affine_t is the file's layout");

enum {
    HEADER_FIXED_BYTES = 4 + 4 + 4 * 8 + 4 + 4 * 8, /* everything but the name's bytes */
    VERIFYING_FIXED_BYTES = 3 * NATIVE_KEY_G1_BYTES + 3 * NATIVE_KEY_G2_BYTES,
    MAX_LOG2_DOMAIN = 28,
};

/* --- writing ------------------------------------------------------------------------------ */

g16_status native_key_write(const char *path, const groth16_setup_key *key, const char *circuit,
                            uint64_t param_n, uint64_t param_public)
{
    if (!path || !key || !circuit)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "native_key_write: null argument");
    size_t name_len = strlen(circuit);
    if (name_len > NATIVE_KEY_NAME_MAX)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "native_key_write: circuit name of %zu bytes (at most %d)", name_len,
                           NATIVE_KEY_NAME_MAX);
    size_t nv = key->n_vars, np = key->n_public, n = key->domain_size;
    if (np >= nv || !key->ic || !key->density_a || !key->density_b || !key->a || !key->b1 ||
        !key->b2 || (!key->c && nv > np + 1) || !key->h)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "native_key_write: incomplete key");
    size_t n_priv = nv - np - 1, words = density_words(nv);
    if (density_count(key->density_a, 0, nv) != key->n_a ||
        density_count(key->density_b, 0, nv) != key->n_b)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "native_key_write: the densities do not match the point counts");

    iden3_writer *w;
    g16_status st = iden3_writer_open(&w, path);
    if (st != G16_OK)
        return st;

    iden3_put_file_header(w, NATIVE_KEY_FORMAT.magic, NATIVE_KEY_VERSION, NATIVE_KEY_SECTIONS);

    iden3_put_section(w, NATIVE_KEY_SECTION_HEADER, HEADER_FIXED_BYTES + name_len);
    iden3_put_u32(w, NATIVE_KEY_CURVE_BLS12_381);
    iden3_put_u32(w, NATIVE_KEY_H_SNARKJS);
    iden3_put_u64(w, nv);
    iden3_put_u64(w, np);
    iden3_put_u64(w, n);
    iden3_put_u64(w, key->n_constraints);
    iden3_put_u32(w, (uint32_t)name_len);
    iden3_put_bytes(w, circuit, name_len);
    iden3_put_u64(w, param_n);
    iden3_put_u64(w, param_public);
    iden3_put_u64(w, density_count(key->density_a, np + 1, nv));
    iden3_put_u64(w, density_count(key->density_b, np + 1, nv));

    iden3_put_section(w, NATIVE_KEY_SECTION_VERIFYING,
                VERIFYING_FIXED_BYTES + (uint64_t)(np + 1) * NATIVE_KEY_G1_BYTES);
    iden3_put_g1s(w, &key->alpha1, 1);
    iden3_put_g1s(w, &key->beta1, 1);
    iden3_put_g1s(w, &key->delta1, 1);
    iden3_put_g2s(w, &key->beta2, 1);
    iden3_put_g2s(w, &key->gamma2, 1);
    iden3_put_g2s(w, &key->delta2, 1);
    iden3_put_g1s(w, key->ic, np + 1);

    iden3_put_section(w, NATIVE_KEY_SECTION_DENSITY, 8 + 2 * (uint64_t)words * 8);
    iden3_put_u64(w, nv);
    for (size_t i = 0; i < words; i++)
        iden3_put_u64(w, key->density_a[i]);
    for (size_t i = 0; i < words; i++)
        iden3_put_u64(w, key->density_b[i]);

    iden3_put_section(w, NATIVE_KEY_SECTION_A, (uint64_t)key->n_a * NATIVE_KEY_G1_BYTES);
    iden3_put_g1s(w, key->a, key->n_a);
    iden3_put_section(w, NATIVE_KEY_SECTION_B1, (uint64_t)key->n_b * NATIVE_KEY_G1_BYTES);
    iden3_put_g1s(w, key->b1, key->n_b);
    iden3_put_section(w, NATIVE_KEY_SECTION_B2, (uint64_t)key->n_b * NATIVE_KEY_G2_BYTES);
    iden3_put_g2s(w, key->b2, key->n_b);
    iden3_put_section(w, NATIVE_KEY_SECTION_C, (uint64_t)n_priv * NATIVE_KEY_G1_BYTES);
    iden3_put_g1s(w, key->c, n_priv);
    iden3_put_section(w, NATIVE_KEY_SECTION_H, (uint64_t)n * NATIVE_KEY_G1_BYTES);
    iden3_put_g1s(w, key->h, n);

    return iden3_writer_commit(w);
}

/* --- reading ------------------------------------------------------------------------------ */

static g16_status read_header(native_key_t *k)
{
    const iden3_file_t *f = &k->file;
    const iden3_section_t *s;
    g16_status st = iden3_require(&s, f, NATIVE_KEY_SECTION_HEADER);
    if (st != G16_OK)
        return st;
    const uint32_t id = s->id;
    iden3_reader_t r;
    iden3_reader_init(&r, s);
    uint64_t nv, np, n, m;
    uint32_t name_len;
    const uint8_t *name;
    if (!iden3_read_u32(&r, &k->curve) || !iden3_read_u32(&r, &k->h_convention) ||
        !iden3_read_u64(&r, &nv) || !iden3_read_u64(&r, &np) || !iden3_read_u64(&r, &n) ||
        !iden3_read_u64(&r, &m) || !iden3_read_u32(&r, &name_len))
        return iden3_fail(f, id, G16_ERR_FORMAT, "is %llu bytes, too short (truncated)",
                          (unsigned long long)s->size);
    if (k->curve != NATIVE_KEY_CURVE_BLS12_381)
        return iden3_fail(f, id, G16_ERR_UNSUPPORTED,
                          ": curve %u is not supported (expected %d = BLS12-381)", k->curve,
                          NATIVE_KEY_CURVE_BLS12_381);
    if (k->h_convention != NATIVE_KEY_H_SNARKJS)
        return iden3_fail(f, id, G16_ERR_UNSUPPORTED,
                          ": H convention %u is not supported (expected %d = snarkjs)",
                          k->h_convention, NATIVE_KEY_H_SNARKJS);
    if (name_len > NATIVE_KEY_NAME_MAX)
        return iden3_fail(f, id, G16_ERR_FORMAT, ": circuit name of %u bytes (at most %d)",
                          name_len, NATIVE_KEY_NAME_MAX);
    uint64_t want = (uint64_t)HEADER_FIXED_BYTES + name_len;
    if (s->size != want)
        return iden3_fail(f, id, G16_ERR_FORMAT,
                          "is %llu bytes, expected %llu for a circuit name of %u bytes",
                          (unsigned long long)s->size, (unsigned long long)want, name_len);
    /* From here the size is exact, so the reads cannot fail. */
    iden3_read_bytes(&r, &name, name_len);
    if (memchr(name, 0, name_len))
        return iden3_fail(f, id, G16_ERR_FORMAT, ": the circuit name contains a NUL byte");
    memcpy(k->circuit, name, name_len);
    k->circuit[name_len] = 0;
    iden3_read_u64(&r, &k->param_n);
    iden3_read_u64(&r, &k->param_public);
    iden3_read_u64(&r, &k->in_a);
    iden3_read_u64(&r, &k->in_b);

    if (n == 0 || (n & (n - 1)) != 0 || n > (uint64_t)1 << MAX_LOG2_DOMAIN)
        return iden3_fail(f, id, G16_ERR_FORMAT,
                          ": domain size %llu is not a power of two up to 2^%d",
                          (unsigned long long)n, MAX_LOG2_DOMAIN);
    if (nv > UINT32_MAX)
        return iden3_fail(f, id, G16_ERR_FORMAT, ": n_vars = %llu is above 2^32 - 1",
                          (unsigned long long)nv);
    if (np >= nv)
        return iden3_fail(f, id, G16_ERR_FORMAT,
                          ": n_public = %llu must be below n_vars = %llu (wire 0 is the "
                          "constant one)",
                          (unsigned long long)np, (unsigned long long)nv);
    /* np < nv < 2^32 and n <= 2^28: none of these sums wraps. */
    if (m > n || m + np + 1 > n)
        return iden3_fail(f, id, G16_ERR_FORMAT,
                          ": %llu constraints and %llu public rows do not fit the domain of "
                          "%llu",
                          (unsigned long long)m, (unsigned long long)(np + 1),
                          (unsigned long long)n);
    uint64_t n_priv = nv - np - 1;
    if (k->in_a > n_priv || k->in_b > n_priv)
        return iden3_fail(f, id, G16_ERR_FORMAT,
                          ": densities %llu (A) and %llu (B) exceed the %llu private "
                          "variables",
                          (unsigned long long)k->in_a, (unsigned long long)k->in_b,
                          (unsigned long long)n_priv);
    k->n_vars = (size_t)nv;
    k->n_public = (size_t)np;
    k->domain_size = (size_t)n;
    k->n_constraints = (size_t)m;
    k->log2_domain = (unsigned)__builtin_ctzll(n);
    return G16_OK;
}

/* Section id must be exactly count points of point_bytes; why names the count. */
static g16_status check_size(const native_key_t *k, const iden3_section_t **out, uint32_t id,
                             uint64_t fixed, uint64_t count, uint64_t point_bytes,
                             const char *why)
{
    g16_status st = iden3_require(out, &k->file, id);
    if (st != G16_OK)
        return st;
    /* count < 2^32 and point_bytes <= 192: no wrap. */
    uint64_t want = fixed + count * point_bytes;
    if ((*out)->size != want)
        return iden3_fail(&k->file, id, G16_ERR_FORMAT,
                          "is %llu bytes, expected %llu for %s (%llu points of %llu bytes%s)",
                          (unsigned long long)(*out)->size, (unsigned long long)want, why,
                          (unsigned long long)count, (unsigned long long)point_bytes,
                          fixed ? " after the six header points" : "");
    return G16_OK;
}

static g16_status read_points(native_key_t *k, native_key_points_t *out, uint32_t id,
                              uint64_t count, uint64_t point_bytes, const char *why)
{
    const iden3_section_t *s;
    g16_status st = check_size(k, &s, id, 0, count, point_bytes, why);
    if (st != G16_OK)
        return st;
    out->data = s->data;
    out->count = (size_t)count;
    return G16_OK;
}

static g16_status read_verifying(native_key_t *k)
{
    char why[64];
    snprintf(why, sizeof why, "n_public = %zu", k->n_public);
    const iden3_section_t *s;
    g16_status st = check_size(k, &s, NATIVE_KEY_SECTION_VERIFYING, VERIFYING_FIXED_BYTES,
                               (uint64_t)k->n_public + 1, NATIVE_KEY_G1_BYTES, why);
    if (st != G16_OK)
        return st;
    struct {
        const char *name;
        bool g2;
        void *out;
    } pts[] = {
        {"alpha1", false, &k->alpha1}, {"beta1", false, &k->beta1},
        {"delta1", false, &k->delta1}, {"beta2", true, &k->beta2},
        {"gamma2", true, &k->gamma2},  {"delta2", true, &k->delta2},
    };
    const uint8_t *p = s->data;
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        st = pts[i].g2 ? g2_decode_snarkjs(pts[i].out, p, false)
                       : g1_decode_snarkjs(pts[i].out, p, false);
        if (st != G16_OK) {
            char detail[256];
            snprintf(detail, sizeof detail, "%s", g16_last_error());
            return iden3_fail(&k->file, s->id, st, ": %s: %s", pts[i].name, detail);
        }
        p += pts[i].g2 ? NATIVE_KEY_G2_BYTES : NATIVE_KEY_G1_BYTES;
    }
    k->ic.data = p;
    k->ic.count = k->n_public + 1;
    return G16_OK;
}

/* The density bitmaps, copied out of the mapping and checked against the header. */
static g16_status read_density(native_key_t *k)
{
    const iden3_section_t *s;
    g16_status st = iden3_require(&s, &k->file, NATIVE_KEY_SECTION_DENSITY);
    if (st != G16_OK)
        return st;
    const uint32_t id = s->id;
    size_t nv = k->n_vars, words = density_words(nv);
    /* nv < 2^32: no wrap. */
    uint64_t want = 8 + 2 * (uint64_t)words * 8;
    if (s->size != want)
        return iden3_fail(&k->file, id, G16_ERR_FORMAT,
                          "is %llu bytes, expected %llu for n_vars = %zu (the wire count and "
                          "two bitmaps of %zu words)",
                          (unsigned long long)s->size, (unsigned long long)want, nv, words);
    uint64_t n_wires = iden3_le64(s->data);
    if (n_wires != nv)
        return iden3_fail(&k->file, id, G16_ERR_FORMAT,
                          ": the bitmaps cover %llu wires, the header has n_vars = %zu",
                          (unsigned long long)n_wires, nv);
    k->density_a = malloc(words * sizeof *k->density_a);
    k->density_b = malloc(words * sizeof *k->density_b);
    if (!k->density_a || !k->density_b)
        return iden3_fail(&k->file, id, G16_ERR_OUT_OF_MEMORY, ": %zu words of bitmaps",
                          2 * words);
    for (size_t i = 0; i < words; i++) {
        k->density_a[i] = iden3_le64(s->data + 8 + 8 * i);
        k->density_b[i] = iden3_le64(s->data + 8 + 8 * (words + i));
    }
    const struct {
        const char *name;
        const uint64_t *bits;
        uint64_t header;
        size_t *count;
    } maps[] = {{"A", k->density_a, k->in_a, &k->n_a}, {"B", k->density_b, k->in_b, &k->n_b}};
    for (size_t i = 0; i < 2; i++) {
        if (!density_tail_clear(maps[i].bits, nv))
            return iden3_fail(&k->file, id, G16_ERR_FORMAT,
                              ": the %s bitmap marks wires past n_vars = %zu", maps[i].name,
                              nv);
        size_t priv = density_count(maps[i].bits, k->n_public + 1, nv);
        if (priv != maps[i].header)
            return iden3_fail(&k->file, id, G16_ERR_FORMAT,
                              ": the %s bitmap marks %zu private variables, the header "
                              "says %llu",
                              maps[i].name, priv, (unsigned long long)maps[i].header);
        *maps[i].count = density_count(maps[i].bits, 0, nv);
    }
    return G16_OK;
}

static g16_status parse(native_key_t *k)
{
    g16_status st;
    if (k->file.version == 1)
        return iden3_fail_file(&k->file, G16_ERR_UNSUPPORTED,
                               "g16k version 1 (B1 and B2 stored dense) is no longer read; "
                               "make the key again (delete the file, and g16 bench --key "
                               "writes a version %d key)",
                               NATIVE_KEY_VERSION);
    if ((st = read_header(k)) != G16_OK || (st = read_verifying(k)) != G16_OK ||
        (st = read_density(k)) != G16_OK)
        return st;
    char in_a[80], in_b[80], priv[64], dom[64];
    snprintf(in_a, sizeof in_a, "the %zu wires of the A density", k->n_a);
    snprintf(in_b, sizeof in_b, "the %zu wires of the B density", k->n_b);
    snprintf(priv, sizeof priv, "n_vars - n_public - 1 = %zu", k->n_vars - k->n_public - 1);
    snprintf(dom, sizeof dom, "domain size %zu", k->domain_size);
    if ((st = read_points(k, &k->a, NATIVE_KEY_SECTION_A, k->n_a, NATIVE_KEY_G1_BYTES, in_a)) ||
        (st = read_points(k, &k->b1, NATIVE_KEY_SECTION_B1, k->n_b, NATIVE_KEY_G1_BYTES, in_b)) ||
        (st = read_points(k, &k->b2, NATIVE_KEY_SECTION_B2, k->n_b, NATIVE_KEY_G2_BYTES, in_b)) ||
        (st = read_points(k, &k->c, NATIVE_KEY_SECTION_C, k->n_vars - k->n_public - 1,
                          NATIVE_KEY_G1_BYTES, priv)) ||
        (st = read_points(k, &k->h, NATIVE_KEY_SECTION_H, k->domain_size, NATIVE_KEY_G1_BYTES,
                          dom)))
        return st;
    return G16_OK;
}

static g16_status finish_open(native_key_t *k, g16_status st)
{
    if (st == G16_OK)
        st = parse(k);
    if (st != G16_OK)
        native_key_close(k);
    return st;
}

g16_status native_key_open(native_key_t *k, const char *path)
{
    memset(k, 0, sizeof *k);
    status_clear();
    return finish_open(k, iden3_open(&k->file, path, &NATIVE_KEY_FORMAT));
}

g16_status native_key_open_memory(native_key_t *k, const char *name, const uint8_t *data,
                                  size_t size)
{
    memset(k, 0, sizeof *k);
    status_clear();
    return finish_open(k, iden3_open_memory(&k->file, name, data, size, &NATIVE_KEY_FORMAT));
}

void native_key_close(native_key_t *k)
{
    if (!k)
        return;
    free(k->density_a);
    free(k->density_b);
    iden3_close(&k->file);
    memset(k, 0, sizeof *k);
}

void groth16_prover_key_from_native(groth16_prover_key *pk, const native_key_t *k)
{
    *pk = (groth16_prover_key){
        .n_vars = k->n_vars, .n_public = k->n_public, .domain_size = k->domain_size,
        .log2_domain = k->log2_domain, .alpha1 = k->alpha1, .beta1 = k->beta1,
        .delta1 = k->delta1, .beta2 = k->beta2, .delta2 = k->delta2,
        .density_a = k->density_a, .density_b = k->density_b, .n_a = k->n_a, .n_b = k->n_b,
        .a = k->a.data, .b1 = k->b1.data, .b2 = k->b2.data, .c = k->c.data, .h = k->h.data};
}

g16_status groth16_vk_from_native(groth16_vk *vk, const native_key_t *k)
{
    g16_status st = groth16_vk_alloc(vk, k->n_public);
    if (st)
        return st;
    vk->alpha1 = k->alpha1;
    vk->beta2 = k->beta2;
    vk->gamma2 = k->gamma2;
    vk->delta2 = k->delta2;
    for (size_t i = 0; i <= k->n_public; i++) {
        st = g1_decode_snarkjs(&vk->ic[i], k->ic.data + i * NATIVE_KEY_G1_BYTES, true);
        if (st) {
            char detail[256];
            snprintf(detail, sizeof detail, "%s", g16_last_error());
            groth16_vk_free(vk);
            return iden3_fail(&k->file, NATIVE_KEY_SECTION_VERIFYING, st, ": IC point %zu: %s",
                              i, detail);
        }
    }
    return G16_OK;
}
