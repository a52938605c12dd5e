/* G2: points of the sextic twist E'(Fp2): y^2 = x^3 + 4(u + 1) of prime order r.
 *
 * The same operations as G1 (see g1.h and point_api.h) with the g2_ prefix. */
#ifndef G16_CURVE_G2_H
#define G16_CURVE_G2_H

#include "field/fp2.h"
#include "field/fr.h"

/* Affine point; infinity is x = y = 0 as for G1. */
typedef struct {
    fp2_t x, y;
} g2_affine_t;

#define POINT g2
#define POINT_FIELD fp2
#include "point_api.h"
#undef POINT
#undef POINT_FIELD

#endif
