/* The column and leaf passes with 8-lane AVX-512 IFMA butterflies (field/fr_x8_impl.h):
 * ntt_kernels.c hands its passes here while cpu_use_ifma. Compiled with -mavx512f
 * -mavx512ifma (CMakeLists.txt: files named *_ifma_x86.c).
 *
 * Each tile or block is converted to the 52-bit lane form once (a transpose of 64-bit
 * words and limb shifts), runs all its levels there with lazy reduction, and is reduced to
 * canonical form and converted back once, so the outputs are the scalar path's bit for
 * bit (both compute the same field elements; canonical form is unique).
 *
 * Column tiles: a row of a tile is 8 contiguous elements, 8 independent columns, so one
 * row is one vector and every butterfly pairs two rows with one twiddle broadcast to all
 * lanes. The column's twiddle chains run as one vector chain (lane c = column c).
 *
 * Leaf blocks (2^leaf contiguous points, leaf >= 6): vector g holds points 8g..8g+7.
 * Levels whose butterflies span 8 points or more pair whole vectors, with 8 consecutive
 * twiddles per vector (the stage table regrouped once per pass). The three levels inside
 * a group of 8 run on 64-point chunks transposed limb by limb (vector k then holds points
 * k, k + 8, .., k + 56 of the chunk), where they pair whole vectors again with broadcast
 * twiddles: the same code as the column tiles' rows. A transposition costs 120 shuffles
 * per 64 points, once per chunk for the DIF's last three levels, the scale and the DIT's
 * first three together; permuting lanes inside the butterflies instead costs about as
 * much per level.
 *
 * Twiddle index 0 is 1 in every plain table: the broadcast levels skip that product
 * (about 2/levels of them), as the scalar path does.
 */
#include <stdlib.h>
#include <string.h>

#include "field/fr_x8_impl.h"
#include "ntt/ntt_internal.h"

/* One element's 52-bit limbs: a twiddle shared by all lanes, broadcast when used. */
typedef struct {
    uint64_t l[5];
} limbs5;

/* The stage table tab (levels 1..levels, 2^levels - 1 entries) as limbs; bit l of the
 * result is set when level l's entry 0 is 1. */
static unsigned table_limbs(limbs5 *out, const fr_t *tab, unsigned levels)
{
    unsigned ones = 0;
    for (size_t i = 0; i + 1 < (size_t)1 << levels; i++)
        frx8_scalar_limbs(out[i].l, &tab[i]);
    for (unsigned l = 1; l <= levels; l++)
        if (fr_is_one(&tab[((size_t)1 << (l - 1)) - 1]))
            ones |= 1u << l;
    return ones;
}

/* The level order and butterfly of a DIF (levels top-down) or a DIT (bottom-up); the
 * branch per butterfly is predicted and small beside a vector product. */
static inline unsigned level_at(unsigned i, unsigned levels, bool dit)
{
    return dit ? i + 1 : levels - i;
}

static inline void butterfly(frx8 *x0, frx8 *x1, const frx8 *t, bool dit)
{
    if (dit)
        frx8_dit(x0, x1, t);
    else
        frx8_dif(x0, x1, t);
}

/* --- rows: butterflies between whole vectors, twiddles broadcast ------------------------
 * x has 2^levels vectors; the twiddle of row i in a level-l group is tab[h - 1 + (i mod h)],
 * h = 2^(l-1), as ntt_dif_block with cols_log = 3. Twiddle-major order: each twiddle is
 * broadcast once per level. */

static void rows_levels(frx8 *x, unsigned levels, const limbs5 *tab, unsigned ones, bool dit)
{
    size_t rows = (size_t)1 << levels;
    for (unsigned i = 0; i < levels; i++) {
        unsigned l = level_at(i, levels, dit);
        size_t h = (size_t)1 << (l - 1);
        for (size_t j = 0; j < h; j++) {
            if (j == 0 && (ones >> l & 1)) {
                for (size_t s = 0; s < rows; s += 2 * h)
                    frx8_butterfly_one(&x[s], &x[s + h]);
                continue;
            }
            frx8 t;
            frx8_broadcast(&t, tab[h - 1 + j].l);
            for (size_t s = j; s < rows; s += 2 * h)
                butterfly(&x[s], &x[s + h], &t, dit);
        }
    }
}

