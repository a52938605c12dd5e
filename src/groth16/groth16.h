/* Groth16 over BLS12-381: the proof and verifying-key types and the verifier.
 *
 * Conventions follow snarkjs: the public inputs x_1..x_l are the witness entries
 * 1..nPublic (entry 0 is the constant one), and a proof (A, B, C) is valid iff
 *   e(A, B) = e(alpha1, beta2) * e(IC_0 + sum_i x_i IC_i, gamma2) * e(C, delta2). */
#ifndef G16_GROTH16_H
#define G16_GROTH16_H

#include <stddef.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"

typedef struct {
    g1_affine_t a;
    g2_affine_t b;
    g1_affine_t c;
} groth16_proof;

typedef struct {
    g1_affine_t alpha1;
    g2_affine_t beta2, gamma2, delta2;
    size_t n_public;   /* number of public inputs l */
    g1_affine_t *ic;   /* l + 1 points, owned (groth16_vk_free) */
} groth16_vk;

/* Allocates vk->ic for n_public + 1 points (zeroed). */
g16_status groth16_vk_alloc(groth16_vk *vk, size_t n_public);
void groth16_vk_free(groth16_vk *vk);

/* G16_OK when the proof verifies for these public inputs, G16_ERR_VERIFY_FAILED when it
 * does not, G16_ERR_INVALID_ARGUMENT when the number of inputs differs from the key's or
 * a point is not in its group (decoders normally reject those first). */
g16_status groth16_verify(const groth16_vk *vk, const fr_t *inputs, size_t n_inputs,
                          const groth16_proof *proof);

#endif
