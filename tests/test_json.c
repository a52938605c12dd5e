/* Decimal conversion and snarkjs JSON files: round trips of proofs, public inputs and
 * verifying keys, the verifier on a proof built from a known trapdoor, and rejections of
 * malformed files with their status codes; files written together (json_write_files)
 * land together or not at all. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "curve/pairing.h"
#include "groth16/groth16.h"
#include "harness.h"
#include "io/decimal.h"
#include "io/snarkjs_json.h"

static void test_decimal(size_t count)
{
    uint64_t v[6], w[6];
    char buf[160];
    /* Known values. */
    CHECK(decimal_to_limbs(v, 6, "0") && v[0] == 0 && v[5] == 0);
    CHECK(limbs_to_decimal(buf, sizeof buf, v, 6) && !strcmp(buf, "0"));
    CHECK(decimal_to_limbs(v, 2, "18446744073709551616") && v[0] == 0 && v[1] == 1);
    CHECK(decimal_to_limbs(v, 1, "18446744073709551615") && v[0] == UINT64_MAX);
    CHECK(!decimal_to_limbs(v, 1, "18446744073709551616")); /* 2^64 overflows one limb */
    CHECK(!decimal_to_limbs(v, 6, ""));
    CHECK(!decimal_to_limbs(v, 6, "12a"));
    CHECK(!decimal_to_limbs(v, 6, "-1"));
    CHECK(!decimal_to_limbs(v, 6, " 1"));
    /* r in decimal, from the BLS12-381 specification. */
    const char *r_dec =
        "52435875175126190479447740508185965837690552500527637822603658699938581184513";
    CHECK(decimal_to_limbs(v, 4, r_dec));
    CHECK(memcmp(v, FR_MODULUS, 32) == 0);
    CHECK(limbs_to_decimal(buf, sizeof buf, v, 4) && !strcmp(buf, r_dec));
    CHECK(!limbs_to_decimal(buf, 10, v, 4)); /* too small a buffer */
    /* Random round trips. */
    for (size_t i = 0; i < count; i++) {
        for (int k = 0; k < 6; k++)
            v[k] = test_rand64() >> (test_rand64() % 64);
        CHECK(limbs_to_decimal(buf, sizeof buf, v, 6));
        CHECK(decimal_to_limbs(w, 6, buf) && memcmp(v, w, sizeof v) == 0);
    }
}

/* A random non-zero scalar: test_random_fr also yields 0 on purpose, which would make
 * the "altered proof" cases below coincide with the valid one. */
static void random_nonzero_fr(fr_t *k)
{
    do
        test_random_fr(k);
    while (fr_is_zero(k));
}

static void random_g1(g1_affine_t *r, fr_t *k)
{
    g1_jac_t g;
    random_nonzero_fr(k);
    g1_generator(&g);
    g1_mul_vartime(&g, &g, k);
    g1_to_affine(r, &g);
}

static void random_g2(g2_affine_t *r, fr_t *k)
{
    g2_jac_t g;
    random_nonzero_fr(k);
    g2_generator(&g);
    g2_mul_vartime(&g, &g, k);
    g2_to_affine(r, &g);
}

static char g_dir[] = "/tmp/g16_test_json_XXXXXX";

static const char *path_of(const char *name)
{
    static char buf[4][256];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, 256, "%s/%s", g_dir, name);
    return p;
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    if (!CHECK(f != NULL))
        return;
    fputs(text, f);
    fclose(f);
}

/* A proof for a vk whose trapdoor we know: pick alpha, beta, delta, the IC scalars and
 * the public inputs; choose A = a G1, B = b G2 at random and solve the verification
 * equation for C:  ab = alpha beta + vk_x + c delta (gamma = 1). */
static void make_valid(groth16_vk *vk, groth16_proof *proof, fr_t *inputs, size_t n)
{
    fr_t alpha, beta, delta, a, b, c, t, ic_k[8], vkx;
    CHECK(groth16_vk_alloc(vk, n) == G16_OK);
    random_g1(&vk->alpha1, &alpha);
    random_g2(&vk->beta2, &beta);
    random_g2(&vk->delta2, &delta);
    g2_affine_generator(&vk->gamma2);
    for (size_t i = 0; i <= n; i++)
        random_g1(&vk->ic[i], &ic_k[i]);
    vkx = ic_k[0];
    for (size_t i = 0; i < n; i++) {
        test_random_fr(&inputs[i]);
        fr_mul(&t, &inputs[i], &ic_k[i + 1]);
        fr_add(&vkx, &vkx, &t);
    }
    do { /* c = (ab - alpha beta - vk_x) / delta, non-zero so that -C differs from C */
        random_g1(&proof->a, &a);
        random_g2(&proof->b, &b);
        fr_mul(&c, &a, &b);
        fr_mul(&t, &alpha, &beta);
        fr_sub(&c, &c, &t);
        fr_sub(&c, &c, &vkx);
    } while (fr_is_zero(&c));
    fr_inv(&t, &delta);
    fr_mul(&c, &c, &t);
    g1_jac_t g;
    g1_generator(&g);
    g1_mul_vartime(&g, &g, &c);
    g1_to_affine(&proof->c, &g);
}

