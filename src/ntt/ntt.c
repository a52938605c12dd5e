/* NTT domains (plans and twiddle tables), coset tables, and the transforms built from the
 * passes in ntt_kernels.c. See ntt.h for the design. */
#include "ntt/ntt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ntt/ntt_internal.h"
#include "util/parallel.h"
#include "util/status.h"

enum { DIR_FWD = 0, DIR_INV = 1 };

/* Up to this many coset shifts keep their tables in the domain; further ones get
 * temporary tables per call. Real provers use one or two (w_2n, or the generator 7). */
#define COSET_CACHE 8

/* Tables for one coset shift sigma (sigma = 1 for the plain transforms):
 * spow[DIR_FWD][j] = sigma^(2^j), spow[DIR_INV][j] = sigma^(-2^j) for j <= log2n;
 * leaf[dir] = stage tables for levels 1..leaf with omega = w^(+-1), the level-l shift
 * being spow[dir][log2n - l]. */
typedef struct {
    fr_t shift;
    bool is_one;
    fr_t spow[2][NTT_MAX_LOG2N + 1];
    fr_t *leaf[2];
} coset_tables;

typedef struct {
    pthread_mutex_t lock;
    coset_tables *entries[COSET_CACHE];
    size_t count;
} coset_cache;

struct ntt_domain {
    unsigned log2n;
    size_t n;
    fr_t w, w_inv, n_inv;
    /* Plan: column passes at levels log_m[i] (log_m[0] = log2n) of k[i] stages, then
     * leaf blocks of 2^leaf points. */
    unsigned leaf, npass, k[NTT_MAX_LOG2N], log_m[NTT_MAX_LOG2N], k_max;
    /* Plain stage tables (sigma = 1) for levels up to max(leaf, k_max), per direction. */
    fr_t *plain[2];
    /* omega^j = pow_lo[j & (2^pow_bits - 1)] * pow_hi[j >> pow_bits], omega = w^(+-1). */
    unsigned pow_bits;
    fr_t *pow_lo[2], *pow_hi[2];
    coset_tables plain_coset;
    coset_cache *cache;
};

static fr_t *alloc_fr(size_t count)
{
    /* Cache-line aligned; the size is rounded to a multiple of the alignment. */
    size_t bytes = count * sizeof(fr_t);
    bytes = (bytes + 63) & ~(size_t)63;
    return aligned_alloc(64, bytes ? bytes : 64);
}

/* --- the plan ------------------------------------------------------------------------- */

static void make_plan(ntt_domain *d, unsigned leaf_max, unsigned tile_max)
{
    unsigned L = d->log2n, P = 0, leaf = L;
    if (L > leaf_max) {
        P = (L - leaf_max + tile_max - 1) / tile_max;
        /* Balance the leaf against the passes: a pass of few stages does a full trip
         * through memory (and one chain product per element) for little work. */
        unsigned even = (L + P) / (P + 1); /* ceil(L / (P + 1)) */
        leaf = L - P * tile_max;
        if (leaf < even)
            leaf = even;
        if (leaf > leaf_max)
            leaf = leaf_max;
    }
    d->leaf = leaf;
    d->npass = P;
    d->k_max = 0;
    unsigned rest = L - leaf, log_m = L;
    for (unsigned i = 0; i < P; i++) {
        unsigned k = rest / P + (i < rest % P ? 1 : 0);
        d->k[i] = k;
        d->log_m[i] = log_m;
        log_m -= k;
        if (k > d->k_max)
            d->k_max = k;
    }
}

/* --- coset tables --------------------------------------------------------------------- */

static void coset_free(coset_tables *c)
{
    if (!c)
        return;
    free(c->leaf[0]);
    free(c->leaf[1]);
    free(c);
}

/* Fills c for shift (NULL: 1). The leaf tables of a plain coset are the domain's plain
 * tables (levels up to max(leaf, k_max) >= leaf), not copies. */
