#include "setup.h"

#include <stdlib.h>
#include <string.h>

#include "curve/fixed_base.h"
#include "groth16/secret.h"
#include "util/status.h"

/* Fixed-base tables of 2^8-entry windows: 8160 points per base, 32 additions a point. */
#define SETUP_WINDOW_BITS 8

size_t setup_domain_size(size_t n_constraints, size_t n_public)
{
    size_t total = n_constraints + n_public, log2 = 0;
    while (total >> (log2 + 1))
        log2++;
    if (log2 + 1 > 28)
        return 0;
    return (size_t)1 << (log2 + 1);
}

static void report(void (*progress)(const char *), const char *stage)
{
    if (progress)
        progress(stage);
}

/* out[i] = L_i(tau) over the domain of size n = 2^log2n, scaled by `scale`:
 * L_i(tau) = (tau^n - 1)/n * w^i / (tau - w^i). Fails when tau is in the domain. */
static g16_status lagrange_at(fr_t *out, fr_t *scratch, size_t n, const fr_t *tau,
                              const fr_t *scale)
{
    unsigned log2n = 0;
    while (((size_t)1 << log2n) < n)
        log2n++;
    fr_t w, wi, zn, t;
    fr_root_of_unity(&w, log2n);
    fr_one(&wi);
    for (size_t i = 0; i < n; i++) {
        fr_sub(&scratch[i], tau, &wi);
        if (fr_is_zero(&scratch[i]))
            return status_fail(G16_ERR_INTERNAL, "tau fell on the domain; run setup again");
        fr_mul(&wi, &wi, &w);
    }
    fr_batch_inv(out, scratch, n);
    /* zn = (tau^n - 1) / n * scale */
    uint64_t e[1] = {n};
    fr_pow(&zn, tau, e, 1);
    fr_one(&t);
    fr_sub(&zn, &zn, &t);
    fr_from_u64(&t, n);
    fr_inv(&t, &t);
    fr_mul(&zn, &zn, &t);
    fr_mul(&zn, &zn, scale);
    fr_one(&wi);
    for (size_t i = 0; i < n; i++) {
        fr_mul(&t, &zn, &wi);
        fr_mul(&out[i], &out[i], &t);
        fr_mul(&wi, &wi, &w);
    }
    return G16_OK;
}

static g16_status check_matrices(const constraint_matrices *cs)
{
    if (cs->n_vars < cs->n_public + 1)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%zu wires cannot hold %zu public signals",
                           cs->n_vars, cs->n_public);
    if (cs->n_vars > UINT32_MAX)
        return status_fail(G16_ERR_UNSUPPORTED, "%zu wires: .zkey counts are 32-bit", cs->n_vars);
    for (int k = 0; k < 3; k++) {
        size_t nt = cs->row_start[k][cs->n_constraints];
        for (size_t t = 0; t < nt; t++)
            if (cs->terms[k][t].wire >= cs->n_vars)
                return status_fail(G16_ERR_INVALID_ARGUMENT, "matrix %c: wire %u of %zu",
                                   "ABC"[k], cs->terms[k][t].wire, cs->n_vars);
    }
    return G16_OK;
}

void groth16_setup_key_free(groth16_setup_key *key)
{
    free(key->ic);
    free(key->a);
    free(key->b1);
    free(key->b2);
    free(key->c);
    free(key->h);
    memset(key, 0, sizeof *key);
}

