/* The constraint system in its three modes (cs.h). */
#include "cs.h"
#include "cs_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"
#include "util/status.h"

g16_status cs_fail(cs_t *cs, g16_status status, const char *fmt, ...)
{
    if (cs->err)
        return cs->err;
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cs->err = status;
    /* The namespace path (setup and check modes) when there is one: the top level has none. */
    if (cs->mode == CS_PROVE || !cs->path[0])
        return status_fail(status, "circuit: %s", msg);
    return status_fail(status, "circuit: %s (at '%s')", msg, cs->path);
}

g16_status cs_create(cs_t **out, cs_mode mode, size_t n_public, const cs_prove_buffers *bufs)
{
    *out = NULL;
    if (mode != CS_SETUP && mode != CS_PROVE && mode != CS_CHECK)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "circuit: unknown mode %d", (int)mode);
    if (n_public >= UINT32_MAX / 2)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "circuit: %zu public inputs", n_public);
    if (mode == CS_PROVE &&
        (!bufs || !bufs->z || !bufs->a || !bufs->b || !bufs->c || bufs->z_cap < n_public + 1))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "circuit: PROVE mode needs z (at least %zu entries), a, b, c",
                           n_public + 1);
    cs_t *cs = calloc(1, sizeof *cs);
    if (!cs)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "circuit: cs");
    cs->mode = mode;
    cs->n_public = n_public;
    fr_one(&cs->pow2[0]);
    for (unsigned i = 1; i < 256; i++)
        fr_dbl(&cs->pow2[i], &cs->pow2[i - 1]);
    for (unsigned i = 0; i < 256; i++)
        fr_neg(&cs->neg_pow2[i], &cs->pow2[i]);

    if (mode == CS_PROVE) {
        cs->z = bufs->z;
        cs->z_cap = bufs->z_cap;
        cs->a = bufs->a;
        cs->b = bufs->b;
        cs->c = bufs->c;
        cs->abc_cap = bufs->abc_cap;
    } else {
        cs->z_cap = 1024 > n_public + 1 ? 1024 : n_public + 1;
        cs->z = malloc(cs->z_cap * sizeof *cs->z);
        if (!cs->z) {
            free(cs);
            return status_fail(G16_ERR_OUT_OF_MEMORY, "circuit: z");
        }
    }
    /* Public inputs not yet allocated read as zero. */
    fr_one(&cs->z[0]);
    for (size_t i = 1; i <= n_public; i++)
        fr_zero(&cs->z[i]);
    if (mode == CS_SETUP) {
        cs->rows_cap = 1024;
        for (int k = 0; k < 3; k++) {
            cs->row_start[k] = malloc(cs->rows_cap * sizeof *cs->row_start[k]);
            cs->terms_cap[k] = 4096;
            cs->terms[k] = malloc(cs->terms_cap[k] * sizeof *cs->terms[k]);
            if (!cs->row_start[k] || !cs->terms[k]) {
                cs_free(cs);
                return status_fail(G16_ERR_OUT_OF_MEMORY, "circuit: matrices");
            }
            cs->row_start[k][0] = 0;
        }
    }
    *out = cs;
    return G16_OK;
}

void cs_free(cs_t *cs)
{
    if (!cs)
        return;
    if (cs->mode != CS_PROVE)
        free(cs->z);
    for (int k = 0; k < 3; k++) {
        free(cs->row_start[k]);
        free(cs->terms[k]);
    }
    free(cs->density[0]);
    free(cs->density[1]);
    free(cs->names);
    free(cs->name_off);
    free(cs);
}

cs_mode cs_get_mode(const cs_t *cs) { return cs->mode; }
g16_status cs_status(const cs_t *cs) { return cs->err; }
size_t cs_num_vars(const cs_t *cs) { return 1 + cs->n_public + cs->n_aux; }
size_t cs_num_constraints(const cs_t *cs) { return cs->n_constraints; }
size_t cs_num_public(const cs_t *cs) { return cs->n_public; }
size_t cs_num_aux(const cs_t *cs) { return cs->n_aux; }
const uint64_t *cs_density_a(const cs_t *cs) { return cs->density[0]; }
const uint64_t *cs_density_b(const cs_t *cs) { return cs->density[1]; }
const fr_t *cs_pow2(const cs_t *cs, unsigned i) { return &cs->pow2[i & 255]; }
const fr_t *cs_neg_pow2(const cs_t *cs, unsigned i) { return &cs->neg_pow2[i & 255]; }

