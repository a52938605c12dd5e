/* The native key file (io/native_key.h): a key made by the development setup for the
 * synthetic circuit at N = 1024 is written, opened and compared field by field and byte by
 * byte with the key in memory; its densities are the constraint system's and its A, B1, B2
 * point counts are their populations; a proof from the loaded (compressed) key verifies
 * with the loaded verifying key and equals, for the same r and s, the proof from the same
 * key expanded to dense queries; malformed files (wrong magic, version 1 and unknown
 * versions, curve, H convention, truncation at many offsets, section sizes that disagree
 * with the header, density bitmaps that disagree with the header or with the point
 * counts, header points off the curve) are rejected with the right status and a message
 * naming the problem. */
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuit/cs.h"
#include "circuit/synthetic.h"
#include "groth16/density.h"
#include "harness.h"
#include "io/native_key.h"

enum { N_TARGET = 1024, N_PUBLIC = 4 };

static bool expect(g16_status st, g16_status want, const char *needle, const char *what)
{
    bool ok = st == want && strstr(g16_last_error(), needle) != NULL;
    if (!ok)
        fprintf(stderr, "  %s: status %d (want %d), message \"%s\" (want \"%s\")\n", what,
                (int)st, (int)want, g16_last_error(), needle);
    return CHECK(ok);
}

