/* Butterflies, the column and leaf passes, the bit-reversal permutation. */
#include <string.h>

#include "field/cpu.h"
#include "ntt/ntt_internal.h"

void ntt_table_build(fr_t *tab, unsigned levels, const fr_t *omega, const fr_t *sigma)
{
    if (levels == 0)
        return;
    size_t half = (size_t)1 << (levels - 1);
    fr_t *top = tab + half - 1;
    top[0] = *sigma;
    for (size_t j = 1; j < half; j++)
        fr_mul(&top[j], &top[j - 1], omega);
    for (unsigned l = levels - 1; l >= 1; l--) {
        size_t h = (size_t)1 << (l - 1);
        const fr_t *up = tab + 2 * h - 1;
        fr_t *cur = tab + h - 1;
        for (size_t j = 0; j < h; j++)
            fr_sqr(&cur[j], &up[j]);
    }
}

/* --- butterflies ------------------------------------------------------------------------
 * Radix 4 = two radix-2 levels on four elements held in registers: the same
 * multiplications as radix 2 (a prime field has no cheap fourth root of unity), half the
 * loads and stores. The _one variants are for twiddle index 0 when the table's entry 0 is
 * 1 (no coset): they skip the multiplications by one, about n of the (n/2) log2(n). */

static inline void dif2(fr_t *x0, fr_t *x1, const fr_t *t)
{
    fr_t d;
    ntt_sub(&d, x0, x1);
    ntt_add(x0, x0, x1);
    fr_mul(x1, &d, t);
}

static inline void dif2_one(fr_t *x0, fr_t *x1)
{
    fr_t d;
    ntt_sub(&d, x0, x1);
    ntt_add(x0, x0, x1);
    *x1 = d;
}

static inline void dit2(fr_t *x0, fr_t *x1, const fr_t *t)
{
    fr_t v;
    fr_mul(&v, x1, t);
    ntt_sub(x1, x0, &v);
    ntt_add(x0, x0, &v);
}

static inline void dit2_one(fr_t *x0, fr_t *x1)
{
    fr_t v = *x1;
    ntt_sub(x1, x0, &v);
    ntt_add(x0, x0, &v);
}

/* Levels l (pairs x0,x2 with t1a and x1,x3 with t1b) then l-1 (x0,x1 and x2,x3 with t2). */
static inline void dif4(fr_t *x0, fr_t *x1, fr_t *x2, fr_t *x3, const fr_t *t1a,
                        const fr_t *t1b, const fr_t *t2)
{
    fr_t b0, b1, b2, b3;
    ntt_add(&b0, x0, x2);
    ntt_sub(&b2, x0, x2);
    fr_mul(&b2, &b2, t1a);
    ntt_add(&b1, x1, x3);
    ntt_sub(&b3, x1, x3);
    fr_mul(&b3, &b3, t1b);
    ntt_add(x0, &b0, &b1);
    ntt_sub(x1, &b0, &b1);
    fr_mul(x1, x1, t2);
    ntt_add(x2, &b2, &b3);
    ntt_sub(x3, &b2, &b3);
    fr_mul(x3, x3, t2);
}

/* t1a = t2 = 1. */
static inline void dif4_one(fr_t *x0, fr_t *x1, fr_t *x2, fr_t *x3, const fr_t *t1b)
{
    fr_t b0, b1, b2, b3;
    ntt_add(&b0, x0, x2);
    ntt_sub(&b2, x0, x2);
    ntt_add(&b1, x1, x3);
    ntt_sub(&b3, x1, x3);
    fr_mul(&b3, &b3, t1b);
    ntt_add(x0, &b0, &b1);
    ntt_sub(x1, &b0, &b1);
    ntt_add(x2, &b2, &b3);
    ntt_sub(x3, &b2, &b3);
}

/* Levels l-1 (x0,x1 and x2,x3 with t2) then l (x0,x2 with t1a and x1,x3 with t1b). */
static inline void dit4(fr_t *x0, fr_t *x1, fr_t *x2, fr_t *x3, const fr_t *t1a,
                        const fr_t *t1b, const fr_t *t2)
{
    fr_t v, b0, b1, b2, b3;
    fr_mul(&v, x1, t2);
    ntt_add(&b0, x0, &v);
    ntt_sub(&b1, x0, &v);
    fr_mul(&v, x3, t2);
    ntt_add(&b2, x2, &v);
    ntt_sub(&b3, x2, &v);
    fr_mul(&v, &b2, t1a);
    ntt_add(x0, &b0, &v);
    ntt_sub(x2, &b0, &v);
    fr_mul(&v, &b3, t1b);
    ntt_add(x1, &b1, &v);
    ntt_sub(x3, &b1, &v);
}