g16_status groth16_setup_with_trapdoor(groth16_setup_key *key, const constraint_matrices *cs,
                                       const fr_t trapdoor[4],
                                       void (*progress)(const char *stage))
{
    memset(key, 0, sizeof *key);
    g16_status st = check_matrices(cs);
    if (st)
        return st;
    const fr_t *tau = &trapdoor[0], *alpha = &trapdoor[1], *beta = &trapdoor[2],
               *delta = &trapdoor[3];
    size_t n = setup_domain_size(cs->n_constraints, cs->n_public);
    if (n == 0)
        return status_fail(G16_ERR_UNSUPPORTED, "%zu constraints need a domain above 2^28",
                           cs->n_constraints);
    size_t nv = cs->n_vars, np = cs->n_public, m = cs->n_constraints;
    key->n_vars = nv;
    key->n_public = np;
    key->domain_size = n;
    key->n_constraints = m;

    fr_t *lag = malloc(2 * n * sizeof *lag);
    fr_t *uvw = calloc(3 * nv, sizeof *uvw);
    fr_t *scalars = malloc((nv > 2 * n ? nv : 2 * n) * sizeof *scalars);
    g1_fixed_base g1fb = {0};
    g2_fixed_base g2fb = {0};
    key->ic = malloc((np + 1) * sizeof *key->ic);
    key->a = malloc(nv * sizeof *key->a);
    key->b1 = malloc(nv * sizeof *key->b1);
    key->b2 = malloc(nv * sizeof *key->b2);
    key->c = malloc((nv - np - 1 ? nv - np - 1 : 1) * sizeof *key->c);
    key->h = malloc(n * sizeof *key->h);
    if (!lag || !uvw || !scalars || !key->ic || !key->a || !key->b1 || !key->b2 || !key->c ||
        !key->h) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "setup for %zu wires and domain %zu", nv, n);
        goto out;
    }
    fr_t *u = uvw, *v = uvw + nv, *w = uvw + 2 * nv;

    /* u_j = A_j(tau), v_j = B_j(tau), w_j = C_j(tau): the QAP columns at tau. */
    report(progress, "evaluating the QAP at tau");
    fr_t one;
    fr_one(&one);
    if ((st = lagrange_at(lag, lag + n, n, tau, &one)))
        goto out;
    fr_t *cols[3] = {u, v, w};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < m; i++)
            for (size_t t = cs->row_start[k][i]; t < cs->row_start[k][i + 1]; t++) {
                fr_t prod;
                fr_mul(&prod, &cs->terms[k][t].coeff, &lag[i]);
                fr_add(&cols[k][cs->terms[k][t].wire], &cols[k][cs->terms[k][t].wire], &prod);
            }
    /* snarkjs's extra rows: constraint m + s has A = z_s for every public s (and s = 0). */
    for (size_t s = 0; s <= np; s++)
        fr_add(&u[s], &u[s], &lag[m + s]);

    report(progress, "building fixed-base tables");
    g1_jac_t g1;
    g2_jac_t g2;
    g1_generator(&g1);
    g2_generator(&g2);
    if ((st = g1_fixed_base_init(&g1fb, &g1, SETUP_WINDOW_BITS)) ||
        (st = g2_fixed_base_init(&g2fb, &g2, SETUP_WINDOW_BITS)))
        goto out;

    g1_jac_t p1;
    g2_jac_t p2;
    g1_fixed_base_mul(&p1, &g1fb, alpha);
    g1_to_affine(&key->alpha1, &p1);
    g1_fixed_base_mul(&p1, &g1fb, beta);
    g1_to_affine(&key->beta1, &p1);
    g1_fixed_base_mul(&p1, &g1fb, delta);
    g1_to_affine(&key->delta1, &p1);
    g2_fixed_base_mul(&p2, &g2fb, beta);
    g2_to_affine(&key->beta2, &p2);
    g2_affine_generator(&key->gamma2);
    g2_fixed_base_mul(&p2, &g2fb, delta);
    g2_to_affine(&key->delta2, &p2);

    report(progress, "A and B points");
    if ((st = g1_fixed_base_batch(key->a, &g1fb, u, nv)) ||
        (st = g1_fixed_base_batch(key->b1, &g1fb, v, nv)) ||
        (st = g2_fixed_base_batch(key->b2, &g2fb, v, nv)))
        goto out;

    /* (beta u_j + alpha v_j + w_j), divided by gamma = 1 for IC and by delta for C. */
    report(progress, "IC and C points");
    fr_t inv_delta;
    fr_inv(&inv_delta, delta);
    for (size_t j = 0; j < nv; j++) {
        fr_t t;
        fr_mul(&scalars[j], beta, &u[j]);
        fr_mul(&t, alpha, &v[j]);
        fr_add(&scalars[j], &scalars[j], &t);
        fr_add(&scalars[j], &scalars[j], &w[j]);
        if (j > np)
            fr_mul(&scalars[j], &scalars[j], &inv_delta);
    }
    if ((st = g1_fixed_base_batch(key->ic, &g1fb, scalars, np + 1)) ||
        (st = g1_fixed_base_batch(key->c, &g1fb, scalars + np + 1, nv - np - 1)))
        goto out;

    /* H_i = L_{2i+1}(tau) / delta over the 2n-domain: the odd points where the prover
     * evaluates h (FORMATS.md). */
    report(progress, "H points");
    if ((st = lagrange_at(scalars, lag, 2 * n, tau, &inv_delta)))
        goto out;
    for (size_t i = 0; i < n; i++)
        scalars[i] = scalars[2 * i + 1];
    st = g1_fixed_base_batch(key->h, &g1fb, scalars, n);

out:
    /* Everything derived from the trapdoor is wiped. */
    if (lag)
        explicit_bzero(lag, 2 * n * sizeof *lag);
    if (uvw)
        explicit_bzero(uvw, 3 * nv * sizeof *uvw);
    if (scalars)
        explicit_bzero(scalars, (nv > 2 * n ? nv : 2 * n) * sizeof *scalars);
    free(lag);
    free(uvw);
    free(scalars);
    g1_fixed_base_free(&g1fb);
    g2_fixed_base_free(&g2fb);
    if (st)
        groth16_setup_key_free(key);
    return st;
}

g16_status groth16_setup(groth16_setup_key *key, const constraint_matrices *cs,
                         void (*progress)(const char *stage))
{
    fr_t trapdoor[4];
    g16_status st = G16_OK;
    for (int i = 0; i < 4 && !st; i++)
        st = secret_scalar(&trapdoor[i]);
    if (!st)
        st = groth16_setup_with_trapdoor(key, cs, trapdoor, progress);
    explicit_bzero(trapdoor, sizeof trapdoor);
    return st;
}
