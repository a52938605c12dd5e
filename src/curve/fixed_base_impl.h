/* Implementation of fixed_base.h for one group (a C "template"): define POINT (g1, g2) and
 * FB_FIELD (fp, fp2) before including; fixed_base.c includes it once per group. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/parallel.h"
#include "util/status.h"

#ifndef G16_FIXED_BASE_DIGITS
#define G16_FIXED_BASE_DIGITS
/* FB_BATCH additions share one inversion (~450 products: < 0.5 product per addition).
 * FB_GROUP scalars go through all windows together: their accumulators (768 KiB of G1,
 * 1.5 MiB of G2) stay in L2/L3 while the window loop streams over them. */
enum { FB_BATCH = 1024, FB_GROUP = 8192 };

/* Bits [bit, bit + w) of a 256-bit little-endian integer (w <= 16, bit < 256). */
static inline uint32_t fb_bits(const uint64_t k[4], unsigned bit, unsigned w)
{
    unsigned word = bit / 64, shift = bit % 64;
    uint64_t d = k[word] >> shift;
    if (shift + w > 64 && word + 1 < 4)
        d |= k[word + 1] << (64 - shift);
    return (uint32_t)(d & (((uint64_t)1 << w) - 1));
}

/* The signed digit of window `win`, given and updating the carry out of the window below:
 * bits + carry in [0, 2^w] becomes a digit in (-2^(w-1), 2^(w-1)] and a carry of 0 or 1. */
static inline int32_t fb_digit(const uint64_t k[4], unsigned win, unsigned w, uint8_t *carry)
{
    int32_t d = (int32_t)fb_bits(k, win * w, w) + *carry;
    *carry = d > ((int32_t)1 << (w - 1));
    return d - ((int32_t)*carry << w);
}

static inline unsigned fb_windows(unsigned w) { return (256 + w - 1) / w; }

/* Tables of w >= 14 are tens of MiB read at random: on 4 KiB pages nearly every lookup
 * also misses the TLB, so they go on transparent huge pages where the kernel allows. */
static void *fb_alloc_table(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < huge)
        return malloc(bytes);
    void *p = aligned_alloc(huge, (bytes + huge - 1) / huge * huge);
    if (p)
        madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}
#endif

#define FB_CAT2(a, b) a##_##b
#define FB_CAT(a, b) FB_CAT2(a, b)
#define FN(name) FB_CAT(POINT, name)
#define F(name) FB_CAT(FB_FIELD, name)
#define FE FB_CAT(FB_FIELD, t)
#define AFF FB_CAT(POINT, affine_t)
#define JAC FB_CAT(POINT, jac_t)
#define FB FB_CAT(POINT, fixed_base)
#define LOCAL(name) FB_CAT(FB_CAT(POINT, fb), name)

/* --- the table ------------------------------------------------------------------------ */

typedef struct {
    AFF *table;
    const AFF *row_base; /* [windows] 2^(w*i) * base */
    size_t half;         /* points per row, 2^(w-1) */
    JAC *scratch;        /* one row per worker */
} LOCAL(init_ctx);

static void LOCAL(init_row)(void *p, size_t begin, size_t end, unsigned worker)
{
    LOCAL(init_ctx) *c = p;
    JAC *row = c->scratch + (size_t)worker * c->half;
    for (size_t i = begin; i < end; i++) {
        const AFF *b = &c->row_base[i];
        FN(from_affine)(&row[0], b);
        for (size_t j = 1; j < c->half; j++)
            FN(add_mixed)(&row[j], &row[j - 1], b);
        FN(batch_to_affine)(c->table + i * c->half, row, c->half);
    }
}

g16_status FN(fixed_base_init)(FB *fb, const JAC *base, unsigned window_bits)
{
    memset(fb, 0, sizeof *fb);
    if (window_bits < 1 || window_bits > FIXED_BASE_MAX_WINDOW_BITS)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "fixed-base window of %u bits (1..%d)",
                           window_bits, FIXED_BASE_MAX_WINDOW_BITS);
    size_t half = (size_t)1 << (window_bits - 1);
    unsigned windows = fb_windows(window_bits);
    unsigned threads = parallel_threads();
    JAC *bases = malloc(windows * sizeof *bases);
    AFF *bases_aff = malloc(windows * sizeof *bases_aff);
    JAC *scratch = malloc((size_t)threads * half * sizeof *scratch);
    fb->table = fb_alloc_table((size_t)windows * half * sizeof *fb->table);
    g16_status st = G16_OK;
    if (!bases || !bases_aff || !scratch || !fb->table) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "fixed-base table of %zu points",
                         (size_t)windows * half);
        free(fb->table);
        fb->table = NULL;
        goto out;
    }
    bases[0] = *base;
    for (unsigned i = 1; i < windows; i++) {
        bases[i] = bases[i - 1];
        for (unsigned d = 0; d < window_bits; d++)
            FN(dbl)(&bases[i], &bases[i]);
    }
    FN(batch_to_affine)(bases_aff, bases, windows);
    LOCAL(init_ctx) c = {.table = fb->table, .row_base = bases_aff, .half = half,
                         .scratch = scratch};
    parallel_for(windows, 1, LOCAL(init_row), &c);
    for (size_t i = 0; i < (size_t)windows * half && !fb->table_has_infinity; i++)
        fb->table_has_infinity = FN(affine_is_infinity)(&fb->table[i]);
    fb->window_bits = window_bits;
    fb->windows = windows;