static inline void dit4_one(fr_t *x0, fr_t *x1, fr_t *x2, fr_t *x3, const fr_t *t1b)
{
    fr_t v, b0, b1, b2, b3;
    ntt_add(&b0, x0, x1);
    ntt_sub(&b1, x0, x1);
    ntt_add(&b2, x2, x3);
    ntt_sub(&b3, x2, x3);
    ntt_add(x0, &b0, &b2);
    ntt_sub(x2, &b0, &b2);
    fr_mul(&v, &b3, t1b);
    ntt_add(x1, &b1, &v);
    ntt_sub(x3, &b1, &v);
}

/* --- stages ------------------------------------------------------------------------------
 * x has 2^(levels + cols_log) elements; a row is 2^cols_log lanes sharing one twiddle, so
 * the twiddle index of element i within a butterfly group is i >> cols_log. */

static void dif_radix2(fr_t *x, unsigned levels, unsigned l, unsigned cols_log, const fr_t *tab)
{
    size_t h = (size_t)1 << (l - 1), span = h << cols_log, cols = (size_t)1 << cols_log;
    size_t total = (size_t)1 << (levels + cols_log);
    const fr_t *t = tab + h - 1;
    bool one = fr_is_one(&t[0]);
    for (size_t s = 0; s < total; s += 2 * span) {
        fr_t *y = x + s;
        size_t i = 0;
        if (one)
            for (; i < cols; i++)
                dif2_one(&y[i], &y[i + span]);
        for (; i < span; i++)
            dif2(&y[i], &y[i + span], &t[i >> cols_log]);
    }
}

static void dit_radix2(fr_t *x, unsigned levels, unsigned l, unsigned cols_log, const fr_t *tab)
{
    size_t h = (size_t)1 << (l - 1), span = h << cols_log, cols = (size_t)1 << cols_log;
    size_t total = (size_t)1 << (levels + cols_log);
    const fr_t *t = tab + h - 1;
    bool one = fr_is_one(&t[0]);
    for (size_t s = 0; s < total; s += 2 * span) {
        fr_t *y = x + s;
        size_t i = 0;
        if (one)
            for (; i < cols; i++)
                dit2_one(&y[i], &y[i + span]);
        for (; i < span; i++)
            dit2(&y[i], &y[i + span], &t[i >> cols_log]);
    }
}

/* Levels l and l-1 (l >= 2) in one sweep. */
static void dif_radix4(fr_t *x, unsigned levels, unsigned l, unsigned cols_log, const fr_t *tab)
{
    size_t q = (size_t)1 << (l - 2), span = q << cols_log, cols = (size_t)1 << cols_log;
    size_t total = (size_t)1 << (levels + cols_log);
    const fr_t *t1 = tab + 2 * q - 1, *t2 = tab + q - 1;
    bool one = fr_is_one(&t1[0]) && fr_is_one(&t2[0]);
    for (size_t s = 0; s < total; s += 4 * span) {
        fr_t *y = x + s;
        size_t i = 0;
        if (one)
            for (; i < cols; i++)
                dif4_one(&y[i], &y[i + span], &y[i + 2 * span], &y[i + 3 * span], &t1[q]);
        for (; i < span; i++) {
            size_t j = i >> cols_log;
            dif4(&y[i], &y[i + span], &y[i + 2 * span], &y[i + 3 * span], &t1[j], &t1[j + q],
                 &t2[j]);
        }
    }
}

static void dit_radix4(fr_t *x, unsigned levels, unsigned l, unsigned cols_log, const fr_t *tab)
{
    size_t q = (size_t)1 << (l - 2), span = q << cols_log, cols = (size_t)1 << cols_log;
    size_t total = (size_t)1 << (levels + cols_log);
    const fr_t *t1 = tab + 2 * q - 1, *t2 = tab + q - 1;
    bool one = fr_is_one(&t1[0]) && fr_is_one(&t2[0]);
    for (size_t s = 0; s < total; s += 4 * span) {
        fr_t *y = x + s;
        size_t i = 0;
        if (one)
            for (; i < cols; i++)
                dit4_one(&y[i], &y[i + span], &y[i + 2 * span], &y[i + 3 * span], &t1[q]);
        for (; i < span; i++) {
            size_t j = i >> cols_log;
            dit4(&y[i], &y[i + span], &y[i + 2 * span], &y[i + 3 * span], &t1[j], &t1[j + q],
                 &t2[j]);
        }
    }
}