static void test_round_trip_and_verify(void)
{
    enum { N = 3 };
    groth16_vk vk, vk2;
    groth16_proof proof, proof2;
    fr_t inputs[N], *inputs2 = NULL;
    size_t n2 = 0;
    make_valid(&vk, &proof, inputs, N);
    CHECK(groth16_verify(&vk, inputs, N, &proof) == G16_OK);

    CHECK(json_write_vk(path_of("vk.json"), &vk) == G16_OK);
    CHECK(json_write_proof(path_of("proof.json"), &proof) == G16_OK);
    CHECK(json_write_public(path_of("public.json"), inputs, N) == G16_OK);
    CHECK(json_read_vk(&vk2, path_of("vk.json")) == G16_OK);
    CHECK(json_read_proof(&proof2, path_of("proof.json")) == G16_OK);
    CHECK(json_read_public(&inputs2, &n2, path_of("public.json")) == G16_OK);
    CHECK(n2 == N && vk2.n_public == N);
    CHECK(memcmp(&proof, &proof2, sizeof proof) == 0);
    CHECK(memcmp(vk.ic, vk2.ic, (N + 1) * sizeof *vk.ic) == 0);
    CHECK(memcmp(&vk.alpha1, &vk2.alpha1, sizeof vk.alpha1) == 0);
    CHECK(memcmp(&vk.delta2, &vk2.delta2, sizeof vk.delta2) == 0);
    for (size_t i = 0; i < N && i < n2; i++)
        CHECK(fr_equal(&inputs[i], &inputs2[i]));
    CHECK(groth16_verify(&vk2, inputs2, n2, &proof2) == G16_OK);

    /* Altered proof, altered input, wrong count: rejected. */
    groth16_proof bad = proof;
    g1_affine_neg(&bad.c, &bad.c);
    CHECK(groth16_verify(&vk, inputs, N, &bad) == G16_ERR_VERIFY_FAILED);
    bad = proof;
    bad.a = proof.c;
    CHECK(groth16_verify(&vk, inputs, N, &bad) == G16_ERR_VERIFY_FAILED);
    fr_t one;
    fr_one(&one);
    fr_add(&inputs2[0], &inputs2[0], &one);
    CHECK(groth16_verify(&vk, inputs2, N, &proof) == G16_ERR_VERIFY_FAILED);
    CHECK(groth16_verify(&vk, inputs, N - 1, &proof) == G16_ERR_INVALID_ARGUMENT);
    /* An infinite A is a valid encoding and an invalid proof. */
    bad = proof;
    g1_affine_set_infinity(&bad.a);
    CHECK(groth16_verify(&vk, inputs, N, &bad) == G16_ERR_VERIFY_FAILED);

    /* vk_alphabeta_12 as snarkjs writes it: e(alpha, beta) in a 2x3x2 array. */
    FILE *f = fopen(path_of("vk.json"), "r");
    char text[65536];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[len] = 0;
    CHECK(strstr(text, "\"vk_alphabeta_12\"") != NULL);
    CHECK(strstr(text, "\"curve\": \"bls12381\"") != NULL);

    groth16_vk_free(&vk);
    groth16_vk_free(&vk2);
    free(inputs2);
}

static void expect_status(g16_status got, g16_status want, const char *needle)
{
    CHECK(got == want);
    if (!CHECK(strstr(g16_last_error(), needle) != NULL))
        printf("  message was: %s (wanted \"%s\")\n", g16_last_error(), needle);
}

