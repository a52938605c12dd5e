#include "zkey.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/encoding.h"
#include "util/parallel.h"
#include "util/status.h"

static const char *const SECTION_NAMES[] = {
    [ZKEY_SECTION_PROTOCOL] = "protocol",
    [ZKEY_SECTION_HEADER] = "header",
    [ZKEY_SECTION_IC] = "IC",
    [ZKEY_SECTION_COEFS] = "coefficients",
    [ZKEY_SECTION_A] = "A",
    [ZKEY_SECTION_B1] = "B1",
    [ZKEY_SECTION_B2] = "B2",
    [ZKEY_SECTION_C] = "C",
    [ZKEY_SECTION_H] = "H",
    [ZKEY_SECTION_CONTRIBUTIONS] = "contributions",
};

/* snarkjs reads versions up to 2 the same way; it writes 1. */
static const iden3_format_t ZKEY_FORMAT = {
    .magic = {'z', 'k', 'e', 'y'},
    .min_version = 1,
    .max_version = 2,
    .section_names = SECTION_NAMES,
    .n_section_names = sizeof SECTION_NAMES / sizeof SECTION_NAMES[0],
};

_Static_assert((int)ZKEY_G1_BYTES == (int)G1_SNARKJS_BYTES, "snarkjs G1 size");
_Static_assert((int)ZKEY_G2_BYTES == (int)G2_SNARKJS_BYTES, "snarkjs G2 size");

const char *zkey_protocol_name(uint32_t protocol)
{
    switch (protocol) {
    case ZKEY_PROTOCOL_GROTH16: return "Groth16";
    case ZKEY_PROTOCOL_PLONK: return "PLONK";
    case ZKEY_PROTOCOL_FFLONK: return "FFLONK";
    }
    return "unknown";
}

static g16_status read_protocol(zkey_t *k)
{
    const iden3_file_t *f = &k->file;
    const iden3_section_t *s;
    g16_status st = iden3_require(&s, f, ZKEY_SECTION_PROTOCOL);
    if (st != G16_OK)
        return st;
    if (s->size != 4)
        return iden3_fail(f, s->id, G16_ERR_FORMAT, "is %llu bytes, expected 4",
                          (unsigned long long)s->size);
    k->protocol = iden3_le32(s->data);
    if (k->protocol != ZKEY_PROTOCOL_GROTH16)
        return iden3_fail(f, s->id, G16_ERR_UNSUPPORTED,
                          "says protocol %u (%s): not a Groth16 key", k->protocol,
                          zkey_protocol_name(k->protocol));
    return G16_OK;
}

/* Decodes a header point; a failure keeps the decoder's status and adds where it was. */
static g16_status header_point(const zkey_t *k, void *out, bool g2, const uint8_t *in,
                               const char *name)
{
    g16_status st = g2 ? g2_decode_snarkjs(out, in, false) : g1_decode_snarkjs(out, in, false);
    if (st == G16_OK)
        return G16_OK;
    char why[256];
    snprintf(why, sizeof why, "%s", g16_last_error());
    return iden3_fail(&k->file, ZKEY_SECTION_HEADER, st, ": %s: %s", name, why);
}

