/* The snarkjs/circom readers (.zkey, .wtns, .r1cs) and `g16 info`.
 *
 * A small writer here builds valid files from random models (random on-curve points,
 * random coefficients and witness values), the readers parse them back and every field is
 * compared. Then each rejection, with its status and a substring of its message: every
 * truncation of each file, random byte corruption, wrong magic/version, missing and
 * duplicate sections, lying section sizes (past the end, u64 wrap-around), wrong curves,
 * non-canonical values, off-curve header points, wrong protocol, witness/key mismatch.
 * Finally the g16 binary built next to this test runs `info` on good and corrupt files.
 *
 * `test_io --write-seeds DIR` writes the valid files into DIR/{zkey,wtns,r1cs}/ as the
 * seed corpus of the fuzzers (tests/fuzz), so that both start from the same writer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "curve/encoding.h"
#include "harness.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "util/host_memory.h"

/* ===================================================================================
 * The writer
 * =================================================================================== */

typedef struct {
    uint8_t *p;
    size_t len, cap;
} buf_t;

static void put(buf_t *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) {
            printf("out of memory\n");
            exit(1);
        }
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void put_u32(buf_t *b, uint32_t v)
{
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, t, 4);
}

static void put_u64(buf_t *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}

static void put_limbs(buf_t *b, const uint64_t *l, size_t n_limbs)
{
    for (size_t i = 0; i < n_limbs; i++)
        put_u64(b, l[i]);
}

static void buf_free(buf_t *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* A container being written: sections as bodies that tests may edit, reorder, drop or
 * duplicate before serialising; size_override makes a section header lie. */
enum { MAX_WSECTIONS = 80 };
typedef struct {
    uint32_t id;
    buf_t body;
    bool lie;
    uint64_t size_override;
} wsection_t;

typedef struct {
    char magic[4];
    uint32_t version;
    uint32_t n;
    wsection_t s[MAX_WSECTIONS];
    bool count_lie;
    uint32_t count_override;
} wfile_t;

static wsection_t *wf_add(wfile_t *w, uint32_t id)
{
    wsection_t *s = &w->s[w->n++];
    memset(s, 0, sizeof *s);
    s->id = id;
    return s;
}

static wsection_t *wf_find(wfile_t *w, uint32_t id)
{
    for (uint32_t i = 0; i < w->n; i++)
        if (w->s[i].id == id)
            return &w->s[i];
    return NULL;
}

static void wf_remove(wfile_t *w, uint32_t id)
{
    for (uint32_t i = 0; i < w->n; i++)
        if (w->s[i].id == id) {
            buf_free(&w->s[i].body);
            memmove(&w->s[i], &w->s[i + 1], (w->n - i - 1) * sizeof w->s[0]);
            w->n--;
            return;
        }
}

static void wf_copy(wfile_t *dst, const wfile_t *src)
{
    *dst = *src;
    for (uint32_t i = 0; i < src->n; i++) {
        memset(&dst->s[i].body, 0, sizeof dst->s[i].body);
        put(&dst->s[i].body, src->s[i].body.p, src->s[i].body.len);
    }
}

static void wf_free(wfile_t *w)
{
    for (uint32_t i = 0; i < w->n; i++)
        buf_free(&w->s[i].body);
    w->n = 0;
}

static buf_t wf_serialize(const wfile_t *w)
{
    buf_t b = {0};
    put(&b, w->magic, 4);
    put_u32(&b, w->version);
    put_u32(&b, w->count_lie ? w->count_override : w->n);
    for (uint32_t i = 0; i < w->n; i++) {
        put_u32(&b, w->s[i].id);
        put_u64(&b, w->s[i].lie ? w->s[i].size_override : w->s[i].body.len);
        put(&b, w->s[i].body.p, w->s[i].body.len);
    }
    return b;
}

/* ===================================================================================
 * Random models
 * =================================================================================== */

static void random_g1(g1_affine_t *p)
{
    fp_t x;
    do
        test_random_fp(&x);
    while (!g1_affine_from_x(p, &x, test_rand64() & 1));
}

static void random_g2(g2_affine_t *p)
{
    fp2_t x;
    do {
        test_random_fp(&x.c0);
        test_random_fp(&x.c1);
    } while (!g2_affine_from_x(p, &x, test_rand64() & 1));
}

/* Section points: one in five is infinity, which real keys hold for unused signals. */
static void random_g1_or_inf(g1_affine_t *p)
{
    if (test_rand64() % 5 == 0)
        g1_affine_set_infinity(p);
    else
        random_g1(p);
}

static void random_g2_or_inf(g2_affine_t *p)
{
    if (test_rand64() % 5 == 0)
        g2_affine_set_infinity(p);
    else
        random_g2(p);
}

enum { MAXP = 64, MAXC = 96 };

typedef struct {
    uint32_t n_vars, n_public, domain_size, n_coefs;
    g1_affine_t alpha1, beta1, delta1;
    g2_affine_t beta2, gamma2, delta2;
    g1_affine_t ic[MAXP], a[MAXP], b1[MAXP], c[MAXP], h[MAXP];
    g2_affine_t b2[MAXP];
    zkey_coef_t coefs[MAXC];
    uint8_t contributions[40];
} zmodel_t;

static void zmodel_random(zmodel_t *m, uint32_t n_vars, uint32_t n_public, uint32_t log2_domain,
                          uint32_t n_coefs)
{
    memset(m, 0, sizeof *m);
    m->n_vars = n_vars;
    m->n_public = n_public;
    m->domain_size = 1u << log2_domain;
    m->n_coefs = n_coefs;
    random_g1(&m->alpha1);
    random_g1(&m->beta1);
    random_g1(&m->delta1);
    random_g2(&m->beta2);
    g2_affine_generator(&m->gamma2);
    random_g2(&m->delta2);
    for (uint32_t i = 0; i <= n_public; i++)
        random_g1_or_inf(&m->ic[i]);
    for (uint32_t i = 0; i < n_vars; i++) {
        random_g1_or_inf(&m->a[i]);
        random_g1_or_inf(&m->b1[i]);
        random_g2_or_inf(&m->b2[i]);
    }
    for (uint32_t i = 0; i + n_public + 1 < n_vars; i++)
        random_g1_or_inf(&m->c[i]);
    for (uint32_t i = 0; i < m->domain_size; i++)
        random_g1_or_inf(&m->h[i]);
    for (uint32_t i = 0; i < n_coefs; i++) {
        zkey_coef_t *c = &m->coefs[i];
        c->matrix = (uint32_t)(test_rand64() & 1);
        c->constraint = (uint32_t)(test_rand64() % m->domain_size);
        c->signal = (uint32_t)(test_rand64() % n_vars);
        test_random_fr(&c->value);
    }
    test_rand_bytes(m->contributions, sizeof m->contributions);
}

/* The coefficient bytes: v * R^2 mod r (R = 2^256), written as the Montgomery form of the
 * element v * R. */
static void put_coef_value(buf_t *b, const fr_t *v)
{
    fr_t two, r_elem, t;
    uint64_t e = 256;
    fr_from_u64(&two, 2);
    fr_pow(&r_elem, &two, &e, 1);
    fr_mul(&t, v, &r_elem);
    uint8_t out[32];
    fr_to_mont_bytes_le(out, &t);
    put(b, out, 32);
}

static void put_g1(buf_t *b, const g1_affine_t *p)
{
    uint8_t out[G1_SNARKJS_BYTES];
    g1_encode_snarkjs(out, p);
    put(b, out, sizeof out);
}

static void put_g2(buf_t *b, const g2_affine_t *p)
{
    uint8_t out[G2_SNARKJS_BYTES];
    g2_encode_snarkjs(out, p);
    put(b, out, sizeof out);
}

static void zkey_body(buf_t *b, const zmodel_t *m, uint32_t id)
{
    switch (id) {
    case 1: put_u32(b, 1); break;
    case 2:
        put_u32(b, 48);
        put_limbs(b, FP_MODULUS, 6);
        put_u32(b, 32);
        put_limbs(b, FR_MODULUS, 4);
        put_u32(b, m->n_vars);
        put_u32(b, m->n_public);
        put_u32(b, m->domain_size);
        put_g1(b, &m->alpha1);
        put_g1(b, &m->beta1);
        put_g2(b, &m->beta2);
        put_g2(b, &m->gamma2);
        put_g1(b, &m->delta1);
        put_g2(b, &m->delta2);
        break;
    case 3:
        for (uint32_t i = 0; i <= m->n_public; i++)
            put_g1(b, &m->ic[i]);
        break;
    case 4:
        put_u32(b, m->n_coefs);
        for (uint32_t i = 0; i < m->n_coefs; i++) {
            put_u32(b, m->coefs[i].matrix);
            put_u32(b, m->coefs[i].constraint);
            put_u32(b, m->coefs[i].signal);
            put_coef_value(b, &m->coefs[i].value);
        }
        break;
    case 5:
    case 6:
        for (uint32_t i = 0; i < m->n_vars; i++)
            put_g1(b, id == 5 ? &m->a[i] : &m->b1[i]);
        break;
    case 7:
        for (uint32_t i = 0; i < m->n_vars; i++)
            put_g2(b, &m->b2[i]);
        break;
    case 8:
        for (uint32_t i = 0; i + m->n_public + 1 < m->n_vars; i++)
            put_g1(b, &m->c[i]);
        break;
    case 9:
        for (uint32_t i = 0; i < m->domain_size; i++)
            put_g1(b, &m->h[i]);
        break;
    case 10: put(b, m->contributions, sizeof m->contributions); break;
    }
}

/* snarkjs `groth16 setup` order; `zkey contribute` writes 1..10. */
static const uint32_t SETUP_ORDER[] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};