static g16_status coset_init(coset_tables *c, const ntt_domain *d, const fr_t *shift)
{
    memset(c, 0, sizeof *c);
    if (shift)
        c->shift = *shift;
    else
        fr_one(&c->shift);
    c->is_one = fr_is_one(&c->shift);
    fr_t inv;
    if (!fr_inv(&inv, &c->shift))
        return status_fail(G16_ERR_INVALID_ARGUMENT, "ntt: coset shift is zero");
    c->spow[DIR_FWD][0] = c->shift;
    c->spow[DIR_INV][0] = inv;
    for (unsigned j = 1; j <= NTT_MAX_LOG2N; j++) {
        fr_sqr(&c->spow[DIR_FWD][j], &c->spow[DIR_FWD][j - 1]);
        fr_sqr(&c->spow[DIR_INV][j], &c->spow[DIR_INV][j - 1]);
    }
    if (c->is_one)
        return G16_OK;
    size_t entries = ((size_t)1 << d->leaf);
    for (int dir = 0; dir < 2; dir++) {
        c->leaf[dir] = alloc_fr(entries);
        if (!c->leaf[dir])
            return status_fail(G16_ERR_OUT_OF_MEMORY, "ntt: coset tables for 2^%u",
                               d->log2n);
        fr_t omega;
        fr_root_of_unity(&omega, d->leaf);
        if (dir == DIR_INV)
            fr_inv(&omega, &omega);
        ntt_table_build(c->leaf[dir], d->leaf, &omega, &c->spow[dir][d->log2n - d->leaf]);
    }
    return G16_OK;
}

static const fr_t *coset_leaf(const ntt_domain *d, const coset_tables *c, int dir)
{
    return c->is_one ? d->plain[dir] : c->leaf[dir];
}

/* The tables for shift: the plain ones, a cached entry, or (cache full) fresh ones that
 * the caller frees through *temp. */
static g16_status coset_get(const coset_tables **out, coset_tables **temp, const ntt_domain *d,
                            const fr_t *shift)
{
    *temp = NULL;
    if (!shift || fr_is_one(shift)) {
        *out = &d->plain_coset;
        return G16_OK;
    }
    coset_cache *cache = d->cache;
    pthread_mutex_lock(&cache->lock);
    for (size_t i = 0; i < cache->count; i++)
        if (fr_equal(&cache->entries[i]->shift, shift)) {
            *out = cache->entries[i];
            pthread_mutex_unlock(&cache->lock);
            return G16_OK;
        }
    /* Built under the lock: a second thread asking for the same shift waits rather than
     * building it twice; building is O(2^leaf) products, well under a millisecond. */
    coset_tables *c = calloc(1, sizeof *c);
    g16_status st = c ? coset_init(c, d, shift)
                      : status_fail(G16_ERR_OUT_OF_MEMORY, "ntt: coset tables");
    if (st != G16_OK) {
        pthread_mutex_unlock(&cache->lock);
        coset_free(c);
        return st;
    }
    if (cache->count < COSET_CACHE)
        cache->entries[cache->count++] = c;
    else
        *temp = c;
    pthread_mutex_unlock(&cache->lock);
    *out = c;
    return G16_OK;
}

/* --- domains -------------------------------------------------------------------------- */

void ntt_domain_free(ntt_domain *d)
{
    if (!d)
        return;
    for (int dir = 0; dir < 2; dir++) {
        free(d->plain[dir]);
        free(d->pow_lo[dir]);
        free(d->pow_hi[dir]);
    }
    if (d->cache) {
        for (size_t i = 0; i < d->cache->count; i++)
            coset_free(d->cache->entries[i]);
        pthread_mutex_destroy(&d->cache->lock);
        free(d->cache);
    }
    free(d);
}