static g16_status read_header(zkey_t *k)
{
    const iden3_file_t *f = &k->file;
    const iden3_section_t *s;
    g16_status st = iden3_require(&s, f, ZKEY_SECTION_HEADER);
    if (st != G16_OK)
        return st;
    const uint32_t id = s->id;
    iden3_reader_t r;
    iden3_reader_init(&r, s);
    const uint8_t *q, *rr;

    /* The curve first: a BN254 key must say so, not that its header has the wrong size. */
    if (!iden3_read_u32(&r, &k->n8q) || !iden3_read_bytes(&r, &q, k->n8q))
        return iden3_fail(f, id, G16_ERR_FORMAT,
                          "is %llu bytes, too short to hold q (truncated)",
                          (unsigned long long)s->size);
    iden3_prime_t curve = iden3_identify_prime(q, k->n8q);
    if (curve == IDEN3_PRIME_BN254_Q)
        return iden3_fail(f, id, G16_ERR_UNSUPPORTED,
                          ": q is the BN254 base field prime: curve BN254 not supported yet");
    if (curve != IDEN3_PRIME_BLS12_381_Q)
        return iden3_fail(f, id, G16_ERR_UNSUPPORTED,
                          ": q (%u bytes) is %s: unsupported curve (g16 proves on BLS12-381)",
                          k->n8q, iden3_prime_name(curve));
    if (k->n8q != ZKEY_N8Q)
        return iden3_fail(f, id, G16_ERR_FORMAT, ": n8q is %u, expected %d for BLS12-381",
                          k->n8q, ZKEY_N8Q);
    if (s->size != ZKEY_HEADER_BYTES)
        return iden3_fail(f, id, G16_ERR_FORMAT, "is %llu bytes, expected %d for BLS12-381",
                          (unsigned long long)s->size, ZKEY_HEADER_BYTES);

    /* From here the size is exact, so the reads cannot fail. */
    iden3_read_u32(&r, &k->n8r);
    if (k->n8r != ZKEY_N8R)
        return iden3_fail(f, id, G16_ERR_FORMAT, ": n8r is %u, expected %d for BLS12-381",
                          k->n8r, ZKEY_N8R);
    iden3_read_bytes(&r, &rr, ZKEY_N8R);
    iden3_prime_t rp = iden3_identify_prime(rr, ZKEY_N8R);
    if (rp != IDEN3_PRIME_BLS12_381_R)
        return iden3_fail(f, id, G16_ERR_FORMAT,
                          ": r is %s, expected the BLS12-381 scalar field prime",
                          iden3_prime_name(rp));
    iden3_read_u32(&r, &k->n_vars);
    iden3_read_u32(&r, &k->n_public);
    iden3_read_u32(&r, &k->domain_size);

    if (k->domain_size == 0 || (k->domain_size & (k->domain_size - 1)) != 0)
        return iden3_fail(f, id, G16_ERR_FORMAT, ": domain size %u is not a power of two",
                          k->domain_size);
    k->log2_domain = 0;
    while ((1u << k->log2_domain) < k->domain_size)
        k->log2_domain++;
    if (k->n_public >= k->n_vars)
        return iden3_fail(f, id, G16_ERR_FORMAT,
                          ": nPublic = %u must be below nVars = %u (signal 0 is the "
                          "constant one)",
                          k->n_public, k->n_vars);

    const uint8_t *p;
    struct {
        const char *name;
        bool g2;
        void *out;
    } pts[] = {
        {"alpha1", false, &k->alpha1}, {"beta1", false, &k->beta1},
        {"beta2", true, &k->beta2},    {"gamma2", true, &k->gamma2},
        {"delta1", false, &k->delta1}, {"delta2", true, &k->delta2},
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        iden3_read_bytes(&r, &p, pts[i].g2 ? ZKEY_G2_BYTES : ZKEY_G1_BYTES);
        if ((st = header_point(k, pts[i].out, pts[i].g2, p, pts[i].name)) != G16_OK)
            return st;
    }
    return G16_OK;
}

/* Points section id must hold exactly count points of point_bytes; why names the count. */
static g16_status read_points(zkey_t *k, zkey_points_t *out, uint32_t id, uint64_t count,
                              uint64_t point_bytes, const char *why)
{
    const iden3_section_t *s;
    g16_status st = iden3_require(&s, &k->file, id);
    if (st != G16_OK)
        return st;
    /* count < 2^33 and point_bytes <= 192: the product cannot wrap. */
    uint64_t want = count * point_bytes;
    if (s->size != want)
        return iden3_fail(&k->file, id, G16_ERR_FORMAT,
                          "is %llu bytes, expected %llu for %s (%llu points of %llu bytes)",
                          (unsigned long long)s->size, (unsigned long long)want, why,
                          (unsigned long long)count, (unsigned long long)point_bytes);
    out->data = s->data;
    out->count = (size_t)count;
    return G16_OK;
}

static g16_status read_coefs_header(zkey_t *k)
{
    const iden3_section_t *s;
    g16_status st = iden3_require(&s, &k->file, ZKEY_SECTION_COEFS);
    if (st != G16_OK)
        return st;
    if (s->size < 4)
        return iden3_fail(&k->file, s->id, G16_ERR_FORMAT,
                          "is %llu bytes, too short for the coefficient count",
                          (unsigned long long)s->size);
    k->n_coefs = iden3_le32(s->data);
    uint64_t want = 4 + (uint64_t)k->n_coefs * ZKEY_COEF_BYTES;
    if (s->size != want)
        return iden3_fail(&k->file, s->id, G16_ERR_FORMAT,
                          "is %llu bytes, expected %llu for %u coefficients of %d bytes",
                          (unsigned long long)s->size, (unsigned long long)want, k->n_coefs,
                          ZKEY_COEF_BYTES);
    k->coefs = s->data + 4;
    return G16_OK;
}

