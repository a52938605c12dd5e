/* G1 and G2 against @noble/curves (tools/noble/gen_curve.mjs): scalar multiplications
 * (byte-equal zcash encodings, compressed and uncompressed), additions with their edge
 * cases through every addition function, doublings, negations, and decoding of noble's
 * encodings, valid and invalid, with the status each rejection must carry.
 *
 * One handler serves both groups: this file includes itself with NC_GROUP defined, as
 * test_curve.c does. */
#ifdef NC_GROUP

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define PT(name) CAT(NC_GROUP, name)
#define FE CAT(NC_FIELD, t)
#define AFF CAT(NC_GROUP, affine_t)
#define JAC CAT(NC_GROUP, jac_t)
#define XYZZ CAT(NC_GROUP, xyzz_t)
#define FEB NC_FE_BYTES

/* Raw affine hex (zcash uncompressed layout without flags); counts a failed check when
 * it is not two canonical coordinates. */
static bool PT(n_parse_raw)(AFF *r, const char *hex)
{
    uint8_t b[2 * FEB];
    bool ok = CHECK(test_hex_decode(b, sizeof b, hex) == 2 * FEB);
    ok = ok && CHECK(NC_FE_FROM_BE(&r->x, b) && NC_FE_FROM_BE(&r->y, b + FEB));
    ok = ok && CHECK(PT(affine_is_on_curve)(r));
    return ok;
}

static void PT(n_expect_raw)(const JAC *p, const char *hex, const char *what)
{
    uint8_t got[2 * FEB], want[2 * FEB];
    AFF a;
    PT(to_affine)(&a, p);
    NC_FE_TO_BE(got, &a.x);
    NC_FE_TO_BE(got + FEB, &a.y);
    if (CHECK(test_hex_decode(want, sizeof want, hex) == 2 * FEB))
        CHECK_BYTES(got, want, 2 * FEB, what);
}

static bool PT(n_parse_scalar)(fr_t *k, const char *hex)
{
    uint8_t b[32];
    return CHECK(test_hex_decode(b, sizeof b, hex) == 32) && CHECK(fr_from_bytes_be(k, b));
}

static void PT(n_mul)(char **t)
{
    fr_t k;
    if (!PT(n_parse_scalar)(&k, t[1]))
        return;
    JAC g, p, q;
    AFF a, d;
    PT(generator)(&g);
    PT(mul)(&p, &g, &k);
    PT(mul_vartime)(&q, &g, &k);
    CHECK(PT(equal)(&p, &q));
    PT(to_affine)(&a, &p);

    uint8_t got[2 * FEB], want[2 * FEB];
    PT(encode_compressed)(got, &a);
    if (CHECK(test_hex_decode(want, sizeof want, t[2]) == FEB)) {
        CHECK_BYTES(got, want, FEB, NC_NAME " [k]G compressed");
        CHECK(PT(decode_compressed)(&d, want) == G16_OK && PT(affine_equal)(&d, &a));
    }
    PT(encode_uncompressed)(got, &a);
    if (CHECK(test_hex_decode(want, sizeof want, t[3]) == 2 * FEB)) {
        CHECK_BYTES(got, want, 2 * FEB, NC_NAME " [k]G uncompressed");
        CHECK(PT(decode_uncompressed)(&d, want) == G16_OK && PT(affine_equal)(&d, &a));
    }
}

static void PT(n_mulp)(char **t)
{
    uint8_t enc[2 * FEB];
    AFF a;
    fr_t k;
    if (!CHECK(test_hex_decode(enc, sizeof enc, t[1]) == 2 * FEB) ||
        !CHECK(PT(decode_uncompressed)(&a, enc) == G16_OK) || !PT(n_parse_scalar)(&k, t[2]))
        return;
    JAC p, q;
    PT(from_affine)(&p, &a);
    PT(mul)(&q, &p, &k);
    PT(n_expect_raw)(&q, t[3], NC_NAME " [k]P");
    PT(mul_vartime)(&q, &p, &k);
    PT(n_expect_raw)(&q, t[3], NC_NAME " [k]P vartime");
}

static void PT(n_add)(char **t)
{
    AFF a, b;
    if (!PT(n_parse_raw)(&a, t[1]) || !PT(n_parse_raw)(&b, t[2]))
        return;
    JAC ja, jb, s;
    XYZZ xa, xb, xs;
    PT(from_affine)(&ja, &a);
    PT(from_affine)(&jb, &b);
    PT(add)(&s, &ja, &jb);
    PT(n_expect_raw)(&s, t[3], NC_NAME " add");
    /* a doubled first, so that the Jacobian and XYZZ inputs have Z != 1 */
    JAC a2, s2, w;
    PT(dbl)(&a2, &ja);
    PT(add)(&s2, &a2, &jb);
    PT(sub)(&s2, &s2, &ja);
    PT(n_expect_raw)(&s2, t[3], NC_NAME " 2a + b - a");
    PT(add_mixed)(&s, &ja, &b);
    PT(n_expect_raw)(&s, t[3], NC_NAME " add_mixed");
    PT(xyzz_from_affine)(&xa, &a);
    PT(xyzz_from_affine)(&xb, &b);
    PT(xyzz_add_mixed)(&xs, &xa, &b);
    PT(xyzz_to_jac)(&w, &xs);
    PT(n_expect_raw)(&w, t[3], NC_NAME " xyzz_add_mixed");
    PT(xyzz_add)(&xs, &xa, &xb);
    PT(xyzz_to_jac)(&w, &xs);
    PT(n_expect_raw)(&w, t[3], NC_NAME " xyzz_add");
}

