/* Fixed-base scalar multiplication: many scalars times one base point, as a trusted
 * setup needs (every key point is k_i * G for a generator G).
 *
 * A table holds j * 2^(w*i) * G for every window i and digit j in [1, 2^w), in affine
 * form, so each product costs one mixed addition per window and no doublings: with
 * w = 8, 32 additions per 255-bit scalar. Time depends on the scalars (table indices):
 * meant for development setups, not for secrets that an attacker on the same machine
 * could time. */
#ifndef G16_CURVE_FIXED_BASE_H
#define G16_CURVE_FIXED_BASE_H

#include <stddef.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"

typedef struct {
    unsigned window_bits;
    unsigned windows;
    g1_affine_t *table; /* windows * (2^window_bits - 1) points */
} g1_fixed_base;

typedef struct {
    unsigned window_bits;
    unsigned windows;
    g2_affine_t *table;
} g2_fixed_base;

/* Builds the table for base (window_bits in 1..16). G16_ERR_OUT_OF_MEMORY on failure. */
g16_status g1_fixed_base_init(g1_fixed_base *fb, const g1_jac_t *base, unsigned window_bits);
g16_status g2_fixed_base_init(g2_fixed_base *fb, const g2_jac_t *base, unsigned window_bits);
void g1_fixed_base_free(g1_fixed_base *fb);
void g2_fixed_base_free(g2_fixed_base *fb);

/* r = k * base. */
void g1_fixed_base_mul(g1_jac_t *r, const g1_fixed_base *fb, const fr_t *k);
void g2_fixed_base_mul(g2_jac_t *r, const g2_fixed_base *fb, const fr_t *k);

/* out[i] = k[i] * base in affine form, for i < n, on every thread of the pool. */
g16_status g1_fixed_base_batch(g1_affine_t *out, const g1_fixed_base *fb, const fr_t *k,
                               size_t n);
g16_status g2_fixed_base_batch(g2_affine_t *out, const g2_fixed_base *fb, const fr_t *k,
                               size_t n);

#endif
