/* The optimal ate pairing e: G1 x G2 -> GT on BLS12-381.
 *
 * e(P, Q) = f_{x,Q}(P)^(3(p^12 - 1)/r) with x = -0xd201000000010000: the cube of the
 * reduced pairing, which is the value blst, @noble/curves, zkcrypto/bls12_381 and snarkjs
 * (ffjavascript) compute, so GT values (snarkjs's vk_alphabeta_12, say) are
 * interchangeable byte for byte. e(G1, G2).c0.c0.c0 = 0x1250ebd871... The cube is as
 * good a pairing as the reduced one (bilinear, non-degenerate: 3 is prime to r), and
 * statements "a product of pairings is 1" have the same answer either way.
 *
 * Inputs are affine points with the convention of g1.h / g2.h: x = y = 0 is infinity,
 * and a pair with an infinite point contributes 1. Points must lie in G1 and G2 (the
 * caller checks subgroup membership: the Miller loop's formulas assume order r). The
 * code is constant time in the coordinates, not in which points are infinity.
 */
#ifndef G16_CURVE_PAIRING_H
#define G16_CURVE_PAIRING_H

#include <stddef.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp12.h"

/* r = prod_i f_{x,q_i}(p_i), the Miller loops of n pairs with their squarings shared
 * (one Fp12 squaring per step for up to PAIRING_BATCH pairs). Only defined up to factors
 * that the final exponentiation removes. n = 0 gives 1. */
void miller_loop(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, size_t n);

/* r = f^(3(p^12 - 1)/r). f must be non-zero (every Miller loop value is). */
void final_exponentiation(fp12_t *r, const fp12_t *f);

/* r = e(p, q). */
void pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q);

/* r = prod_i e(p_i, q_i) with one shared final exponentiation. n = 0 gives 1. */
void multi_pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, size_t n);

/* true iff prod_i e(p_i, q_i) = 1: the check a Groth16 verifier makes. */
bool pairing_product_is_one(const g1_affine_t *p, const g2_affine_t *q, size_t n);

/* Pairs whose Miller loops share one accumulator; larger n runs in chunks of this many. */
enum { PAIRING_BATCH = 16 };

#endif
