/* The last level of the GPU MSM's batch inversions (cuda/msm_batch_affine.cuh), done by
 * the CPU: an inversion on the device is a chain of ~570 dependent field products in one
 * thread (Fermat), about half a millisecond there, paid once per pairing round; the CPU
 * inverts the few hundred values left after the device's levels of Montgomery's trick in
 * tens of microseconds. The device's Montgomery layout equals the CPU's (field.cuh), so the
 * values cross as they are. */
#include "backend/cuda/cuda_backend.h"

#include <stdlib.h>

#include "field/fp.h"
#include "field/fp2.h"
#include "util/status.h"

g16_status cuda_host_batch_inverse(void *values, size_t n, int field)
{
    if (n == 0)
        return G16_OK;
    if (field == 1) {
        fp_t *v = values, *inv = malloc(n * sizeof *inv);
        if (!inv)
            return status_fail(G16_ERR_OUT_OF_MEMORY, "GPU MSM: %zu inverses", n);
        fp_batch_inv_vartime(inv, v, n);
        for (size_t i = 0; i < n; i++)
            v[i] = inv[i];
        free(inv);
        return G16_OK;
    }
    /* Fp2: prefix products, one inversion, the walk back (zeros stay zero). */
    fp2_t *v = values, *pre = malloc(n * sizeof *pre), acc;
    if (!pre)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "GPU MSM: %zu inverses", n);
    fp2_one(&acc);
    for (size_t i = 0; i < n; i++) {
        pre[i] = acc;
        if (!fp2_is_zero(&v[i]))
            fp2_mul(&acc, &acc, &v[i]);
    }
    fp2_inv_vartime(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (fp2_is_zero(&v[i]))
            continue;
        fp2_t t;
        fp2_mul(&t, &acc, &pre[i]);
        fp2_mul(&acc, &acc, &v[i]);
        v[i] = t;
    }
    free(pre);
    return G16_OK;
}