static void zkey_build(wfile_t *w, const zmodel_t *m, bool setup_order, bool with_contributions)
{
    memset(w, 0, sizeof *w);
    memcpy(w->magic, "zkey", 4);
    w->version = 1;
    for (uint32_t i = 0; i < 10; i++) {
        uint32_t id = setup_order ? SETUP_ORDER[i] : i + 1;
        if (id == 10 && !with_contributions)
            continue;
        zkey_body(&wf_add(w, id)->body, m, id);
    }
}

typedef struct {
    uint32_t n;
    fr_t v[MAXP];
} wmodel_t;

static void wmodel_random(wmodel_t *m, uint32_t n)
{
    m->n = n;
    for (uint32_t i = 0; i < n; i++)
        test_random_fr(&m->v[i]);
    if (n)
        fr_one(&m->v[0]);
}

static void wtns_build(wfile_t *w, const wmodel_t *m)
{
    memset(w, 0, sizeof *w);
    memcpy(w->magic, "wtns", 4);
    w->version = 2;
    buf_t *b = &wf_add(w, 1)->body;
    put_u32(b, 32);
    put_limbs(b, FR_MODULUS, 4);
    put_u32(b, m->n);
    b = &wf_add(w, 2)->body;
    for (uint32_t i = 0; i < m->n; i++) {
        uint8_t out[32];
        fr_to_bytes_le(out, &m->v[i]);
        put(b, out, 32);
    }
}

enum { MAXK = 16, MAXF = 4 };

typedef struct {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint64_t n_labels;
    struct {
        uint32_t n;
        uint32_t wire[MAXF];
        fr_t value[MAXF];
    } lc[MAXK][3];
    uint64_t labels[MAXP];
} rmodel_t;

static void rmodel_random(rmodel_t *m, uint32_t n_wires, uint32_t n_constraints)
{
    memset(m, 0, sizeof *m);
    m->n_wires = n_wires;
    m->n_pub_out = n_wires > 1 ? 1 : 0;
    m->n_pub_in = n_wires > 2 ? 1 : 0;
    m->n_prv_in = n_wires > 4 ? 2 : 0;
    m->n_labels = n_wires + 3;
    m->n_constraints = n_constraints;
    for (uint32_t k = 0; k < n_constraints; k++)
        for (int j = 0; j < 3; j++) {
            uint32_t n = (uint32_t)(test_rand64() % (MAXF + 1));
            uint32_t wire = 0;
            for (uint32_t f = 0; f < n && wire < n_wires; f++) {
                /* ascending wire ids, as circom writes them */
                wire += (uint32_t)(test_rand64() % 2);
                if (wire >= n_wires)
                    break;
                m->lc[k][j].wire[m->lc[k][j].n] = wire;
                test_random_fr(&m->lc[k][j].value[m->lc[k][j].n]);
                m->lc[k][j].n++;
                wire++;
            }
        }
    for (uint32_t i = 0; i < n_wires; i++)
        m->labels[i] = test_rand64() % m->n_labels;
}

static void r1cs_header_body(buf_t *b, const rmodel_t *m)
{
    put_u32(b, 32);
    put_limbs(b, FR_MODULUS, 4);
    put_u32(b, m->n_wires);
    put_u32(b, m->n_pub_out);
    put_u32(b, m->n_pub_in);
    put_u32(b, m->n_prv_in);
    put_u64(b, m->n_labels);
    put_u32(b, m->n_constraints);
}

static void r1cs_build(wfile_t *w, const rmodel_t *m, bool with_labels)
{
    memset(w, 0, sizeof *w);
    memcpy(w->magic, "r1cs", 4);
    w->version = 1;
    r1cs_header_body(&wf_add(w, 1)->body, m);
    buf_t *b = &wf_add(w, 2)->body;
    for (uint32_t k = 0; k < m->n_constraints; k++)
        for (int j = 0; j < 3; j++) {
            put_u32(b, m->lc[k][j].n);
            for (uint32_t f = 0; f < m->lc[k][j].n; f++) {
                uint8_t out[32];
                put_u32(b, m->lc[k][j].wire[f]);
                fr_to_bytes_le(out, &m->lc[k][j].value[f]);
                put(b, out, 32);
            }
        }
    if (with_labels) {
        b = &wf_add(w, 3)->body;
        for (uint32_t i = 0; i < m->n_wires; i++)
            put_u64(b, m->labels[i]);
    }
}

/* ===================================================================================
 * Opening from bytes: an exact-size heap copy, so that ASan sees any read past the end.
 * =================================================================================== */

typedef enum { KIND_ZKEY, KIND_WTNS, KIND_R1CS } kind_t;

typedef struct {
    kind_t kind;
    uint8_t *mem;
    zkey_t z;
    wtns_t w;
    r1cs_t r;
} opened_t;

/* Opens and, when that works, runs the full validation pass too. */
static g16_status open_bytes(opened_t *o, kind_t kind, const uint8_t *data, size_t len,
                             const char *name)
{
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->mem = malloc(len ? len : 1);
    if (len)
        memcpy(o->mem, data, len);
    g16_status st;
    switch (kind) {
    case KIND_ZKEY:
        st = zkey_open_memory(&o->z, name, o->mem, len);
        if (st == G16_OK)
            st = zkey_validate_coefs(&o->z);
        break;
    case KIND_WTNS:
        st = wtns_open_memory(&o->w, name, o->mem, len);
        if (st == G16_OK)
            st = wtns_validate(&o->w);
        break;
    default:
        st = r1cs_open_memory(&o->r, name, o->mem, len);
        if (st == G16_OK)
            st = r1cs_validate(&o->r);
        break;
    }
    return st;
}

static void close_opened(opened_t *o)
{
    zkey_close(&o->z);
    wtns_close(&o->w);
    r1cs_close(&o->r);
    free(o->mem);
    o->mem = NULL;
}

static const char *kind_name(kind_t kind)
{
    return kind == KIND_ZKEY ? "circuit.zkey" : kind == KIND_WTNS ? "witness.wtns" : "circuit.r1cs";
}

static bool expect(g16_status got, g16_status want, const char *needle, const char *what)
{
    bool ok = got == want && (!needle || strstr(g16_last_error(), needle) != NULL);
    if (!CHECK(ok))
        printf("  %s: got status %d (%s), want %d; message \"%s\"; wanted it to contain "
               "\"%s\"\n",
               what, got, g16_status_message(got), want, g16_last_error(),
               needle ? needle : "");
    return ok;
}

/* Serialises w, opens it as kind and checks the outcome. */
static void try_file(const wfile_t *w, kind_t kind, g16_status want, const char *needle,
                     const char *what)
{
    buf_t b = wf_serialize(w);
    opened_t o;
    g16_status st = open_bytes(&o, kind, b.p, b.len, kind_name(kind));
    expect(st, want, needle, what);
    close_opened(&o);
    buf_free(&b);
}

/* ===================================================================================
 * Round trips
 * =================================================================================== */

