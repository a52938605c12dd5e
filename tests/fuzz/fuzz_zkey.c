/* libFuzzer target: the .zkey reader (and through it the iden3 container) on arbitrary
 * bytes. Beyond "no crash, no out-of-bounds read" (ASan, UBSan), a key that opens must
 * keep the reader's promises: every exposed range lies inside the input and holds exactly
 * the counts the header announces. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_points.h"
#include "io/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zkey_t k;
    if (zkey_open_memory(&k, "fuzz.zkey", data, size) != G16_OK)
        return 0;
    require(k.protocol == ZKEY_PROTOCOL_GROTH16 && k.n8q == ZKEY_N8Q && k.n8r == ZKEY_N8R);
    require(k.domain_size != 0 && (k.domain_size & (k.domain_size - 1)) == 0);
    require((1ull << k.log2_domain) == k.domain_size);
    require(k.n_public < k.n_vars);
    touch_points(k.ic.data, k.ic.count, (size_t)k.n_public + 1, 0, data, size);
    touch_points(k.a.data, k.a.count, k.n_vars, 0, data, size);
    touch_points(k.b1.data, k.b1.count, k.n_vars, 0, data, size);
    touch_points(k.b2.data, k.b2.count, k.n_vars, 1, data, size);
    touch_points(k.c.data, k.c.count, (size_t)k.n_vars - k.n_public - 1, 0, data, size);
    touch_points(k.h.data, k.h.count, k.domain_size, 0, data, size);
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