static void test_rejections(void)
{
    groth16_proof proof;
    groth16_vk vk;
    fr_t *in = NULL;
    size_t n;
    expect_status(json_read_proof(&proof, path_of("missing.json")), G16_ERR_IO, "missing.json");
    expect_status(json_read_vk(&vk, g_dir), G16_ERR_IO, "is a directory");
    write_text("x.json", "{\"pi_a\": [");
    expect_status(json_read_proof(&proof, path_of("x.json")), G16_ERR_FORMAT, "line");
    write_text("x.json", "[1, 2]");
    expect_status(json_read_proof(&proof, path_of("x.json")), G16_ERR_FORMAT, "object");
    write_text("x.json", "{\"pi_a\": [\"1\", \"2\", \"1\"], \"pi_b\": 0, \"pi_c\": 0}");
    expect_status(json_read_proof(&proof, path_of("x.json")), G16_ERR_NOT_ON_CURVE, "pi_a");
    write_text("x.json", "{\"pi_a\": [\"1\", \"x\", \"1\"]}");
    expect_status(json_read_proof(&proof, path_of("x.json")), G16_ERR_FORMAT, "pi_a");
    write_text("x.json", "{\"pi_a\": [\"0\", \"1\", \"0\"], \"pi_b\": [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],"
                         " \"pi_c\": [\"0\", \"1\", \"0\"], \"protocol\": \"groth16\", \"curve\": \"bn128\"}");
    expect_status(json_read_proof(&proof, path_of("x.json")), G16_ERR_UNSUPPORTED, "BN254");
    write_text("x.json", "{\"pi_a\": [\"0\", \"1\", \"0\"], \"pi_b\": [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],"
                         " \"pi_c\": [\"0\", \"1\", \"0\"], \"protocol\": \"plonk\"}");
    expect_status(json_read_proof(&proof, path_of("x.json")), G16_ERR_UNSUPPORTED, "groth16");
    /* A valid infinity encoding parses. */
    write_text("x.json", "{\"pi_a\": [\"0\", \"1\", \"0\"], \"pi_b\": [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],"
                         " \"pi_c\": [\"0\", \"1\", \"0\"]}");
    CHECK(json_read_proof(&proof, path_of("x.json")) == G16_OK);
    CHECK(g1_affine_is_infinity(&proof.a) && g2_affine_is_infinity(&proof.b));
    /* A coordinate >= p. */
    write_text("x.json", "{\"pi_a\": [\"4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787\", \"1\", \"1\"]}");
    expect_status(json_read_proof(&proof, path_of("x.json")), G16_ERR_FORMAT, "canonical");
    /* public.json: r itself is not a scalar. */
    write_text("p.json", "[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]");
    expect_status(json_read_public(&in, &n, path_of("p.json")), G16_ERR_FORMAT, "entry 0");
    write_text("p.json", "{}");
    expect_status(json_read_public(&in, &n, path_of("p.json")), G16_ERR_FORMAT, "array");
    write_text("p.json", "[]");
    CHECK(json_read_public(&in, &n, path_of("p.json")) == G16_OK && n == 0);
    free(in);
    write_text("v.json", "{\"IC\": []}");
    expect_status(json_read_vk(&vk, path_of("v.json")), G16_ERR_FORMAT, "IC");
    write_text("v.json", "{\"IC\": [[\"0\",\"1\",\"0\"]], \"nPublic\": 3}");
    expect_status(json_read_vk(&vk, path_of("v.json")), G16_ERR_FORMAT, "nPublic");
}

/* The text of file name in g_dir ("" when it cannot be read). */
static const char *text_of(const char *name)
{
    static char buf[256];
    buf[0] = '\0';
    FILE *f = fopen(path_of(name), "rb");
    if (f) {
        buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
        fclose(f);
    }
    return buf;
}

/* json_write_files: files that belong together land together, or none does. */
static void test_write_files(void)
{
    write_text("one.json", "old one");
    write_text("two.json", "old two");
    json_t *values[3] = {json_integer(1), json_integer(2), json_integer(3)};
    char paths[3][256];
    snprintf(paths[0], sizeof paths[0], "%s", path_of("one.json"));
    snprintf(paths[1], sizeof paths[1], "%s", path_of("two.json"));
    snprintf(paths[2], sizeof paths[2], "/dev/full");
    const char *p[3] = {paths[0], paths[1], paths[2]};
    /* The third file fails at its last write (/dev/full): the first two keep their text. */
    if (access("/dev/full", W_OK) == 0) {
        expect_status(json_write_files(p, values, 3), G16_ERR_IO, "/dev/full");
        CHECK(!strcmp(text_of("one.json"), "old one"));
        CHECK(!strcmp(text_of("two.json"), "old two"));
    } else {
        printf("  skipped: a partner on /dev/full (no /dev/full here)\n");
    }
    /* A value missing: nothing written. */
    json_t *holed[2] = {values[0], NULL};
    expect_status(json_write_files(p, holed, 2), G16_ERR_INVALID_ARGUMENT, "nothing to write");
    CHECK(!strcmp(text_of("one.json"), "old one"));
    /* All well: both land. */
    CHECK(json_write_files(p, values, 2) == G16_OK);
    CHECK(!strcmp(text_of("one.json"), "1"));
    CHECK(!strcmp(text_of("two.json"), "2"));
    for (size_t i = 0; i < 3; i++)
        json_decref(values[i]);
}

int main(void)
{
    test_init("test_json");
    if (!mkdtemp(g_dir)) {
        CHECK(!"mkdtemp");
        return test_finish();
    }
    test_decimal(test_count(2000));
    for (size_t i = 0; i < test_count(3); i++)
        test_round_trip_and_verify();
    test_rejections();
    test_write_files();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK(system(cmd) == 0);
    return test_finish();
}