static bool g1_bytes_equal(const uint8_t *bytes, const g1_affine_t *p)
{
    g1_affine_t q;
    return g1_decode_snarkjs(&q, bytes, false) == G16_OK && g1_affine_equal(&q, p);
}

static bool g2_bytes_equal(const uint8_t *bytes, const g2_affine_t *p)
{
    g2_affine_t q;
    return g2_decode_snarkjs(&q, bytes, false) == G16_OK && g2_affine_equal(&q, p);
}

static void check_zkey_matches(const zkey_t *k, const zmodel_t *m, bool with_contributions)
{
    CHECK(k->protocol == 1);
    CHECK(k->n8q == 48 && k->n8r == 32);
    CHECK(k->n_vars == m->n_vars);
    CHECK(k->n_public == m->n_public);
    CHECK(k->domain_size == m->domain_size);
    CHECK((1u << k->log2_domain) == m->domain_size);
    CHECK(g1_affine_equal(&k->alpha1, &m->alpha1));
    CHECK(g1_affine_equal(&k->beta1, &m->beta1));
    CHECK(g1_affine_equal(&k->delta1, &m->delta1));
    CHECK(g2_affine_equal(&k->beta2, &m->beta2));
    CHECK(g2_affine_equal(&k->gamma2, &m->gamma2));
    CHECK(g2_affine_equal(&k->delta2, &m->delta2));
    CHECK(k->ic.count == m->n_public + 1);
    CHECK(k->a.count == m->n_vars && k->b1.count == m->n_vars && k->b2.count == m->n_vars);
    CHECK(k->c.count == m->n_vars - m->n_public - 1);
    CHECK(k->h.count == m->domain_size);
    bool pts = true;
    for (size_t i = 0; i < k->ic.count; i++)
        pts &= g1_bytes_equal(k->ic.data + i * ZKEY_G1_BYTES, &m->ic[i]);
    for (size_t i = 0; i < k->a.count; i++) {
        pts &= g1_bytes_equal(k->a.data + i * ZKEY_G1_BYTES, &m->a[i]);
        pts &= g1_bytes_equal(k->b1.data + i * ZKEY_G1_BYTES, &m->b1[i]);
        pts &= g2_bytes_equal(k->b2.data + i * ZKEY_G2_BYTES, &m->b2[i]);
    }
    for (size_t i = 0; i < k->c.count; i++)
        pts &= g1_bytes_equal(k->c.data + i * ZKEY_G1_BYTES, &m->c[i]);
    for (size_t i = 0; i < k->h.count; i++)
        pts &= g1_bytes_equal(k->h.data + i * ZKEY_G1_BYTES, &m->h[i]);
    CHECK(pts);
    CHECK(k->n_coefs == m->n_coefs);
    bool coefs = k->n_coefs == m->n_coefs;
    for (uint32_t i = 0; coefs && i < k->n_coefs; i++) {
        zkey_coef_t c;
        coefs &= zkey_coef(&c, k, i) == G16_OK;
        coefs &= c.matrix == m->coefs[i].matrix && c.constraint == m->coefs[i].constraint &&
                 c.signal == m->coefs[i].signal && fr_equal(&c.value, &m->coefs[i].value);
    }
    CHECK(coefs);
    zkey_coef_t c;
    expect(zkey_coef(&c, k, k->n_coefs), G16_ERR_INVALID_ARGUMENT, "coefficient",
           "coefficient index out of range");
    if (with_contributions)
        CHECK(k->contributions_size == sizeof m->contributions &&
              !memcmp(k->contributions, m->contributions, sizeof m->contributions));
    else
        CHECK(k->contributions == NULL && k->contributions_size == 0);
}

/* The stored coefficient form is what the prover multiplies with a standard-form witness
 * value in one Montgomery product: check that reading of FORMATS.md against the value. */
static void check_double_montgomery(const zkey_t *k)
{
    if (k->n_coefs == 0)
        return;
    zkey_coef_t c;
    zkey_coef(&c, k, 0);
    fr_t w, stored_raw, w_raw, prod, want;
    test_random_fr(&w);
    uint8_t wb[32];
    fr_to_bytes_le(wb, &w);
    /* Both sides read as raw Montgomery limbs, as rapidsnark does. */
    fr_from_mont_bytes_le(&stored_raw, k->coefs + 12);
    fr_from_mont_bytes_le(&w_raw, wb);
    fr_mul(&prod, &stored_raw, &w_raw);
    fr_mul(&want, &c.value, &w);
    CHECK(fr_equal(&prod, &want));
}