static g16_status parse(zkey_t *k)
{
    g16_status st;
    if ((st = read_protocol(k)) != G16_OK || (st = read_header(k)) != G16_OK)
        return st;

    char vars[64], pub[64], priv[64], dom[64];
    snprintf(vars, sizeof vars, "nVars = %u", k->n_vars);
    snprintf(pub, sizeof pub, "nPublic = %u", k->n_public);
    snprintf(priv, sizeof priv, "nVars - nPublic - 1 = %u", k->n_vars - k->n_public - 1);
    snprintf(dom, sizeof dom, "domain size %u", k->domain_size);
    const uint64_t nv = k->n_vars;
    if ((st = read_points(k, &k->ic, ZKEY_SECTION_IC, (uint64_t)k->n_public + 1, ZKEY_G1_BYTES,
                          pub)) != G16_OK ||
        (st = read_coefs_header(k)) != G16_OK ||
        (st = read_points(k, &k->a, ZKEY_SECTION_A, nv, ZKEY_G1_BYTES, vars)) != G16_OK ||
        (st = read_points(k, &k->b1, ZKEY_SECTION_B1, nv, ZKEY_G1_BYTES, vars)) != G16_OK ||
        (st = read_points(k, &k->b2, ZKEY_SECTION_B2, nv, ZKEY_G2_BYTES, vars)) != G16_OK ||
        (st = read_points(k, &k->c, ZKEY_SECTION_C, nv - k->n_public - 1, ZKEY_G1_BYTES,
                          priv)) != G16_OK ||
        (st = read_points(k, &k->h, ZKEY_SECTION_H, k->domain_size, ZKEY_G1_BYTES, dom)) !=
            G16_OK)
        return st;

    const iden3_section_t *s = iden3_find(&k->file, ZKEY_SECTION_CONTRIBUTIONS);
    if (s) {
        k->contributions = s->data;
        k->contributions_size = s->size;
    }
    return G16_OK;
}

static g16_status finish_open(zkey_t *k, g16_status st)
{
    if (st == G16_OK)
        st = parse(k);
    if (st != G16_OK)
        zkey_close(k);
    return st;
}

g16_status zkey_open(zkey_t *k, const char *path)
{
    memset(k, 0, sizeof *k);
    status_clear();
    return finish_open(k, iden3_open(&k->file, path, &ZKEY_FORMAT));
}

g16_status zkey_open_memory(zkey_t *k, const char *name, const uint8_t *data, size_t size)
{
    memset(k, 0, sizeof *k);
    status_clear();
    return finish_open(k, iden3_open_memory(&k->file, name, data, size, &ZKEY_FORMAT));
}

void zkey_close(zkey_t *k)
{
    if (!k)
        return;
    iden3_close(&k->file);
    memset(k, 0, sizeof *k);
}

/* Entry i's indices into c and the check of all of it (indices in range, value
 * canonical), leaving the value's raw Montgomery limbs in *stored. */
static g16_status coef_decode(zkey_coef_t *c, fr_t *stored, const zkey_t *k, uint32_t i)
{
    const uint8_t *e = k->coefs + (size_t)i * ZKEY_COEF_BYTES;
    c->matrix = iden3_le32(e);
    c->constraint = iden3_le32(e + 4);
    c->signal = iden3_le32(e + 8);
    if (c->matrix > 1)
        return iden3_fail(&k->file, ZKEY_SECTION_COEFS, G16_ERR_FORMAT,
                          ": entry %u: matrix %u (only 0 = A and 1 = B are stored)", i,
                          c->matrix);
    if (c->constraint >= k->domain_size)
        return iden3_fail(&k->file, ZKEY_SECTION_COEFS, G16_ERR_FORMAT,
                          ": entry %u: constraint %u is not below the domain size %u", i,
                          c->constraint, k->domain_size);
    if (c->signal >= k->n_vars)
        return iden3_fail(&k->file, ZKEY_SECTION_COEFS, G16_ERR_FORMAT,
                          ": entry %u: signal %u is not below nVars = %u", i, c->signal,
                          k->n_vars);
    if (!fr_from_mont_bytes_le(stored, e + 12))
        return iden3_fail(&k->file, ZKEY_SECTION_COEFS, G16_ERR_FORMAT,
                          ": entry %u: value is not below r (non-canonical)", i);
    return G16_OK;
}

