/* 192-byte zcash-encoded proofs: round trips, and rejections of damaged encodings. */
#include <string.h>

#include "harness.h"
#include "io/proof_bin.h"

static void random_proof(groth16_proof *p)
{
    fr_t k;
    g1_jac_t g1;
    g2_jac_t g2;
    test_random_fr(&k);
    g1_generator(&g1);
    g1_mul_vartime(&g1, &g1, &k);
    g1_to_affine(&p->a, &g1);
    test_random_fr(&k);
    g2_generator(&g2);
    g2_mul_vartime(&g2, &g2, &k);
    g2_to_affine(&p->b, &g2);
    test_random_fr(&k);
    g1_generator(&g1);
    g1_mul_vartime(&g1, &g1, &k);
    g1_to_affine(&p->c, &g1);
}

int main(void)
{
    test_init("test_proof_bin");
    size_t count = test_count(50);
    for (size_t i = 0; i < count; i++) {
        groth16_proof p, q;
        uint8_t bytes[PROOF_BIN_BYTES];
        random_proof(&p);
        proof_bin_encode(bytes, &p);
        CHECK((bytes[0] & 0x80) && (bytes[48] & 0x80) && (bytes[144] & 0x80)); /* compressed */
        CHECK(proof_bin_decode(&q, bytes) == G16_OK);
        CHECK(g1_affine_equal(&p.a, &q.a) && g2_affine_equal(&p.b, &q.b) &&
              g1_affine_equal(&p.c, &q.c));
        /* Dropping the compression flag of any point is a bad encoding. */
        for (size_t at = 0; at < PROOF_BIN_BYTES; at += 48 * (at == 48 ? 2 : 1)) {
            uint8_t bad[PROOF_BIN_BYTES];
            memcpy(bad, bytes, sizeof bad);
            bad[at] &= 0x7f;
            CHECK(proof_bin_decode(&q, bad) == G16_ERR_BAD_ENCODING);
        }
        /* A changed x coordinate: off the curve, off the subgroup, or another point; never
         * the same proof. */
        uint8_t bad[PROOF_BIN_BYTES];
        memcpy(bad, bytes, sizeof bad);
        bad[47] ^= 1;
        g16_status st = proof_bin_decode(&q, bad);
        CHECK(st != G16_OK || !g1_affine_equal(&q.a, &p.a));
        if (st != G16_OK)
            CHECK(strstr(g16_last_error(), "proof A") != NULL);
    }
    return test_finish();
}