static void test_zkey_roundtrip(void)
{
    static zmodel_t m;
    static const uint32_t shapes[][4] = {
        /* nVars, nPublic, log2 domain, coefficients */
        {6, 2, 3, 20}, {1, 0, 0, 0}, {2, 1, 1, 3}, {40, 5, 5, 90}, {8, 7, 4, 10},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int variant = 0; variant < 4; variant++) {
            zmodel_random(&m, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
            bool setup = variant & 1, contrib = variant & 2;
            wfile_t w;
            zkey_build(&w, &m, setup, contrib);
            buf_t b = wf_serialize(&w);
            opened_t o;
            if (expect(open_bytes(&o, KIND_ZKEY, b.p, b.len, "circuit.zkey"), G16_OK, NULL,
                       "valid zkey")) {
                check_zkey_matches(&o.z, &m, contrib);
                check_double_montgomery(&o.z);
                CHECK(o.z.file.n_sections == (contrib ? 10u : 9u));
                CHECK(o.z.file.trailing == 0);
                CHECK(o.z.file.version == 1);
            }
            close_opened(&o);
            buf_free(&b);
            wf_free(&w);
        }

    /* Version 2 reads the same; bytes after the last section are tolerated and counted. */
    zmodel_random(&m, 6, 2, 3, 20);
    wfile_t w;
    zkey_build(&w, &m, true, true);
    w.version = 2;
    buf_t b = wf_serialize(&w);
    put(&b, "extra", 5);
    opened_t o;
    if (expect(open_bytes(&o, KIND_ZKEY, b.p, b.len, "circuit.zkey"), G16_OK, NULL,
               "zkey version 2 with trailing bytes")) {
        CHECK(o.z.file.trailing == 5);
        CHECK(o.z.file.version == 2);
    }
    close_opened(&o);
    buf_free(&b);

    /* Sections of ids this reader does not know are skipped, not rejected. */
    wf_add(&w, 42);
    put(&wf_find(&w, 42)->body, "future", 6);
    try_file(&w, KIND_ZKEY, G16_OK, NULL, "zkey with an unknown section");
    wf_free(&w);
}

static void test_wtns_roundtrip(void)
{
    static wmodel_t m;
    static const uint32_t sizes[] = {1, 2, 6, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        wmodel_random(&m, sizes[s]);
        wfile_t w;
        wtns_build(&w, &m);
        buf_t b = wf_serialize(&w);
        opened_t o;
        if (expect(open_bytes(&o, KIND_WTNS, b.p, b.len, "witness.wtns"), G16_OK, NULL,
                   "valid wtns")) {
            CHECK(o.w.n8 == 32 && o.w.n_witness == m.n);
            bool same = true;
            for (uint32_t i = 0; i < m.n; i++) {
                fr_t v;
                same &= wtns_get(&v, &o.w, i) && fr_equal(&v, &m.v[i]);
            }
            CHECK(same);
            fr_t v;
            CHECK(!wtns_get(&v, &o.w, m.n));
        }
        close_opened(&o);
        buf_free(&b);
        wf_free(&w);
    }
}

static void check_r1cs_matches(const r1cs_t *r, const rmodel_t *m, bool with_labels)
{
    CHECK(r->fs == 32 && r->n_wires == m->n_wires && r->n_pub_out == m->n_pub_out &&
          r->n_pub_in == m->n_pub_in && r->n_prv_in == m->n_prv_in &&
          r->n_labels == m->n_labels && r->n_constraints == m->n_constraints);
    r1cs_iter_t it;
    r1cs_constraint_t c;
    r1cs_iter_init(&it, r);
    bool same = true;
    for (uint32_t k = 0; k < m->n_constraints; k++) {
        if (!expect(r1cs_iter_next(&it, &c), G16_OK, NULL, "r1cs constraint"))
            return;
        const r1cs_lc_t *lcs[3] = {&c.a, &c.b, &c.c};
        for (int j = 0; j < 3; j++) {
            same &= lcs[j]->n_factors == m->lc[k][j].n;
            for (uint32_t f = 0; same && f < lcs[j]->n_factors; f++) {
                uint32_t wire;
                fr_t v;
                r1cs_factor(&wire, &v, lcs[j], f);
                same &= wire == m->lc[k][j].wire[f] && fr_equal(&v, &m->lc[k][j].value[f]);
            }
        }
    }
    CHECK(same);
    expect(r1cs_iter_end(&it), G16_OK, NULL, "r1cs end");
    expect(r1cs_iter_next(&it, &c), G16_ERR_INVALID_ARGUMENT, "constraints were read",
           "r1cs read past the last constraint");
    if (with_labels) {
        bool labels = r->labels != NULL;
        for (uint32_t i = 0; labels && i < m->n_wires; i++)
            labels &= iden3_le64(r->labels + 8 * i) == m->labels[i];
        CHECK(labels);
    } else {
        CHECK(r->labels == NULL);
    }
}

static void test_r1cs_roundtrip(void)
{
    static rmodel_t m;
    static const uint32_t shapes[][2] = {{6, 3}, {2, 0}, {3, 1}, {40, 16}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int labels = 0; labels < 2; labels++) {
            rmodel_random(&m, shapes[s][0], shapes[s][1]);
            wfile_t w;
            r1cs_build(&w, &m, labels);
            buf_t b = wf_serialize(&w);
            opened_t o;
            if (expect(open_bytes(&o, KIND_R1CS, b.p, b.len, "circuit.r1cs"), G16_OK, NULL,
                       "valid r1cs"))
                check_r1cs_matches(&o.r, &m, labels);
            close_opened(&o);
            buf_free(&b);
            wf_free(&w);
        }
    /* Empty custom-gate sections (count 0, or no bytes at all) are no custom gates. */
    rmodel_random(&m, 6, 3);
    wfile_t w;
    r1cs_build(&w, &m, true);
    put_u32(&wf_add(&w, 4)->body, 0);
    wf_add(&w, 5);
    try_file(&w, KIND_R1CS, G16_OK, NULL, "r1cs with empty custom gate sections");
    wf_free(&w);
}

/* ===================================================================================
 * Hostile input
 * =================================================================================== */

/* Every proper prefix must be refused as malformed: sections are checked against the
 * file's length before anything reads them. */
static void test_truncations(void)
{
    static zmodel_t zm;
    static wmodel_t wm;
    static rmodel_t rm;
    wfile_t w[3];
    zmodel_random(&zm, 3, 1, 2, 6);
    zkey_build(&w[0], &zm, true, true);
    wmodel_random(&wm, 5);
    wtns_build(&w[1], &wm);
    rmodel_random(&rm, 6, 3);
    r1cs_build(&w[2], &rm, true);
    for (int f = 0; f < 3; f++) {
        buf_t b = wf_serialize(&w[f]);
        size_t bad = 0, first_bad = 0;
        for (size_t n = 0; n < b.len; n++) {
            opened_t o;
            g16_status st = open_bytes(&o, (kind_t)f, b.p, n, kind_name((kind_t)f));
            if (st != G16_ERR_FORMAT || !strstr(g16_last_error(), kind_name((kind_t)f))) {
                if (!bad++)
                    first_bad = n;
            }
            close_opened(&o);
        }
        CHECK(bad == 0);
        if (bad)
            printf("  %s: %zu of %zu truncations not refused as malformed (first at %zu)\n",
                   kind_name((kind_t)f), bad, b.len, first_bad);
        /* and the whole file still opens */
        opened_t o;
        expect(open_bytes(&o, (kind_t)f, b.p, b.len, kind_name((kind_t)f)), G16_OK, NULL,
               "untruncated file");
        close_opened(&o);
        buf_free(&b);
        wf_free(&w[f]);
    }
}

/* Random corruption: whatever it yields must be a status, never a crash or a read out of
 * bounds (this test runs under ASan in the sanitizer build). */
static void test_corruption(void)
{
    static zmodel_t zm;
    static wmodel_t wm;
    static rmodel_t rm;
    wfile_t w[3];
    zmodel_random(&zm, 3, 1, 2, 6);
    zkey_build(&w[0], &zm, false, true);
    wmodel_random(&wm, 5);
    wtns_build(&w[1], &wm);
    rmodel_random(&rm, 6, 3);
    r1cs_build(&w[2], &rm, true);
    size_t rounds = test_count(400);
    for (int f = 0; f < 3; f++) {
        buf_t b = wf_serialize(&w[f]);
        uint8_t *copy = malloc(b.len);
        size_t odd = 0;
        for (size_t i = 0; i < rounds; i++) {
            memcpy(copy, b.p, b.len);
            int flips = 1 + (int)(test_rand64() % 4);
            for (int j = 0; j < flips; j++) {
                size_t at = test_rand64() % b.len;
                /* Bias towards the header and the section table, where sizes live. */
                if (test_rand64() & 1)
                    at %= 64;
                copy[at] = (uint8_t)test_rand64();
            }
            opened_t o;
            g16_status st = open_bytes(&o, (kind_t)f, copy, b.len, kind_name((kind_t)f));
            if (st == G16_ERR_INTERNAL || st == G16_ERR_OUT_OF_MEMORY ||
                (st != G16_OK && !*g16_last_error()))
                odd++;
            close_opened(&o);
        }
        CHECK(odd == 0);
        free(copy);
        buf_free(&b);
        wf_free(&w[f]);
    }
}

static void put_bn254_q(buf_t *b)
{
    static const uint64_t Q[4] = {0x3c208c16d87cfd47, 0x97816a916871ca8d, 0xb85045b68181585d,
                                  0x30644e72e131a029};
    put_limbs(b, Q, 4);
}

static void put_bn254_r(buf_t *b)
{
    static const uint64_t R[4] = {0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d,
                                  0x30644e72e131a029};
    put_limbs(b, R, 4);
}

/* Header section bytes: n8q, q, n8r, r, nVars, nPublic, domainSize at 100, points after. */
enum { HDR_NVARS = 88, HDR_NPUBLIC = 92, HDR_DOMAIN = 96, HDR_POINTS = 100 };

static void set_u32(buf_t *b, size_t at, uint32_t v)
{
    b->p[at] = (uint8_t)v;
    b->p[at + 1] = (uint8_t)(v >> 8);
    b->p[at + 2] = (uint8_t)(v >> 16);
    b->p[at + 3] = (uint8_t)(v >> 24);
}

static void test_container_rejections(void)
{
    static zmodel_t m;
    zmodel_random(&m, 6, 2, 3, 20);
    wfile_t base, w;
    zkey_build(&base, &m, true, true);

    wf_copy(&w, &base);
    memcpy(w.magic, "zkez", 4);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "wrong magic \"zkez\"", "wrong magic");
    memcpy(w.magic, "wtns", 4);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "not a zkey file", "a wtns opened as zkey");
    wf_free(&w);

    wf_copy(&w, &base);
    w.version = 3;
    try_file(&w, KIND_ZKEY, G16_ERR_UNSUPPORTED, "zkey version 3 is not supported",
             "zkey version 3");
    w.version = 0;
    try_file(&w, KIND_ZKEY, G16_ERR_UNSUPPORTED, "version 0", "zkey version 0");
    wf_free(&w);

    for (uint32_t id = 1; id <= 9; id++) {
        wf_copy(&w, &base);
        wf_remove(&w, id);
        char needle[64], what[64];
        snprintf(needle, sizeof needle, "circuit.zkey: section %u (", id);
        snprintf(what, sizeof what, "zkey without section %u", id);
        try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, needle, what);
        CHECK(strstr(g16_last_error(), "is missing") != NULL);
        wf_free(&w);
    }
    wf_copy(&w, &base);
    wf_remove(&w, 9);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "section 9 (H) is missing", "missing H");
    wf_free(&w);

    wf_copy(&w, &base);
    {
        wsection_t *dup = wf_add(&w, 3);
        put(&dup->body, wf_find(&w, 3)->body.p, wf_find(&w, 3)->body.len);
    }
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "section 3 (IC) appears twice", "duplicate IC");
    wf_free(&w);

    /* Sizes that lie: one byte too many for the file, and values that wrap u64 sums. */
    static const uint64_t lies[] = {0, 1, 0xffffffffffffffffull, 0xfffffffffffffff4ull,
                                    0x8000000000000000ull};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        wf_copy(&w, &base);
        wsection_t *s = wf_find(&w, 9);
        s->lie = true;
        s->size_override = i == 0 ? s->body.len + 1 : lies[i];
        /* H is in the middle of the setup order: the table walk itself must catch it. A
         * small lie shifts the next section header into point bytes, which fail in their
         * own way; a large one names H. */
        try_file(&w, KIND_ZKEY, G16_ERR_FORMAT,
                 i < 2 ? "circuit.zkey: " : "section 9 (H) runs past the end of the file",
                 "H size lie");
        wf_free(&w);
    }
    /* The last section one byte short of its claimed size. */
    wf_copy(&w, &base);
    w.s[w.n - 1].lie = true;
    w.s[w.n - 1].size_override = w.s[w.n - 1].body.len + 1;
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "section 10 (contributions) runs past the end",
             "last section size lie");
    wf_free(&w);

    /* More sections declared than present, and an absurd count. */
    wf_copy(&w, &base);
    w.count_lie = true;
    w.count_override = w.n + 1;
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "truncated", "section count too high");
    w.count_override = 0xffffffff;
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "4294967295 sections", "section count absurd");
    /* Two short: B2 (setup order ..., 7, 10) goes unread. */
    w.count_override = w.n - 2;
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "section 7 (B2) is missing", "section count too low");
    wf_free(&w);

    /* Many sections, all distinct: accepted up to the table size. */
    wf_copy(&w, &base);
    while (w.n < IDEN3_MAX_SECTIONS)
        wf_add(&w, 100 + w.n);
    try_file(&w, KIND_ZKEY, G16_OK, NULL, "64 sections");
    wf_add(&w, 1000);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "at most 64", "65 sections");
    wf_free(&w);

    wf_free(&base);
}