out:
    free(bases);
    free(bases_aff);
    free(scratch);
    return st;
}

void FN(fixed_base_free)(FB *fb)
{
    free(fb->table);
    memset(fb, 0, sizeof *fb);
}

/* The table point for digit d != 0 of window win: |d| * 2^(w*win) * base, negated when
 * d < 0. */
static inline const AFF *LOCAL(entry)(const FB *fb, unsigned win, int32_t d)
{
    size_t half = (size_t)1 << (fb->window_bits - 1);
    return &fb->table[(size_t)win * half + (size_t)(d < 0 ? -d : d) - 1];
}

void FN(fixed_base_mul)(JAC *r, const FB *fb, const fr_t *k)
{
    uint64_t limbs[4];
    fr_to_limbs(limbs, k);
    uint8_t carry = 0;
    FN(set_infinity)(r);
    for (unsigned i = 0; i < fb->windows; i++) {
        int32_t d = fb_digit(limbs, i, fb->window_bits, &carry);
        if (!d)
            continue;
        AFF p = *LOCAL(entry)(fb, i, d);
        if (d < 0)
            FN(affine_neg)(&p, &p);
        FN(add_mixed)(r, r, &p);
    }
}

/* --- the batch ------------------------------------------------------------------------ */

/* Per-worker state for one group of FB_GROUP scalars, whose accumulators live in the
 * output array. */
typedef struct {
    uint64_t limbs[FB_GROUP][4];
    uint8_t carry[FB_GROUP];
    uint8_t live[FB_GROUP];     /* acc[i] is a point (not infinity) */
    int32_t digit[FB_BATCH];    /* of the current window, for the current batch */
    uint8_t negate[FB_BATCH];   /* pending addition j subtracts its table point */
    uint32_t pending[FB_BATCH]; /* accumulators waiting for the batch inversion */
    const AFF *point[FB_BATCH]; /* and their table points */
    FE den[FB_BATCH], pre[FB_BATCH];
} LOCAL(group);

typedef struct {
    AFF *out;
    const FB *fb;
    const fr_t *k;
    LOCAL(group) *groups; /* one per worker */
} LOCAL(batch_ctx);

/* den[j] := 1/den[j] for j < n, every den[j] nonzero: prefix products, one inversion, and
 * a walk back (3 products per element). */
static void LOCAL(batch_invert)(FE *den, FE *pre, size_t n)
{
    if (n == 0)
        return;
    pre[0] = den[0];
    for (size_t j = 1; j < n; j++)
        F(mul)(&pre[j], &pre[j - 1], &den[j]);
    FE inv, t;
    F(inv)(&inv, &pre[n - 1]);
    for (size_t j = n - 1; j > 0; j--) {
        F(mul)(&t, &inv, &pre[j - 1]);
        F(mul)(&inv, &inv, &den[j]);
        den[j] = t;
    }
    den[0] = inv;
}

/* acc += p where x(acc) = x(p): acc = p doubles, acc = -p vanishes. Rare for the scalars
 * of a setup (their partial sums would have to meet a table point); exact always. */
static void LOCAL(add_same_x)(AFF *acc, uint8_t *live, const AFF *p)
{
    if (!F(equal)(&acc->y, &p->y)) {
        *live = 0;
        return;
    }
    JAC t;
    FN(from_affine)(&t, acc);
    FN(dbl)(&t, &t);
    FN(to_affine)(acc, &t);
}

/* Window win for accumulators acc[0..m) (m <= FB_BATCH) of group members g0.. : each
 * acc[i] += its digit's table point, the additions sharing one inversion. */
