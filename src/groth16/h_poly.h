/* The quotient vector h of a Groth16 proof, from the evaluations a = A.z, b = B.z, c = C.z
 * over the domain of n = 2^log2n points (natural order, generator 5 roots).
 *
 * Two conventions, and a proving key fixes which one its H points expect:
 *
 * H_POLY_SNARKJS (snarkjs and rapidsnark, .zkey files): for each of a, b, c an inverse
 *   NTT, coefficient j times w_2n^j, a forward NTT: the values at the odd points
 *   w_2n^(2i+1) of the 2n-domain. Then h_i = a_i b_i - c_i, with no division by Z (the
 *   zkey's H points are the odd Lagrange basis of the 2n-domain over delta, which already
 *   absorbs Z(w_2n^(2i+1)) = -2). w_2n = fr_root_of_unity(log2n + 1).
 *
 * H_POLY_CLASSIC (bellperson/arkworks style, native circuits): values on the coset g*H with
 *   g = H_POLY_CLASSIC_SHIFT = 7, the multiplicative generator that bellperson (blstrs
 *   Scalar::MULTIPLICATIVE_GENERATOR) and arkworks use for BLS12-381 Fr; then
 *   (a b - c) / Z(g) with Z(g) = g^n - 1 (Z(X) = X^n - 1 is constant on the coset), then an
 *   inverse coset NTT: h holds the n coefficients of the quotient (A B - C) / Z, the top
 *   one zero when the constraints are satisfied. Keys for it hold tau^i Z(tau) / delta.
 *
 * Costs: per input one inverse DIF and one forward DIT with no permutation pass between
 * (ntt_change_coset); the product a_i b_i - c_i happens in the last pass of c's
 * transform while c's values are in cache; the classic convention adds one inverse
 * transform (its 1/(n Z(g)) on a twiddle chain) and a bit-reversal pass.
 */
#ifndef G16_GROTH16_H_POLY_H
#define G16_GROTH16_H_POLY_H

#include "field/fr.h"
#include "g16.h"
#include "ntt/ntt.h"

typedef enum {
    H_POLY_SNARKJS = 0,
    H_POLY_CLASSIC = 1,
} h_poly_convention;

#define H_POLY_CLASSIC_SHIFT 7

/* h[0..n) from a, b, c (n = 2^log2n each). a, b and c are overwritten (they serve as the
 * transforms' buffers: three extra copies would be 12 GiB at 2^27); h may be any of them
 * or a separate array. Errors: G16_ERR_INVALID_ARGUMENT for a null pointer or log2n >
 * NTT_MAX_LOG2N, G16_ERR_OUT_OF_MEMORY. */
g16_status h_poly_compute(fr_t *h, fr_t *a, fr_t *b, fr_t *c, unsigned log2n,
                          h_poly_convention convention);

/* The same over a given domain (its size is n). */
g16_status h_poly_compute_in(const ntt_domain *d, fr_t *h, fr_t *a, fr_t *b, fr_t *c,
                             h_poly_convention convention);

/* The coset shift a convention evaluates on: w_2n for H_POLY_SNARKJS, 7 for the classic. */
void h_poly_shift(fr_t *shift, unsigned log2n, h_poly_convention convention);

#endif
