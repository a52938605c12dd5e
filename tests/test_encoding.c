/* zcash and snarkjs point encodings: round trips, and every rejection with its status
 * (flag combinations, non-canonical coordinates, off-curve, off-subgroup, infinity with
 * garbage, wrong lengths). Written once for G1 and G2: this file includes itself with
 * ENC_TEST_GROUP defined, as test_curve.c does. */
#ifdef ENC_TEST_GROUP

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define PT(name) CAT(ENC_TEST_GROUP, name)
#define FE CAT(ENC_TEST_FIELD, t)
#define AFF CAT(ENC_TEST_GROUP, affine_t)
#define JAC CAT(ENC_TEST_GROUP, jac_t)
#define FEB ENC_TEST_FE_BYTES /* one coordinate: 48 or 96 bytes */

static void PT(e_random)(AFF *r)
{
    JAC g, p;
    fr_t k;
    PT(generator)(&g);
    do
        test_random_fr(&k);
    while (fr_is_zero(&k));
    PT(mul_vartime)(&p, &g, &k);
    PT(to_affine)(r, &p);
}

static void PT(e_random_off_subgroup)(AFF *r)
{
    FE x;
    do {
        do
            ENC_TEST_RANDOM_FE(&x);
        while (!PT(affine_from_x)(r, &x, test_rand64() & 1));
    } while (PT(affine_is_in_subgroup)(r));
}

/* Decodes with every entry point that accepts these bytes' length and checks the status,
 * the output (infinity after a failure) and, on failure, that g16_last_error names the
 * group. */
static void PT(e_expect)(const uint8_t *in, size_t len, g16_status want, const AFF *want_point)
{
    AFF got;
    g16_status s;
    if (len == FEB)
        s = PT(decode_compressed)(&got, in);
    else
        s = PT(decode_uncompressed)(&got, in);
    CHECK(s == want);
    if (s != want)
        printf("  status %d, want %d: %s\n", s, want, g16_last_error());
    if (s == G16_OK && want_point)
        CHECK(PT(affine_equal)(&got, want_point));
    if (s != G16_OK) {
        CHECK(PT(affine_is_infinity)(&got));
        CHECK(strstr(g16_last_error(), ENC_TEST_NAME) != NULL);
    }
    CHECK(PT(decode)(&got, in, len) == want);
}

/* x += p on big-endian bytes; false if the sum needs more than 381 bits (it would spill
 * into the flag bits). */
static bool PT(e_add_p_be)(uint8_t *x)
{
    uint8_t p[48];
    fp_t m;
    /* p itself is not an element; its bytes are those of -1 plus one. */
    fp_one(&m);
    fp_neg(&m, &m);
    fp_to_bytes_be(p, &m);
    p[47] += 1; /* p - 1 is even, so no carry */
    unsigned carry = 0;
    for (size_t i = 48; i-- > 0;) {
        unsigned s = (unsigned)x[i] + p[i] + carry;
        x[i] = (uint8_t)s;
        carry = s >> 8;
    }
    return carry == 0 && (x[0] & 0xe0) == 0;
}

static void PT(e_round_trips)(size_t count)
{
    uint8_t c[FEB], u[2 * FEB], s[2 * FEB];
    AFF a, b;
    for (size_t i = 0; i < count; i++) {
        PT(e_random)(&a);
        PT(encode_compressed)(c, &a);
        PT(encode_uncompressed)(u, &a);
        CHECK((c[0] & 0xc0) == 0x80 && (u[0] & 0xe0) == 0);
        CHECK(memcmp(c + 1, u + 1, FEB - 1) == 0); /* same x */
        PT(e_expect)(c, FEB, G16_OK, &a);
        PT(e_expect)(u, 2 * FEB, G16_OK, &a);
        /* The sign flag selects -P. */
        PT(affine_neg)(&b, &a);
        c[0] ^= 0x20;
        PT(e_expect)(c, FEB, G16_OK, &b);

        PT(encode_snarkjs)(s, &a);
        CHECK(PT(decode_snarkjs)(&b, s, true) == G16_OK && PT(affine_equal)(&a, &b));
        CHECK(PT(decode_snarkjs)(&b, s, false) == G16_OK && PT(affine_equal)(&a, &b));
    }
    /* Infinity: the exact bytes, and back. */
    PT(affine_set_infinity)(&a);
    PT(encode_compressed)(c, &a);
    PT(encode_uncompressed)(u, &a);
    PT(encode_snarkjs)(s, &a);
    uint8_t zeros[2 * FEB] = {0};
    CHECK(c[0] == 0xc0 && memcmp(c + 1, zeros, FEB - 1) == 0);
    CHECK(u[0] == 0x40 && memcmp(u + 1, zeros, 2 * FEB - 1) == 0);
    CHECK(memcmp(s, zeros, 2 * FEB) == 0);
    PT(e_expect)(c, FEB, G16_OK, &a);
    PT(e_expect)(u, 2 * FEB, G16_OK, &a);
    CHECK(PT(decode_snarkjs)(&b, s, true) == G16_OK && PT(affine_is_infinity)(&b));
}

