/* Groth16 proofs in the zcash/bellperson binary form that the Filecoin toolchain uses:
 * 192 bytes, compressed A (48) || B (96) || C (48), big-endian with flag bits
 * (curve/encoding.h). */
#ifndef G16_IO_PROOF_BIN_H
#define G16_IO_PROOF_BIN_H

#include <stdint.h>

#include "groth16/groth16.h"

enum { PROOF_BIN_BYTES = 192 };

void proof_bin_encode(uint8_t out[PROOF_BIN_BYTES], const groth16_proof *proof);
/* Rejects bad encodings, points off the curve and outside their subgroup (the decoder's
 * status and message). */
g16_status proof_bin_decode(groth16_proof *proof, const uint8_t in[PROOF_BIN_BYTES]);

g16_status proof_bin_write(const char *path, const groth16_proof *proof);
/* Reads a proof file of either form: exactly 192 bytes that do not start like JSON are
 * the binary form; anything else goes to json_read_proof (snarkjs proof.json). */
g16_status proof_read_any(groth16_proof *proof, const char *path);

#endif