const fr_t *cs_value(const cs_t *cs, cs_var v)
{
    return v < cs_num_vars(cs) ? &cs->z[v] : &cs->z[0];
}

void cs_check_plant(cs_t *cs, cs_var wire, const fr_t *value)
{
    cs->planted = true;
    cs->plant_wire = wire;
    cs->plant_value = *value;
}

/* --- prefaulting ---------------------------------------------------------------------------- */

/* The first write to each fresh page of the growing arrays faults, and the kernel zeroes
 * the page on the faulting thread: in SETUP mode that was about two thirds of synthesis
 * time, all of it on the one synthesizing thread. Instead, when an array's writes reach
 * the end of what is faulted in, the pool touches the next PREFAULT_STEP bytes (within
 * its capacity) in parallel. At most one step per array is faulted in ahead of use; the
 * arrays only grow, and realloc keeps the pages it moves (or copies what it had), so the
 * touched prefix stays touched. */
enum { PREFAULT_STEP = 32 << 20, PREFAULT_MIN = 2 << 20, PREFAULT_PAGE = 4096 };

static void touch_pages(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    volatile uint8_t *base = ctx;
    for (size_t i = begin; i < end; i++)
        base[i * PREFAULT_PAGE] = 0; /* unused capacity: its contents do not matter */
}

/* p holds cap bytes of which need are about to be written and *touched are faulted in. */
static void prefault(void *p, size_t *touched, size_t need, size_t cap)
{
    if (need <= *touched)
        return;
    size_t to = *touched + PREFAULT_STEP;
    if (to < need)
        to = need;
    if (to > cap)
        to = cap;
    /* Small arrays are not worth the pool's wake-up: their own writes fault them in. */
    if (to - *touched >= PREFAULT_MIN)
        parallel_for((to - *touched) / PREFAULT_PAGE, 64, touch_pages, (uint8_t *)p + *touched);
    *touched = to;
}

/* --- variables ------------------------------------------------------------------------------ */

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

/* SETUP: density bits for n_aux private variables, the new ones clear. */
static bool grow_density(cs_t *cs, size_t n_aux)
{
    size_t words = (n_aux + 63) / 64;
    if (words <= cs->density_words)
        return true;
    size_t cap = cs->density_words ? cs->density_words * 2 : 64;
    while (cap < words)
        cap *= 2;
    for (int k = 0; k < 2; k++) {
        uint64_t *d = realloc(cs->density[k], cap * sizeof *d);
        if (!d) {
            cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "density of %zu words", cap);
            return false;
        }
        memset(d + cs->density_words, 0, (cap - cs->density_words) * sizeof *d);
        cs->density[k] = d;
    }
    cs->density_words = cap;
    return true;
}

/* SETUP: room for n rows (row_start has n + 1 entries). */
static bool grow_rows(cs_t *cs, size_t n)
{
    if (n + 1 <= cs->rows_cap)
        return true;
    size_t cap = cs->rows_cap * 2;
    while (cap < n + 1)
        cap *= 2;
    for (int k = 0; k < 3; k++) {
        size_t *p = realloc(cs->row_start[k], cap * sizeof *p);
        if (!p) {
            cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "%zu rows", cap);
            return false;
        }
        cs->row_start[k] = p;
    }
    cs->rows_cap = cap;
    return true;
}

static void set_value(cs_t *cs, cs_var w, const fr_t *value)
{
    if (cs->mode == CS_CHECK && cs->planted && cs->plant_wire == w)
        cs->z[w] = cs->plant_value;
    else if (value)
        cs->z[w] = *value;
    else
        fr_zero(&cs->z[w]);
}

