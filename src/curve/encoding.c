/* zcash and snarkjs point encodings, written once for both groups: a small table per
 * group (codec_t) supplies the coordinate field's byte forms and the point predicates;
 * the flag logic and the order of the checks live in one place. */
#include "encoding.h"

#include <stddef.h>
#include <string.h>

#include "util/status.h"

enum {
    FLAG_COMPRESSED = 0x80,
    FLAG_INFINITY = 0x40,
    FLAG_SIGN = 0x20,
    FLAG_MASK = 0xe0,
    MAX_FE_BYTES = 96,
};

/* The codec reads an affine point as two coordinates laid out back to back. */
_Static_assert(offsetof(g1_affine_t, y) == sizeof(fp_t), "g1_affine_t is {x, y}");
_Static_assert(offsetof(g2_affine_t, y) == sizeof(fp2_t), "g2_affine_t is {x, y}");

typedef struct {
    const char *name;
    size_t fe_bytes; /* one coordinate's encoding: 48 (Fp) or 96 (Fp2) */
    size_t fe_size;  /* sizeof the coordinate type */
    /* zcash order, big-endian; from_ is false for a value not below p */
    bool (*fe_from_be)(void *r, const uint8_t *in);
    void (*fe_to_be)(uint8_t *out, const void *a);
    /* snarkjs order, little-endian Montgomery form */
    bool (*fe_from_mont_le)(void *r, const uint8_t *in);
    void (*fe_to_mont_le)(uint8_t *out, const void *a);
    bool (*fe_is_largest)(const void *a);
    bool (*from_x)(void *r, const void *x, bool largest);
    void (*set_infinity)(void *r);
    bool (*is_infinity)(const void *a);
    bool (*is_on_curve)(const void *a);
    bool (*is_in_subgroup)(const void *a);
} codec_t;

/* --- Fp and Fp2 byte forms ------------------------------------------------------------ */

static bool fp_w_from_be(void *r, const uint8_t *in) { return fp_from_bytes_be(r, in); }
static void fp_w_to_be(uint8_t *out, const void *a) { fp_to_bytes_be(out, a); }
static bool fp_w_from_mont_le(void *r, const uint8_t *in) { return fp_from_mont_bytes_le(r, in); }
static void fp_w_to_mont_le(uint8_t *out, const void *a) { fp_to_mont_bytes_le(out, a); }
static bool fp_w_is_largest(const void *a) { return fp_is_lexicographically_largest(a); }

/* zcash writes c1 first; snarkjs writes c0 first. */
static bool fp2_w_from_be(void *r, const uint8_t *in)
{
    fp2_t *t = r;
    bool ok1 = fp_from_bytes_be(&t->c1, in);
    bool ok0 = fp_from_bytes_be(&t->c0, in + fp_BYTES);
    return ok1 && ok0;
}

static void fp2_w_to_be(uint8_t *out, const void *a)
{
    const fp2_t *t = a;
    fp_to_bytes_be(out, &t->c1);
    fp_to_bytes_be(out + fp_BYTES, &t->c0);
}

static bool fp2_w_from_mont_le(void *r, const uint8_t *in)
{
    fp2_t *t = r;
    bool ok0 = fp_from_mont_bytes_le(&t->c0, in);
    bool ok1 = fp_from_mont_bytes_le(&t->c1, in + fp_BYTES);
    return ok0 && ok1;
}

static void fp2_w_to_mont_le(uint8_t *out, const void *a)
{
    const fp2_t *t = a;
    fp_to_mont_bytes_le(out, &t->c0);
    fp_to_mont_bytes_le(out + fp_BYTES, &t->c1);
}

static bool fp2_w_is_largest(const void *a) { return fp2_is_lexicographically_largest(a); }

/* --- the groups --------------------------------------------------------------------- */

#define GROUP_WRAPPERS(G)                                                                   \
    static bool G##_w_from_x(void *r, const void *x, bool largest)                          \
    {                                                                                       \
        return G##_affine_from_x(r, x, largest);                                            \
    }                                                                                       \
    static void G##_w_set_infinity(void *r) { G##_affine_set_infinity(r); }                \
    static bool G##_w_is_infinity(const void *a) { return G##_affine_is_infinity(a); }     \
    static bool G##_w_is_on_curve(const void *a) { return G##_affine_is_on_curve(a); }     \
    static bool G##_w_is_in_subgroup(const void *a) { return G##_affine_is_in_subgroup(a); }

GROUP_WRAPPERS(g1)
GROUP_WRAPPERS(g2)

static const codec_t g1_codec = {
    "G1", fp_BYTES, sizeof(fp_t),
    fp_w_from_be, fp_w_to_be, fp_w_from_mont_le, fp_w_to_mont_le, fp_w_is_largest,
    g1_w_from_x, g1_w_set_infinity, g1_w_is_infinity, g1_w_is_on_curve, g1_w_is_in_subgroup,
};

