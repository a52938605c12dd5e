/* h from a, b, c: see h_poly.h. */
#include "groth16/h_poly.h"

#include "field/cpu.h"
#include "field/fr_x8.h"
#include "util/status.h"

void h_poly_shift(fr_t *shift, unsigned log2n, h_poly_convention convention)
{
    if (convention == H_POLY_SNARKJS)
        fr_root_of_unity(shift, log2n + 1);
    else
        fr_from_u64(shift, H_POLY_CLASSIC_SHIFT);
}

typedef struct {
    const fr_t *a, *b;
    fr_t *h;
} combine_ctx;

/* values are c's final values at [begin, begin + count); a and b are final already. Each
 * index is read before it is written, so h may alias a, b or c. */
static void combine(void *ctx, fr_t *values, size_t begin, size_t count)
{
    const combine_ctx *k = ctx;
#ifdef G16_HAVE_IFMA
    if (cpu_use_ifma) {
        fr_mul_sub_x8_n(k->h + begin, k->a + begin, k->b + begin, values, count);
        return;
    }
#endif
    for (size_t i = 0; i < count; i++) {
        fr_t ab;
        fr_mul(&ab, &k->a[begin + i], &k->b[begin + i]);
        fr_sub(&k->h[begin + i], &ab, &values[i]);
    }
}

g16_status h_poly_compute_in(const ntt_domain *d, fr_t *h, fr_t *a, fr_t *b, fr_t *c,
                             h_poly_convention convention)
{
    if (!d || !h || !a || !b || !c)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "h: null argument");
    if (convention != H_POLY_SNARKJS && convention != H_POLY_CLASSIC)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "h: unknown convention %d",
                           (int)convention);
    unsigned log2n = ntt_domain_log2n(d);
    fr_t shift;
    h_poly_shift(&shift, log2n, convention);
    g16_status st;
    combine_ctx k = {a, b, h};
    if ((st = ntt_change_coset(d, a, a, NULL, &shift, NULL, NULL)) != G16_OK ||
        (st = ntt_change_coset(d, b, b, NULL, &shift, NULL, NULL)) != G16_OK ||
        (st = ntt_change_coset(d, c, c, NULL, &shift, combine, &k)) != G16_OK)
        return st;
    if (convention == H_POLY_SNARKJS)
        return G16_OK;

    /* 1 / Z(g) = 1 / (g^n - 1); g = 7 generates Fr^*, so g^n != 1 for every n < r - 1. */
    fr_t zinv, one;
    uint64_t e[1] = {(uint64_t)1 << log2n};
    fr_pow(&zinv, &shift, e, 1);
    fr_one(&one);
    fr_sub(&zinv, &zinv, &one);
    if (!fr_inv(&zinv, &zinv))
        return status_fail(G16_ERR_INTERNAL, "h: Z(g) = 0 on the coset");
    return ntt_coset_inverse(d, h, h, &shift, &zinv);
}

g16_status h_poly_compute(fr_t *h, fr_t *a, fr_t *b, fr_t *c, unsigned log2n,
                          h_poly_convention convention)
{
    const ntt_domain *d;
    g16_status st = ntt_domain_get(&d, log2n);
    if (st != G16_OK)
        return st;
    return h_poly_compute_in(d, h, a, b, c, convention);
}
