/* libFuzzer target: the .r1cs reader and its constraint iterator on arbitrary bytes.
 * Every constraint the iterator accepts must have in-range wires and canonical values, and
 * its factor lists must lie inside the input. */
#include <stddef.h>
#include <stdint.h>

#include "io/r1cs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
    if (!ok)
        __builtin_trap();
}

static void check_lc(const r1cs_t *r, const r1cs_lc_t *lc, const uint8_t *data, size_t size)
{
    uint64_t bytes = (uint64_t)lc->n_factors * R1CS_FACTOR_BYTES;
    require(bytes == 0 || (lc->factors >= data && bytes <= size - (size_t)(lc->factors - data)));
    for (uint32_t j = 0; j < lc->n_factors; j++) {
        uint32_t wire;
        fr_t v;
        r1cs_factor(&wire, &v, lc, j);
        require(wire < r->n_wires);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    r1cs_t r;
    if (r1cs_open_memory(&r, "fuzz.r1cs", data, size) != G16_OK)
        return 0;
    require(r.fs == R1CS_FS);
    require(1 + (uint64_t)r.n_pub_out + r.n_pub_in + r.n_prv_in <= r.n_wires);
    r1cs_iter_t it;
    r1cs_constraint_t c;
    r1cs_iter_init(&it, &r);
    g16_status st = G16_OK;
    while (st == G16_OK && it.next < r.n_constraints) {
        st = r1cs_iter_next(&it, &c);
        if (st == G16_OK) {
            check_lc(&r, &c.a, data, size);
            check_lc(&r, &c.b, data, size);
            check_lc(&r, &c.c, data, size);
        }
    }
    if (st == G16_OK)
        st = r1cs_iter_end(&it);
    require(r1cs_validate(&r) == st);
    r1cs_close(&r);
    return 0;
}