static const codec_t g2_codec = {
    "G2", 2 * fp_BYTES, sizeof(fp2_t),
    fp2_w_from_be, fp2_w_to_be, fp2_w_from_mont_le, fp2_w_to_mont_le, fp2_w_is_largest,
    g2_w_from_x, g2_w_set_infinity, g2_w_is_infinity, g2_w_is_on_curve, g2_w_is_in_subgroup,
};

/* --- zcash -------------------------------------------------------------------------- */

static void encode_zcash(const codec_t *c, uint8_t *out, const void *a, bool compressed)
{
    const uint8_t *pt = a;
    size_t n = compressed ? c->fe_bytes : 2 * c->fe_bytes;
    if (c->is_infinity(a)) {
        memset(out, 0, n);
        out[0] = FLAG_INFINITY | (compressed ? FLAG_COMPRESSED : 0);
        return;
    }
    /* p < 2^381 leaves the top three bits of every canonical coordinate clear. */
    c->fe_to_be(out, pt);
    if (compressed) {
        out[0] |= FLAG_COMPRESSED;
        if (c->fe_is_largest(pt + c->fe_size))
            out[0] |= FLAG_SIGN;
    } else
        c->fe_to_be(out + c->fe_bytes, pt + c->fe_size);
}

static g16_status decode_zcash(const codec_t *c, void *a, const uint8_t *in, bool compressed)
{
    const char *form = compressed ? "compressed" : "uncompressed";
    size_t n = compressed ? c->fe_bytes : 2 * c->fe_bytes;
    uint8_t *pt = a;
    unsigned flags = in[0] & FLAG_MASK;
    c->set_infinity(a);

    if (!(flags & FLAG_COMPRESSED) != !compressed)
        return status_fail(G16_ERR_BAD_ENCODING,
                           "%s %s encoding: the compression flag is %s in a %zu-byte encoding",
                           c->name, form, compressed ? "clear" : "set", n);
    if ((flags & FLAG_SIGN) && !compressed)
        return status_fail(G16_ERR_BAD_ENCODING,
                           "%s uncompressed encoding: the sign flag must be clear", c->name);
    if (flags & FLAG_INFINITY) {
        if (flags & FLAG_SIGN)
            return status_fail(G16_ERR_BAD_ENCODING,
                               "%s %s encoding: infinity with the sign flag set", c->name, form);
        uint8_t rest = in[0] & (uint8_t)~FLAG_MASK;
        for (size_t i = 1; i < n; i++)
            rest |= in[i];
        if (rest)
            return status_fail(G16_ERR_BAD_ENCODING,
                               "%s %s encoding: infinity flag with non-zero coordinate bytes",
                               c->name, form);
        return G16_OK;
    }

    uint8_t buf[2 * MAX_FE_BYTES];
    memcpy(buf, in, n);
    buf[0] &= (uint8_t)~FLAG_MASK;
    union {
        fp_t g1;
        fp2_t g2;
    } x;
    if (!c->fe_from_be(&x, buf)) {
        c->set_infinity(a);
        return status_fail(G16_ERR_BAD_ENCODING, "%s %s encoding: x is not below p", c->name,
                           form);
    }
    if (compressed) {
        if (!c->from_x(a, &x, flags & FLAG_SIGN))
            return status_fail(G16_ERR_NOT_ON_CURVE,
                               "%s compressed encoding: no curve point has this x", c->name);
    } else {
        memcpy(pt, &x, c->fe_size);
        if (!c->fe_from_be(pt + c->fe_size, buf + c->fe_bytes)) {
            c->set_infinity(a);
            return status_fail(G16_ERR_BAD_ENCODING,
                               "%s uncompressed encoding: y is not below p", c->name);
        }
        /* (0, 0) without the infinity flag is not a point either. */
        if (!c->is_on_curve(a) || c->is_infinity(a)) {
            c->set_infinity(a);
            return status_fail(G16_ERR_NOT_ON_CURVE,
                               "%s uncompressed encoding: (x, y) is not on the curve", c->name);
        }
    }
    if (!c->is_in_subgroup(a)) {
        c->set_infinity(a);
        return status_fail(G16_ERR_NOT_IN_SUBGROUP,
                           "%s %s encoding: the point is not in the prime-order subgroup",
                           c->name, form);
    }
    return G16_OK;
}

static g16_status decode_zcash_any(const codec_t *c, void *a, const uint8_t *in, size_t len)
{
    if (len == c->fe_bytes)
        return decode_zcash(c, a, in, true);
    if (len == 2 * c->fe_bytes)
        return decode_zcash(c, a, in, false);
    c->set_infinity(a);
    return status_fail(G16_ERR_BAD_ENCODING,
                       "%s encoding of %zu bytes: expected %zu (compressed) or %zu", c->name,
                       len, c->fe_bytes, 2 * c->fe_bytes);
}