static void test_zkey_rejections(void)
{
    static zmodel_t m;
    zmodel_random(&m, 6, 2, 3, 20);
    wfile_t base, w;
    zkey_build(&base, &m, true, true);
    char needle[160];

    /* Protocol */
    static const struct {
        uint32_t protocol;
        const char *needle;
    } protocols[] = {{2, "protocol 2 (PLONK): not a Groth16 key"},
                     {10, "protocol 10 (FFLONK): not a Groth16 key"},
                     {0, "not a Groth16 key"},
                     {7, "not a Groth16 key"}};
    for (size_t i = 0; i < sizeof protocols / sizeof protocols[0]; i++) {
        wf_copy(&w, &base);
        set_u32(&wf_find(&w, 1)->body, 0, protocols[i].protocol);
        try_file(&w, KIND_ZKEY, G16_ERR_UNSUPPORTED, protocols[i].needle, "wrong protocol");
        wf_free(&w);
    }
    wf_copy(&w, &base);
    put_u32(&wf_find(&w, 1)->body, 0);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "section 1 (protocol) is 8 bytes, expected 4",
             "protocol section size");
    wf_free(&w);

    /* Curves: a BN254 header (n8q = 32, 660 bytes), an unknown prime, a wrong r. */
    wf_copy(&w, &base);
    {
        buf_t *b = &wf_find(&w, 2)->body;
        b->len = 0;
        put_u32(b, 32);
        put_bn254_q(b);
        put_u32(b, 32);
        put_bn254_r(b);
        put_u32(b, 6);
        put_u32(b, 2);
        put_u32(b, 8);
        uint8_t zeros[576] = {0};
        put(b, zeros, sizeof zeros);
        CHECK(b->len == 660);
    }
    try_file(&w, KIND_ZKEY, G16_ERR_UNSUPPORTED, "curve BN254 not supported yet", "BN254 key");
    wf_free(&w);

    wf_copy(&w, &base);
    wf_find(&w, 2)->body.p[4] ^= 2; /* q + 2 */
    try_file(&w, KIND_ZKEY, G16_ERR_UNSUPPORTED, "unsupported curve", "unknown q");
    CHECK(strstr(g16_last_error(), "an unknown prime") != NULL);
    wf_free(&w);

    wf_copy(&w, &base);
    wf_find(&w, 2)->body.p[4 + 48 + 4] ^= 1; /* r ^ 1 */
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "r is an unknown prime", "wrong r");
    wf_free(&w);

    wf_copy(&w, &base);
    set_u32(&wf_find(&w, 2)->body, 52, 48); /* n8r */
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "n8r is 48", "wrong n8r");
    wf_free(&w);

    /* BLS12-381's q padded to 56 bytes: the right prime, the wrong width. */
    wf_copy(&w, &base);
    {
        buf_t *b = &wf_find(&w, 2)->body, nb = {0};
        put_u32(&nb, 56);
        put_limbs(&nb, FP_MODULUS, 6);
        put_u64(&nb, 0);
        put(&nb, b->p + 52, b->len - 52);
        buf_free(b);
        *b = nb;
    }
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "n8q is 56, expected 48", "padded q");
    wf_free(&w);

    /* Header size: one byte more or less than 964. */
    wf_copy(&w, &base);
    put(&wf_find(&w, 2)->body, "x", 1);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "section 2 (header) is 965 bytes, expected 964",
             "header too long");
    wf_find(&w, 2)->body.len -= 2;
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "section 2 (header) is 963 bytes, expected 964",
             "header too short");
    wf_find(&w, 2)->body.len = 30;
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "too short to hold q", "header cut inside q");
    wf_free(&w);

    /* Counts */
    static const uint32_t bad_domains[] = {0, 3, 12, 0x80000001u};
    for (size_t i = 0; i < sizeof bad_domains / sizeof bad_domains[0]; i++) {
        wf_copy(&w, &base);
        set_u32(&wf_find(&w, 2)->body, HDR_DOMAIN, bad_domains[i]);
        snprintf(needle, sizeof needle, "domain size %u is not a power of two", bad_domains[i]);
        try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, needle, "domain size");
        wf_free(&w);
    }
    wf_copy(&w, &base);
    set_u32(&wf_find(&w, 2)->body, HDR_NPUBLIC, 6);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "nPublic = 6 must be below nVars = 6",
             "nPublic = nVars");
    set_u32(&wf_find(&w, 2)->body, HDR_NPUBLIC, 0xffffffff);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "must be below nVars", "nPublic huge");
    wf_free(&w);

    /* Every section's size against the counts, one point short. */
    static const struct {
        uint32_t id;
        size_t point;
        const char *needle;
    } short_sections[] = {
        {9, 96, "section 9 (H) is 672 bytes, expected 768 for domain size 8"},
        {3, 96, "section 3 (IC) is 192 bytes, expected 288 for nPublic = 2"},
        {5, 96, "section 5 (A) is 480 bytes, expected 576 for nVars = 6"},
        {6, 96, "section 6 (B1) is 480 bytes, expected 576 for nVars = 6"},
        {7, 192, "section 7 (B2) is 960 bytes, expected 1152 for nVars = 6"},
        {8, 96, "section 8 (C) is 192 bytes, expected 288 for nVars - nPublic - 1 = 3"},
        {4, 44, "section 4 (coefficients) is 840 bytes, expected 884 for 20 coefficients"},
    };
    for (size_t i = 0; i < sizeof short_sections / sizeof short_sections[0]; i++) {
        wf_copy(&w, &base);
        wf_find(&w, short_sections[i].id)->body.len -= short_sections[i].point;
        try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, short_sections[i].needle, "short section");
        wf_free(&w);
    }
    /* nVars larger than the sections (a key header from a bigger circuit). */
    wf_copy(&w, &base);
    set_u32(&wf_find(&w, 2)->body, HDR_NVARS, 0xffffffff);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "expected 412316860320 for nVars = 4294967295",
             "nVars huge");
    wf_free(&w);
    wf_copy(&w, &base);
    wf_find(&w, 4)->body.len = 3;
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "too short for the coefficient count",
             "coefficient section of 3 bytes");
    set_u32(&wf_find(&w, 4)->body, 0, 0); /* len is 3 but the buffer holds more */
    wf_find(&w, 4)->body.len = 4;
    set_u32(&wf_find(&w, 4)->body, 0, 0xffffffff);
    try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "for 4294967295 coefficients", "nCoefs huge");
    wf_free(&w);

    /* Header points: off the curve (y + 1), a coordinate >= q, and each point by name. */
    static const struct {
        const char *name;
        size_t at;
        bool g2;
    } pts[] = {
        {"alpha1", HDR_POINTS, false},         {"beta1", HDR_POINTS + 96, false},
        {"beta2", HDR_POINTS + 192, true},     {"gamma2", HDR_POINTS + 384, true},
        {"delta1", HDR_POINTS + 576, false},   {"delta2", HDR_POINTS + 672, true},
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        wf_copy(&w, &base);
        uint8_t *p = wf_find(&w, 2)->body.p + pts[i].at;
        /* y (G1) or y.c0 (G2): add one to its Montgomery form in place; the sum stays
         * below q for all but a negligible share of random points, and (x, y+1) is then
         * off the curve (y+1 and -(y+1) are the only other candidates). */
        size_t y = pts[i].g2 ? 96 : 48;
        for (size_t j = 0; j < 48 && ++p[y + j] == 0; j++)
            ;
        snprintf(needle, sizeof needle, "section 2 (header): %s: ", pts[i].name);
        try_file(&w, KIND_ZKEY, G16_ERR_NOT_ON_CURVE, needle, "off-curve header point");
        CHECK(strstr(g16_last_error(), "not on the curve") != NULL);
        wf_free(&w);

        wf_copy(&w, &base);
        p = wf_find(&w, 2)->body.p + pts[i].at;
        for (int j = 0; j < 6; j++)
            for (int k = 0; k < 8; k++)
                p[8 * j + k] = (uint8_t)(FP_MODULUS[j] >> (8 * k));
        try_file(&w, KIND_ZKEY, G16_ERR_BAD_ENCODING, needle, "header coordinate = q");
        wf_free(&w);
    }
    /* A header point at infinity is on the curve as far as the file format goes. */
    wf_copy(&w, &base);
    memset(wf_find(&w, 2)->body.p + HDR_POINTS, 0, 96);
    try_file(&w, KIND_ZKEY, G16_OK, NULL, "alpha1 at infinity");
    wf_free(&w);

    /* Coefficient entries (checked by the validation pass). Entry 5 is at 4 + 5 * 44. */
    static const struct {
        size_t field;
        uint32_t value;
        const char *needle;
    } coefs[] = {
        {0, 2, "entry 5: matrix 2"},
        {0, 0xffffffff, "entry 5: matrix 4294967295"},
        {4, 8, "entry 5: constraint 8 is not below the domain size 8"},
        {8, 6, "entry 5: signal 6 is not below nVars = 6"},
    };
    for (size_t i = 0; i < sizeof coefs / sizeof coefs[0]; i++) {
        wf_copy(&w, &base);
        set_u32(&wf_find(&w, 4)->body, 4 + 5 * 44 + coefs[i].field, coefs[i].value);
        try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, coefs[i].needle, "bad coefficient");
        CHECK(strstr(g16_last_error(), "section 4 (coefficients)") != NULL);
        wf_free(&w);
    }
    /* Two bad entries, 5 and a later one: every task size reports the first (the check
     * runs in parallel tasks and keeps the lowest index). */
    {
        wf_copy(&w, &base);
        set_u32(&wf_find(&w, 4)->body, 4 + 5 * 44, 2);
        set_u32(&wf_find(&w, 4)->body, 4 + 9 * 44 + 4, 8);
        buf_t b = wf_serialize(&w);
        opened_t o;
        CHECK(open_bytes(&o, KIND_ZKEY, b.p, b.len, "circuit.zkey") == G16_ERR_FORMAT);
        for (uint32_t chunk = 1; chunk <= 12; chunk++) {
            CHECK(zkey_validate_coefs_by(&o.z, chunk) == G16_ERR_FORMAT);
            CHECK(strstr(g16_last_error(), "entry 5: matrix 2") != NULL);
        }
        close_opened(&o);
        buf_free(&b);
        wf_free(&w);
    }
    for (int variant = 0; variant < 2; variant++) {
        wf_copy(&w, &base);
        uint8_t *v = wf_find(&w, 4)->body.p + 4 + 5 * 44 + 12;
        if (variant == 0)
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < 8; k++)
                    v[8 * j + k] = (uint8_t)(FR_MODULUS[j] >> (8 * k));
        else
            memset(v, 0xff, 32);
        try_file(&w, KIND_ZKEY, G16_ERR_FORMAT, "entry 5: value is not below r (non-canonical)",
                 "non-canonical coefficient");
        wf_free(&w);
    }
    wf_free(&base);
}

