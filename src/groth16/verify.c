#include <stdlib.h>

#include "curve/pairing.h"
#include "groth16.h"
#include "util/status.h"

g16_status groth16_vk_alloc(groth16_vk *vk, size_t n_public)
{
    vk->n_public = n_public;
    vk->ic = calloc(n_public + 1, sizeof *vk->ic);
    if (!vk->ic)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "verifying key: %zu IC points", n_public + 1);
    return G16_OK;
}

void groth16_vk_free(groth16_vk *vk)
{
    free(vk->ic);
    vk->ic = NULL;
    vk->n_public = 0;
}

static bool g1_ok(const g1_affine_t *p)
{
    return g1_affine_is_infinity(p) ||
           (g1_affine_is_on_curve(p) && g1_affine_is_in_subgroup(p));
}

static bool g2_ok(const g2_affine_t *p)
{
    return g2_affine_is_infinity(p) ||
           (g2_affine_is_on_curve(p) && g2_affine_is_in_subgroup(p));
}

g16_status groth16_verify(const groth16_vk *vk, const fr_t *inputs, size_t n_inputs,
                          const groth16_proof *proof)
{
    if (n_inputs != vk->n_public)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "%zu public inputs given, the verifying key expects %zu", n_inputs,
                           vk->n_public);
    if (!g1_ok(&proof->a) || !g2_ok(&proof->b) || !g1_ok(&proof->c))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "proof point not on the curve or not in its subgroup");

    /* vk_x = IC_0 + sum x_i IC_i; public inputs are few, so plain scalar multiplication. */
    g1_jac_t acc, term, ic;
    g1_from_affine(&acc, &vk->ic[0]);
    for (size_t i = 0; i < n_inputs; i++) {
        g1_from_affine(&ic, &vk->ic[i + 1]);
        g1_mul_vartime(&term, &ic, &inputs[i]);
        g1_add(&acc, &acc, &term);
    }
    g1_affine_t vk_x, neg_a;
    g1_to_affine(&vk_x, &acc);
    g1_affine_neg(&neg_a, &proof->a);

    /* e(-A, B) e(alpha, beta) e(vk_x, gamma) e(C, delta) = 1, one final exponentiation. */
    g1_affine_t p[4] = {neg_a, vk->alpha1, vk_x, proof->c};
    g2_affine_t q[4] = {proof->b, vk->beta2, vk->gamma2, vk->delta2};
    if (!pairing_product_is_one(p, q, 4))
        return status_fail(G16_ERR_VERIFY_FAILED, "the pairing equation does not hold");
    return G16_OK;
}