/* --- snarkjs ------------------------------------------------------------------------ */

static void encode_snarkjs(const codec_t *c, uint8_t *out, const void *a)
{
    /* Infinity is (0, 0), whose Montgomery form is zero: all-zero bytes, as required. */
    const uint8_t *pt = a;
    c->fe_to_mont_le(out, pt);
    c->fe_to_mont_le(out + c->fe_bytes, pt + c->fe_size);
}

static g16_status decode_snarkjs(const codec_t *c, void *a, const uint8_t *in,
                                 bool check_subgroup)
{
    uint8_t *pt = a;
    c->set_infinity(a);
    uint8_t any = 0;
    for (size_t i = 0; i < 2 * c->fe_bytes; i++)
        any |= in[i];
    if (!any)
        return G16_OK;
    if (!c->fe_from_mont_le(pt, in) || !c->fe_from_mont_le(pt + c->fe_size, in + c->fe_bytes)) {
        c->set_infinity(a);
        return status_fail(G16_ERR_BAD_ENCODING,
                           "%s snarkjs encoding: a coordinate is not below p", c->name);
    }
    /* Only all-zero bytes decode to (0, 0), handled above; is_on_curve suffices. */
    if (!c->is_on_curve(a)) {
        c->set_infinity(a);
        return status_fail(G16_ERR_NOT_ON_CURVE,
                           "%s snarkjs encoding: (x, y) is not on the curve", c->name);
    }
    if (check_subgroup && !c->is_in_subgroup(a)) {
        c->set_infinity(a);
        return status_fail(G16_ERR_NOT_IN_SUBGROUP,
                           "%s snarkjs encoding: the point is not in the prime-order subgroup",
                           c->name);
    }
    return G16_OK;
}

/* --- public entry points ------------------------------------------------------------ */

void g1_encode_compressed(uint8_t out[G1_COMPRESSED_BYTES], const g1_affine_t *a)
{
    encode_zcash(&g1_codec, out, a, true);
}

void g1_encode_uncompressed(uint8_t out[G1_UNCOMPRESSED_BYTES], const g1_affine_t *a)
{
    encode_zcash(&g1_codec, out, a, false);
}

g16_status g1_decode_compressed(g1_affine_t *r, const uint8_t in[G1_COMPRESSED_BYTES])
{
    return decode_zcash(&g1_codec, r, in, true);
}

g16_status g1_decode_uncompressed(g1_affine_t *r, const uint8_t in[G1_UNCOMPRESSED_BYTES])
{
    return decode_zcash(&g1_codec, r, in, false);
}

g16_status g1_decode(g1_affine_t *r, const uint8_t *in, size_t len)
{
    return decode_zcash_any(&g1_codec, r, in, len);
}

void g2_encode_compressed(uint8_t out[G2_COMPRESSED_BYTES], const g2_affine_t *a)
{
    encode_zcash(&g2_codec, out, a, true);
}

void g2_encode_uncompressed(uint8_t out[G2_UNCOMPRESSED_BYTES], const g2_affine_t *a)
{
    encode_zcash(&g2_codec, out, a, false);
}

g16_status g2_decode_compressed(g2_affine_t *r, const uint8_t in[G2_COMPRESSED_BYTES])
{
    return decode_zcash(&g2_codec, r, in, true);
}

g16_status g2_decode_uncompressed(g2_affine_t *r, const uint8_t in[G2_UNCOMPRESSED_BYTES])
{
    return decode_zcash(&g2_codec, r, in, false);
}

g16_status g2_decode(g2_affine_t *r, const uint8_t *in, size_t len)
{
    return decode_zcash_any(&g2_codec, r, in, len);
}

void g1_encode_snarkjs(uint8_t out[G1_SNARKJS_BYTES], const g1_affine_t *a)
{
    encode_snarkjs(&g1_codec, out, a);
}

g16_status g1_decode_snarkjs(g1_affine_t *r, const uint8_t in[G1_SNARKJS_BYTES],
                             bool check_subgroup)
{
    return decode_snarkjs(&g1_codec, r, in, check_subgroup);
}

void g2_encode_snarkjs(uint8_t out[G2_SNARKJS_BYTES], const g2_affine_t *a)
{
    encode_snarkjs(&g2_codec, out, a);
}

g16_status g2_decode_snarkjs(g2_affine_t *r, const uint8_t in[G2_SNARKJS_BYTES],
                             bool check_subgroup)
{
    return decode_snarkjs(&g2_codec, r, in, check_subgroup);
}