g16_status ntt_domain_create_with_plan(ntt_domain **out, unsigned log2n, unsigned leaf_log,
                                       unsigned tile_log)
{
    *out = NULL;
    if (log2n > NTT_MAX_LOG2N)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "ntt: domain 2^%u is larger than the supported 2^%u", log2n,
                           NTT_MAX_LOG2N);
    if (leaf_log < 1 || tile_log < 1 || leaf_log > NTT_LEAF_LOG_LIMIT ||
        tile_log > NTT_TILE_LOG_LIMIT)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "ntt: plan limits leaf 2^%u, tile 2^%u out of range", leaf_log,
                           tile_log);
    ntt_domain *d = calloc(1, sizeof *d);
    if (!d)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "ntt: domain");
    d->log2n = log2n;
    d->n = (size_t)1 << log2n;
    fr_root_of_unity(&d->w, log2n);
    fr_inv(&d->w_inv, &d->w);
    fr_t nn;
    fr_from_u64(&nn, d->n);
    fr_inv(&d->n_inv, &nn);
    make_plan(d, leaf_log, tile_log);

    unsigned levels = d->leaf > d->k_max ? d->leaf : d->k_max;
    d->pow_bits = (log2n + 1) / 2;
    size_t lo = (size_t)1 << d->pow_bits, hi = (size_t)1 << (log2n - d->pow_bits);
    d->cache = calloc(1, sizeof *d->cache);
    bool ok = d->cache != NULL;
    for (int dir = 0; dir < 2 && ok; dir++) {
        d->plain[dir] = alloc_fr((size_t)1 << levels);
        d->pow_lo[dir] = alloc_fr(lo);
        d->pow_hi[dir] = alloc_fr(hi);
        ok = d->plain[dir] && d->pow_lo[dir] && d->pow_hi[dir];
    }
    if (!ok) {
        ntt_domain_free(d);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "ntt: tables for 2^%u", log2n);
    }
    pthread_mutex_init(&d->cache->lock, NULL);
    fr_t one;
    fr_one(&one);
    for (int dir = 0; dir < 2; dir++) {
        fr_t omega;
        fr_root_of_unity(&omega, levels);
        if (dir == DIR_INV)
            fr_inv(&omega, &omega);
        ntt_table_build(d->plain[dir], levels, &omega, &one);

        const fr_t *wn = dir == DIR_FWD ? &d->w : &d->w_inv;
        fr_t step;
        d->pow_lo[dir][0] = one;
        for (size_t j = 1; j < lo; j++)
            fr_mul(&d->pow_lo[dir][j], &d->pow_lo[dir][j - 1], wn);
        fr_mul(&step, &d->pow_lo[dir][lo - 1], wn); /* w^(2^pow_bits) */
        d->pow_hi[dir][0] = one;
        for (size_t j = 1; j < hi; j++)
            fr_mul(&d->pow_hi[dir][j], &d->pow_hi[dir][j - 1], &step);
    }
    coset_init(&d->plain_coset, d, NULL);
    *out = d;
    return G16_OK;
}

g16_status ntt_domain_create(ntt_domain **out, unsigned log2n)
{
    return ntt_domain_create_with_plan(out, log2n, NTT_LEAF_LOG_MAX, NTT_TILE_LOG_MAX);
}

static struct {
    pthread_mutex_t lock;
    ntt_domain *domains[NTT_MAX_LOG2N + 1];
} shared = {.lock = PTHREAD_MUTEX_INITIALIZER};

g16_status ntt_domain_get(const ntt_domain **out, unsigned log2n)
{
    *out = NULL;
    if (log2n > NTT_MAX_LOG2N)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "ntt: domain 2^%u is larger than the supported 2^%u", log2n,
                           NTT_MAX_LOG2N);
    pthread_mutex_lock(&shared.lock);
    g16_status st = G16_OK;
    if (!shared.domains[log2n])
        st = ntt_domain_create(&shared.domains[log2n], log2n);
    *out = shared.domains[log2n];
    pthread_mutex_unlock(&shared.lock);
    return st;
}

