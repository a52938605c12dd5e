/* Decimal strings <-> little-endian 64-bit limb integers: the number format of snarkjs
 * JSON files (proof.json, public.json, verification_key.json). */
#ifndef G16_IO_DECIMAL_H
#define G16_IO_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses s (digits only, no sign, no spaces, at most 200 digits) into n limbs. Returns
 * false when s is empty, has another character, or does not fit in n limbs. */
bool decimal_to_limbs(uint64_t *r, size_t n, const char *s);

/* Writes a in decimal into out (cap bytes, NUL included). Returns false if cap is too
 * small. 8 limbs never need more than 155 characters. */
bool limbs_to_decimal(char *out, size_t cap, const uint64_t *a, size_t n);

#endif