static void PT(n_dbl)(char **t)
{
    AFF a;
    if (!PT(n_parse_raw)(&a, t[1]))
        return;
    JAC ja, d;
    XYZZ xa;
    PT(from_affine)(&ja, &a);
    PT(dbl)(&d, &ja);
    PT(n_expect_raw)(&d, t[2], NC_NAME " dbl");
    PT(add)(&d, &ja, &ja);
    PT(n_expect_raw)(&d, t[2], NC_NAME " add(a, a)");
    PT(xyzz_from_affine)(&xa, &a);
    PT(xyzz_dbl)(&xa, &xa);
    PT(xyzz_to_jac)(&d, &xa);
    PT(n_expect_raw)(&d, t[2], NC_NAME " xyzz_dbl");
}

static void PT(n_neg)(char **t)
{
    AFF a, na;
    if (!PT(n_parse_raw)(&a, t[1]))
        return;
    JAC ja, n;
    PT(from_affine)(&ja, &a);
    PT(neg)(&n, &ja);
    PT(n_expect_raw)(&n, t[2], NC_NAME " neg");
    PT(affine_neg)(&na, &a);
    PT(from_affine)(&n, &na);
    PT(n_expect_raw)(&n, t[2], NC_NAME " affine_neg");
}

static void PT(n_decode)(char **t)
{
    uint8_t in[2 * FEB], out[2 * FEB];
    long len = test_hex_decode(in, sizeof in, t[1]);
    if (!CHECK(len == FEB || len == 2 * FEB))
        return;
    AFF a;
    g16_status s = PT(decode)(&a, in, (size_t)len);
    g16_status want = !strcmp(t[2], "ok")         ? G16_OK
                      : !strcmp(t[2], "encoding") ? G16_ERR_BAD_ENCODING
                      : !strcmp(t[2], "curve")    ? G16_ERR_NOT_ON_CURVE
                      : !strcmp(t[2], "subgroup") ? G16_ERR_NOT_IN_SUBGROUP
                                                  : G16_ERR_INTERNAL;
    if (!CHECK(s == want))
        printf("  %s decode %s: status %d (%s), noble: %s\n", NC_NAME, t[1], s,
               g16_last_error(), t[2]);
    if (s == G16_OK) {
        /* valid encodings are canonical: re-encoding gives the same bytes */
        if (len == FEB)
            PT(encode_compressed)(out, &a);
        else
            PT(encode_uncompressed)(out, &a);
        CHECK_BYTES(out, in, (size_t)len, NC_NAME " decode/encode round trip");
    }
}

static bool PT(n_dispatch)(const char *op, char **t, size_t n)
{
    const char *prefix = NC_PREFIX "_";
    size_t pl = strlen(prefix);
    if (strncmp(op, prefix, pl) != 0)
        return false;
    op += pl;
    if (!strcmp(op, "mul") && n == 4) PT(n_mul)(t);
    else if (!strcmp(op, "mulp") && n == 4) PT(n_mulp)(t);
    else if (!strcmp(op, "add") && n == 4) PT(n_add)(t);
    else if (!strcmp(op, "dbl") && n == 3) PT(n_dbl)(t);
    else if (!strcmp(op, "neg") && n == 3) PT(n_neg)(t);
    else if (!strcmp(op, "decode") && n == 3) PT(n_decode)(t);
    else CHECK(!"known op with the right number of fields");
    return true;
}

#undef FEB
#undef XYZZ
#undef JAC
#undef AFF
#undef FE
#undef PT
#undef CAT
#undef CAT2

#else /* the driver */

#include <stdlib.h>
#include <string.h>

#include "curve/encoding.h"
#include "harness.h"

static bool fp2_from_zcash_be(fp2_t *r, const uint8_t *in)
{
    bool ok1 = fp_from_bytes_be(&r->c1, in);
    bool ok0 = fp_from_bytes_be(&r->c0, in + 48);
    return ok1 && ok0;
}

static void fp2_to_zcash_be(uint8_t *out, const fp2_t *a)
{
    fp_to_bytes_be(out, &a->c1);
    fp_to_bytes_be(out + 48, &a->c0);
}

#define NC_GROUP g1
#define NC_FIELD fp
#define NC_NAME "G1"
#define NC_PREFIX "g1"
#define NC_FE_BYTES 48
#define NC_FE_FROM_BE fp_from_bytes_be
#define NC_FE_TO_BE fp_to_bytes_be
#include "test_noble_curve.c"
#undef NC_GROUP
#undef NC_FIELD
#undef NC_NAME
#undef NC_PREFIX
#undef NC_FE_BYTES
#undef NC_FE_FROM_BE
#undef NC_FE_TO_BE

#define NC_GROUP g2
#define NC_FIELD fp2
#define NC_NAME "G2"
#define NC_PREFIX "g2"
#define NC_FE_BYTES 96
#define NC_FE_FROM_BE fp2_from_zcash_be
#define NC_FE_TO_BE fp2_to_zcash_be
#include "test_noble_curve.c"

int main(void)
{
    test_init("test_noble_curve");
    size_t count = test_count(200);
    FILE *f = test_noble_open("gen_curve.mjs", count);
    size_t cases = 0;
    if (f) {
        char line[2048];
        while (fgets(line, sizeof line, f)) {
            char *t[5];
            size_t n = test_split(line, t, 5);
            if (n == 0)
                continue;
            cases++;
            if (!g1_n_dispatch(t[0], t, n) && !g2_n_dispatch(t[0], t, n))
                CHECK(!"known group");
        }
        test_noble_close(f);
    }
    printf("%zu noble cases\n", cases);
    /* the generator writes about 16 lines per count */
    CHECK(cases >= 12 * count);
    return test_finish();
}

#endif