cs_var cs_alloc(cs_t *cs, const fr_t *value)
{
    if (cs->err)
        return CS_ONE;
    size_t w = cs_num_vars(cs);
    if (w >= UINT32_MAX) {
        cs_fail(cs, G16_ERR_UNSUPPORTED, "more than 2^32 wires");
        return CS_ONE;
    }
    if (cs->mode == CS_PROVE) {
        if (w >= cs->z_cap) {
            cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "z buffer of %zu entries is too small",
                    cs->z_cap);
            return CS_ONE;
        }
    } else if (!grow((void **)&cs->z, &cs->z_cap, w + 1, sizeof *cs->z)) {
        cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "z of %zu entries", w + 1);
        return CS_ONE;
    } else {
        prefault(cs->z, &cs->z_touched, (w + 1) * sizeof *cs->z, cs->z_cap * sizeof *cs->z);
    }
    if (cs->mode == CS_SETUP && !grow_density(cs, cs->n_aux + 1))
        return CS_ONE;
    cs->n_aux++;
    set_value(cs, (cs_var)w, value);
    return (cs_var)w;
}

cs_var cs_alloc_public(cs_t *cs, const fr_t *value)
{
    if (cs->err)
        return CS_ONE;
    if (cs->n_public_alloc >= cs->n_public) {
        cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "more than the %zu declared public inputs",
                cs->n_public);
        return CS_ONE;
    }
    cs_var w = (cs_var)(1 + cs->n_public_alloc++);
    set_value(cs, w, value);
    return w;
}

/* --- linear combinations ------------------------------------------------------------------- */

void cs_lc_init(cs_lc *lc, cs_t *cs, lc_term *storage, uint32_t cap)
{
    lc->cs = cs;
    lc->terms = storage;
    lc->n = 0;
    lc->cap = cap;
    fr_zero(&lc->value);
    memset(lc->seen, 0, sizeof lc->seen);
}

void cs_lc_add(cs_lc *lc, cs_var v, const fr_t *coeff)
{
    cs_t *cs = lc->cs;
    if (v >= cs_num_vars(cs)) {
        cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "wire %u does not exist", v);
        return;
    }
    if (cs->mode != CS_SETUP) {
        /* Witness values are mostly 0 or 1 (bits): skip the product for those. */
        const fr_t *x = cs_value(cs, v);
        if (fr_is_zero(x))
            return;
        if (fr_is_one(x)) {
            fr_add(&lc->value, &lc->value, coeff);
            return;
        }
        fr_t t;
        fr_mul(&t, coeff, x);
        fr_add(&lc->value, &lc->value, &t);
        return;
    }
    /* LCs are short (at most a few hundred terms): a linear scan merges repeats. The scan
     * made SETUP synthesis quadratic in the operands of word additions (192 bit terms),
     * so it runs only when the wire's filter bit says it may be there. Words are runs of
     * consecutive wires, which fall on distinct bits. */
    uint64_t bit = 1ull << (v % 64);
    if (lc->seen[(v / 64) % 4] & bit) {
        for (uint32_t i = 0; i < lc->n; i++) {
            if (lc->terms[i].wire == v) {
                fr_add(&lc->terms[i].coeff, &lc->terms[i].coeff, coeff);
                return;
            }
        }
    }
    if (lc->n == lc->cap) {
        cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "linear combination over its %u terms", lc->cap);
        return;
    }
    lc->terms[lc->n].wire = v;
    lc->terms[lc->n].coeff = *coeff;
    lc->n++;
    lc->seen[(v / 64) % 4] |= bit;
}

void cs_lc_add_var(cs_lc *lc, cs_var v) { cs_lc_add(lc, v, &lc->cs->pow2[0]); }
void cs_lc_sub_var(cs_lc *lc, cs_var v) { cs_lc_add(lc, v, &lc->cs->neg_pow2[0]); }

void cs_lc_add_lc(cs_lc *lc, const cs_lc *other)
{
    if (lc->cs->mode != CS_SETUP) {
        fr_add(&lc->value, &lc->value, &other->value);
        return;
    }
    for (uint32_t i = 0; i < other->n; i++)
        cs_lc_add(lc, other->terms[i].wire, &other->terms[i].coeff);
}

/* --- constraints ------------------------------------------------------------------------------ */