unsigned ntt_domain_log2n(const ntt_domain *d) { return d->log2n; }
size_t ntt_domain_size(const ntt_domain *d) { return d->n; }
const fr_t *ntt_domain_root(const ntt_domain *d) { return &d->w; }
unsigned ntt_domain_passes(const ntt_domain *d) { return d->npass + 1; }

/* --- transforms ----------------------------------------------------------------------- */

/* Per-call state: the worker scratch for column passes. */
typedef struct {
    fr_t *scratch;
    size_t stride;
} run_scratch;

static g16_status scratch_get(run_scratch *s, const ntt_domain *d)
{
    s->scratch = NULL;
    s->stride = 0;
    if (d->npass == 0)
        return G16_OK;
    s->stride = ntt_column_scratch(d->k_max);
    s->scratch = alloc_fr(s->stride * parallel_threads());
    if (!s->scratch)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "ntt: scratch for 2^%u", d->log2n);
    return G16_OK;
}

static void column_pass(const ntt_domain *d, fr_t *x, unsigned i, int dir, bool dit,
                        const coset_tables *c, const fr_t *scale, ntt_epilogue epilogue,
                        void *ctx, const run_scratch *s)
{
    ntt_column_pass p = {
        .x = x,
        .log_n = d->log2n,
        .log_m = d->log_m[i],
        .k = d->k[i],
        .dit = dit,
        .dft_tab = d->plain[dir],
        .pow_lo = d->pow_lo[dir],
        .pow_hi = d->pow_hi[dir],
        .pow_bits = d->pow_bits,
        .sigma_m = c->spow[dir][d->log2n - d->log_m[i]],
        .sigma_is_one = c->is_one,
        .has_scale = scale != NULL,
        .epilogue = epilogue,
        .epilogue_ctx = ctx,
        .scratch = s->scratch,
        .scratch_stride = s->stride,
    };
    if (scale)
        p.scale = *scale;
    ntt_column_pass_run(&p);
}

static void leaf_pass(const ntt_domain *d, fr_t *x, const fr_t *dif_tab, const fr_t *scale,
                      const fr_t *dit_tab, ntt_epilogue epilogue, void *ctx)
{
    ntt_leaf_pass p = {
        .x = x,
        .log_n = d->log2n,
        .leaf = d->leaf,
        .dif_tab = dif_tab,
        .dit_tab = dit_tab,
        .has_scale = scale != NULL,
        .epilogue = epilogue,
        .epilogue_ctx = ctx,
    };
    if (scale)
        p.scale = *scale;
    ntt_leaf_pass_run(&p);
}

/* DIF passes with (w^-1, from^-1): natural values -> factor * bit-reversed coefficients,
 * leaving the leaf pass to the caller when fuse_leaf (so it can continue in cache). The
 * factor rides on the first column pass's chains, or on the leaf pass when there is none. */
static void inverse_dif(const ntt_domain *d, fr_t *x, const coset_tables *from,
                        const fr_t *factor, const fr_t *dit_tab, const coset_tables *to,
                        ntt_epilogue epilogue, void *ctx, const run_scratch *s)
{
    for (unsigned i = 0; i < d->npass; i++)
        column_pass(d, x, i, DIR_INV, false, from, i == 0 ? factor : NULL, NULL, NULL, s);
    leaf_pass(d, x, coset_leaf(d, from, DIR_INV), d->npass == 0 ? factor : NULL, dit_tab,
              d->npass == 0 ? epilogue : NULL, ctx);
    if (dit_tab)
        for (unsigned i = d->npass; i-- > 0;)
            column_pass(d, x, i, DIR_FWD, true, to, NULL, i == 0 ? epilogue : NULL, ctx, s);
}

static g16_status check_args(const ntt_domain *d, const fr_t *out, const fr_t *in)
{
    if (!d || !out || !in)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "ntt: null argument");
    return G16_OK;
}

