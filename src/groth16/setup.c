#include "setup.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "curve/fixed_base.h"
#include "groth16/density.h"
#include "groth16/secret.h"
#include "util/host_memory.h"
#include "util/parallel.h"
#include "util/status.h"

/* Elements per batch inversion of a Lagrange basis: an Fr inversion (~300 products)
 * shared by 16384 elements, and chunks enough for every thread from 2^16 on. */
enum { LAGRANGE_CHUNK = 1 << 14 };

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

/* --- Lagrange basis at tau ----------------------------------------------------------- */

/* For the points x_i = x0 * step^i (i < n) of a domain of big_n points (its vanishing
 * polynomial X^big_n - 1), out[i] = scale * L_{x_i}(tau) with
 *   L_x(tau) = (tau^big_n - 1) / big_n * x / (tau - x).
 * The n-domain itself is x0 = 1, step = w_n, big_n = n; the odd points of the 2n-domain,
 * where snarkjs's H points live, are x0 = w_2n, step = w_n, big_n = 2n. */
typedef struct {
    fr_t *out, *scratch;
    size_t n;
    fr_t x0, step, tau, factor; /* factor = scale * (tau^big_n - 1) / big_n */
    atomic_bool tau_in_domain;
} lagrange_ctx;

static void lagrange_body(void *p, size_t begin, size_t end, unsigned worker)
{
    lagrange_ctx *c = p;
    for (size_t b = begin; b < end; b += LAGRANGE_CHUNK) {
        size_t e = end - b < LAGRANGE_CHUNK ? end : b + LAGRANGE_CHUNK;
        fr_t x, first;
        uint64_t ex[1] = {b};
        fr_pow(&first, &c->step, ex, 1);
        fr_mul(&first, &first, &c->x0);
        x = first;
        for (size_t i = b; i < e; i++) {
            fr_sub(&c->scratch[i], &c->tau, &x);
            if (fr_is_zero(&c->scratch[i]))
                atomic_store(&c->tau_in_domain, true);
            fr_mul(&x, &x, &c->step);
        }
        fr_batch_inv(c->out + b, c->scratch + b, e - b);
        x = first;
        for (size_t i = b; i < e; i++) {
            fr_t t;
            fr_mul(&t, &c->factor, &x);
            fr_mul(&c->out[i], &c->out[i], &t);
            fr_mul(&x, &x, &c->step);
        }
    }
}

static g16_status lagrange_at(fr_t *out, fr_t *scratch, size_t n, const fr_t *x0,
                              const fr_t *step, size_t big_n, const fr_t *tau,
                              const fr_t *scale)
{
    lagrange_ctx c = {.out = out, .scratch = scratch, .n = n, .x0 = *x0, .step = *step,
                      .tau = *tau};
    atomic_init(&c.tau_in_domain, false);
    fr_t t;
    uint64_t e[1] = {big_n};
    fr_pow(&c.factor, tau, e, 1);
    fr_one(&t);
    fr_sub(&c.factor, &c.factor, &t);
    fr_from_u64(&t, big_n);
    fr_inv(&t, &t);
    fr_mul(&c.factor, &c.factor, &t);
    fr_mul(&c.factor, &c.factor, scale);
    parallel_for(n, LAGRANGE_CHUNK, lagrange_body, &c);
    bool bad = atomic_load(&c.tau_in_domain);
    explicit_bzero(&c, sizeof c);
    if (bad)
        return status_fail(G16_ERR_INTERNAL, "tau fell on the domain; run setup again");
    return G16_OK;
}

/* --- the QAP columns at tau ----------------------------------------------------------- */

/* u_j = sum_i A_ij L_i(tau), v_j (B), w_j (C), and the A and B densities, from the
 * row-ordered matrices.
 *
 * Rows scatter into columns, so threads would collide on the wires they share. Instead
 * each of P parts (one per thread) owns a row chunk and a wire range (both cut evenly,
 * wire ranges on 64-wire boundaries so that density words are never shared): in a first
 * pass, part t walks its rows and adds the terms whose wire it owns straight into the
 * columns, and queues the others (wire, matrix, value) for their owner; in a second pass
 * each owner adds what was queued for it. Circuits allocate wires as they add
 * constraints, so most terms are local and the queues hold the long-range references
 * (the synthetic circuit's parents, its running sum: 3% of its terms with 2 parts, 8%
 * with 16). Memory: 40 bytes per queued term. */
typedef struct {
    uint32_t wire, matrix;
    fr_t value;
} qap_entry;

typedef struct {
    qap_entry *e;
    size_t n, cap;
} qap_queue;

