/* G1: points of E(Fp): y^2 = x^3 + 4 of prime order r (BLS12-381). */
#ifndef G16_CURVE_G1_H
#define G16_CURVE_G1_H

#include "field/fp.h"
#include "field/fr.h"

/* Affine point. The point at infinity is x = y = 0 (not on the curve, so unambiguous),
 * the same convention as snarkjs files and blst. */
typedef struct {
    fp_t x, y;
} g1_affine_t;

#endif
