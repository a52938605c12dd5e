/* g16 verify verification_key.json public.json proof.json
 * The proof is snarkjs's proof.json or a 192-byte zcash-encoded binary proof.
 * Exit status: 0 the proof verifies, 1 it does not, 2 bad arguments or unreadable input. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "io/proof_bin.h"
#include "io/snarkjs_json.h"

int cmd_verify(int argc, char **argv)
{
    if (argc != 3)
        return cli_usage_error("verify");
    groth16_vk vk;
    groth16_proof proof;
    fr_t *inputs = NULL;
    size_t n = 0;
    g16_status st;
    if ((st = json_read_vk(&vk, argv[0]))) {
        fprintf(stderr, "g16 verify: %s\n", g16_last_error());
        return 2;
    }
    if ((st = json_read_public(&inputs, &n, argv[1])) || (st = proof_read_any(&proof, argv[2]))) {
        fprintf(stderr, "g16 verify: %s\n", g16_last_error());
        groth16_vk_free(&vk);
        free(inputs);
        return 2;
    }
    st = groth16_verify(&vk, inputs, n, &proof);
    groth16_vk_free(&vk);
    free(inputs);
    if (st == G16_OK) {
        printf("OK: the proof verifies\n");
        return 0;
    }
    if (st == G16_ERR_VERIFY_FAILED) {
        printf("INVALID: the proof does not verify\n");
        return 1;
    }
    fprintf(stderr, "g16 verify: %s\n", g16_last_error());
    return 2;
}