static void append_row(cs_t *cs, int k, const cs_lc *lc)
{
    size_t need = cs->n_terms[k] + lc->n;
    if (!grow((void **)&cs->terms[k], &cs->terms_cap[k], need, sizeof *cs->terms[k])) {
        cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "%zu terms in matrix %c", need, "ABC"[k]);
        return;
    }
    prefault(cs->terms[k], &cs->terms_touched[k], need * sizeof *cs->terms[k],
             cs->terms_cap[k] * sizeof *cs->terms[k]);
    prefault(cs->row_start[k], &cs->rows_touched[k],
             (cs->n_constraints + 2) * sizeof *cs->row_start[k],
             cs->rows_cap * sizeof *cs->row_start[k]);
    size_t first_aux = 1 + cs->n_public;
    for (uint32_t i = 0; i < lc->n; i++) {
        const lc_term *t = &lc->terms[i];
        if (fr_is_zero(&t->coeff))
            continue; /* cancelled while merging */
        cs->terms[k][cs->n_terms[k]++] = *t;
        if (k < 2 && t->wire >= first_aux) {
            size_t j = t->wire - first_aux;
            cs->density[k][j / 64] |= 1ull << (j % 64);
        }
    }
    cs->row_start[k][cs->n_constraints + 1] = cs->n_terms[k];
}

/* "path/name": the namespace path, then the constraint's own formatted name. */
static void format_name(const cs_t *cs, char *out, size_t size, const char *fmt, va_list ap)
{
    int n = snprintf(out, size, "%s%s", cs->path, cs->path_len ? "/" : "");
    if (n >= 0 && (size_t)n < size)
        vsnprintf(out + n, size - (size_t)n, fmt, ap);
}

void cs_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c, const char *fmt, ...)
{
    if (cs->err)
        return;
    size_t i = cs->n_constraints;
    switch (cs->mode) {
    case CS_PROVE:
        if (i >= cs->abc_cap) {
            cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "a, b, c buffers of %zu entries are too small",
                    cs->abc_cap);
            return;
        }
        cs->a[i] = a->value;
        cs->b[i] = b->value;
        cs->c[i] = c->value;
        break;
    case CS_CHECK:
        if (!cs->failed) {
            fr_t ab;
            fr_mul(&ab, &a->value, &b->value);
            if (!fr_equal(&ab, &c->value)) {
                cs->failed = true;
                cs->fail_index = i;
                va_list ap;
                va_start(ap, fmt);
                format_name(cs, cs->fail_name, sizeof cs->fail_name, fmt, ap);
                va_end(ap);
            }
        }
        break;
    case CS_SETUP:
        if (!grow_rows(cs, i + 1))
            return;
        append_row(cs, 0, a);
        append_row(cs, 1, b);
        append_row(cs, 2, c);
        if (cs->err)
            return;
        break;
    }
    if (cs->keep_names) {
        char name[sizeof cs->fail_name];
        va_list ap;
        va_start(ap, fmt);
        format_name(cs, name, sizeof name, fmt, ap);
        va_end(ap);
        size_t len = strlen(name) + 1;
        if (!grow((void **)&cs->names, &cs->names_cap, cs->names_len + len, 1) ||
            !grow((void **)&cs->name_off, &cs->name_off_cap, i + 1, sizeof(size_t))) {
            cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "constraint names");
            return;
        }
        memcpy(cs->names + cs->names_len, name, len);
        cs->name_off[i] = cs->names_len;
        cs->names_len += len;
    }
    cs->n_constraints++;
}

static void mark_touched(size_t *touched, size_t bytes)
{
    if (*touched < bytes)
        *touched = bytes;
}

bool cs_setup_reserve(cs_t *cs, size_t n_rows, size_t n_wires, const size_t n_terms[3],
                      size_t *row, size_t *wire, size_t term[3])
{
    if (cs->err)
        return false;
    if (cs->mode != CS_SETUP || cs->keep_names) {
        cs_fail(cs, G16_ERR_INTERNAL, "reserving rows outside SETUP mode or with names kept");
        return false;
    }
    size_t w = cs_num_vars(cs);
    if (n_wires >= UINT32_MAX - w) {
        cs_fail(cs, G16_ERR_UNSUPPORTED, "more than 2^32 wires");
        return false;
    }
    if (!grow((void **)&cs->z, &cs->z_cap, w + n_wires, sizeof *cs->z)) {
        cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "z of %zu entries", w + n_wires);
        return false;
    }
    if (!grow_density(cs, cs->n_aux + n_wires) || !grow_rows(cs, cs->n_constraints + n_rows))
        return false;
    for (int k = 0; k < 3; k++) {
        size_t need = cs->n_terms[k] + n_terms[k];
        if (!grow((void **)&cs->terms[k], &cs->terms_cap[k], need, sizeof *cs->terms[k])) {
            cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "%zu terms in matrix %c", need, "ABC"[k]);
            return false;
        }
    }
    /* The reserved ranges count as faulted in: a prefault writes its zero bytes from the
     * touched mark up, and one that did so inside a range after the range was filled
     * would corrupt it. What the pool has not touched the fill faults in, on the filling
     * threads. Below a range everything was written or touched, so the mark still
     * covers only memory that was. */
    mark_touched(&cs->z_touched, (w + n_wires) * sizeof *cs->z);
    for (int k = 0; k < 3; k++) {
        mark_touched(&cs->rows_touched[k],
                     (cs->n_constraints + n_rows + 1) * sizeof *cs->row_start[k]);
        mark_touched(&cs->terms_touched[k], (cs->n_terms[k] + n_terms[k]) * sizeof *cs->terms[k]);
    }
    *row = cs->n_constraints;
    *wire = w;
    for (int k = 0; k < 3; k++) {
        term[k] = cs->n_terms[k];
        cs->n_terms[k] += n_terms[k];
    }
    cs->n_constraints += n_rows;
    cs->n_aux += n_wires;
    return true;
}