static void PT(e_flags)(size_t count)
{
    uint8_t c[FEB], u[2 * FEB], t[2 * FEB];
    AFF a;
    for (size_t i = 0; i < count; i++) {
        PT(e_random)(&a);
        PT(encode_compressed)(c, &a);
        PT(encode_uncompressed)(u, &a);

        /* compression flag against the length */
        memcpy(t, c, FEB);
        t[0] &= 0x7f;
        PT(e_expect)(t, FEB, G16_ERR_BAD_ENCODING, NULL);
        memcpy(t, u, 2 * FEB);
        t[0] |= 0x80;
        PT(e_expect)(t, 2 * FEB, G16_ERR_BAD_ENCODING, NULL);
        /* sign flag on an uncompressed point */
        memcpy(t, u, 2 * FEB);
        t[0] |= 0x20;
        PT(e_expect)(t, 2 * FEB, G16_ERR_BAD_ENCODING, NULL);
        /* infinity flag on a real point: the coordinate bytes are garbage for infinity */
        memcpy(t, c, FEB);
        t[0] |= 0x40;
        t[0] &= (uint8_t)~0x20;
        PT(e_expect)(t, FEB, G16_ERR_BAD_ENCODING, NULL);
        memcpy(t, u, 2 * FEB);
        t[0] |= 0x40;
        PT(e_expect)(t, 2 * FEB, G16_ERR_BAD_ENCODING, NULL);
    }

    /* Infinity with one stray bit anywhere, or with the sign flag. */
    for (size_t len = FEB; len <= 2 * FEB; len += FEB) {
        uint8_t inf[2 * FEB] = {0};
        inf[0] = len == FEB ? 0xc0 : 0x40;
        PT(e_expect)(inf, len, G16_OK, NULL);
        for (size_t k = 0; k < 8 * len; k += 1 + k / 16) {
            if (k < 3)
                continue; /* the flag bits themselves */
            memcpy(t, inf, len);
            t[k / 8] ^= (uint8_t)(0x80 >> (k % 8));
            PT(e_expect)(t, len, G16_ERR_BAD_ENCODING, NULL);
        }
        memcpy(t, inf, len);
        t[0] |= 0x20; /* 0xe0 and 0x60 */
        PT(e_expect)(t, len, G16_ERR_BAD_ENCODING, NULL);
        /* all-zero without the infinity flag: (0, 0) is not a point */
        memset(t, 0, len);
        if (len == FEB)
            t[0] = 0x80; /* x = 0 decompresses to (0, +-2) on G1; for either it is not in G */
        PT(e_expect)(t, len, len == FEB ? ENC_TEST_ZERO_X_STATUS : G16_ERR_NOT_ON_CURVE, NULL);
    }

    /* wrong lengths */
    AFF got;
    for (size_t len = 0; len <= 2 * FEB + 1; len++) {
        if (len == FEB || len == 2 * FEB)
            continue;
        memset(t, 0, sizeof t);
        t[0] = 0xc0;
        CHECK(PT(decode)(&got, t, len) == G16_ERR_BAD_ENCODING);
    }
}

