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
    /* Fp: the field's batch inversion. Fp2: 1 / (c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2),
     * so the same batch inversion over the norms, then two products each. */
    fp_t *norm = malloc(2 * n * sizeof *norm), *inv = norm + n;
    if (!norm)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "GPU MSM: %zu inverses", n);
    fp_t *v1 = values;
    fp2_t *v2 = values;
    for (size_t i = 0; i < n; i++) {
        if (field == 1) {
            norm[i] = v1[i];
        } else {
            fp_t t;
            fp_sqr(&norm[i], &v2[i].c0);
            fp_sqr(&t, &v2[i].c1);
            fp_add(&norm[i], &norm[i], &t);
        }
    }
    fp_batch_inv_vartime(inv, norm, n);
    for (size_t i = 0; i < n; i++) {
        if (field == 1) {
            v1[i] = inv[i];
        } else {
            fp_t t;
            fp_mul(&v2[i].c0, &v2[i].c0, &inv[i]);
            fp_mul(&t, &v2[i].c1, &inv[i]);
            fp_neg(&v2[i].c1, &t);
        }
    }
    free(norm);
    return G16_OK;
}