typedef struct {
    const constraint_matrices *cs;
    const fr_t *lag;
    fr_t *col[3];
    uint64_t *density[2];
    size_t parts;
    size_t *wire_lo;   /* [parts + 1] */
    qap_queue *queues; /* [from * parts + to] */
    atomic_bool out_of_memory;
} qap_ctx;

static size_t qap_owner(const qap_ctx *q, uint32_t wire)
{
    size_t t = (size_t)((uint64_t)wire * q->parts / q->cs->n_vars);
    while (t + 1 < q->parts && wire >= q->wire_lo[t + 1])
        t++;
    while (t > 0 && wire < q->wire_lo[t])
        t--;
    return t;
}

static void qap_add(qap_ctx *q, uint32_t matrix, uint32_t wire, const fr_t *value)
{
    fr_add(&q->col[matrix][wire], &q->col[matrix][wire], value);
    if (matrix < 2)
        density_set(q->density[matrix], wire);
}

static void qap_scatter(void *p, size_t begin, size_t end, unsigned worker)
{
    qap_ctx *q = p;
    const constraint_matrices *cs = q->cs;
    for (size_t t = begin; t < end; t++) {
        size_t r0 = cs->n_constraints * t / q->parts, r1 = cs->n_constraints * (t + 1) / q->parts;
        size_t lo = q->wire_lo[t], hi = q->wire_lo[t + 1];
        for (uint32_t k = 0; k < 3; k++)
            for (size_t i = r0; i < r1; i++)
                for (size_t x = cs->row_start[k][i]; x < cs->row_start[k][i + 1]; x++) {
                    const lc_term *term = &cs->terms[k][x];
                    fr_t prod;
                    if (fr_is_one(&term->coeff))
                        prod = q->lag[i];
                    else
                        fr_mul(&prod, &term->coeff, &q->lag[i]);
                    if (term->wire >= lo && term->wire < hi) {
                        qap_add(q, k, term->wire, &prod);
                        continue;
                    }
                    qap_queue *qu = &q->queues[t * q->parts + qap_owner(q, term->wire)];
                    if (qu->n == qu->cap) {
                        size_t cap = qu->cap ? 2 * qu->cap : 1024;
                        qap_entry *e = realloc(qu->e, cap * sizeof *e);
                        if (!e) {
                            atomic_store(&q->out_of_memory, true);
                            return;
                        }
                        qu->e = e;
                        qu->cap = cap;
                    }
                    qu->e[qu->n++] = (qap_entry){term->wire, k, prod};
                }
    }
}

static void qap_gather(void *p, size_t begin, size_t end, unsigned worker)
{
    qap_ctx *q = p;
    for (size_t to = begin; to < end; to++)
        for (size_t from = 0; from < q->parts; from++) {
            const qap_queue *qu = &q->queues[from * q->parts + to];
            for (size_t x = 0; x < qu->n; x++)
                qap_add(q, qu->e[x].matrix, qu->e[x].wire, &qu->e[x].value);
        }
}

/* u, v, w (n_vars each, zeroed) and the densities (zeroed) from the matrices and the
 * Lagrange basis lag over the n-domain; then snarkjs's public rows m + s (A = z_s). */
static g16_status qap_columns(fr_t *u, fr_t *v, fr_t *w, uint64_t *density_a,
                              uint64_t *density_b, const constraint_matrices *cs,
                              const fr_t *lag)
{
    size_t words = density_words(cs->n_vars);
    size_t parts = parallel_threads();
    if (parts > words)
        parts = words;
    qap_ctx q = {.cs = cs, .lag = lag, .col = {u, v, w}, .density = {density_a, density_b},
                 .parts = parts};
    atomic_init(&q.out_of_memory, false);
    q.wire_lo = malloc((parts + 1) * sizeof *q.wire_lo);
    q.queues = calloc(parts * parts, sizeof *q.queues);
    g16_status st = G16_OK;
    if (!q.wire_lo || !q.queues) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "QAP work lists for %zu parts", parts);
        goto out;
    }
    for (size_t t = 0; t < parts; t++)
        q.wire_lo[t] = 64 * (words * t / parts);
    q.wire_lo[parts] = cs->n_vars;
    parallel_for(parts, 1, qap_scatter, &q);
    if (atomic_load(&q.out_of_memory)) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "QAP work lists");
        goto out;
    }
    parallel_for(parts, 1, qap_gather, &q);
    for (size_t s = 0; s <= cs->n_public; s++)
        qap_add(&q, 0, (uint32_t)s, &lag[cs->n_constraints + s]);
out:
    if (q.queues)
        for (size_t i = 0; i < parts * parts; i++) {
            if (q.queues[i].e)
                explicit_bzero(q.queues[i].e, q.queues[i].cap * sizeof *q.queues[i].e);
            free(q.queues[i].e);
        }
    free(q.queues);
    free(q.wire_lo);
    return st;
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
    free(key->density_a);
    free(key->density_b);
    free(key->a);
    free(key->b1);
    free(key->b2);
    free(key->c);
    free(key->h);
    memset(key, 0, sizeof *key);
}

