/* Writing a setup key as a snarkjs .zkey (FORMATS.md): the iden3 container with
 * sections 1 (protocol), 2 (header), 3 (IC), 4 (coefficients), 5 (A), 6 (B1), 7 (B2),
 * 8 (C), 9 (H) and 10 (an empty list of MPC contributions). */

#include "groth16/density.h"
#include "io/iden3_write.h"
#include "setup.h"

/* A coefficient entry stores value * R^2 mod r ("double Montgomery"): the Montgomery
 * form of (value * R), i.e. our element times the element whose value is R. */
/* The n_wires points of a dense query from the compressed points of the wires marked
 * in density (groth16/density.h): infinity (all zero) for the others. */
static void put_dense_g1s(iden3_writer *w, const g1_affine_t *pts, const uint64_t *density,
                          size_t n_wires)
{
    static const g1_affine_t infinity;
    for (size_t j = 0; j < n_wires; j++)
        iden3_put_g1s(w, density_has(density, j) ? pts++ : &infinity, 1);
}

static void put_dense_g2s(iden3_writer *w, const g2_affine_t *pts, const uint64_t *density,
                          size_t n_wires)
{
    static const g2_affine_t infinity;
    for (size_t j = 0; j < n_wires; j++)
        iden3_put_g2s(w, density_has(density, j) ? pts++ : &infinity, 1);
}

static void put_coef(iden3_writer *w, uint32_t matrix, uint32_t constraint, uint32_t signal,
                     const fr_t *value, const fr_t *r_elem)
{
    fr_t t;
    uint8_t b[32];
    fr_mul(&t, value, r_elem);
    fr_to_mont_bytes_le(b, &t);
    iden3_put_u32(w, matrix);
    iden3_put_u32(w, constraint);
    iden3_put_u32(w, signal);
    iden3_put_bytes(w, b, sizeof b);
}

g16_status zkey_write(const char *path, const groth16_setup_key *key,
                      const constraint_matrices *cs)
{
    atomic_file staged;
    g16_status st = zkey_write_staged(&staged, path, key, cs);
    return st ? st : atomic_file_commit(&staged);
}

g16_status zkey_write_staged(atomic_file *staged, const char *path,
                             const groth16_setup_key *key, const constraint_matrices *cs)
{
    iden3_writer *w;
    g16_status st = iden3_writer_open(&w, path);
    if (st != G16_OK)
        return st;
    size_t nv = key->n_vars, np = key->n_public, m = key->n_constraints;
    size_t n_coefs = cs->row_start[0][m] + cs->row_start[1][m] + np + 1;
    const size_t G1 = 96, G2 = 192;

    iden3_put_file_header(w, "zkey", 1, 10);

    iden3_put_section(w, 1, 4);
    iden3_put_u32(w, 1); /* Groth16 */

    iden3_put_section(w, 2, 4 + 48 + 4 + 32 + 12 + 3 * G1 + 3 * G2);
    uint8_t q[48], r[32];
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 8; k++)
            q[8 * i + k] = (uint8_t)(FP_MODULUS[i] >> (8 * k));
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 8; k++)
            r[8 * i + k] = (uint8_t)(FR_MODULUS[i] >> (8 * k));
    iden3_put_u32(w, 48);
    iden3_put_bytes(w, q, 48);
    iden3_put_u32(w, 32);
    iden3_put_bytes(w, r, 32);
    iden3_put_u32(w, (uint32_t)nv);
    iden3_put_u32(w, (uint32_t)np);
    iden3_put_u32(w, (uint32_t)key->domain_size);
    iden3_put_g1s(w, &key->alpha1, 1);
    iden3_put_g1s(w, &key->beta1, 1);
    iden3_put_g2s(w, &key->beta2, 1);
    iden3_put_g2s(w, &key->gamma2, 1);
    iden3_put_g1s(w, &key->delta1, 1);
    iden3_put_g2s(w, &key->delta2, 1);

    iden3_put_section(w, 3, (np + 1) * G1);
    iden3_put_g1s(w, key->ic, np + 1);

    /* Per constraint its A terms then its B terms, then the public rows. */
    iden3_put_section(w, 4, 4 + n_coefs * (12 + 32));
    iden3_put_u32(w, (uint32_t)n_coefs);
    fr_t r_elem, one;
    fr_one(&one);
    fr_from_limbs(&r_elem, one.l); /* the element whose value is R mod r */
    for (size_t i = 0; i < m; i++)
        for (uint32_t k = 0; k < 2; k++)
            for (size_t t = cs->row_start[k][i]; t < cs->row_start[k][i + 1]; t++)
                put_coef(w, k, (uint32_t)i, cs->terms[k][t].wire, &cs->terms[k][t].coeff,
                         &r_elem);
    for (size_t s = 0; s <= np; s++)
        put_coef(w, 0, (uint32_t)(m + s), (uint32_t)s, &one, &r_elem);

    /* .zkey queries are dense: the unmarked wires get the point at infinity. */
    iden3_put_section(w, 5, nv * G1);
    put_dense_g1s(w, key->a, key->density_a, nv);
    iden3_put_section(w, 6, nv * G1);
    put_dense_g1s(w, key->b1, key->density_b, nv);
    iden3_put_section(w, 7, nv * G2);
    put_dense_g2s(w, key->b2, key->density_b, nv);
    iden3_put_section(w, 8, (nv - np - 1) * G1);
    iden3_put_g1s(w, key->c, nv - np - 1);
    iden3_put_section(w, 9, key->domain_size * G1);
    iden3_put_g1s(w, key->h, key->domain_size);

    /* Section 10: a 64-byte hash of the circuit-specific contributions (zero: none were
     * made) and their count. */
    iden3_put_section(w, 10, 64 + 4);
    uint8_t zero[64] = {0};
    iden3_put_bytes(w, zero, sizeof zero);
    iden3_put_u32(w, 0);

    return iden3_writer_finish(w, staged);
}
