/* libFuzzer target: the native key (g16k) reader on arbitrary bytes. Beyond "no crash, no
 * out-of-bounds read" (ASan, UBSan), a key that opens must keep the reader's promises:
 * every exposed range lies inside the input, the A, B1 and B2 counts are the populations
 * of the density bitmaps, the header's densities are their private populations, no bit
 * lies past n_vars, and the prover's view names the same arrays. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_points.h"
#include "groth16/density.h"
#include "io/native_key.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    native_key_t k;
    if (native_key_open_memory(&k, "fuzz.g16k", data, size) != G16_OK) {
        require(k.file.data == NULL && k.density_a == NULL);
        return 0;
    }
    require(k.file.version == NATIVE_KEY_VERSION);
    require(k.curve == NATIVE_KEY_CURVE_BLS12_381 && k.h_convention == NATIVE_KEY_H_SNARKJS);
    require(k.domain_size != 0 && (k.domain_size & (k.domain_size - 1)) == 0);
    require(((size_t)1 << k.log2_domain) == k.domain_size);
    require(k.n_public < k.n_vars && k.n_constraints + k.n_public + 1 <= k.domain_size);
    size_t nv = k.n_vars, np = k.n_public;
    require(density_tail_clear(k.density_a, nv) && density_tail_clear(k.density_b, nv));
    require(k.n_a == density_count(k.density_a, 0, nv));
    require(k.n_b == density_count(k.density_b, 0, nv));
    require(k.in_a == density_count(k.density_a, np + 1, nv));
    require(k.in_b == density_count(k.density_b, np + 1, nv));
    touch_points(k.ic.data, k.ic.count, np + 1, 0, data, size);
    touch_points(k.a.data, k.a.count, k.n_a, 0, data, size);
    touch_points(k.b1.data, k.b1.count, k.n_b, 0, data, size);
    touch_points(k.b2.data, k.b2.count, k.n_b, 1, data, size);
    touch_points(k.c.data, k.c.count, nv - np - 1, 0, data, size);
    touch_points(k.h.data, k.h.count, k.domain_size, 0, data, size);
    for (uint32_t i = 0; i < k.file.n_sections; i++)
        check_range(data, size, k.file.sections[i].data, k.file.sections[i].size);

    groth16_prover_key pk;
    groth16_prover_key_from_native(&pk, &k);
    require(pk.n_vars == nv && pk.n_a == k.n_a && pk.n_b == k.n_b && pk.a == k.a.data &&
            pk.b2 == k.b2.data && pk.density_b == k.density_b && pk.h == k.h.data);
    groth16_vk vk;
    if (groth16_vk_from_native(&vk, &k) == G16_OK) {
        require(vk.n_public == np);
        groth16_vk_free(&vk);
    }
    native_key_close(&k);
    return 0;
}