/* The window width for `products` fixed-base products: W(w) = ceil(256/w) windows cost
 * W * 2^(w-1) table points (each ~2 additions to build) and W additions per product. */
static unsigned setup_window_bits(size_t products)
{
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned w = 1; w <= FIXED_BASE_MAX_WINDOW_BITS; w++) {
        double windows = (256 + w - 1) / w;
        double cost = windows * (2.0 * (double)((size_t)1 << (w - 1)) + (double)products);
        if (w == 1 || cost < best_cost) {
            best = w;
            best_cost = cost;
        }
    }
    return best;
}

/* (beta u_j + alpha v_j + w_j), divided by delta past the public wires (C points); for
 * the public wires gamma = 1 (IC points). */
typedef struct {
    fr_t *out;
    const fr_t *u, *v, *w;
    fr_t alpha, beta, inv_delta;
    size_t n_public;
} ic_c_ctx;

static void ic_c_body(void *p, size_t begin, size_t end, unsigned worker)
{
    ic_c_ctx *c = p;
    for (size_t j = begin; j < end; j++) {
        fr_t t;
        fr_mul(&c->out[j], &c->beta, &c->u[j]);
        fr_mul(&t, &c->alpha, &c->v[j]);
        fr_add(&c->out[j], &c->out[j], &t);
        fr_add(&c->out[j], &c->out[j], &c->w[j]);
        if (j > c->n_public)
            fr_mul(&c->out[j], &c->out[j], &c->inv_delta);
    }
}

static g16_status g1_batch(const groth16_setup_accel *accel, g1_affine_t *out,
                           const g1_fixed_base *fb, const fr_t *k, size_t n)
{
    return accel && accel->g1_batch ? accel->g1_batch(accel->ctx, out, fb, k, n)
                                    : g1_fixed_base_batch(out, fb, k, n);
}

static g16_status g2_batch(const groth16_setup_accel *accel, g2_affine_t *out,
                           const g2_fixed_base *fb, const fr_t *k, size_t n)
{
    return accel && accel->g2_batch ? accel->g2_batch(accel->ctx, out, fb, k, n)
                                    : g2_fixed_base_batch(out, fb, k, n);
}

g16_status groth16_setup_with_trapdoor(groth16_setup_key *key, const constraint_matrices *cs,
                                       const fr_t trapdoor[4],
                                       void (*progress)(const char *stage))
{
    return groth16_setup_with_trapdoor_accelerated(key, cs, trapdoor, progress, NULL);
}