/* Canonical form and back to fr_t: n vectors to dst[0 .. 8n) at stride (in elements)
 * between vectors. */
static void store_rows(fr_t *dst, size_t stride, const frx8 *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        frx8 c;
        frx8_canonical(&c, &x[i]);
        frx8_store(dst + i * stride, &c);
    }
}

/* --- column pass ---------------------------------------------------------------------- */

static void column_body_x8(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const ntt_column_pass *p = ctx;
    unsigned k = p->k, t_log = p->log_m - k;
    size_t rows = (size_t)1 << k;
    /* The scratch holds 2^k * 16 fr_t (ntt_column_scratch): the tile (2^k vectors of
     * 320 bytes) and the table's limbs (40 bytes an entry) fit, 64-byte aligned. */
    frx8 *tile = (frx8 *)(void *)(p->scratch + (size_t)worker * p->scratch_stride);
    limbs5 *tab = (limbs5 *)(void *)(tile + rows);
    unsigned ones = table_limbs(tab, p->dft_tab, k);
    fr_t beta[8], first;
    if (p->has_scale)
        first = p->scale;
    else
        fr_one(&first);
    limbs5 first_limbs;
    frx8_scalar_limbs(first_limbs.l, &first);

    for (size_t item = begin; item < end; item++) {
        size_t origin = ntt_column_item(p, item, beta);
        fr_t *base = p->x + origin;
        for (size_t r = 0; r < rows; r++)
            frx8_load(&tile[r], base + (r << t_log));
        if (!p->dit)
            rows_levels(tile, k, tab, ones, false);
        /* Row e (bit-reversed position) times scale * beta^e, lane by lane: the chain stays
         * below 2r (it starts canonical and the ratio is canonical). */
        frx8 acc, ratio;
        frx8_broadcast(&acc, first_limbs.l);
        frx8_load(&ratio, beta);
        for (size_t e = 0; e < rows; e++) {
            frx8 *row = &tile[ntt_bitrev(e, k)];
            frx8_mul(row, row, &acc);
            if (e + 1 < rows)
                frx8_mul(&acc, &acc, &ratio);
        }
        if (p->dit)
            rows_levels(tile, k, tab, ones, true);
        store_rows(base, (size_t)1 << t_log, tile, rows);
        if (p->epilogue)
            for (size_t r = 0; r < rows; r++)
                p->epilogue(p->epilogue_ctx, base + (r << t_log), origin + (r << t_log), 8);
    }
}

bool ntt_column_pass_run_x8(ntt_column_pass *p)
{
    if (ntt_column_cols_log(p) != 3 || NTT_TILE_COLS_LOG != 3)
        return false;
    size_t items = (size_t)1 << (p->log_n - p->k - 3);
    ntt_run_items(items, (size_t)1 << p->log_n, column_body_x8, p);
    return true;
}

/* --- leaf pass ------------------------------------------------------------------------ */

/* A stage table for a block: levels 4.. as vectors of 8 consecutive twiddles (level l's
 * 2^(l-4) vectors from vec[2^(l-4) - 1]), levels 1..3 as limbs for broadcasts. */
typedef struct {
    frx8 *vec;
    limbs5 low[7];
    unsigned ones;
} leaf_table;

static void leaf_table_build(leaf_table *t, const fr_t *tab, unsigned leaf)
{
    t->ones = table_limbs(t->low, tab, 3);
    for (unsigned l = 4; l <= leaf; l++) {
        size_t h = (size_t)1 << (l - 1);
        for (size_t j = 0; j < h / 8; j++)
            frx8_load(&t->vec[h / 8 - 1 + j], &tab[h - 1 + 8 * j]);
    }
}

