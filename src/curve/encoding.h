/* Point encodings for G1 and G2.
 *
 * zcash / bellperson (native keys and proofs, the Filecoin toolchain, noble, blst):
 *   x big-endian (G2: x.c1 || x.c0), then for the uncompressed form y the same way.
 *   The top three bits of byte 0 are flags: 0x80 compressed, 0x40 infinity, 0x20 "sign":
 *   y is the lexicographically largest of the two roots (compressed form only).
 *   Infinity is the flag byte 0xc0 (compressed) or 0x40 (uncompressed) and zeros.
 *   Decoders reject, with G16_ERR_BAD_ENCODING: a compression flag that does not match
 *   the length, the sign flag on an uncompressed or infinity encoding, infinity with any
 *   other bit set, and coordinates not below p. Then G16_ERR_NOT_ON_CURVE and
 *   G16_ERR_NOT_IN_SUBGROUP, always checked.
 * snarkjs (.zkey sections): little-endian Montgomery-form coordinates, G1 x || y,
 *   G2 x.c0 || x.c1 || y.c0 || y.c1; all-zero bytes is infinity. The curve equation is
 *   always checked, the subgroup only on request (millions of key points load faster
 *   without it; the key's author vouches for them).
 *
 * Decoders return a g16_status, set the detail for g16_last_error() on failure, and leave
 * the output at infinity when they fail. Encoders take a valid point (on the curve, or
 * infinity as (0, 0)). Decoding is variable time: encodings are public.
 */
#ifndef G16_CURVE_ENCODING_H
#define G16_CURVE_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"

enum {
    G1_COMPRESSED_BYTES = 48,
    G1_UNCOMPRESSED_BYTES = 96,
    G2_COMPRESSED_BYTES = 96,
    G2_UNCOMPRESSED_BYTES = 192,
    G1_SNARKJS_BYTES = 96,
    G2_SNARKJS_BYTES = 192,
};

void g1_encode_compressed(uint8_t out[G1_COMPRESSED_BYTES], const g1_affine_t *a);
void g1_encode_uncompressed(uint8_t out[G1_UNCOMPRESSED_BYTES], const g1_affine_t *a);
g16_status g1_decode_compressed(g1_affine_t *r, const uint8_t in[G1_COMPRESSED_BYTES]);
g16_status g1_decode_uncompressed(g1_affine_t *r, const uint8_t in[G1_UNCOMPRESSED_BYTES]);
/* Either zcash form, chosen by len (48 or 96; anything else is G16_ERR_BAD_ENCODING). */
g16_status g1_decode(g1_affine_t *r, const uint8_t *in, size_t len);

void g2_encode_compressed(uint8_t out[G2_COMPRESSED_BYTES], const g2_affine_t *a);
void g2_encode_uncompressed(uint8_t out[G2_UNCOMPRESSED_BYTES], const g2_affine_t *a);
g16_status g2_decode_compressed(g2_affine_t *r, const uint8_t in[G2_COMPRESSED_BYTES]);
g16_status g2_decode_uncompressed(g2_affine_t *r, const uint8_t in[G2_UNCOMPRESSED_BYTES]);
/* Either zcash form, chosen by len (96 or 192). */
g16_status g2_decode(g2_affine_t *r, const uint8_t *in, size_t len);

void g1_encode_snarkjs(uint8_t out[G1_SNARKJS_BYTES], const g1_affine_t *a);
g16_status g1_decode_snarkjs(g1_affine_t *r, const uint8_t in[G1_SNARKJS_BYTES],
                             bool check_subgroup);
void g2_encode_snarkjs(uint8_t out[G2_SNARKJS_BYTES], const g2_affine_t *a);
g16_status g2_decode_snarkjs(g2_affine_t *r, const uint8_t in[G2_SNARKJS_BYTES],
                             bool check_subgroup);

#endif