g16_status groth16_setup_with_trapdoor_accelerated(groth16_setup_key *key,
                                                   const constraint_matrices *cs,
                                                   const fr_t trapdoor[4],
                                                   void (*progress)(const char *stage),
                                                   const groth16_setup_accel *accel)
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
    size_t nv = cs->n_vars, np = cs->n_public, m = cs->n_constraints, n_priv = nv - np - 1;
    size_t words = density_words(nv);
    unsigned log2n = (unsigned)__builtin_ctzll(n);
    key->n_vars = nv;
    key->n_public = np;
    key->domain_size = n;
    key->n_constraints = m;

    /* scalars: the products of one batch (up to n_vars or n); lag: the Lagrange basis,
     * then the scratch of the H basis. */
    size_t n_scalars = nv > n ? nv : n;
    /* These first arrays alone (the A, B and C points come on top) are checked against
     * the machine's memory and swap before any is allocated: an .r1cs may claim any
     * nWires, and where memory is overcommitted an impossible setup would otherwise end
     * in the OOM killer instead of this message. */
    uint64_t first = ((uint64_t)n + 3 * (uint64_t)nv + n_scalars) * sizeof(fr_t) +
                     ((uint64_t)np + 1 + n_priv + n) * sizeof(g1_affine_t);
    uint64_t have = host_memory_total();
    if (have && first > have)
        return status_fail(G16_ERR_OUT_OF_MEMORY,
                           "setup for %zu wires and domain %zu needs more than %.1f GiB, "
                           "beyond this machine's %.1f GiB of memory and swap",
                           nv, n, (double)first / 1073741824.0, (double)have / 1073741824.0);
    fr_t *lag = malloc(n * sizeof *lag);
    fr_t *uvw = calloc(3 * nv, sizeof *uvw);
    fr_t *scalars = malloc(n_scalars * sizeof *scalars);
    g1_fixed_base g1fb = {0};
    g2_fixed_base g2fb = {0};
    key->density_a = calloc(words, sizeof *key->density_a);
    key->density_b = calloc(words, sizeof *key->density_b);
    key->ic = malloc((np + 1) * sizeof *key->ic);
    key->c = malloc((n_priv ? n_priv : 1) * sizeof *key->c);
    key->h = malloc(n * sizeof *key->h);
    if (!lag || !uvw || !scalars || !key->density_a || !key->density_b || !key->ic ||
        !key->c || !key->h) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "setup for %zu wires and domain %zu", nv, n);
        goto out;
    }
    fr_t *u = uvw, *v = uvw + nv, *w = uvw + 2 * nv;

    /* u_j = A_j(tau), v_j = B_j(tau), w_j = C_j(tau): the QAP columns at tau. */
    report(progress, "the Lagrange basis at tau");
    fr_t one, wn;
    fr_one(&one);
    fr_root_of_unity(&wn, log2n);
    if ((st = lagrange_at(lag, scalars, n, &one, &wn, n, tau, &one)))
        goto out;
    report(progress, "evaluating the QAP at tau");
    if ((st = qap_columns(u, v, w, key->density_a, key->density_b, cs, lag)))
        goto out;
    key->n_a = density_count(key->density_a, 0, nv);
    key->n_b = density_count(key->density_b, 0, nv);
    key->a = malloc((key->n_a ? key->n_a : 1) * sizeof *key->a);
    key->b1 = malloc((key->n_b ? key->n_b : 1) * sizeof *key->b1);
    key->b2 = malloc((key->n_b ? key->n_b : 1) * sizeof *key->b2);
    if (!key->a || !key->b1 || !key->b2) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "A and B points for %zu and %zu wires",
                         key->n_a, key->n_b);
        goto out;
    }

    report(progress, "building fixed-base tables");
    g1_jac_t g1;
    g2_jac_t g2;
    g1_generator(&g1);
    g2_generator(&g2);
    size_t g1_products = key->n_a + key->n_b + nv + n;
    if ((st = g1_fixed_base_init(&g1fb, &g1, setup_window_bits(g1_products))) ||
        (st = g2_fixed_base_init(&g2fb, &g2, setup_window_bits(key->n_b))))
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

    /* A and B points of the marked wires only (density-compressed). */
    report(progress, "A and B points");
    density_gather(scalars, u, key->density_a, nv);
    if ((st = g1_batch(accel, key->a, &g1fb, scalars, key->n_a)))
        goto out;
    density_gather(scalars, v, key->density_b, nv);
    if ((st = g1_batch(accel, key->b1, &g1fb, scalars, key->n_b)) ||
        (st = g2_batch(accel, key->b2, &g2fb, scalars, key->n_b)))
        goto out;
    g2_fixed_base_free(&g2fb);

    report(progress, "IC and C points");
    ic_c_ctx icc = {.out = scalars, .u = u, .v = v, .w = w, .alpha = *alpha, .beta = *beta,
                    .n_public = np};
    fr_inv(&icc.inv_delta, delta);
    parallel_for(nv, 4096, ic_c_body, &icc);
    if ((st = g1_batch(accel, key->ic, &g1fb, scalars, np + 1)) ||
        (st = g1_batch(accel, key->c, &g1fb, scalars + np + 1, n_priv)))
        goto out;

    /* H_i = L_{2i+1}(tau) / delta over the 2n-domain: the odd points w_2n * w_n^i where
     * the prover evaluates h (FORMATS.md). */
    report(progress, "H points");
    fr_t w2n;
    fr_root_of_unity(&w2n, log2n + 1);
    st = lagrange_at(scalars, lag, n, &w2n, &wn, 2 * n, tau, &icc.inv_delta);
    explicit_bzero(&icc, sizeof icc);
    if (st)
        goto out;
    st = g1_batch(accel, key->h, &g1fb, scalars, n);

out:
    /* Everything derived from the trapdoor is wiped. */
    if (lag)
        explicit_bzero(lag, n * sizeof *lag);
    if (uvw)
        explicit_bzero(uvw, 3 * nv * sizeof *uvw);
    if (scalars)
        explicit_bzero(scalars, n_scalars * sizeof *scalars);
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
    return groth16_setup_accelerated(key, cs, progress, NULL);
}

g16_status groth16_setup_accelerated(groth16_setup_key *key, const constraint_matrices *cs,
                                     void (*progress)(const char *stage),
                                     const groth16_setup_accel *accel)
{
    fr_t trapdoor[4];
    g16_status st = G16_OK;
    for (int i = 0; i < 4 && !st; i++)
        st = secret_scalar(&trapdoor[i]);
    if (!st)
        st = groth16_setup_with_trapdoor_accelerated(key, cs, trapdoor, progress, accel);
    explicit_bzero(trapdoor, sizeof trapdoor);
    return st;
}
