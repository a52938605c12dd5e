/* SHA-256 (FIPS 180-4): a plain C reference and the circuit gadget built on gadgets.h.
 *
 * The gadget uses the textbook round with each T1 + T2 and d + T1 as one multi-operand
 * word addition, so T1 is never materialised; the 3-input XORs of the Sigma functions
 * cost 2 constraints a bit (1 where a shift makes an operand known), CH 1 and MAJ 2.
 * A compression with a variable state and block costs about 26.4k constraints; known
 * state words (the IV) and known message words (padding) fold away for free. */
#ifndef G16_CIRCUIT_SHA256_H
#define G16_CIRCUIT_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "gadgets.h"

extern const uint32_t SHA256_K[64];
extern const uint32_t SHA256_IV[8];

/* --- reference ---------------------------------------------------------------------------- */

/* state := compress(state, block), block as 16 big-endian words already decoded. */
void sha256_ref_compress(uint32_t state[8], const uint32_t block[16]);
/* out = SHA-256(msg[0..len)). */
void sha256_ref(uint8_t out[32], const uint8_t *msg, size_t len);

/* --- gadget ------------------------------------------------------------------------------- */

/* out := compress(state, block). Namespaces: "schedule/w %u", "round %u/...", "final %u". */
void cs_sha256_compress(cs_t *cs, cs_word out[8], const cs_word state[8], const cs_word block[16]);

/* digest := SHA-256 of the n_bits message bits, in FIPS order (msg[0] is the most
 * significant bit of the first byte); any n_bits, not only whole bytes. The padding is
 * known from n_bits, so it costs nothing. digest words are H0..H7. Runs under "sha256". */
void cs_sha256(cs_t *cs, cs_word digest[8], const cs_bit *msg, size_t n_bits);

#endif