/* The contents offset of section id in an iden3 buffer, and where its size field is. */
static bool find_section(const uint8_t *buf, size_t size, uint32_t id, size_t *data_off,
                         size_t *size_field)
{
    uint32_t n = iden3_le32(buf + 8);
    size_t pos = IDEN3_HEADER_BYTES;
    for (uint32_t i = 0; i < n && pos + IDEN3_SECTION_HEADER_BYTES <= size; i++) {
        uint32_t sid = iden3_le32(buf + pos);
        uint64_t ssz = iden3_le64(buf + pos + 4);
        if (sid == id) {
            *data_off = pos + IDEN3_SECTION_HEADER_BYTES;
            *size_field = pos + 4;
            return true;
        }
        pos += IDEN3_SECTION_HEADER_BYTES + (size_t)ssz;
    }
    return false;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A copy of file with `remove` bytes cut from the end of section id (its size field
 * updated, so the container stays consistent and only the format check can object). */
static uint8_t *shrink_section(const uint8_t *file, size_t size, uint32_t id, size_t remove,
                               size_t *out_size)
{
    size_t off, sf;
    if (!find_section(file, size, id, &off, &sf))
        return NULL;
    uint64_t ssz = iden3_le64(file + sf);
    uint8_t *b = malloc(size - remove);
    size_t end = off + (size_t)ssz;
    memcpy(b, file, end - remove);
    memcpy(b + end - remove, file + end, size - end);
    put_le64(b + sf, ssz - remove);
    *out_size = size - remove;
    return b;
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n <= 0) {
        fclose(f);
        return NULL;
    }
    uint8_t *b = malloc((size_t)n);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* The same key with A, B1 and B2 expanded to a point per wire (infinity for the unmarked
 * wires) and no densities: how the prover read keys before compression. */
static void prove_dense(groth16_proof *proof, const groth16_prover_key *pk, const fr_t *z,
                        fr_t *abc, const groth16_prove_options *opts)
{
    size_t nv = pk->n_vars, n = pk->domain_size;
    g1_affine_t *a = calloc(nv, sizeof *a), *b1 = calloc(nv, sizeof *b1);
    g2_affine_t *b2 = calloc(nv, sizeof *b2);
    for (size_t j = 0, ia = 0, ib = 0; j < nv; j++) {
        if (density_has(pk->density_a, j))
            memcpy(&a[j], pk->a + ia++ * sizeof *a, sizeof *a);
        if (density_has(pk->density_b, j)) {
            memcpy(&b1[j], pk->b1 + ib * sizeof *b1, sizeof *b1);
            memcpy(&b2[j], pk->b2 + ib++ * sizeof *b2, sizeof *b2);
        }
    }
    groth16_prover_key dense = *pk;
    dense.density_a = dense.density_b = NULL;
    dense.n_a = dense.n_b = nv;
    dense.a = (const uint8_t *)a;
    dense.b1 = (const uint8_t *)b1;
    dense.b2 = (const uint8_t *)b2;
    groth16_prove_stats stats = {0};
    CHECK(groth16_prove_evals(proof, &stats, &dense, z, NULL, abc, abc + n, abc + 2 * n,
                              opts) == G16_OK);
    free(a);
    free(b1);
    free(b2);
}

static void test_roundtrip_and_prove(const groth16_setup_key *key, const synthetic_stats *shape,
                                     const char *path)
{
    native_key_t k;
    g16_status st = native_key_open(&k, path);
    if (!CHECK(st == G16_OK)) {
        fprintf(stderr, "  open: %s\n", g16_last_error());
        return;
    }
    CHECK(k.curve == NATIVE_KEY_CURVE_BLS12_381 && k.h_convention == NATIVE_KEY_H_SNARKJS);
    CHECK(k.n_vars == key->n_vars && k.n_public == key->n_public);
    CHECK(k.domain_size == key->domain_size && k.n_constraints == key->n_constraints);
    CHECK(((size_t)1 << k.log2_domain) == k.domain_size);
    CHECK(strcmp(k.circuit, "synthetic") == 0);
    CHECK(k.param_n == N_TARGET && k.param_public == N_PUBLIC);
    CHECK(k.in_a == shape->in_a && k.in_b == shape->in_b);
    CHECK(k.in_a > 0 && k.in_b > 0);
    size_t words = density_words(key->n_vars);
    CHECK(k.n_a == key->n_a && k.n_b == key->n_b);
    CHECK(memcmp(k.density_a, key->density_a, words * 8) == 0);
    CHECK(memcmp(k.density_b, key->density_b, words * 8) == 0);
    /* The point counts are the densities: all of A's public wires, the private ones of
     * the constraint system's density, and B's. */
    CHECK(k.a.count == k.n_a && k.b1.count == k.n_b && k.b2.count == k.n_b);
    CHECK(k.n_a == density_count(k.density_a, 0, k.n_vars));
    CHECK(k.n_b == density_count(k.density_b, 0, k.n_vars));
    CHECK(density_count(k.density_a, 0, k.n_public + 1) == k.n_public + 1);
    CHECK(k.n_a == k.n_public + 1 + shape->in_a);
    CHECK(k.n_b < k.n_vars / 2); /* B-aux ~25%: compressed for real */
    CHECK(memcmp(&k.alpha1, &key->alpha1, sizeof k.alpha1) == 0);
    CHECK(memcmp(&k.beta1, &key->beta1, sizeof k.beta1) == 0);
    CHECK(memcmp(&k.delta1, &key->delta1, sizeof k.delta1) == 0);
    CHECK(memcmp(&k.beta2, &key->beta2, sizeof k.beta2) == 0);
    CHECK(memcmp(&k.gamma2, &key->gamma2, sizeof k.gamma2) == 0);
    CHECK(memcmp(&k.delta2, &key->delta2, sizeof k.delta2) == 0);
    size_t nv = key->n_vars, np = key->n_public;
    CHECK(k.ic.count == np + 1 && k.c.count == nv - np - 1 && k.h.count == key->domain_size);
    CHECK_BYTES(k.ic.data, (const uint8_t *)key->ic, (np + 1) * sizeof(g1_affine_t), "IC");
    CHECK_BYTES(k.a.data, (const uint8_t *)key->a, k.n_a * sizeof(g1_affine_t), "A");
    CHECK_BYTES(k.b1.data, (const uint8_t *)key->b1, k.n_b * sizeof(g1_affine_t), "B1");
    CHECK_BYTES(k.b2.data, (const uint8_t *)key->b2, k.n_b * sizeof(g2_affine_t), "B2");
    CHECK_BYTES(k.c.data, (const uint8_t *)key->c, (nv - np - 1) * sizeof(g1_affine_t), "C");
    CHECK_BYTES(k.h.data, (const uint8_t *)key->h, key->domain_size * sizeof(g1_affine_t),
                "H");

    /* The prover key from the file equals the one from memory in every field but the
     * pointers, which point into the mapping. */
    groth16_prover_key pf, pm;
    groth16_prover_key_from_native(&pf, &k);
    groth16_prover_key_from_setup(&pm, key);
    CHECK(pf.n_vars == pm.n_vars && pf.n_public == pm.n_public &&
          pf.domain_size == pm.domain_size && pf.log2_domain == pm.log2_domain);
    CHECK(pf.a == k.a.data && pf.h == k.h.data);
    CHECK(pf.density_a == k.density_a && pf.n_a == k.n_a && pf.n_b == k.n_b);

    groth16_vk vk = {0};
    st = groth16_vk_from_native(&vk, &k);
    CHECK(st == G16_OK);
    if (st == G16_OK) {
        CHECK(vk.n_public == np);
        CHECK(memcmp(vk.ic, key->ic, (np + 1) * sizeof *vk.ic) == 0);
    }

    /* A proof of partition 3 from the loaded key, as g16 bench makes it. */
    size_t n = k.domain_size, m = k.n_constraints;
    fr_t *z = calloc(nv, sizeof *z), *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b),
         *c = calloc(n, sizeof *c);
    synthetic_params params = {.n_constraints = N_TARGET, .n_public = N_PUBLIC, .seed = 3};
    cs_prove_buffers bufs = {.z = z, .z_cap = nv, .a = a, .b = b, .c = c, .abc_cap = m};
    cs_t *cs = NULL;
    st = cs_create(&cs, CS_PROVE, N_PUBLIC, &bufs);
    if (st == G16_OK)
        st = cs_synthesize(cs, synthetic_circuit, &params);
    CHECK(st == G16_OK);
    CHECK(cs && cs_num_vars(cs) == nv && cs_num_constraints(cs) == m);
    cs_free(cs);
    for (size_t s = 0; s <= np; s++)
        a[m + s] = z[s];
    groth16_proof proof;
    groth16_prove_stats stats = {0};
    if (CHECK(st == G16_OK) && vk.ic) {
        /* Keep the evaluations: the dense proof below needs them again. */
        fr_t *abc = malloc(3 * n * sizeof *abc);
        memcpy(abc, a, n * sizeof *a);
        memcpy(abc + n, b, n * sizeof *b);
        memcpy(abc + 2 * n, c, n * sizeof *c);
        fr_t r, s;
        test_random_fr(&r);
        test_random_fr(&s);
        groth16_prove_options opts = {.fixed_r = &r, .fixed_s = &s};
        st = groth16_prove_evals(&proof, &stats, &pf, z, NULL, a, b, c, &opts);
        CHECK(st == G16_OK);
        CHECK(groth16_verify(&vk, z + 1, np, &proof) == G16_OK);
        CHECK(stats.scalars_zero + stats.scalars_one + stats.scalars_other == k.n_a);
        groth16_proof dense_proof;
        prove_dense(&dense_proof, &pf, z, abc, &opts);
        CHECK(memcmp(&dense_proof, &proof, sizeof proof) == 0);
        free(abc);
        fr_t wrong[N_PUBLIC];
        memcpy(wrong, z + 1, sizeof wrong);
        fr_add(&wrong[0], &wrong[0], &z[0]);
        CHECK(groth16_verify(&vk, wrong, np, &proof) == G16_ERR_VERIFY_FAILED);
    }
    free(z);
    free(a);
    free(b);
    free(c);
    groth16_vk_free(&vk);
    native_key_close(&k);
    native_key_close(&k); /* harmless twice */
}

