#include "proof_bin.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "curve/encoding.h"
#include "io/snarkjs_json.h"
#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/status.h"

void proof_bin_encode(uint8_t out[PROOF_BIN_BYTES], const groth16_proof *proof)
{
    g1_encode_compressed(out, &proof->a);
    g2_encode_compressed(out + G1_COMPRESSED_BYTES, &proof->b);
    g1_encode_compressed(out + G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES, &proof->c);
}

g16_status proof_bin_decode(groth16_proof *proof, const uint8_t in[PROOF_BIN_BYTES])
{
    g16_status st;
    if ((st = g1_decode_compressed(&proof->a, in)))
        return status_fail(st, "proof A: %s", g16_last_error());
    if ((st = g2_decode_compressed(&proof->b, in + G1_COMPRESSED_BYTES)))
        return status_fail(st, "proof B: %s", g16_last_error());
    if ((st = g1_decode_compressed(&proof->c, in + G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES)))
        return status_fail(st, "proof C: %s", g16_last_error());
    return G16_OK;
}

g16_status proof_bin_write(const char *path, const groth16_proof *proof)
{
    uint8_t bytes[PROOF_BIN_BYTES];
    proof_bin_encode(bytes, proof);
    return atomic_file_write(path, bytes, sizeof bytes);
}

g16_status proof_read_any(groth16_proof *proof, const char *path)
{
    FILE *f;
    g16_status st = input_file_open(&f, path);
    if (st)
        return st;
    uint8_t bytes[PROOF_BIN_BYTES + 1];
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    /* A binary proof's first byte has the compression flag (0x80) set: never '{' or white
     * space, with which JSON starts. */
    if (n > 0 && (bytes[0] == '{' || isspace(bytes[0])))
        return json_read_proof(proof, path);
    if (n != PROOF_BIN_BYTES)
        return status_fail(G16_ERR_FORMAT,
                           "%s: neither a JSON proof nor a binary one of %d bytes (%s%zu bytes)",
                           path, PROOF_BIN_BYTES, n > PROOF_BIN_BYTES ? "over " : "",
                           n > PROOF_BIN_BYTES ? (size_t)PROOF_BIN_BYTES : n);
    st = proof_bin_decode(proof, bytes);
    if (st)
        return status_fail(st, "%s: %s", path, g16_last_error());
    return G16_OK;
}