static void test_wtns_rejections(void)
{
    static wmodel_t m;
    wmodel_random(&m, 6);
    wfile_t base, w;
    wtns_build(&base, &m);

    wf_copy(&w, &base);
    w.version = 1;
    try_file(&w, KIND_WTNS, G16_ERR_UNSUPPORTED, "wtns version 1 is not supported (expected 2)",
             "wtns version 1");
    memcpy(w.magic, "WTNS", 4);
    try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "wrong magic", "wtns magic");
    wf_free(&w);

    wf_copy(&w, &base);
    {
        buf_t *b = &wf_find(&w, 1)->body;
        b->len = 4;
        put_bn254_r(b);
        put_u32(b, 6);
    }
    try_file(&w, KIND_WTNS, G16_ERR_UNSUPPORTED, "curve BN254 not supported yet", "BN254 wtns");
    wf_free(&w);

    wf_copy(&w, &base);
    {
        buf_t *b = &wf_find(&w, 1)->body;
        b->len = 0;
        put_u32(b, 48);
        put_limbs(b, FP_MODULUS, 6);
        put_u32(b, 6);
    }
    try_file(&w, KIND_WTNS, G16_ERR_UNSUPPORTED, "the BLS12-381 base field prime q",
             "wtns over Fp");
    wf_free(&w);

    wf_copy(&w, &base);
    {
        buf_t *b = &wf_find(&w, 1)->body;
        b->len = 0;
        put_u32(b, 40);
        put_limbs(b, FR_MODULUS, 4);
        put_u64(b, 0);
        put_u32(b, 6);
    }
    try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "n8 is 40, expected 32", "padded wtns prime");
    wf_free(&w);

    wf_copy(&w, &base);
    put_u32(&wf_find(&w, 1)->body, 0);
    try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "section 1 (header) is 44 bytes, expected 40",
             "wtns header too long");
    wf_find(&w, 1)->body.len = 38;
    try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "section 1 (header) is 38 bytes, expected 40",
             "wtns header too short");
    wf_find(&w, 1)->body.len = 7;
    try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "too short to hold the prime", "wtns header cut");
    wf_free(&w);

    wf_copy(&w, &base);
    wf_find(&w, 2)->body.len -= 1;
    try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "section 2 (values) is 191 bytes, expected 192 for "
             "nWitness = 6", "wtns values short");
    wf_free(&w);
    wf_copy(&w, &base);
    set_u32(&wf_find(&w, 1)->body, 36, 0xffffffff);
    try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "expected 137438953440 for nWitness = 4294967295",
             "nWitness huge");
    wf_free(&w);
    for (uint32_t id = 1; id <= 2; id++) {
        wf_copy(&w, &base);
        wf_remove(&w, id);
        try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "is missing", "wtns section missing");
        wf_free(&w);
    }

    for (int variant = 0; variant < 2; variant++) {
        wf_copy(&w, &base);
        uint8_t *v = wf_find(&w, 2)->body.p + 3 * 32;
        if (variant == 0)
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < 8; k++)
                    v[8 * j + k] = (uint8_t)(FR_MODULUS[j] >> (8 * k));
        else
            memset(v, 0xff, 32);
        try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "value 3 is not below r (non-canonical)",
                 "non-canonical witness");
        wf_free(&w);
    }
    wf_copy(&w, &base);
    wf_find(&w, 2)->body.p[0] = 2;
    try_file(&w, KIND_WTNS, G16_ERR_FORMAT, "w[0] is not 1", "w[0] = 2");
    wf_free(&w);

    /* The witness must have one value per key signal. */
    static zmodel_t zm;
    zmodel_random(&zm, 6, 2, 3, 4);
    wfile_t zw;
    zkey_build(&zw, &zm, false, false);
    buf_t zb = wf_serialize(&zw);
    opened_t zo, wo;
    if (expect(open_bytes(&zo, KIND_ZKEY, zb.p, zb.len, "circuit.zkey"), G16_OK, NULL, "key")) {
        wmodel_random(&m, 6);
        wtns_build(&w, &m);
        buf_t wb = wf_serialize(&w);
        if (expect(open_bytes(&wo, KIND_WTNS, wb.p, wb.len, "witness.wtns"), G16_OK, NULL,
                   "witness"))
            expect(wtns_check_zkey(&wo.w, &zo.z), G16_OK, NULL, "matching witness");
        close_opened(&wo);
        buf_free(&wb);
        wf_free(&w);

        wmodel_random(&m, 7);
        wtns_build(&w, &m);
        wb = wf_serialize(&w);
        if (expect(open_bytes(&wo, KIND_WTNS, wb.p, wb.len, "witness.wtns"), G16_OK, NULL,
                   "witness"))
            expect(wtns_check_zkey(&wo.w, &zo.z), G16_ERR_INVALID_ARGUMENT,
                   "witness.wtns holds 7 witness values but circuit.zkey has nVars = 6",
                   "witness for another circuit");
        close_opened(&wo);
        buf_free(&wb);
        wf_free(&w);
    }
    close_opened(&zo);
    buf_free(&zb);
    wf_free(&zw);
    wf_free(&base);
}