/* Bit `wire` of the bitmap at byte offset off of buf. */
static bool bit_at(const uint8_t *buf, size_t off, size_t wire)
{
    return (buf[off + wire / 8] >> (wire % 8)) & 1;
}

static void flip_bit(uint8_t *buf, size_t off, size_t wire)
{
    buf[off + wire / 8] ^= (uint8_t)(1u << (wire % 8));
}

/* Density bitmaps that disagree with the header or with the A and B point counts. */
static void test_density_rejections(const uint8_t *file, size_t size)
{
    size_t h = 0, hs = 0, d = 0, ds = 0;
    CHECK(find_section(file, size, NATIVE_KEY_SECTION_HEADER, &h, &hs));
    CHECK(find_section(file, size, NATIVE_KEY_SECTION_DENSITY, &d, &ds));
    uint64_t nv = iden3_le64(file + h + 8), np = iden3_le64(file + h + 16);
    size_t words = density_words((size_t)nv);
    size_t in_a_off = h + 44 + 9 + 16, in_b_off = in_a_off + 8;
    size_t a_bits = d + 8, b_bits = d + 8 + 8 * words;
    native_key_t k;
    uint8_t *b = malloc(size);

    /* The wire count. */
    memcpy(b, file, size);
    put_le64(b + d, nv - 1);
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "section 3 (density): the bitmaps cover", "n_wires");

    /* A private wire of B dropped: the header's count no longer matches... */
    size_t wire = (size_t)np + 1;
    while (wire < nv && !bit_at(file, b_bits, wire))
        wire++;
    CHECK(wire < nv);
    memcpy(b, file, size);
    flip_bit(b, b_bits, wire);
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "the B bitmap marks", "B density against the header");
    CHECK(strstr(g16_last_error(), "the header says") != NULL);
    /* ... and with the header made to agree, B1 holds one point too many. */
    put_le64(b + in_b_off, iden3_le64(file + in_b_off) - 1);
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "section 5 (B1) is", "B density against B1");
    CHECK(strstr(g16_last_error(), "wires of the B density") != NULL);

    /* A public wire added to B (the header counts private ones only): B1 is short. */
    memcpy(b, file, size);
    for (wire = 1; wire <= np && bit_at(file, b_bits, wire); wire++)
        ;
    if (CHECK(wire <= np)) {
        flip_bit(b, b_bits, wire);
        expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
               "section 5 (B1) is", "public B wire against B1");
    }

    /* An A wire dropped, the header adjusted: A holds one point too many. */
    memcpy(b, file, size);
    wire = (size_t)nv - 1;
    flip_bit(b, a_bits, wire);
    put_le64(b + in_a_off, iden3_le64(file + in_a_off) + (bit_at(file, a_bits, wire) ? -1 : 1));
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "section 4 (A) is", "A density against A");
    CHECK(strstr(g16_last_error(), "wires of the A density") != NULL);

    /* A bit past the last wire. */
    if (nv % 64) {
        memcpy(b, file, size);
        flip_bit(b, a_bits, 64 * words - 1);
        expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
               "the A bitmap marks wires past n_vars", "tail bit");
    }
    free(b);
}

