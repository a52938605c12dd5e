/* Fr: the 255-bit scalar field of BLS12-381 (the group order r), four 64-bit limbs. */
#ifndef G16_FIELD_FR_H
#define G16_FIELD_FR_H

#define FIELD fr
#define FIELD_LIMBS 4
#include "field_api.h"
#undef FIELD
#undef FIELD_LIMBS

/* The modulus as little-endian limbs. */
extern const uint64_t FR_MODULUS[4];

/* r - 1 = 2^32 * odd: NTT domains go up to 2^FR_TWO_ADICITY points. */
#define FR_TWO_ADICITY 32

/* r = a primitive 2^log2n-th root of unity, following snarkjs/ffjavascript:
 * w_(2^32) = 5^((r-1)/2^32) (5 is the smallest quadratic non-residue), and
 * w_(2^k) = w_(2^32)^(2^(32-k)). Returns false when log2n > FR_TWO_ADICITY.
 * Trap: arkworks and blst use generator 7, which gives other roots. */
bool fr_root_of_unity(fr_t *r, unsigned log2n);

#endif
