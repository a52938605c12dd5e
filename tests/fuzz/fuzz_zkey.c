/* libFuzzer target: the .zkey reader (and through it the iden3 container) on arbitrary
 * bytes. Beyond "no crash, no out-of-bounds read" (ASan, UBSan), a key that opens must
 * keep the reader's promises: every exposed range lies inside the input and holds exactly
 * the counts the header announces. */
#include <stddef.h>
#include <stdint.h>

#include "curve/encoding.h"
#include "io/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
    if (!ok)
        __builtin_trap();
}

static void check_range(const uint8_t *data, size_t size, const uint8_t *p, uint64_t n)
{
    require(n == 0 ||
            (p >= data && (uint64_t)(p - data) <= size && n <= size - (size_t)(p - data)));
}

static void touch_points(const zkey_points_t *pts, size_t count, int g2, const uint8_t *data,
                         size_t size)
{
    size_t bytes = g2 ? ZKEY_G2_BYTES : ZKEY_G1_BYTES;
    require(pts->count == count);
    check_range(data, size, pts->data, (uint64_t)count * bytes);
    g1_affine_t p1;
    g2_affine_t p2;
    for (size_t i = 0; i < pts->count; i++) {
        if (g2)
            (void)g2_decode_snarkjs(&p2, pts->data + i * bytes, false);
        else
            (void)g1_decode_snarkjs(&p1, pts->data + i * bytes, false);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zkey_t k;
    if (zkey_open_memory(&k, "fuzz.zkey", data, size) != G16_OK)
        return 0;
    require(k.protocol == ZKEY_PROTOCOL_GROTH16 && k.n8q == ZKEY_N8Q && k.n8r == ZKEY_N8R);
    require(k.domain_size != 0 && (k.domain_size & (k.domain_size - 1)) == 0);
    require((1ull << k.log2_domain) == k.domain_size);
    require(k.n_public < k.n_vars);
    touch_points(&k.ic, (size_t)k.n_public + 1, 0, data, size);
    touch_points(&k.a, k.n_vars, 0, data, size);
    touch_points(&k.b1, k.n_vars, 0, data, size);
    touch_points(&k.b2, k.n_vars, 1, data, size);
    touch_points(&k.c, (size_t)k.n_vars - k.n_public - 1, 0, data, size);
    touch_points(&k.h, k.domain_size, 0, data, size);
    check_range(data, size, k.coefs, (uint64_t)k.n_coefs * ZKEY_COEF_BYTES);
    check_range(data, size, k.contributions, k.contributions_size);
    for (uint32_t i = 0; i < k.file.n_sections; i++)
        check_range(data, size, k.file.sections[i].data, k.file.sections[i].size);

    /* Entry by entry, and the validation pass must agree with the entries. */
    zkey_coef_t c;
    g16_status first_bad = G16_OK;
    for (uint32_t i = 0; i < k.n_coefs && first_bad == G16_OK; i++) {
        first_bad = zkey_coef(&c, &k, i);
        if (first_bad == G16_OK)
            require(c.matrix <= 1 && c.constraint < k.domain_size && c.signal < k.n_vars);
    }
    require(zkey_validate_coefs(&k) == first_bad);
    zkey_close(&k);
    return 0;
}
