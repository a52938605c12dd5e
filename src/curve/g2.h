/* G2: points of the sextic twist E'(Fp2): y^2 = x^3 + 4(u + 1) of prime order r. */
#ifndef G16_CURVE_G2_H
#define G16_CURVE_G2_H

#include "field/fp2.h"
#include "field/fr.h"

/* Affine point; infinity is x = y = 0 as for G1. */
typedef struct {
    fp2_t x, y;
} g2_affine_t;

#endif