static void test_rejections(const char *path)
{
    size_t size = 0;
    uint8_t *file = read_all(path, &size);
    if (!CHECK(file != NULL))
        return;
    native_key_t k;
    CHECK(native_key_open_memory(&k, "good.g16k", file, size) == G16_OK);
    native_key_close(&k);

    expect(native_key_open(&k, "/nonexistent/dir/key.g16k"), G16_ERR_IO, "cannot open",
           "missing file");
    CHECK(k.file.data == NULL);

    uint8_t *b = malloc(size);
    memcpy(b, file, size);
    b[0] = 'z';
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "wrong magic \"z16k\": not a g16k file", "magic");
    memcpy(b, file, size);
    put_le32(b + 4, 3);
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_UNSUPPORTED,
           "g16k version 3 is not supported (expected 1 to 2)", "version");
    memcpy(b, file, size);
    put_le32(b + 4, 1);
    expect(native_key_open_memory(&k, "old.g16k", b, size), G16_ERR_UNSUPPORTED,
           "old.g16k: g16k version 1 (B1 and B2 stored dense) is no longer read; make the key "
           "again", "version 1");

    size_t h = 0, hs = 0;
    CHECK(find_section(file, size, NATIVE_KEY_SECTION_HEADER, &h, &hs));
    memcpy(b, file, size);
    put_le32(b + h, 2);
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_UNSUPPORTED,
           "section 1 (header): curve 2 is not supported", "curve");
    memcpy(b, file, size);
    put_le32(b + h + 4, 1);
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_UNSUPPORTED,
           "H convention 1 is not supported", "H convention");
    memcpy(b, file, size);
    put_le64(b + h + 24, 3000); /* domain size */
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "domain size 3000 is not a power of two", "domain");
    memcpy(b, file, size);
    put_le64(b + h + 16, iden3_le64(file + h + 8)); /* n_public = n_vars */
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "must be below n_vars", "n_public");
    memcpy(b, file, size);
    put_le64(b + h + 8, iden3_le64(file + h + 8) + 1); /* one more variable than stored */
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "section 3 (density): the bitmaps cover", "n_vars + 1");
    memcpy(b, file, size);
    put_le32(b + h + 40, 8); /* name length 9 -> 8: the header no longer adds up */
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "section 1 (header) is 85 bytes, expected 84", "name length");
    memcpy(b, file, size);
    put_le64(b + h + 44 + 9 + 16, 1u << 30); /* in_a */
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_FORMAT,
           "exceed the", "density");

    /* Header points off the curve: one bit of a coordinate flipped. */
    size_t v = 0, vs = 0;
    CHECK(find_section(file, size, NATIVE_KEY_SECTION_VERIFYING, &v, &vs));
    memcpy(b, file, size);
    b[v] ^= 1; /* alpha1.x */
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_NOT_ON_CURVE,
           "section 2 (verifying points): alpha1:", "alpha1 off curve");
    memcpy(b, file, size);
    b[v + 3 * 96 + 192 + 50] ^= 4; /* gamma2.x.c1 */
    expect(native_key_open_memory(&k, "bad.g16k", b, size), G16_ERR_NOT_ON_CURVE,
           "gamma2:", "gamma2 off curve");
    /* An IC point off the curve is found when the verifying key is made. */
    memcpy(b, file, size);
    b[v + 3 * 96 + 3 * 192 + 96 + 7] ^= 1; /* IC[1].x */
    if (CHECK(native_key_open_memory(&k, "bad.g16k", b, size) == G16_OK)) {
        groth16_vk vk = {0};
        expect(groth16_vk_from_native(&vk, &k), G16_ERR_NOT_ON_CURVE, "IC point 1",
               "IC off curve");
        CHECK(vk.ic == NULL);
        native_key_close(&k);
    }
    free(b);

    test_density_rejections(file, size);

    /* Section sizes that disagree with the header, the container kept consistent. */
    static const struct {
        uint32_t id;
        size_t remove;
        const char *msg;
    } cuts[] = {
        {NATIVE_KEY_SECTION_VERIFYING, 96, "section 2 (verifying points) is"},
        {NATIVE_KEY_SECTION_DENSITY, 8, "section 3 (density) is"},
        {NATIVE_KEY_SECTION_A, 96, "section 4 (A) is"},
        {NATIVE_KEY_SECTION_B1, 1, "section 5 (B1) is"},
        {NATIVE_KEY_SECTION_B2, 192, "section 6 (B2) is"},
        {NATIVE_KEY_SECTION_C, 96, "section 7 (C) is"},
        {NATIVE_KEY_SECTION_H, 96, "section 8 (H) is"},
    };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        size_t n = 0;
        uint8_t *s = shrink_section(file, size, cuts[i].id, cuts[i].remove, &n);
        if (!CHECK(s != NULL))
            continue;
        expect(native_key_open_memory(&k, "short.g16k", s, n), G16_ERR_FORMAT, cuts[i].msg,
               cuts[i].msg);
        CHECK(strstr(g16_last_error(), "short.g16k: ") == g16_last_error());
        free(s);
    }
    /* A missing section: the table claims seven sections (H dropped). */
    {
        size_t hoff = 0, hsf = 0;
        CHECK(find_section(file, size, NATIVE_KEY_SECTION_H, &hoff, &hsf));
        size_t n = hoff - IDEN3_SECTION_HEADER_BYTES;
        uint8_t *s = malloc(n);
        memcpy(s, file, n);
        put_le32(s + 8, NATIVE_KEY_SECTIONS - 1);
        expect(native_key_open_memory(&k, "seven.g16k", s, n), G16_ERR_FORMAT,
               "section 8 (H) is missing", "missing H");
        free(s);
    }

    /* Truncation at many offsets: every prefix is rejected as malformed. In the first
     * 4 KiB each prefix is an exact-size copy, so a read past it is a sanitizer error. */
    size_t tried = 0;
    for (size_t len = 0; len < size; len += len < 4096 ? 1 : 997 + (len % 13)) {
        uint8_t *t = NULL;
        const uint8_t *d = file;
        if (len < 4096) {
            t = malloc(len ? len : 1);
            memcpy(t, file, len);
            d = t;
        }
        g16_status st = native_key_open_memory(&k, "cut.g16k", d, len);
        const char *msg = g16_last_error();
        bool ok = st == G16_ERR_FORMAT &&
                  (strstr(msg, "too short") || strstr(msg, "truncated") ||
                   strstr(msg, "runs past the end"));
        if (!ok)
            fprintf(stderr, "  truncated to %zu of %zu bytes: status %d, \"%s\"\n", len, size,
                    (int)st, msg);
        CHECK(ok);
        CHECK(k.file.data == NULL);
        free(t);
        tried++;
    }
    expect(native_key_open_memory(&k, "cut.g16k", file, size - 1), G16_ERR_FORMAT,
           "section 8 (H) runs past the end of the file", "last byte cut");
    CHECK(tried > 4096);
    free(file);
}