static void test_r1cs_rejections(void)
{
    static rmodel_t m;
    rmodel_random(&m, 6, 3);
    /* Make constraint 1's B have two factors so entries can be corrupted by position. */
    m.lc[1][1].n = 2;
    m.lc[1][1].wire[0] = 1;
    m.lc[1][1].wire[1] = 4;
    wfile_t base, w;
    r1cs_build(&base, &m, true);
    /* Offset of constraint 1, B, factor 1 in section 2. */
    size_t at = 0;
    for (int j = 0; j < 3; j++)
        at += 4 + (size_t)m.lc[0][j].n * 36;
    at += 4 + (size_t)m.lc[1][0].n * 36 + 4 + 36;

    wf_copy(&w, &base);
    w.version = 2;
    try_file(&w, KIND_R1CS, G16_ERR_UNSUPPORTED, "r1cs version 2 is not supported",
             "r1cs version 2");
    wf_free(&w);

    wf_copy(&w, &base);
    {
        buf_t *b = &wf_find(&w, 1)->body;
        b->len = 4;
        put_bn254_r(b);
        b->len = 64;
    }
    try_file(&w, KIND_R1CS, G16_ERR_UNSUPPORTED, "curve BN254 not supported yet", "BN254 r1cs");
    wf_free(&w);

    wf_copy(&w, &base);
    wf_find(&w, 1)->body.p[10] ^= 0x40;
    try_file(&w, KIND_R1CS, G16_ERR_UNSUPPORTED, "unsupported curve", "r1cs unknown prime");
    wf_free(&w);

    wf_copy(&w, &base);
    put_u32(&wf_find(&w, 1)->body, 0);
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT, "section 1 (header) is 68 bytes, expected 64",
             "r1cs header size");
    wf_free(&w);

    wf_copy(&w, &base);
    set_u32(&wf_find(&w, 1)->body, 36, 4); /* nWires = 4 < 1 + 1 + 1 + 2 */
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT, "nWires = 4 cannot hold", "r1cs nWires too small");
    wf_free(&w);

    wf_copy(&w, &base);
    set_u32(&wf_find(&w, 1)->body, 60, 0x10000000); /* mConstraints */
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT, "too short for mConstraints = 268435456",
             "r1cs mConstraints huge");
    set_u32(&wf_find(&w, 1)->body, 60, 4);
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT, "constraint 3, A: the factor count runs past",
             "r1cs one constraint too many");
    set_u32(&wf_find(&w, 1)->body, 60, 2);
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT, "bytes left after its 2 constraints",
             "r1cs one constraint too few");
    wf_free(&w);

    wf_copy(&w, &base);
    set_u32(&wf_find(&w, 2)->body, at, 6);
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT,
             "section 2 (constraints): constraint 1, B, factor 1: wire 6 is not below nWires = 6",
             "r1cs wire out of range");
    wf_free(&w);

    wf_copy(&w, &base);
    memset(wf_find(&w, 2)->body.p + at + 4, 0xff, 32);
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT, "constraint 1, B, factor 1: value is not below r",
             "r1cs non-canonical value");
    wf_free(&w);

    wf_copy(&w, &base);
    set_u32(&wf_find(&w, 2)->body, at - 36 - 4, 0x40000000); /* B's factor count */
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT, "constraint 1, B: 1073741824 factors run past",
             "r1cs factor count lie");
    wf_free(&w);

    wf_copy(&w, &base);
    wf_remove(&w, 2);
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT, "section 2 (constraints) is missing",
             "r1cs without constraints");
    wf_free(&w);

    wf_copy(&w, &base);
    wf_find(&w, 3)->body.len -= 8;
    try_file(&w, KIND_R1CS, G16_ERR_FORMAT, "section 3 (wire labels) is 40 bytes, expected 48",
             "r1cs labels short");
    wf_free(&w);

    for (uint32_t id = 4; id <= 5; id++) {
        wf_copy(&w, &base);
        put_u32(&wf_add(&w, id)->body, 1);
        put(&wf_find(&w, id)->body, "gate", 4);
        try_file(&w, KIND_R1CS, G16_ERR_UNSUPPORTED, "custom gates are not supported",
                 "r1cs custom gates");
        CHECK(strstr(g16_last_error(), id == 4 ? "section 4 (" : "section 5 (") != NULL);
        wf_free(&w);
    }
    wf_free(&base);
}

/* ===================================================================================
 * Files on disk: mmap, I/O errors, and the g16 binary
 * =================================================================================== */

static char g_tmp[4096];

static bool write_file(const char *path, const uint8_t *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

static void tmp_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", g_tmp, name);
}

static bool write_wfile(const char *name, const wfile_t *w, size_t truncate_to)
{
    char path[4200];
    tmp_path(path, sizeof path, name);
    buf_t b = wf_serialize(w);
    bool ok = write_file(path, b.p, truncate_to && truncate_to < b.len ? truncate_to : b.len);
    buf_free(&b);
    return ok;
}

static void test_files(void)
{
    char path[4200];
    static zmodel_t zm;
    static wmodel_t wm;
    static rmodel_t rm;
    wfile_t w;

    zmodel_random(&zm, 6, 2, 3, 20);
    zkey_build(&w, &zm, true, true);
    CHECK(write_wfile("circuit.zkey", &w, 0));
    CHECK(write_wfile("bad.zkey", &w, 2000));
    wf_free(&w);
    wmodel_random(&wm, 6);
    wtns_build(&w, &wm);
    CHECK(write_wfile("witness.wtns", &w, 0));
    wf_free(&w);
    rmodel_random(&rm, 6, 3);
    r1cs_build(&w, &rm, true);
    CHECK(write_wfile("circuit.r1cs", &w, 0));
    /* Without its wire labels nothing in the file bounds nWires: a setup for 0xf0000000
     * wires must be refused before it allocates (test_cli). */
    wf_remove(&w, 3);
    set_u32(&wf_find(&w, 1)->body, 36, 0xf0000000u);
    CHECK(write_wfile("huge.r1cs", &w, 0));
    wf_free(&w);
    tmp_path(path, sizeof path, "empty.zkey");
    CHECK(write_file(path, (const uint8_t *)"", 0));
    tmp_path(path, sizeof path, "short.zkey");
    CHECK(write_file(path, (const uint8_t *)"zkey\1\0", 6));
    tmp_path(path, sizeof path, "garbage.bin");
    CHECK(write_file(path, (const uint8_t *)"hello, world\n", 13));

    zkey_t k;
    tmp_path(path, sizeof path, "circuit.zkey");
    if (expect(zkey_open(&k, path), G16_OK, NULL, "zkey from disk")) {
        CHECK(k.file.mapped);
        check_zkey_matches(&k, &zm, true);
        expect(zkey_validate_coefs(&k), G16_OK, NULL, "coefficients from disk");
    }
    wtns_t wt;
    tmp_path(path, sizeof path, "witness.wtns");
    if (expect(wtns_open(&wt, path), G16_OK, NULL, "wtns from disk")) {
        expect(wtns_validate(&wt), G16_OK, NULL, "wtns values from disk");
        expect(wtns_check_zkey(&wt, &k), G16_OK, NULL, "wtns matches zkey from disk");
    }
    wtns_close(&wt);
    zkey_close(&k);
    zkey_close(&k); /* closing twice is harmless */
    r1cs_t r;
    tmp_path(path, sizeof path, "circuit.r1cs");
    if (expect(r1cs_open(&r, path), G16_OK, NULL, "r1cs from disk"))
        check_r1cs_matches(&r, &rm, true);
    r1cs_close(&r);

    tmp_path(path, sizeof path, "bad.zkey");
    expect(zkey_open(&k, path), G16_ERR_FORMAT, "bad.zkey: section", "truncated zkey on disk");
    CHECK(strstr(g16_last_error(), "runs past the end of the file") != NULL);
    tmp_path(path, sizeof path, "empty.zkey");
    expect(zkey_open(&k, path), G16_ERR_FORMAT, "empty.zkey: 0 bytes is too short",
           "empty file");
    tmp_path(path, sizeof path, "short.zkey");
    expect(zkey_open(&k, path), G16_ERR_FORMAT, "6 bytes is too short", "6-byte file");
    tmp_path(path, sizeof path, "does-not-exist.zkey");
    expect(zkey_open(&k, path), G16_ERR_IO, "does-not-exist.zkey: cannot open: No such file",
           "missing file");
    expect(zkey_open(&k, g_tmp), G16_ERR_IO, "not a regular file", "directory");
    expect(wtns_open(&wt, g_tmp), G16_ERR_IO, "not a regular file", "directory as wtns");
    expect(r1cs_open(&r, g_tmp), G16_ERR_IO, "not a regular file", "directory as r1cs");
    tmp_path(path, sizeof path, "witness.wtns");
    expect(zkey_open(&k, path), G16_ERR_FORMAT, "wrong magic \"wtns\": not a zkey file",
           "wtns opened as zkey");
    /* A FIFO without a writer: refused at once, where a blocking open would wait forever. */
    tmp_path(path, sizeof path, "fifo.zkey");
    if (CHECK(mkfifo(path, 0600) == 0))
        expect(zkey_open(&k, path), G16_ERR_IO, "fifo.zkey: not a regular file", "FIFO");
}

