/* G1: points of E(Fp): y^2 = x^3 + 4 of prime order r (BLS12-381).
 *
 * point_api.h declares the operations, instantiated here with the g1_ prefix:
 * g1_jac_t, g1_xyzz_t; g1_add, g1_add_mixed, g1_dbl, g1_neg, g1_sub, g1_equal,
 * g1_is_infinity, g1_set_infinity, g1_generator, g1_from_affine, g1_to_affine,
 * g1_batch_to_affine, g1_is_on_curve, g1_is_in_subgroup, g1_mul, g1_mul_limbs,
 * g1_mul_vartime, g1_mul_vartime_limbs; g1_affine_{set_infinity, is_infinity, generator,
 * equal, neg, from_x, is_on_curve, is_in_subgroup}; g1_xyzz_{set_infinity, is_infinity,
 * from_affine, add_mixed, add, dbl, to_jac}. Encodings are in curve/encoding.h. */
#ifndef G16_CURVE_G1_H
#define G16_CURVE_G1_H

#include "field/fp.h"
#include "field/fr.h"

/* Affine point. The point at infinity is x = y = 0 (not on the curve, so unambiguous),
 * the same convention as snarkjs files and blst. */
typedef struct {
    fp_t x, y;
} g1_affine_t;

#define POINT g1
#define POINT_FIELD fp
#include "point_api.h"
#undef POINT
#undef POINT_FIELD

#endif