g16_status zkey_coef(zkey_coef_t *c, const zkey_t *k, uint32_t i)
{
    if (i >= k->n_coefs)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: coefficient %u of %u requested",
                           k->file.name, i, k->n_coefs);
    fr_t stored, one_limb;
    g16_status st = coef_decode(c, &stored, k, i);
    if (st != G16_OK)
        return st;
    /* The stored integer is X = v * R^2 mod r (R = 2^256). Read as Montgomery bytes it is
     * the element X / R = v * R; one more Montgomery reduction, a product with the element
     * whose limbs are 1, leaves v. */
    static const uint8_t ONE_LIMB[32] = {1};
    fr_from_mont_bytes_le(&one_limb, ONE_LIMB);
    fr_mul(&c->value, &stored, &one_limb);
    return G16_OK;
}

typedef struct {
    const zkey_t *k;
    uint32_t chunk;
    uint32_t *first_bad; /* [chunks]: the chunk's first bad entry, or n_coefs */
} validate_ctx;

static bool coef_ok(const zkey_t *k, uint32_t i)
{
    const uint8_t *e = k->coefs + (size_t)i * ZKEY_COEF_BYTES;
    fr_t v;
    return iden3_le32(e) <= 1 && iden3_le32(e + 4) < k->domain_size &&
           iden3_le32(e + 8) < k->n_vars && fr_from_mont_bytes_le(&v, e + 12);
}

static void validate_body(void *p, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    validate_ctx *x = p;
    for (size_t c = begin; c < end; c++) {
        uint32_t lo = (uint32_t)c * x->chunk, hi = lo + x->chunk;
        if (hi > x->k->n_coefs || hi < lo)
            hi = x->k->n_coefs;
        x->first_bad[c] = x->k->n_coefs;
        for (uint32_t i = lo; i < hi; i++)
            if (!coef_ok(x->k, i)) {
                x->first_bad[c] = i;
                break;
            }
    }
}

/* Every prove checks the section before reading it raw (zkey_evals.c), so this is the
 * check alone, without zkey_coef's conversion of each value, and on every thread: the
 * serial check with conversions was ~5% of a 2^17 prove on 2 cores. The first bad entry
 * is then decoded again for its message. */
g16_status zkey_validate_coefs(const zkey_t *k) { return zkey_validate_coefs_by(k, 1u << 16); }

g16_status zkey_validate_coefs_by(const zkey_t *k, uint32_t chunk)
{
    if (chunk == 0)
        chunk = 1;
    size_t chunks = ((size_t)k->n_coefs + chunk - 1) / chunk;
    uint32_t first_bad[64], *bad = chunks <= 64 ? first_bad : malloc(chunks * sizeof *bad);
    uint32_t worst = k->n_coefs;
    if (bad) {
        validate_ctx x = {.k = k, .chunk = chunk, .first_bad = bad};
        parallel_for(chunks, 1, validate_body, &x);
        for (size_t c = 0; c < chunks && worst == k->n_coefs; c++)
            worst = bad[c];
        if (bad != first_bad)
            free(bad);
    } else {
        for (uint32_t i = 0; i < k->n_coefs && worst == k->n_coefs; i++)
            if (!coef_ok(k, i))
                worst = i;
    }
    if (worst == k->n_coefs)
        return G16_OK;
    zkey_coef_t c;
    fr_t stored;
    g16_status st = coef_decode(&c, &stored, k, worst);
    return st ? st
              : status_fail(G16_ERR_INTERNAL, "%s: coefficient %u failed its check",
                            k->file.name, worst);
}

uint32_t zkey_num_constraints(const zkey_t *k)
{
    uint32_t last = 0;
    for (uint32_t i = 0; i < k->n_coefs; i++) {
        uint32_t row = iden3_le32(k->coefs + (size_t)i * ZKEY_COEF_BYTES + 4);
        last = row > last ? row : last;
    }
    return k->n_coefs && last >= k->n_public ? last - k->n_public : 0;
}