void ntt_dif_block(fr_t *x, unsigned levels, unsigned cols_log, const fr_t *tab)
{
    unsigned l = levels;
    for (; l >= 2; l -= 2)
        dif_radix4(x, levels, l, cols_log, tab);
    if (l == 1)
        dif_radix2(x, levels, 1, cols_log, tab);
}

void ntt_dit_block(fr_t *x, unsigned levels, unsigned cols_log, const fr_t *tab)
{
    unsigned l = 1;
    if (levels & 1) {
        dit_radix2(x, levels, 1, cols_log, tab);
        l = 2;
    }
    for (l += 1; l <= levels; l += 2)
        dit_radix4(x, levels, l, cols_log, tab);
}

/* --- passes ------------------------------------------------------------------------------ */

void ntt_run_items(size_t items, size_t points, parallel_body body, void *ctx)
{
    if (points < NTT_SERIAL_BELOW)
        body(ctx, 0, items, 0);
    else
        parallel_for(items, 1, body, ctx);
}

size_t ntt_column_scratch(unsigned k_max)
{
    /* The tile and its twiddles; a multiple of 2 cache lines, so every worker's block
     * stays 64-byte aligned. */
    return (size_t)2 << (k_max + NTT_TILE_COLS_LOG);
}

unsigned ntt_column_cols_log(const ntt_column_pass *p)
{
    unsigned t_log = p->log_m - p->k;
    return t_log < NTT_TILE_COLS_LOG ? t_log : NTT_TILE_COLS_LOG;
}

size_t ntt_column_item(const ntt_column_pass *p, size_t item, fr_t beta[])
{
    unsigned cl = ntt_column_cols_log(p), groups_log = p->log_m - p->k - cl;
    size_t pow_mask = ((size_t)1 << p->pow_bits) - 1;
    unsigned stride_log = p->log_n - p->log_m; /* omega_m = omega_n^(2^stride_log) */
    size_t sub = item >> groups_log;
    size_t c0 = (item & (((size_t)1 << groups_log) - 1)) << cl;
    for (size_t cc = 0; cc < (size_t)1 << cl; cc++) {
        size_t e = (c0 + cc) << stride_log;
        fr_mul(&beta[cc], &p->pow_lo[e & pow_mask], &p->pow_hi[e >> p->pow_bits]);
        if (!p->sigma_is_one)
            fr_mul(&beta[cc], &beta[cc], &p->sigma_m);
    }
    return (sub << p->log_m) + c0;
}

static void column_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const ntt_column_pass *p = ctx;
    unsigned k = p->k, cl = ntt_column_cols_log(p), t_log = p->log_m - k;
    size_t rows = (size_t)1 << k, cols = (size_t)1 << cl;
    fr_t *tile = p->scratch + (size_t)worker * p->scratch_stride;
    fr_t *tw = tile + (rows << cl);
    fr_t beta[1 << NTT_TILE_COLS_LOG], acc[1 << NTT_TILE_COLS_LOG];

    for (size_t item = begin; item < end; item++) {
        size_t origin = ntt_column_item(p, item, beta);
        fr_t *base = p->x + origin;
        for (size_t r = 0; r < rows; r++)
            memcpy(tile + (r << cl), base + (r << t_log), cols * sizeof(fr_t));

        /* Twiddle chains, one per lane, interleaved so the products overlap. */
        for (size_t cc = 0; cc < cols; cc++) {
            if (p->has_scale)
                acc[cc] = p->scale;
            else
                fr_one(&acc[cc]);
        }
        for (size_t e = 0; e < rows; e++) {
            fr_t *dst = tw + (ntt_bitrev(e, k) << cl);
            for (size_t cc = 0; cc < cols; cc++) {
                dst[cc] = acc[cc];
                if (e + 1 < rows)
                    fr_mul(&acc[cc], &acc[cc], &beta[cc]);
            }
        }

        size_t count = rows << cl;
        if (p->dit) {
            for (size_t i = 0; i < count; i++)
                fr_mul(&tile[i], &tile[i], &tw[i]);
            ntt_dit_block(tile, k, cl, p->dft_tab);
        } else {
            ntt_dif_block(tile, k, cl, p->dft_tab);
            for (size_t i = 0; i < count; i++)
                fr_mul(&tile[i], &tile[i], &tw[i]);
        }

        for (size_t r = 0; r < rows; r++) {
            fr_t *row = base + (r << t_log);
            memcpy(row, tile + (r << cl), cols * sizeof(fr_t));
            if (p->epilogue)
                p->epilogue(p->epilogue_ctx, row, origin + (r << t_log), cols);
        }
    }
}

