/* The sparse matrices the setup consumes: read from a circom .r1cs file, compared, freed. */
#include <stdlib.h>
#include <string.h>

#include "setup.h"
#include "util/status.h"

void constraint_matrices_free(constraint_matrices *cs)
{
    for (int k = 0; k < 3; k++) {
        free(cs->row_start[k]);
        free(cs->terms[k]);
    }
    memset(cs, 0, sizeof *cs);
}

bool constraint_matrices_equal(const constraint_matrices *x, const constraint_matrices *y)
{
    if (x->n_vars != y->n_vars || x->n_public != y->n_public ||
        x->n_constraints != y->n_constraints)
        return false;
    for (int k = 0; k < 3; k++) {
        if (memcmp(x->row_start[k], y->row_start[k], (x->n_constraints + 1) * sizeof(size_t)))
            return false;
        for (size_t j = 0; j < x->row_start[k][x->n_constraints]; j++)
            if (x->terms[k][j].wire != y->terms[k][j].wire ||
                !fr_equal(&x->terms[k][j].coeff, &y->terms[k][j].coeff))
                return false;
    }
    return true;
}

g16_status constraint_matrices_from_r1cs(constraint_matrices *cs, const r1cs_t *r)
{
    memset(cs, 0, sizeof *cs);
    size_t m = r->n_constraints;
    cs->n_vars = r->n_wires;
    cs->n_public = (size_t)r->n_pub_out + r->n_pub_in;
    cs->n_constraints = m;
    if (cs->n_vars < cs->n_public + 1)
        return status_fail(G16_ERR_FORMAT, "r1cs: %zu wires cannot hold %zu public signals",
                           cs->n_vars, cs->n_public);

    /* Two passes over the constraints: count the terms of each matrix, then fill. */
    size_t counts[3] = {0, 0, 0};
    r1cs_iter_t it;
    r1cs_constraint_t c;
    g16_status st;
    r1cs_iter_init(&it, r);
    for (size_t i = 0; i < m; i++) {
        if ((st = r1cs_iter_next(&it, &c)))
            return st;
        counts[0] += c.a.n_factors;
        counts[1] += c.b.n_factors;
        counts[2] += c.c.n_factors;
    }
    if ((st = r1cs_iter_end(&it)))
        return st;
    for (int k = 0; k < 3; k++) {
        cs->row_start[k] = malloc((m + 1) * sizeof *cs->row_start[k]);
        cs->terms[k] = malloc((counts[k] ? counts[k] : 1) * sizeof *cs->terms[k]);
        if (!cs->row_start[k] || !cs->terms[k]) {
            constraint_matrices_free(cs);
            return status_fail(G16_ERR_OUT_OF_MEMORY, "r1cs: %zu terms in matrix %c", counts[k],
                               "ABC"[k]);
        }
        cs->row_start[k][0] = 0;
    }
    r1cs_iter_init(&it, r);
    size_t fill[3] = {0, 0, 0};
    for (size_t i = 0; i < m; i++) {
        if ((st = r1cs_iter_next(&it, &c))) {
            constraint_matrices_free(cs);
            return st;
        }
        const r1cs_lc_t *lcs[3] = {&c.a, &c.b, &c.c};
        for (int k = 0; k < 3; k++) {
            for (uint32_t j = 0; j < lcs[k]->n_factors; j++) {
                lc_term *t = &cs->terms[k][fill[k]++];
                r1cs_factor(&t->wire, &t->coeff, lcs[k], j);
            }
            cs->row_start[k][i + 1] = fill[k];
        }
    }
    return G16_OK;
}
