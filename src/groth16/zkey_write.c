/* Writing a setup key as a snarkjs .zkey (FORMATS.md): the iden3 container with
 * sections 1 (protocol), 2 (header), 3 (IC), 4 (coefficients), 5 (A), 6 (B1), 7 (B2),
 * 8 (C), 9 (H) and 10 (an empty list of MPC contributions). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "setup.h"
#include "util/status.h"

typedef struct {
    FILE *f;
    const char *path;
    bool failed;
} writer;

static void put(writer *w, const void *data, size_t n)
{
    if (!w->failed && n && fwrite(data, 1, n, w->f) != n)
        w->failed = true;
}

static void put_u32(writer *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(w, b, 4);
}

static void put_u64(writer *w, uint64_t v)
{
    put_u32(w, (uint32_t)v);
    put_u32(w, (uint32_t)(v >> 32));
}

static void section(writer *w, uint32_t id, uint64_t size)
{
    put_u32(w, id);
    put_u64(w, size);
}

/* g1_affine_t and g2_affine_t are laid out exactly as snarkjs stores points (Montgomery
 * little-endian limbs, x then y, c0 then c1, infinity all zero) on little-endian hosts;
 * the bytes are written through to_mont_bytes_le all the same, so the file does not
 * depend on the host. */
static void put_fp(writer *w, const fp_t *a)
{
    uint8_t b[48];
    fp_to_mont_bytes_le(b, a);
    put(w, b, sizeof b);
}

static void put_g1(writer *w, const g1_affine_t *p)
{
    put_fp(w, &p->x);
    put_fp(w, &p->y);
}

static void put_g2(writer *w, const g2_affine_t *p)
{
    put_fp(w, &p->x.c0);
    put_fp(w, &p->x.c1);
    put_fp(w, &p->y.c0);
    put_fp(w, &p->y.c1);
}

/* A coefficient entry stores value * R^2 mod r ("double Montgomery"): the Montgomery
 * form of (value * R), i.e. our element times the element whose value is R. */
static void put_coef(writer *w, uint32_t matrix, uint32_t constraint, uint32_t signal,
                     const fr_t *value, const fr_t *r_elem)
{
    fr_t t;
    uint8_t b[32];
    fr_mul(&t, value, r_elem);
    fr_to_mont_bytes_le(b, &t);
    put_u32(w, matrix);
    put_u32(w, constraint);
    put_u32(w, signal);
    put(w, b, sizeof b);
}

g16_status zkey_write(const char *path, const groth16_setup_key *key,
                      const constraint_matrices *cs)
{
    writer w = {fopen(path, "wb"), path, false};
    if (!w.f)
        return status_fail(G16_ERR_IO, "%s: %s", path, strerror(errno));
    size_t nv = key->n_vars, np = key->n_public, m = key->n_constraints;
    size_t n_coefs = cs->row_start[0][m] + cs->row_start[1][m] + np + 1;
    const size_t G1 = 96, G2 = 192;

    put(&w, "zkey", 4);
    put_u32(&w, 1);  /* version */
    put_u32(&w, 10); /* sections */

    section(&w, 1, 4);
    put_u32(&w, 1); /* Groth16 */

    section(&w, 2, 4 + 48 + 4 + 32 + 12 + 3 * G1 + 3 * G2);
    uint8_t q[48], r[32];
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 8; k++)
            q[8 * i + k] = (uint8_t)(FP_MODULUS[i] >> (8 * k));
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 8; k++)
            r[8 * i + k] = (uint8_t)(FR_MODULUS[i] >> (8 * k));
    put_u32(&w, 48);
    put(&w, q, 48);
    put_u32(&w, 32);
    put(&w, r, 32);
    put_u32(&w, (uint32_t)nv);
    put_u32(&w, (uint32_t)np);
    put_u32(&w, (uint32_t)key->domain_size);
    put_g1(&w, &key->alpha1);
    put_g1(&w, &key->beta1);
    put_g2(&w, &key->beta2);
    put_g2(&w, &key->gamma2);
    put_g1(&w, &key->delta1);
    put_g2(&w, &key->delta2);

    section(&w, 3, (np + 1) * G1);
    for (size_t i = 0; i <= np; i++)
        put_g1(&w, &key->ic[i]);

    /* Per constraint its A terms then its B terms, then the public rows. */
    section(&w, 4, 4 + n_coefs * (12 + 32));
    put_u32(&w, (uint32_t)n_coefs);
    fr_t r_elem, one;
    fr_one(&one);
    fr_from_limbs(&r_elem, one.l); /* the element whose value is R mod r */
    for (size_t i = 0; i < m; i++)
        for (uint32_t k = 0; k < 2; k++)
            for (size_t t = cs->row_start[k][i]; t < cs->row_start[k][i + 1]; t++)
                put_coef(&w, k, (uint32_t)i, cs->terms[k][t].wire, &cs->terms[k][t].coeff,
                         &r_elem);
    for (size_t s = 0; s <= np; s++)
        put_coef(&w, 0, (uint32_t)(m + s), (uint32_t)s, &one, &r_elem);

    section(&w, 5, nv * G1);
    for (size_t i = 0; i < nv; i++)
        put_g1(&w, &key->a[i]);
    section(&w, 6, nv * G1);
    for (size_t i = 0; i < nv; i++)
        put_g1(&w, &key->b1[i]);
    section(&w, 7, nv * G2);
    for (size_t i = 0; i < nv; i++)
        put_g2(&w, &key->b2[i]);
    section(&w, 8, (nv - np - 1) * G1);
    for (size_t i = 0; i < nv - np - 1; i++)
        put_g1(&w, &key->c[i]);
    section(&w, 9, key->domain_size * G1);
    for (size_t i = 0; i < key->domain_size; i++)
        put_g1(&w, &key->h[i]);

    /* Section 10: a 64-byte hash of the circuit-specific contributions (zero: none were
     * made) and their count. */
    section(&w, 10, 64 + 4);
    uint8_t zero[64] = {0};
    put(&w, zero, sizeof zero);
    put_u32(&w, 0);

    if (fclose(w.f) != 0)
        w.failed = true;
    if (w.failed)
        return status_fail(G16_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return G16_OK;
}