typedef struct {
    const ntt_leaf_pass *p;
    leaf_table dif, dit;
    limbs5 scale;
    frx8 *blocks; /* per worker: 2^leaf / 8 vectors */
} leaf_x8;

/* Levels leaf..4 (DIF) or 4..leaf (DIT) of a block of `groups` vectors. */
static void lanes_levels(frx8 *v, size_t groups, unsigned leaf, const frx8 *tab, bool dit)
{
    for (unsigned i = 0; i + 3 < leaf; i++) {
        unsigned l = level_at(i, leaf - 3, dit) + 3;
        size_t hv = (size_t)1 << (l - 4);
        const frx8 *t = tab + hv - 1;
        for (size_t s = 0; s < groups; s += 2 * hv)
            for (size_t j = 0; j < hv; j++)
                butterfly(&v[s + j], &v[s + j + hv], &t[j], dit);
    }
}

static void leaf_body_x8(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const leaf_x8 *c = ctx;
    const ntt_leaf_pass *p = c->p;
    size_t len = (size_t)1 << p->leaf, groups = len / 8;
    frx8 *v = c->blocks + (size_t)worker * groups;
    frx8 scale;
    frx8_broadcast(&scale, c->scale.l);
    for (size_t blk = begin; blk < end; blk++) {
        fr_t *y = p->x + blk * len;
        for (size_t g = 0; g < groups; g++)
            frx8_load(&v[g], y + 8 * g);
        if (p->dif_tab)
            lanes_levels(v, groups, p->leaf, c->dif.vec, false);
        for (size_t g = 0; g < groups; g += 8) {
            frx8 *chunk = v + g;
            frx8_transpose(chunk);
            if (p->dif_tab)
                rows_levels(chunk, 3, c->dif.low, c->dif.ones, false);
            if (p->has_scale)
                for (int i = 0; i < 8; i++)
                    frx8_mul(&chunk[i], &chunk[i], &scale);
            if (p->dit_tab)
                rows_levels(chunk, 3, c->dit.low, c->dit.ones, true);
            frx8_transpose(chunk);
        }
        if (p->dit_tab)
            lanes_levels(v, groups, p->leaf, c->dit.vec, true);
        store_rows(y, 8, v, groups);
        if (p->epilogue)
            p->epilogue(p->epilogue_ctx, y, blk * len, len);
    }
}

bool ntt_leaf_pass_run_x8(ntt_leaf_pass *p)
{
    if (p->leaf < 6)
        return false;
    size_t groups = (size_t)1 << (p->leaf - 3), tab_vecs = groups - 1;
    size_t items = (size_t)1 << (p->log_n - p->leaf);
    /* Worker ids as ntt_run_items hands them out: 0 alone when it runs serially. */
    size_t workers =
        (size_t)1 << p->log_n < NTT_SERIAL_BELOW || items == 1 ? 1 : parallel_threads();
    size_t vecs = workers * groups + (p->dif_tab ? tab_vecs : 0) + (p->dit_tab ? tab_vecs : 0);
    frx8 *mem = aligned_alloc(64, vecs * sizeof(frx8));
    if (!mem)
        return false;
    leaf_x8 c = {.p = p, .blocks = mem};
    frx8 *next = mem + workers * groups;
    if (p->dif_tab) {
        c.dif.vec = next;
        next += tab_vecs;
        leaf_table_build(&c.dif, p->dif_tab, p->leaf);
    }
    if (p->dit_tab) {
        c.dit.vec = next;
        leaf_table_build(&c.dit, p->dit_tab, p->leaf);
    }
    if (p->has_scale)
        frx8_scalar_limbs(c.scale.l, &p->scale);
    ntt_run_items(items, (size_t)1 << p->log_n, leaf_body_x8, &c);
    free(mem);
    return true;
}
