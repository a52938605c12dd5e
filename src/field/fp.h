/* Fp: the 381-bit base field of BLS12-381, p = 0x1a0111ea...ffffaaab, six 64-bit limbs. */
#ifndef G16_FIELD_FP_H
#define G16_FIELD_FP_H

#define FIELD fp
#define FIELD_LIMBS 6
#include "field_api.h"
#undef FIELD
#undef FIELD_LIMBS

/* The modulus as little-endian limbs. */
extern const uint64_t FP_MODULUS[6];

/* r = sqrt(a) when a is a square (returns true); which root is unspecified. Returns
 * false and leaves r untouched otherwise. */
bool fp_sqrt(fp_t *r, const fp_t *a);

/* true iff a > (p-1)/2 as an integer: the "sign" bit of the zcash point encoding. */
bool fp_is_lexicographically_largest(const fp_t *a);

#endif