void cs_keep_names(cs_t *cs)
{
    if (cs->mode != CS_PROVE && cs->n_constraints == 0)
        cs->keep_names = true;
}

const char *cs_constraint_name(const cs_t *cs, size_t i)
{
    return cs->keep_names && i < cs->n_constraints ? cs->names + cs->name_off[i] : NULL;
}

/* --- namespaces --------------------------------------------------------------------------------- */

void cs_push(cs_t *cs, const char *fmt, ...)
{
    if (cs->depth < CS_DEPTH_MAX)
        cs->marks[cs->depth] = cs->path_len;
    cs->depth++;
    if (cs->mode == CS_PROVE || cs->depth > CS_DEPTH_MAX)
        return;
    size_t len = cs->path_len;
    if (len && len + 1 < CS_PATH_MAX)
        cs->path[len++] = '/';
    if (len + 1 >= CS_PATH_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cs->path + len, CS_PATH_MAX - len, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    len += (size_t)n;
    cs->path_len = len < CS_PATH_MAX ? len : CS_PATH_MAX - 1;
}

void cs_pop(cs_t *cs)
{
    if (cs->depth == 0) {
        cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "cs_pop without cs_push");
        return;
    }
    cs->depth--;
    if (cs->depth < CS_DEPTH_MAX && cs->mode != CS_PROVE) {
        cs->path_len = cs->marks[cs->depth];
        cs->path[cs->path_len] = 0;
    }
}

/* --- results ------------------------------------------------------------------------------------ */

g16_status cs_synthesize(cs_t *cs, cs_circuit_fn circuit, const void *params)
{
    g16_status st = circuit(cs, params);
    if (st)
        return cs->err ? cs->err : st;
    if (cs->err)
        return cs->err;
    if (cs->depth)
        return cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "%u namespaces left open", cs->depth);
    if (cs->n_public_alloc != cs->n_public)
        return cs_fail(cs, G16_ERR_INVALID_ARGUMENT, "%zu of %zu public inputs allocated",
                       cs->n_public_alloc, cs->n_public);
    if (cs->mode == CS_CHECK && cs->failed)
        return status_fail(G16_ERR_VERIFY_FAILED, "circuit: constraint %zu '%s' is not satisfied",
                           cs->fail_index, cs->fail_name);
    return G16_OK;
}

g16_status cs_take_matrices(cs_t *cs, constraint_matrices *out)
{
    memset(out, 0, sizeof *out);
    if (cs->mode != CS_SETUP)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "circuit: matrices exist in SETUP mode only");
    if (cs->err)
        return cs->err;
    out->n_vars = cs_num_vars(cs);
    out->n_public = cs->n_public;
    out->n_constraints = cs->n_constraints;
    for (int k = 0; k < 3; k++) {
        out->row_start[k] = cs->row_start[k];
        out->terms[k] = cs->terms[k];
        cs->row_start[k] = NULL;
        cs->terms[k] = NULL;
    }
    /* The cs can record nothing more. */
    cs->err = G16_ERR_INVALID_ARGUMENT;
    return G16_OK;
}

const char *cs_check_failure(const cs_t *cs, size_t *index)
{
    if (!cs->failed)
        return NULL;
    if (index)
        *index = cs->fail_index;
    return cs->fail_name;
}