static void PT(e_non_canonical)(size_t count)
{
    uint8_t c[FEB], u[2 * FEB], t[2 * FEB], s[2 * FEB];
    AFF a;
    size_t hits = 0;
    for (size_t i = 0; i < 8 * count; i++) {
        PT(e_random)(&a);
        PT(encode_compressed)(c, &a);
        PT(encode_uncompressed)(u, &a);
        /* Each 48-byte component of x (G2: c1 then c0), and of y in the uncompressed form,
         * replaced by the same value plus p when that still fits. */
        for (size_t off = 0; off < 2 * FEB; off += 48) {
            memcpy(t, u, 2 * FEB);
            if (PT(e_add_p_be)(t + off)) {
                hits++;
                PT(e_expect)(t, 2 * FEB, G16_ERR_BAD_ENCODING, NULL);
                if (off < FEB) {
                    memcpy(t, c, FEB);
                    uint8_t flags = t[0] & 0xe0;
                    t[0] &= 0x1f;
                    CHECK(PT(e_add_p_be)(t + off));
                    t[0] |= flags;
                    PT(e_expect)(t, FEB, G16_ERR_BAD_ENCODING, NULL);
                }
            }
        }
        /* snarkjs: Montgomery value plus p always fits in 48 bytes */
        PT(encode_snarkjs)(s, &a);
        for (size_t off = 0; off < 2 * FEB; off += 48) {
            memcpy(t, s, 2 * FEB);
            uint8_t p[48];
            fp_t m;
            fp_one(&m);
            fp_neg(&m, &m);
            fp_to_bytes_le(p, &m);
            p[0] += 1;
            unsigned carry = 0;
            for (size_t k = 0; k < 48; k++) {
                unsigned v = (unsigned)t[off + k] + p[k] + carry;
                t[off + k] = (uint8_t)v;
                carry = v >> 8;
            }
            CHECK(carry == 0);
            AFF got;
            CHECK(PT(decode_snarkjs)(&got, t, false) == G16_ERR_BAD_ENCODING);
            CHECK(PT(affine_is_infinity)(&got));
        }
    }
    CHECK(hits > 0);
    /* The largest 381-bit values, under each flag combination that reaches x. */
    for (size_t off = 0; off < FEB; off += 48) {
        memset(t, 0, sizeof t);
        memset(t + off, 0xff, 48);
        t[0] = (uint8_t)((off == 0 ? 0x1f : 0) | 0x80);
        PT(e_expect)(t, FEB, G16_ERR_BAD_ENCODING, NULL);
        t[0] &= 0x1f;
        PT(e_expect)(t, 2 * FEB, G16_ERR_BAD_ENCODING, NULL);
    }
}

static void PT(e_off_curve)(size_t count)
{
    uint8_t c[FEB], u[2 * FEB], s[2 * FEB];
    AFF a, bad;
    size_t no_root = 0;
    for (size_t i = 0; i < count; i++) {
        PT(e_random)(&a);
        /* (x, y + 1) */
        FE one;
        CAT(ENC_TEST_FIELD, one)(&one);
        bad = a;
        CAT(ENC_TEST_FIELD, add)(&bad.y, &bad.y, &one);
        PT(encode_uncompressed)(u, &bad);
        PT(e_expect)(u, 2 * FEB, G16_ERR_NOT_ON_CURVE, NULL);
        PT(encode_snarkjs)(s, &bad);
        AFF got;
        CHECK(PT(decode_snarkjs)(&got, s, false) == G16_ERR_NOT_ON_CURVE);
        CHECK(PT(decode_snarkjs)(&got, s, true) == G16_ERR_NOT_ON_CURVE);
        /* an x with no y: x^3 + b is not a square for about half of all x */
        FE x;
        ENC_TEST_RANDOM_FE(&x);
        if (!PT(affine_from_x)(&bad, &x, false)) {
            no_root++;
            bad.x = x;
            CAT(ENC_TEST_FIELD, one)(&bad.y);
            PT(encode_compressed)(c, &bad); /* encodes x and some sign */
            PT(e_expect)(c, FEB, G16_ERR_NOT_ON_CURVE, NULL);
        }
    }
    CHECK(no_root > 0);
}