g16_status ntt_inverse_to_br(const ntt_domain *d, fr_t *out, const fr_t *in, const fr_t *shift,
                             const fr_t *scale)
{
    g16_status st = check_args(d, out, in);
    if (st != G16_OK)
        return st;
    const coset_tables *c;
    coset_tables *temp;
    run_scratch s;
    if ((st = coset_get(&c, &temp, d, shift)) != G16_OK)
        return st;
    if ((st = scratch_get(&s, d)) != G16_OK) {
        coset_free(temp);
        return st;
    }
    fr_t factor = d->n_inv;
    if (scale)
        fr_mul(&factor, &factor, scale);
    ntt_copy(out, in, d->n);
    inverse_dif(d, out, c, &factor, NULL, NULL, NULL, NULL, &s);
    free(s.scratch);
    coset_free(temp);
    return G16_OK;
}

g16_status ntt_forward_from_br(const ntt_domain *d, fr_t *out, const fr_t *in,
                               const fr_t *shift)
{
    g16_status st = check_args(d, out, in);
    if (st != G16_OK)
        return st;
    const coset_tables *c;
    coset_tables *temp;
    run_scratch s;
    if ((st = coset_get(&c, &temp, d, shift)) != G16_OK)
        return st;
    if ((st = scratch_get(&s, d)) != G16_OK) {
        coset_free(temp);
        return st;
    }
    ntt_copy(out, in, d->n);
    leaf_pass(d, out, NULL, NULL, coset_leaf(d, c, DIR_FWD), NULL, NULL);
    for (unsigned i = d->npass; i-- > 0;)
        column_pass(d, out, i, DIR_FWD, true, c, NULL, NULL, NULL, &s);
    free(s.scratch);
    coset_free(temp);
    return G16_OK;
}

g16_status ntt_forward(const ntt_domain *d, fr_t *out, const fr_t *in)
{
    return ntt_coset_forward(d, out, in, NULL);
}

g16_status ntt_inverse(const ntt_domain *d, fr_t *out, const fr_t *in)
{
    return ntt_coset_inverse(d, out, in, NULL, NULL);
}

g16_status ntt_coset_forward(const ntt_domain *d, fr_t *out, const fr_t *in, const fr_t *shift)
{
    g16_status st = check_args(d, out, in);
    if (st != G16_OK)
        return st;
    if (shift && fr_is_zero(shift))
        return status_fail(G16_ERR_INVALID_ARGUMENT, "ntt: coset shift is zero");
    ntt_copy(out, in, d->n);
    ntt_bit_reverse(out, d->log2n);
    return ntt_forward_from_br(d, out, out, shift);
}

g16_status ntt_coset_inverse(const ntt_domain *d, fr_t *out, const fr_t *in, const fr_t *shift,
                             const fr_t *scale)
{
    g16_status st = ntt_inverse_to_br(d, out, in, shift, scale);
    if (st == G16_OK)
        ntt_bit_reverse(out, d->log2n);
    return st;
}

g16_status ntt_change_coset(const ntt_domain *d, fr_t *out, const fr_t *in, const fr_t *from,
                            const fr_t *to, ntt_epilogue epilogue, void *ctx)
{
    g16_status st = check_args(d, out, in);
    if (st != G16_OK)
        return st;
    const coset_tables *cf, *ct;
    coset_tables *tf, *tt = NULL;
    run_scratch s = {0};
    if ((st = coset_get(&cf, &tf, d, from)) != G16_OK ||
        (st = coset_get(&ct, &tt, d, to)) != G16_OK || (st = scratch_get(&s, d)) != G16_OK) {
        coset_free(tf);
        coset_free(tt);
        return st;
    }
    ntt_copy(out, in, d->n);
    inverse_dif(d, out, cf, &d->n_inv, coset_leaf(d, ct, DIR_FWD), ct, epilogue, ctx, &s);
    free(s.scratch);
    coset_free(tf);
    coset_free(tt);
    return G16_OK;
}
