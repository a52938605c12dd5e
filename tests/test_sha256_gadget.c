/* The SHA-256 gadget: FIPS 180-4 vectors, a plain C SHA-256 on random messages, the
 * compression with a variable state against the reference compression, SETUP/PROVE/CHECK
 * agreement, a planted error named by its path, and the development setup's QAP on the
 * matrices of one compression. */
#include <stdlib.h>
#include <string.h>

#include "circuit/sha256.h"
#include "harness.h"

/* --- the reference against FIPS 180-4 ------------------------------------------------------ */

static const struct {
    const char *msg, *digest;
} fips[] = {
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
};

static void test_reference(void)
{
    for (size_t i = 0; i < sizeof fips / sizeof fips[0]; i++) {
        uint8_t got[32], want[32];
        test_hex_decode(want, 32, fips[i].digest);
        sha256_ref(got, (const uint8_t *)fips[i].msg, strlen(fips[i].msg));
        CHECK_BYTES(got, want, 32, fips[i].msg);
    }
}

/* --- the gadget on a byte message ---------------------------------------------------------- */

typedef struct {
    const uint8_t *msg;
    size_t len;
    uint8_t *digest;     /* out */
} sha_params;

static g16_status sha_circuit(cs_t *cs, const void *p)
{
    const sha_params *sp = p;
    cs_bit *bits = malloc((sp->len * 8 + 1) * sizeof *bits);
    if (!bits)
        return cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "message bits");
    cs_push(cs, "message");
    for (size_t i = 0; i < sp->len * 8; i++)
        bits[i] = cs_bit_alloc(cs, (sp->msg[i / 8] >> (7 - i % 8)) & 1);
    cs_pop(cs);
    cs_word d[8];
    cs_sha256(cs, d, bits, sp->len * 8);
    for (unsigned i = 0; i < 8; i++) {
        uint32_t v = cs_word_value(&d[i]);
        for (unsigned j = 0; j < 4; j++)
            sp->digest[4 * i + j] = (uint8_t)(v >> (24 - 8 * j));
    }
    free(bits);
    return G16_OK;
}

static void gadget_digest(uint8_t digest[32], const uint8_t *msg, size_t len, bool roundtrip)
{
    sha_params p = {msg, len, digest};
    if (roundtrip) {
        cs_stats s;
        g16_status st = cs_roundtrip(&s, NULL, sha_circuit, &p, 0);
        if (!CHECK(st == G16_OK))
            printf("  %s\n", g16_last_error());
        else
            printf("  sha256 of %zu bytes: %zu constraints, %zu wires (%zu message bits)\n", len,
                   s.n_constraints, s.n_vars, len * 8);
        return;
    }
    cs_t *cs;
    if (!CHECK(cs_create(&cs, CS_CHECK, 0, NULL) == G16_OK))
        return;
    if (!CHECK(cs_synthesize(cs, sha_circuit, &p) == G16_OK))
        printf("  %s\n", g16_last_error());
    cs_free(cs);
}

static void test_fips(void)
{
    for (size_t i = 0; i < sizeof fips / sizeof fips[0]; i++) {
        uint8_t got[32], want[32];
        test_hex_decode(want, 32, fips[i].digest);
        /* The two-block vector also runs SETUP and PROVE. */
        gadget_digest(got, (const uint8_t *)fips[i].msg, strlen(fips[i].msg), i == 2);
        CHECK_BYTES(got, want, 32, fips[i].msg);
    }
}

static void test_random_messages(void)
{
    size_t reps = test_count(3);
    for (size_t r = 0; r < reps; r++) {
        size_t len = test_rand64() % 140;
        uint8_t msg[140], got[32], want[32];
        test_rand_bytes(msg, len);
        sha256_ref(want, msg, len);
        gadget_digest(got, msg, len, false);
        if (!CHECK_BYTES(got, want, 32, "random message"))
            printf("  length %zu\n", len);
    }
}

/* --- the compression with variable state and block --------------------------------------- */

typedef struct {
    uint32_t state[8], block[16];
    uint32_t *out;
} compress_params;

static g16_status compress_circuit(cs_t *cs, const void *p)
{
    const compress_params *cp = p;
    cs_word st[8], blk[16], out[8];
    cs_push(cs, "state");
    for (unsigned i = 0; i < 8; i++)
        st[i] = cs_word_alloc(cs, cp->state[i]);
    cs_pop(cs);
    cs_push(cs, "block");
    for (unsigned i = 0; i < 16; i++)
        blk[i] = cs_word_alloc(cs, cp->block[i]);
    cs_pop(cs);
    cs_push(cs, "sha256");
    cs_sha256_compress(cs, out, st, blk);
    cs_pop(cs);
    for (unsigned i = 0; i < 8; i++)
        cp->out[i] = cs_word_value(&out[i]);
    return G16_OK;
}

