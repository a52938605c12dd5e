/* `g16 selftest`: known-answer checks of the arithmetic, quick enough to run on every
 * start of a deployment. The expected values were computed independently with
 * @noble/curves 2.4.0 (see tools/noble); the full differential suites are in tests/. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "field/cpu.h"
#include "field/fp.h"
#include "field/fr.h"
#include "curve/encoding.h"
#include "curve/pairing.h"

static int failures;

static void expect(bool ok, const char *what)
{
    printf("  %-58s %s\n", what, ok ? "ok" : "FAILED");
    failures += !ok;
}

static void field_checks(void)
{
    /* 5^((r-1)/2^32) is a primitive 2^32-th root of unity (snarkjs convention). */
    fr_t w, m1;
    fr_root_of_unity(&w, 32);
    for (int i = 0; i < 31; i++)
        fr_sqr(&w, &w);
    fr_one(&m1);
    fr_neg(&m1, &m1);
    expect(fr_equal(&w, &m1), "Fr: w_(2^32)^(2^31) = -1");

    /* Fermat inverse and square root on a fixed value. */
    fp_t a, inv, t;
    fp_from_u64(&a, 0x1234567890abcdefull);
    fp_inv(&inv, &a);
    fp_mul(&t, &a, &inv);
    expect(fp_is_one(&t), "Fp: a * a^-1 = 1");
    fp_sqr(&t, &a);
    bool has_root = fp_sqrt(&t, &t);
    fp_t na;
    fp_neg(&na, &a);
    expect(has_root && (fp_equal(&t, &a) || fp_equal(&t, &na)), "Fp: sqrt(a^2) = +-a");

    /* The portable and assembly paths agree on a product chain. */
    fp_t x, y;
    fp_from_u64(&x, 3);
    y = x;
    for (int i = 0; i < 1000; i++) {
        fp_mul(&x, &x, &a);
        fp_mul_portable(&y, &y, &a);
    }
    expect(fp_equal(&x, &y), cpu_use_asm ? "Fp: assembly and portable paths agree"
                                          : "Fp: portable path (no assembly on this CPU)");
}

static bool hex_equals(const uint8_t *bytes, size_t n, const char *hex)
{
    static const char digits[] = "0123456789abcdef";
    if (strlen(hex) != 2 * n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (hex[2 * i] != digits[bytes[i] >> 4] || hex[2 * i + 1] != digits[bytes[i] & 15])
            return false;
    return true;
}

static void curve_checks(void)
{
    /* zcash encodings of the generators and of k*G, k = 0x1234567890abcdef. */
    static const char *g1_hex =
        "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
    static const char *kg1_hex =
        "86108816a69a1dc709dc6fdb084e9d5431414b46e7b56772260a6c695663cfc66ce0afee43b1a5dd51241a3478386521";
    static const char *g2_hex =
        "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
        "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
    static const char *kg2_hex =
        "905f1bcc6c11223525371bfbb4b95af92d3c3bdab4ebb242d4a77eebe07aede0adfc50f8189b740b403d0f18cd340529"
        "16d1d701635e2c7efd2155066a7687b9006816b30185b3c6a6db38f4a69f675ae7013fc9f94cd64248b951767d65abcd";
    fr_t k;
    fr_from_u64(&k, 0x1234567890abcdefull);
    g1_jac_t p1;
    g2_jac_t p2;
    g1_affine_t a1;
    g2_affine_t a2;
    uint8_t b1[G1_COMPRESSED_BYTES], b2[G2_COMPRESSED_BYTES];
    g1_affine_generator(&a1);
    g1_encode_compressed(b1, &a1);
    expect(hex_equals(b1, sizeof b1, g1_hex), "G1 generator, zcash compressed");
    g1_generator(&p1);
    g1_mul(&p1, &p1, &k);
    g1_to_affine(&a1, &p1);
    g1_encode_compressed(b1, &a1);
    expect(hex_equals(b1, sizeof b1, kg1_hex), "k * G1 (constant-time multiplication)");
    g2_affine_generator(&a2);
    g2_encode_compressed(b2, &a2);
    expect(hex_equals(b2, sizeof b2, g2_hex), "G2 generator, zcash compressed");
    g2_generator(&p2);
    g2_mul(&p2, &p2, &k);
    g2_to_affine(&a2, &p2);
    g2_encode_compressed(b2, &a2);
    expect(hex_equals(b2, sizeof b2, kg2_hex), "k * G2 (constant-time multiplication)");
    g1_affine_t dec1;
    expect(g1_decode_compressed(&dec1, b1) == G16_OK && g1_affine_equal(&dec1, &a1),
           "decode(encode(k * G1)) = k * G1");

    /* e(G1, G2) = 0x1250ebd871...; e(kG1, G2) = e(G1, kG2). */
    g1_affine_t g1a;
    g2_affine_t g2a;
    g1_affine_generator(&g1a);
    g2_affine_generator(&g2a);
    fp12_t e, e1, e2;
    uint8_t gt[FP12_BYTES];
    pairing(&e, &g1a, &g2a);
    fp12_to_bytes(gt, &e);
    expect(hex_equals(gt, 8, "1250ebd871fc0a92"), "e(G1, G2) = 0x1250ebd871fc0a92...");
    pairing(&e1, &a1, &g2a);
    pairing(&e2, &g1a, &a2);
    expect(fp12_equal(&e1, &e2) && !fp12_is_one(&e1), "e(k G1, G2) = e(G1, k G2) != 1");
}

int cmd_selftest(int argc, char **argv)
{
    (void)argv;
    if (argc > 0)
        return cli_usage_error("selftest");
    printf("g16 selftest (arithmetic path: %s)\n",
           cpu_use_asm ? "x86-64 MULX/ADX assembly" : "portable C");
    field_checks();
    curve_checks();
    printf("%s: %d failed\n", failures ? "selftest FAILED" : "selftest passed", failures);
    return failures ? 1 : 0;
}