int main(void)
{
    test_init("native_key");
    synthetic_params params = {.n_constraints = N_TARGET, .n_public = N_PUBLIC, .seed = 0};
    cs_t *cs = NULL;
    constraint_matrices mat = {0};
    synthetic_stats shape = {0};
    g16_status st = cs_create(&cs, CS_SETUP, N_PUBLIC, NULL);
    if (st == G16_OK)
        st = cs_synthesize(cs, synthetic_circuit, &params);
    uint64_t *cs_density[2] = {NULL, NULL};
    if (st == G16_OK) {
        synthetic_stats_density(&shape, cs);
        st = cs_take_matrices(cs, &mat);
        /* The constraint system's densities, over the private wires. */
        size_t bytes = density_words(shape.n_aux) * 8;
        cs_density[0] = malloc(bytes);
        cs_density[1] = malloc(bytes);
        memcpy(cs_density[0], cs_density_a(cs), bytes);
        memcpy(cs_density[1], cs_density_b(cs), bytes);
    }
    cs_free(cs);
    if (!CHECK(st == G16_OK))
        return test_finish();

    fr_t trapdoor[4];
    for (int i = 0; i < 4; i++)
        test_random_fr_generic(&trapdoor[i]);
    groth16_setup_key key = {0};
    st = groth16_setup_with_trapdoor(&key, &mat, trapdoor, NULL);
    if (!CHECK(st == G16_OK))
        return test_finish();
    /* The setup's densities are the constraint system's on the private wires, and A
     * holds every public wire (snarkjs's public rows). */
    size_t first_aux = N_PUBLIC + 1, differ = 0;
    for (size_t j = 0; j < shape.n_aux; j++)
        differ += density_has(key.density_a, first_aux + j) != density_has(cs_density[0], j) ||
                  density_has(key.density_b, first_aux + j) != density_has(cs_density[1], j);
    CHECK(differ == 0);
    CHECK(density_count(key.density_a, 0, first_aux) == first_aux);
    free(cs_density[0]);
    free(cs_density[1]);

    const char *tmpdir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/test_native_key_%ld.g16k", tmpdir ? tmpdir : "/tmp",
             (long)getpid());
    st = native_key_write(path, &key, "synthetic", N_TARGET, N_PUBLIC);
    if (!CHECK(st == G16_OK))
        fprintf(stderr, "  write: %s\n", g16_last_error());
    char pattern[600];
    snprintf(pattern, sizeof pattern, "%s.tmp*", path);
    glob_t left;
    CHECK(glob(pattern, 0, NULL, &left) == GLOB_NOMATCH); /* renamed into place */
    globfree(&left);

    test_roundtrip_and_prove(&key, &shape, path);
    test_rejections(path);

    /* Writing where no file can be made fails cleanly; a too-long name is refused. */
    expect(native_key_write("/nonexistent/dir/k.g16k", &key, "synthetic", 1, 1),
           G16_ERR_IO, "/nonexistent/dir/k.g16k", "unwritable path");
    char long_name[NATIVE_KEY_NAME_MAX + 2];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    expect(native_key_write(path, &key, long_name, 1, 1), G16_ERR_INVALID_ARGUMENT,
           "circuit name of 65 bytes", "long name");

    unlink(path);
    groth16_setup_key_free(&key);
    constraint_matrices_free(&mat);
    return test_finish();
}