/* Runs the g16 binary built next to this test; returns its exit code and its combined
 * output in out. */
static int run_g16(const char *g16, const char *args, char *out, size_t cap)
{
    char cmd[10000];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1", g_tmp, g16, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_cli(const char *g16, const char *args, int want_code, const char *needle)
{
    static char out[65536];
    int code = run_g16(g16, args, out, sizeof out);
    bool ok = code == want_code && (!needle || strstr(out, needle));
    if (!CHECK(ok))
        printf("  g16 %s: exit %d (want %d), output:\n%s\n  (wanted \"%s\")\n", args, code,
               want_code, out, needle ? needle : "");
}

static void test_cli(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        printf("  g16 info: not tested (cannot locate this test's folder)\n");
        return;
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return;
    strcpy(slash + 1, "g16");
    if (access(self, X_OK) != 0) {
        printf("  g16 info: not tested: %s is not built\n", self);
        return;
    }
    expect_cli(self, "info circuit.zkey", 0, "protocol Groth16, curve BLS12-381");
    expect_cli(self, "info circuit.zkey", 0, "nVars 6, nPublic 2, domain size 8 (2^3), "
                                              "coefficients 20");
    expect_cli(self, "info circuit.zkey", 0, "10  contributions");
    expect_cli(self, "info --check circuit.zkey", 0, "check: 20 coefficients valid");
    expect_cli(self, "info witness.wtns --check", 0, "witness values 6");
    expect_cli(self, "info circuit.r1cs --check", 0, "constraints 3");
    /* ~840 GiB for its first arrays: a host that holds them would run that setup. */
    if (host_memory_total() < ((uint64_t)800 << 30)) {
        expect_cli(self, "setup huge.r1cs huge.zkey", 2,
                   "g16 setup: out of memory: setup for 4026531840 wires and domain 8 needs "
                   "more than");
        expect_cli(self, "setup huge.r1cs huge.zkey", 2, "of memory and swap");
        char huge_key[4200];
        tmp_path(huge_key, sizeof huge_key, "huge.zkey");
        CHECK(access(huge_key, F_OK) != 0); /* nothing written */
    } else {
        printf("  g16 setup huge.r1cs: not tested (this host holds its 840 GiB)\n");
    }
    expect_cli(self, "info bad.zkey", 2, "g16 info: malformed file: bad.zkey: section");
    expect_cli(self, "info garbage.bin", 2, "not a zkey, wtns, r1cs or g16k file");
    expect_cli(self, "info empty.zkey", 2, "not a zkey, wtns, r1cs or g16k file (only 0 bytes)");
    expect_cli(self, "info short.zkey", 2, "6 bytes is too short");
    expect_cli(self, "info does-not-exist.zkey", 2, "No such file");
    expect_cli(self, "info fifo.zkey", 2, "not a regular file");
    expect_cli(self, "info .", 2, "not a regular file");
    expect_cli(self, "info", 2, "usage: g16 info");
    expect_cli(self, "info a b", 2, "usage: g16 info");
}

static void remove_tmp(void)
{
    static const char *names[] = {"circuit.zkey", "bad.zkey",    "witness.wtns", "circuit.r1cs",
                                  "empty.zkey",   "short.zkey",  "garbage.bin",  "fifo.zkey",
                                  "huge.r1cs",    "huge.zkey"};
    char path[4200];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        tmp_path(path, sizeof path, names[i]);
        unlink(path);
    }
    rmdir(g_tmp);
}

/* ===================================================================================
 * Seeds for the fuzzers
 * =================================================================================== */

static int write_seeds(const char *dir)
{
    static zmodel_t zm;
    static wmodel_t wm;
    static rmodel_t rm;
    char path[4200];
    static const char *sub[] = {"zkey", "wtns", "r1cs"};
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        printf("cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, sub[i]);
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            printf("cannot create %s: %s\n", path, strerror(errno));
            return 1;
        }
    }
    size_t written = 0;
    static const uint32_t zshapes[][4] = {{1, 0, 0, 0}, {3, 1, 2, 6}, {6, 2, 3, 20}};
    for (size_t s = 0; s < 3; s++) {
        zmodel_random(&zm, zshapes[s][0], zshapes[s][1], zshapes[s][2], zshapes[s][3]);
        wfile_t w;
        zkey_build(&w, &zm, s & 1, s != 0);
        buf_t b = wf_serialize(&w);
        snprintf(path, sizeof path, "%s/zkey/seed%zu.zkey", dir, s);
        written += write_file(path, b.p, b.len);
        buf_free(&b);
        wf_free(&w);
    }
    static const uint32_t wsizes[] = {1, 4, 12};
    for (size_t s = 0; s < 3; s++) {
        wmodel_random(&wm, wsizes[s]);
        wfile_t w;
        wtns_build(&w, &wm);
        buf_t b = wf_serialize(&w);
        snprintf(path, sizeof path, "%s/wtns/seed%zu.wtns", dir, s);
        written += write_file(path, b.p, b.len);
        buf_free(&b);
        wf_free(&w);
    }
    static const uint32_t rshapes[][2] = {{2, 0}, {6, 3}, {12, 8}};
    for (size_t s = 0; s < 3; s++) {
        rmodel_random(&rm, rshapes[s][0], rshapes[s][1]);
        wfile_t w;
        r1cs_build(&w, &rm, s != 0);
        buf_t b = wf_serialize(&w);
        snprintf(path, sizeof path, "%s/r1cs/seed%zu.r1cs", dir, s);
        written += write_file(path, b.p, b.len);
        buf_free(&b);
        wf_free(&w);
    }
    printf("wrote %zu seed files under %s\n", written, dir);
    return written == 9 ? 0 : 1;
}

int main(int argc, char **argv)
{
    test_init("test_io");
    if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
        return write_seeds(argv[2]);

    test_zkey_roundtrip();
    test_wtns_roundtrip();
    test_r1cs_roundtrip();
    test_truncations();
    test_corruption();
    test_container_rejections();
    test_zkey_rejections();
    test_wtns_rejections();
    test_r1cs_rejections();

    const char *tmpdir = getenv("TMPDIR");
    snprintf(g_tmp, sizeof g_tmp, "%s/g16-test-io-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (mkdtemp(g_tmp)) {
        test_files();
        test_cli();
        remove_tmp();
    } else {
        CHECK(!"mkdtemp");
    }
    return test_finish();
}
