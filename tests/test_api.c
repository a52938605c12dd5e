/* The public API of include/g16.h on the committed fixtures: load, prove, write JSON,
 * verify; altered proofs and inputs rejected; errors reported with status and message. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "g16.h"
#include "harness.h"

static char g_fixtures[4096];

static const char *fixture(const char *name, const char *file)
{
    static char buf[4][4200];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s/%s", g_fixtures, name, file);
    return p;
}

static void prove_and_verify(const char *name)
{
    g16_key *key = NULL;
    g16_witness *wit = NULL;
    g16_vkey *vk = NULL;
    if (!CHECK(g16_key_load(&key, fixture(name, "circuit.zkey")) == G16_OK) ||
        !CHECK(g16_witness_load(&wit, fixture(name, "witness.wtns")) == G16_OK) ||
        !CHECK(g16_vkey_load(&vk, fixture(name, "verification_key.json")) == G16_OK)) {
        printf("  %s: %s\n", name, g16_last_error());
        goto out;
    }
    unsigned n = g16_key_public_count(key);
    /* One spare zero entry for the wrong-count case below. */
    unsigned char *pub = calloc(n + 1, 32);
    g16_proof proof;
    CHECK(g16_prove(&proof, pub, key, wit) == G16_OK);
    CHECK(g16_verify(vk, pub, n, &proof) == G16_OK);

    /* JSON round trip through the files snarkjs reads. */
    char dir[] = "/tmp/g16_test_api_XXXXXX";
    if (CHECK(mkdtemp(dir) != NULL)) {
        char pp[64], pu[64];
        snprintf(pp, sizeof pp, "%s/proof.json", dir);
        snprintf(pu, sizeof pu, "%s/public.json", dir);
        CHECK(g16_proof_write_json(pp, pu, &proof, pub, n) == G16_OK);
        unlink(pp);
        unlink(pu);
        rmdir(dir);
    }

    /* Tampering: a different public signal, a proof point swapped for another valid one. */
    g16_proof other;
    CHECK(g16_prove(&other, NULL, key, wit) == G16_OK); /* fresh r, s: another proof */
    CHECK(memcmp(&other, &proof, sizeof proof) != 0);
    CHECK(g16_verify(vk, pub, n, &other) == G16_OK);
    g16_proof mixed = proof;
    memcpy(mixed.c, other.c, sizeof mixed.c);
    CHECK(g16_verify(vk, pub, n, &mixed) == G16_ERR_VERIFY_FAILED);
    if (n > 0) {
        pub[31] ^= 1;
        CHECK(g16_verify(vk, pub, n, &proof) == G16_ERR_VERIFY_FAILED);
        pub[31] ^= 1;
    }
    CHECK(g16_verify(vk, pub, n + 1, &proof) == G16_ERR_INVALID_ARGUMENT);
    /* A coordinate >= p is an encoding error, not a crash. */
    mixed = proof;
    memset(mixed.a, 0xff, 48);
    CHECK(g16_verify(vk, pub, n, &mixed) == G16_ERR_BAD_ENCODING);
    free(pub);
out:
    g16_vkey_free(vk);
    g16_witness_free(wit);
    g16_key_free(key);
}

int main(void)
{
    test_init("test_api");
    const char *src = getenv("G16_SOURCE_DIR");
    if (!src)
        test_skip("G16_SOURCE_DIR not set: run through ctest");
    snprintf(g_fixtures, sizeof g_fixtures, "%s/tests/fixtures", src);
    CHECK(g16_set_threads(2) == 2);
    prove_and_verify("multiplier");
    prove_and_verify("poseidon");

    /* Errors: status, message naming the file, handles left NULL. */
    g16_key *key = (g16_key *)1;
    CHECK(g16_key_load(&key, "/nonexistent/x.zkey") == G16_ERR_IO);
    CHECK(key == NULL);
    CHECK(strstr(g16_last_error(), "/nonexistent/x.zkey") != NULL);
    g16_witness *wit = NULL;
    CHECK(g16_witness_load(&wit, fixture("multiplier", "circuit.zkey")) == G16_ERR_FORMAT);
    CHECK(strstr(g16_last_error(), "magic") != NULL);
    CHECK(wit == NULL);
    CHECK(strcmp(g16_status_message(G16_ERR_VERIFY_FAILED), "proof does not verify") == 0);
    CHECK(strcmp(g16_version(), G16_VERSION) == 0);
    /* A witness for another circuit. */
    CHECK(g16_key_load(&key, fixture("multiplier", "circuit.zkey")) == G16_OK);
    CHECK(g16_witness_load(&wit, fixture("poseidon", "witness.wtns")) == G16_OK);
    g16_proof proof;
    CHECK(g16_prove(&proof, NULL, key, wit) == G16_ERR_INVALID_ARGUMENT);
    CHECK(strstr(g16_last_error(), "witness") != NULL || strstr(g16_last_error(), "wtns") != NULL);
    g16_witness_free(wit);
    g16_key_free(key);
    return test_finish();
}