/* CHECK with 7 planted at wire must fail first at the constraint named want. */
static bool planted_name_ok(const compress_params *cp, cs_var wire, const char *want)
{
    cs_t *cs;
    if (!CHECK(cs_create(&cs, CS_CHECK, 0, NULL) == G16_OK))
        return false;
    fr_t seven;
    fr_from_u64(&seven, 7);
    cs_check_plant(cs, wire, &seven);
    g16_status st = cs_synthesize(cs, compress_circuit, cp);
    const char *name = cs_check_failure(cs, NULL);
    bool ok = st == G16_ERR_VERIFY_FAILED && name && strcmp(name, want) == 0;
    if (!ok && name)
        printf("  wire %u: '%s'\n", wire, name);
    cs_free(cs);
    return ok;
}

/* A planted error inside a round is reported under its path. The row is found by name in
 * a SETUP run that keeps names; its C side is the single wire the gadget defines there. */
static void test_planted(const compress_params *cp)
{
    static const char *targets[] = {"sha256/round 17/maj/bit 3/and", "sha256/round 17/maj/bit 3/maj",
                                    "sha256/round 40/ch/bit 31/ch", "sha256/schedule/w 20/s0/xor3/bit 5/xor",
                                    "sha256/round 63/a/add/sum"};
    cs_t *cs;
    constraint_matrices m;
    if (!CHECK(cs_create(&cs, CS_SETUP, 0, NULL) == G16_OK))
        return;
    cs_keep_names(cs);
    if (!CHECK(cs_synthesize(cs, compress_circuit, cp) == G16_OK)) {
        cs_free(cs);
        return;
    }
    size_t rows[5] = {0};
    bool found[5] = {false};
    for (size_t i = 0; i < cs_num_constraints(cs); i++)
        for (int t = 0; t < 5; t++)
            if (!found[t] && strcmp(cs_constraint_name(cs, i), targets[t]) == 0) {
                found[t] = true;
                rows[t] = i;
            }
    CHECK(cs_take_matrices(cs, &m) == G16_OK);
    cs_free(cs);
    for (int t = 0; t < 5; t++) {
        if (!CHECK(found[t])) {
            printf("  no constraint named '%s'\n", targets[t]);
            continue;
        }
        /* The wire the row defines: C is r (and), r - t (maj), r - c (ch), a + b - r (xor),
         * or the result bits then the carries (sum). A 7 there fails that row first, except
         * in the sum, where the result bit's own booleanity comes first. */
        size_t lo = m.row_start[2][rows[t]], hi = m.row_start[2][rows[t] + 1];
        if (!CHECK(hi > lo))
            continue;
        cs_var w = m.terms[2][t == 3 ? hi - 1 : lo].wire;
        CHECK(planted_name_ok(cp, w, t == 4 ? "sha256/round 63/a/add/bit 0/boolean" : targets[t]));
    }
    constraint_matrices_free(&m);
}

static void test_compress(void)
{
    size_t reps = test_count(2);
    for (size_t r = 0; r < reps; r++) {
        uint32_t out[8], want[8];
        compress_params cp = {{0}, {0}, out};
        for (int i = 0; i < 8; i++)
            cp.state[i] = (uint32_t)test_rand64();
        for (int i = 0; i < 16; i++)
            cp.block[i] = (uint32_t)test_rand64();
        memcpy(want, cp.state, sizeof want);
        sha256_ref_compress(want, cp.block);
        cs_stats s;
        constraint_matrices m;
        g16_status st = cs_roundtrip(&s, &m, compress_circuit, &cp, 0);
        if (!CHECK(st == G16_OK)) {
            printf("  %s\n", g16_last_error());
            continue;
        }
        CHECK(memcmp(out, want, sizeof out) == 0);
        if (r == 0) {
            /* 768 booleanity constraints belong to the allocated state and block words. */
            size_t own = s.n_constraints - 24 * 32;
            printf("  sha256 compression: %zu constraints (%zu without the input words' "
                   "booleanity), %zu wires; A-aux %zu, B-aux %zu of %zu; terms A %zu B %zu C %zu\n",
                   s.n_constraints, own, s.n_vars, s.density_a, s.density_b, s.n_aux,
                   s.terms[0], s.terms[1], s.terms[2]);
            /* bellman ~27k, circomlib ~29k: stay in that neighbourhood. */
            CHECK(own < 28000);

            test_planted(&cp);
        }
        constraint_matrices_free(&m);
    }
}

int main(void)
{
    test_init("test_sha256_gadget");
    test_reference();
    test_fips();
    test_random_messages();
    test_compress();
    return test_finish();
}