void ntt_column_pass_run(ntt_column_pass *p)
{
#ifdef G16_HAVE_IFMA
    if (cpu_use_ifma && ntt_column_pass_run_x8(p))
        return;
#endif
    unsigned cl = ntt_column_cols_log(p);
    size_t items = (size_t)1 << (p->log_n - p->k - cl);
    ntt_run_items(items, (size_t)1 << p->log_n, column_body, p);
}

static void leaf_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const ntt_leaf_pass *p = ctx;
    size_t len = (size_t)1 << p->leaf;
    for (size_t blk = begin; blk < end; blk++) {
        fr_t *y = p->x + blk * len;
        if (p->dif_tab)
            ntt_dif_block(y, p->leaf, 0, p->dif_tab);
        if (p->has_scale)
            for (size_t i = 0; i < len; i++)
                fr_mul(&y[i], &y[i], &p->scale);
        if (p->dit_tab)
            ntt_dit_block(y, p->leaf, 0, p->dit_tab);
        if (p->epilogue)
            p->epilogue(p->epilogue_ctx, y, blk * len, len);
    }
}

void ntt_leaf_pass_run(ntt_leaf_pass *p)
{
#ifdef G16_HAVE_IFMA
    if (cpu_use_ifma && ntt_leaf_pass_run_x8(p))
        return;
#endif
    ntt_run_items((size_t)1 << (p->log_n - p->leaf), (size_t)1 << p->log_n, leaf_body, p);
}

/* --- copies and the bit reversal ------------------------------------------------------- */

typedef struct {
    fr_t *dst;
    const fr_t *src;
} copy_ctx;

enum { COPY_CHUNK = 1 << 14 };

static void copy_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const copy_ctx *c = ctx;
    memcpy(c->dst + begin, c->src + begin, (end - begin) * sizeof(fr_t));
}

void ntt_copy(fr_t *dst, const fr_t *src, size_t n)
{
    if (dst == src || n == 0)
        return;
    copy_ctx c = {dst, src};
    if (n < NTT_SERIAL_BELOW)
        copy_body(&c, 0, n, 0);
    else
        parallel_for(n, COPY_CHUNK, copy_body, &c);
}

/* Index bits a|b|c with a and c of BR_Q bits: bitrev(a|b|c) = rev(c)|rev(b)|rev(a). The
 * 2^BR_Q x 2^BR_Q tiles of blocks b and rev(b) are read row by row (2^BR_Q contiguous
 * elements, 512 bytes) and written back transposed, so memory sees whole cache lines. */
#define BR_Q 4

typedef struct {
    fr_t *x;
    unsigned log_n;
} bitrev_ctx;

static void bitrev_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const bitrev_ctx *c = ctx;
    enum { Q = 1 << BR_Q };
    unsigned mid = c->log_n - 2 * BR_Q;
    size_t row_stride = (size_t)1 << (c->log_n - BR_Q);
    fr_t ta[Q * Q], tb[Q * Q];
    unsigned char rev[Q];
    for (size_t i = 0; i < Q; i++)
        rev[i] = (unsigned char)ntt_bitrev(i, BR_Q);
    for (size_t b = begin; b < end; b++) {
        size_t b2 = ntt_bitrev(b, mid);
        if (b > b2)
            continue;
        fr_t *xa = c->x + (b << BR_Q), *xb = c->x + (b2 << BR_Q);
        for (size_t a = 0; a < Q; a++) {
            memcpy(&ta[a * Q], xa + a * row_stride, Q * sizeof(fr_t));
            if (b != b2)
                memcpy(&tb[a * Q], xb + a * row_stride, Q * sizeof(fr_t));
        }
        for (size_t a = 0; a < Q; a++) {
            fr_t *ra = xb + a * row_stride;
            for (size_t cc = 0; cc < Q; cc++)
                ra[cc] = ta[rev[cc] * Q + rev[a]];
            if (b != b2) {
                fr_t *rb = xa + a * row_stride;
                for (size_t cc = 0; cc < Q; cc++)
                    rb[cc] = tb[rev[cc] * Q + rev[a]];
            }
        }
    }
}

void ntt_bit_reverse(fr_t *x, unsigned log2n)
{
    size_t n = (size_t)1 << log2n;
    if (log2n < 2 * BR_Q) {
        for (size_t i = 0; i < n; i++) {
            size_t j = ntt_bitrev(i, log2n);
            if (i < j) {
                fr_t t = x[i];
                x[i] = x[j];
                x[j] = t;
            }
        }
        return;
    }
    bitrev_ctx c = {x, log2n};
    ntt_run_items((size_t)1 << (log2n - 2 * BR_Q), n, bitrev_body, &c);
}
