/* SETUP / PROVE / CHECK agreement (cs_roundtrip in cs.h): the property every circuit and
 * gadget must have, packaged so each test and the synthetic workload check it one way. */
#include <stdlib.h>
#include <string.h>

#include "cs.h"
#include "groth16/density.h"
#include "util/status.h"

static void eval_row(fr_t *out, const constraint_matrices *m, int k, size_t i, const fr_t *z)
{
    fr_zero(out);
    for (size_t j = m->row_start[k][i]; j < m->row_start[k][i + 1]; j++) {
        fr_t t;
        fr_mul(&t, &m->terms[k][j].coeff, &z[m->terms[k][j].wire]);
        fr_add(out, out, &t);
    }
}

static g16_status run_setup(cs_stats *stats, constraint_matrices *m, cs_circuit_fn circuit,
                            const void *params, size_t n_public)
{
    cs_t *cs;
    g16_status st = cs_create(&cs, CS_SETUP, n_public, NULL);
    if (st)
        return st;
    if ((st = cs_synthesize(cs, circuit, params)) == G16_OK) {
        stats->n_aux = cs_num_aux(cs);
        stats->density_a = density_count(cs_density_a(cs), 0, stats->n_aux);
        stats->density_b = density_count(cs_density_b(cs), 0, stats->n_aux);
        st = cs_take_matrices(cs, m);
    }
    cs_free(cs);
    return st;
}

static g16_status compare(const constraint_matrices *m, const cs_prove_buffers *b)
{
    for (size_t i = 0; i < m->n_constraints; i++) {
        fr_t e[3], ab;
        for (int k = 0; k < 3; k++)
            eval_row(&e[k], m, k, i, b->z);
        if (!fr_equal(&e[0], &b->a[i]) || !fr_equal(&e[1], &b->b[i]) || !fr_equal(&e[2], &b->c[i]))
            return status_fail(G16_ERR_INTERNAL,
                               "circuit: row %zu of the SETUP matrices disagrees with PROVE", i);
        fr_mul(&ab, &b->a[i], &b->b[i]);
        if (!fr_equal(&ab, &b->c[i]))
            return status_fail(G16_ERR_VERIFY_FAILED, "circuit: PROVE row %zu has a*b != c", i);
    }
    return G16_OK;
}

g16_status cs_roundtrip(cs_stats *stats, constraint_matrices *matrices, cs_circuit_fn circuit,
                        const void *params, size_t n_public)
{
    constraint_matrices m;
    memset(stats, 0, sizeof *stats);
    if (matrices)
        memset(matrices, 0, sizeof *matrices);
    g16_status st = run_setup(stats, &m, circuit, params, n_public);
    if (st)
        return st;
    stats->n_vars = m.n_vars;
    stats->n_public = m.n_public;
    stats->n_constraints = m.n_constraints;
    for (int k = 0; k < 3; k++)
        stats->terms[k] = m.row_start[k][m.n_constraints];

    size_t n = m.n_vars, mc = m.n_constraints ? m.n_constraints : 1;
    cs_prove_buffers b = {malloc(n * sizeof(fr_t)), n, malloc(mc * sizeof(fr_t)),
                          malloc(mc * sizeof(fr_t)), malloc(mc * sizeof(fr_t)), mc};
    cs_t *cs = NULL;
    if (!b.z || !b.a || !b.b || !b.c)
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "circuit: roundtrip buffers");
    if (!st)
        st = cs_create(&cs, CS_PROVE, n_public, &b);
    if (!st)
        st = cs_synthesize(cs, circuit, params);
    if (!st && (cs_num_vars(cs) != m.n_vars || cs_num_constraints(cs) != m.n_constraints))
        st = status_fail(G16_ERR_INTERNAL,
                         "circuit: SETUP made %zu wires and %zu rows, PROVE %zu and %zu",
                         m.n_vars, m.n_constraints, cs_num_vars(cs), cs_num_constraints(cs));
    cs_free(cs);
    cs = NULL;
    if (!st)
        st = compare(&m, &b);
    free(b.z);
    free(b.a);
    free(b.b);
    free(b.c);
    if (!st)
        st = cs_create(&cs, CS_CHECK, n_public, NULL);
    if (!st)
        st = cs_synthesize(cs, circuit, params);
    cs_free(cs);
    if (st || !matrices)
        constraint_matrices_free(&m);
    else
        *matrices = m;
    return st;
}