static void LOCAL(batch_window)(LOCAL(group) *g, AFF *acc, size_t g0, size_t m,
                                const FB *fb, unsigned win)
{
    const unsigned w = fb->window_bits;
    /* Digits first, with a prefetch of every table point they name: issued together,
     * the cache misses overlap instead of stalling the additions one by one. */
    for (size_t i = 0; i < m; i++) {
        int32_t d = fb_digit(g->limbs[g0 + i], win, w, &g->carry[g0 + i]);
        g->digit[i] = d;
        if (d)
            __builtin_prefetch(LOCAL(entry)(fb, win, d));
    }
    size_t n = 0;
    for (size_t i = 0; i < m; i++) {
        int32_t d = g->digit[i];
        if (!d)
            continue;
        const AFF *p = LOCAL(entry)(fb, win, d);
        uint8_t *live = &g->live[g0 + i];
        if (!*live) {
            acc[i] = *p;
            if (d < 0)
                F(neg)(&acc[i].y, &acc[i].y);
            *live = 1;
            continue;
        }
        F(sub)(&g->den[n], &p->x, &acc[i].x);
        if (F(is_zero)(&g->den[n])) {
            AFF q = *p;
            if (d < 0)
                F(neg)(&q.y, &q.y);
            LOCAL(add_same_x)(&acc[i], live, &q);
            continue;
        }
        g->pending[n] = (uint32_t)i;
        g->point[n] = p;
        g->negate[n] = d < 0;
        n++;
    }
    LOCAL(batch_invert)(g->den, g->pre, n);
    for (size_t j = 0; j < n; j++) {
        /* lambda = (y_p - y_a) / (x_p - x_a); x' = lambda^2 - x_a - x_p;
         * y' = lambda (x_a - x') - y_a. */
        AFF *a = &acc[g->pending[j]];
        const AFF *p = g->point[j];
        FE py, lam, x3, t;
        if (g->negate[j])
            F(neg)(&py, &p->y);
        else
            py = p->y;
        F(sub)(&t, &py, &a->y);
        F(mul)(&lam, &t, &g->den[j]);
        F(sqr)(&x3, &lam);
        F(sub)(&x3, &x3, &a->x);
        F(sub)(&x3, &x3, &p->x);
        F(sub)(&t, &a->x, &x3);
        F(mul)(&t, &lam, &t);
        F(sub)(&a->y, &t, &a->y);
        a->x = x3;
    }
}

/* out[i] = k[i] * base for i < m <= FB_GROUP. Windows run outermost, so a window's slice
 * of the table (2^(w-1) points: 3 MiB of G1 at w = 16) is what the group reads while it
 * stays in cache, and the accumulators (out itself) stay in L2. */
static void LOCAL(batch_group)(LOCAL(group) *g, AFF *out, const FB *fb, const fr_t *k,
                               size_t m)
{
    if (fb->table_has_infinity) {
        /* The affine formulas would take an infinity entry for a point. */
        for (size_t i = 0; i < m; i++) {
            JAC r;
            FN(fixed_base_mul)(&r, fb, &k[i]);
            FN(to_affine)(&out[i], &r);
        }
        return;
    }
    for (size_t i = 0; i < m; i++) {
        fr_to_limbs(g->limbs[i], &k[i]);
        g->carry[i] = 0;
        g->live[i] = 0;
    }
    for (unsigned win = 0; win < fb->windows; win++)
        for (size_t b = 0; b < m; b += FB_BATCH)
            LOCAL(batch_window)(g, out + b, b, m - b < FB_BATCH ? m - b : FB_BATCH, fb, win);
    for (size_t i = 0; i < m; i++)
        if (!g->live[i])
            FN(affine_set_infinity)(&out[i]);
}

static void LOCAL(batch_body)(void *p, size_t begin, size_t end, unsigned worker)
{
    LOCAL(batch_ctx) *c = p;
    LOCAL(group) *g = &c->groups[worker];
    for (size_t s = begin; s < end; s += FB_GROUP) {
        size_t m = end - s < FB_GROUP ? end - s : FB_GROUP;
        LOCAL(batch_group)(g, c->out + s, c->fb, c->k + s, m);
    }
}

g16_status FN(fixed_base_batch)(AFF *out, const FB *fb, const fr_t *k, size_t n)
{
    if (n == 0)
        return G16_OK;
    unsigned threads = parallel_threads();
    LOCAL(batch_ctx) c = {.out = out, .fb = fb, .k = k};
    c.groups = malloc((size_t)threads * sizeof *c.groups);
    if (!c.groups)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "fixed-base scratch for %u threads", threads);
    parallel_for(n, FB_GROUP, LOCAL(batch_body), &c);
    free(c.groups);
    return G16_OK;
}

#undef LOCAL
#undef FB
#undef JAC
#undef AFF
#undef FE
#undef F
#undef FN
#undef FB_CAT
#undef FB_CAT2
