/* Fixed-base scalar multiplication: many scalars times one base point, as a trusted
 * setup needs (every key point is k_i * G for a generator G).
 *
 * Scalars are recoded into signed w-bit digits d_i in [-2^(w-1), 2^(w-1)], W = ceil(256/w)
 * windows (k < r < 2^255, so the top digit never carries out). A table holds
 * j * 2^(w*i) * G for every window i and j in [1, 2^(w-1)], in affine form; a negative
 * digit uses the negated point (free in affine form). A product therefore costs at most
 * W additions and no doublings: 16 with w = 16, whose table is 16 * 32768 points (48 MiB
 * in G1, 96 MiB in G2).
 *
 * The batch path keeps a block of accumulators in affine form and adds one table point to
 * each per window, the block's denominators sharing one field inversion (Montgomery's
 * trick): ~6 field products per addition instead of the 11 of a mixed Jacobian addition,
 * and no conversion at the end. An accumulator that meets +-(its table point) takes a
 * slower exact path, so every scalar (0, 1, r - 1, ...) gives the exact product.
 *
 * Time depends on the scalars (table indices, the rare exact path): meant for development
 * setups, not for secrets that an attacker on the same machine could time. */
#ifndef G16_CURVE_FIXED_BASE_H
#define G16_CURVE_FIXED_BASE_H

#include <stdbool.h>
#include <stddef.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"

enum { FIXED_BASE_MAX_WINDOW_BITS = 16 };

typedef struct {
    unsigned window_bits;
    unsigned windows;   /* ceil(256 / window_bits) */
    g1_affine_t *table; /* windows * 2^(window_bits - 1) points */
    bool table_has_infinity; /* only for a base of small order (tests): batches go the
                                slow way, one Jacobian product per scalar */
} g1_fixed_base;

typedef struct {
    unsigned window_bits;
    unsigned windows;
    g2_affine_t *table;
    bool table_has_infinity;
} g2_fixed_base;

/* Builds the table for base (window_bits in 1..FIXED_BASE_MAX_WINDOW_BITS) on every thread
 * of the pool. G16_ERR_INVALID_ARGUMENT for another width, G16_ERR_OUT_OF_MEMORY. */
g16_status g1_fixed_base_init(g1_fixed_base *fb, const g1_jac_t *base, unsigned window_bits);
g16_status g2_fixed_base_init(g2_fixed_base *fb, const g2_jac_t *base, unsigned window_bits);
void g1_fixed_base_free(g1_fixed_base *fb);
void g2_fixed_base_free(g2_fixed_base *fb);

/* r = k * base (mixed Jacobian additions: for a few products). */
void g1_fixed_base_mul(g1_jac_t *r, const g1_fixed_base *fb, const fr_t *k);
void g2_fixed_base_mul(g2_jac_t *r, const g2_fixed_base *fb, const fr_t *k);

/* out[i] = k[i] * base in affine form (infinity all zero), for i < n, on every thread of
 * the pool, by batched affine additions. G16_ERR_OUT_OF_MEMORY for the per-thread
 * scratch. */
g16_status g1_fixed_base_batch(g1_affine_t *out, const g1_fixed_base *fb, const fr_t *k,
                               size_t n);
g16_status g2_fixed_base_batch(g2_affine_t *out, const g2_fixed_base *fb, const fr_t *k,
                               size_t n);

#endif