static void PT(e_off_subgroup)(size_t count)
{
    uint8_t c[FEB], u[2 * FEB], s[2 * FEB];
    AFF a, got;
    for (size_t i = 0; i < count; i++) {
        PT(e_random_off_subgroup)(&a);
        PT(encode_compressed)(c, &a);
        PT(encode_uncompressed)(u, &a);
        PT(encode_snarkjs)(s, &a);
        PT(e_expect)(c, FEB, G16_ERR_NOT_IN_SUBGROUP, NULL);
        PT(e_expect)(u, 2 * FEB, G16_ERR_NOT_IN_SUBGROUP, NULL);
        CHECK(PT(decode_snarkjs)(&got, s, true) == G16_ERR_NOT_IN_SUBGROUP);
        CHECK(PT(affine_is_infinity)(&got));
        /* Without the check the point loads as it is. */
        CHECK(PT(decode_snarkjs)(&got, s, false) == G16_OK && PT(affine_equal)(&got, &a));
    }
}

static void PT(e_all)(size_t count)
{
    PT(e_round_trips)(count);
    PT(e_flags)(count);
    PT(e_non_canonical)(count);
    PT(e_off_curve)(count);
    PT(e_off_subgroup)(count);
}

#undef FEB
#undef JAC
#undef AFF
#undef FE
#undef PT
#undef CAT
#undef CAT2

#else /* the driver */

#include <string.h>

#include "curve/encoding.h"
#include "harness.h"

static void random_fp2(fp2_t *r)
{
    test_random_fp(&r->c0);
    test_random_fp(&r->c1);
}

#define ENC_TEST_GROUP g1
#define ENC_TEST_FIELD fp
#define ENC_TEST_NAME "G1"
#define ENC_TEST_FE_BYTES 48
#define ENC_TEST_RANDOM_FE test_random_fp
/* x = 0: 0 + 4 = 2^2, so (0, 2) is a curve point, outside G1. */
#define ENC_TEST_ZERO_X_STATUS G16_ERR_NOT_IN_SUBGROUP
#include "test_encoding.c"
#undef ENC_TEST_GROUP
#undef ENC_TEST_FIELD
#undef ENC_TEST_NAME
#undef ENC_TEST_FE_BYTES
#undef ENC_TEST_RANDOM_FE
#undef ENC_TEST_ZERO_X_STATUS

#define ENC_TEST_GROUP g2
#define ENC_TEST_FIELD fp2
#define ENC_TEST_NAME "G2"
#define ENC_TEST_FE_BYTES 96
#define ENC_TEST_RANDOM_FE random_fp2
/* x = 0: y^2 = 4(u + 1) has no root in Fp2. */
#define ENC_TEST_ZERO_X_STATUS G16_ERR_NOT_ON_CURVE
#include "test_encoding.c"

/* Fixed vectors: the generators' compressed encodings (zcash test vectors, also noble's
 * G1.BASE.toBytes(true)) pin the byte order of G2 (x.c1 first) independently of noble. */
static void test_vectors(void)
{
    static const char *g1c =
        "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aef"
        "fb3af00adb22c6bb";
    static const char *g2c =
        "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57"
        "e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d177"
        "0bac0326a805bbefd48056c8c121bdb8";
    uint8_t want[96], got[96];
    g1_affine_t a;
    g2_affine_t b;
    g1_affine_generator(&a);
    g1_encode_compressed(got, &a);
    CHECK(test_hex_decode(want, sizeof want, g1c) == 48);
    CHECK_BYTES(got, want, 48, "G1 generator, compressed");
    g2_affine_generator(&b);
    g2_encode_compressed(got, &b);
    CHECK(test_hex_decode(want, sizeof want, g2c) == 96);
    CHECK_BYTES(got, want, 96, "G2 generator, compressed");
}

int main(void)
{
    test_init("test_encoding");
    size_t count = test_count(16);
    test_vectors();
    g1_e_all(count);
    g2_e_all(count);
    return test_finish();
}

#endif
