/* a = A.z, b = B.z, c = a*b from a .zkey's coefficients (zkey_evals.h). */
#include "zkey_evals.h"

#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"
#include "util/status.h"

g16_status groth16_zkey_witness_check(const zkey_t *key, const wtns_t *w)
{
    g16_status st = wtns_check_zkey(w, key);
    return st ? st : wtns_validate(w);
}

/* Loads 32 little-endian bytes as raw Montgomery limbs, without conversion. The
 * coefficient bytes hold v R^2 (so their raw value is v R in Montgomery form) and the
 * witness bytes hold w (raw value w / R): one Montgomery product gives v w. Both were
 * checked canonical before. */
static void load_raw(fr_t *r, const uint8_t *p)
{
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)p[8 * i + k] << (8 * k);
        r->l[i] = w;
    }
}

typedef struct {
    const zkey_t *key;
    const uint8_t *witness;
    fr_t *ab[2];
    const size_t *bounds; /* chunk c covers entries [bounds[c], bounds[c+1]) */
} ab_ctx;

static void ab_body(void *p, size_t begin, size_t end, unsigned worker)
{
    ab_ctx *c = p;
    for (size_t chunk = begin; chunk < end; chunk++)
        for (size_t i = c->bounds[chunk]; i < c->bounds[chunk + 1]; i++) {
            const uint8_t *e = c->key->coefs + i * ZKEY_COEF_BYTES;
            uint32_t matrix = iden3_le32(e), row = iden3_le32(e + 4), signal = iden3_le32(e + 8);
            fr_t coef, w, prod;
            load_raw(&w, c->witness + (size_t)signal * 32);
            /* Zero signals add nothing (over half of them in hash circuits). */
            if ((w.l[0] | w.l[1] | w.l[2] | w.l[3]) == 0)
                continue;
            load_raw(&coef, e + 12);
            fr_mul(&prod, &coef, &w);
            fr_add(&c->ab[matrix][row], &c->ab[matrix][row], &prod);
        }
}

/* Runs body over [0, n) on the pool, or on the calling thread. */
static void run(size_t n, size_t grain, void (*body)(void *, size_t, size_t, unsigned),
                void *ctx, bool parallel)
{
    if (parallel)
        parallel_for(n, grain, body, ctx);
    else if (n)
        body(ctx, 0, n, 0);
}

/* Entries are accumulated in parallel over chunks whose boundaries never split one
 * (matrix, row) between two chunks: when the section is ordered by row (as g16 and
 * snarkjs write it) or by (matrix, row), each chunk owns its rows. Any other order is
 * summed on one thread. a and b must be zero. */
static g16_status compute_ab(fr_t *a, fr_t *b, const zkey_t *key, const uint8_t *witness,
                             bool parallel)
{
    size_t n = key->n_coefs;
    bool by_row = true, by_matrix_row = true;
    uint64_t prev_row = 0, prev_mr = 0;
    for (size_t i = 0; parallel && i < n; i++) {
        const uint8_t *e = key->coefs + i * ZKEY_COEF_BYTES;
        uint64_t row = iden3_le32(e + 4), mr = (uint64_t)iden3_le32(e) << 32 | row;
        if (i && row < prev_row)
            by_row = false;
        if (i && mr < prev_mr)
            by_matrix_row = false;
        prev_row = row;
        prev_mr = mr;
    }
    size_t chunks = parallel && (by_row || by_matrix_row) ? 8 * (size_t)parallel_threads() : 1;
    if (chunks > n)
        chunks = n ? n : 1;
    size_t *bounds = malloc((chunks + 1) * sizeof *bounds);
    if (!bounds)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "coefficient chunks");
    bounds[0] = 0;
    for (size_t c = 1; c < chunks; c++) {
        size_t s = n * c / chunks;
        if (s < bounds[c - 1])
            s = bounds[c - 1];
        /* Move forward to the first entry of a new row (or (matrix, row)). */
        while (s > 0 && s < n) {
            const uint8_t *e0 = key->coefs + (s - 1) * ZKEY_COEF_BYTES;
            const uint8_t *e1 = key->coefs + s * ZKEY_COEF_BYTES;
            bool same_row = iden3_le32(e0 + 4) == iden3_le32(e1 + 4);
            bool same_matrix = iden3_le32(e0) == iden3_le32(e1);
            if (by_row ? !same_row : !(same_row && same_matrix))
                break;
            s++;
        }
        bounds[c] = s;
    }
    bounds[chunks] = n;
    ab_ctx ctx = {.key = key, .witness = witness, .ab = {a, b}, .bounds = bounds};
    run(chunks, 1, ab_body, &ctx, parallel);
    free(bounds);
    return G16_OK;
}

typedef struct {
    fr_t *a, *b;
} zero_ctx;

static void zero_body(void *p, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    zero_ctx *z = p;
    memset(z->a + begin, 0, (end - begin) * sizeof *z->a);
    memset(z->b + begin, 0, (end - begin) * sizeof *z->b);
}

typedef struct {
    const fr_t *a, *b;
    fr_t *c;
} mul_ctx;

static void mul_body(void *p, size_t begin, size_t end, unsigned worker)
{
    mul_ctx *m = p;
    for (size_t i = begin; i < end; i++)
        fr_mul(&m->c[i], &m->a[i], &m->b[i]);
}

typedef struct {
    fr_t *z;
    const uint8_t *values;
} z_ctx;

static void z_body(void *p, size_t begin, size_t end, unsigned worker)
{
    z_ctx *c = p;
    for (size_t i = begin; i < end; i++)
        fr_from_bytes_le(&c->z[i], c->values + i * WTNS_N8); /* canonical: checked */
}

g16_status groth16_zkey_evals(fr_t *z, fr_t *a, fr_t *b, fr_t *c, const zkey_t *key,
                              const wtns_t *w, bool parallel)
{
    size_t n = key->domain_size;
    /* Zeroed on every thread: the first touch of fresh pages is most of a memset. */
    zero_ctx zero = {a, b};
    run(n, 4096, zero_body, &zero, parallel);
    g16_status st = compute_ab(a, b, key, w->values, parallel);
    if (st)
        return st;
    mul_ctx mc = {a, b, c};
    run(n, 4096, mul_body, &mc, parallel);
    if (z) {
        z_ctx zc = {z, w->values};
        run(key->n_vars, 4096, z_body, &zc, parallel);
    }
    return G16_OK;
}
