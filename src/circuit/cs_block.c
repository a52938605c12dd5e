/* Recorded blocks replayed in SETUP mode (cs_block.h). */
#include "cs_block.h"

#include <stdlib.h>
#include <string.h>

#include "cs_internal.h"
#include "groth16/density.h"
#include "util/status.h"

bool cs_block_usable(const cs_t *cs)
{
    return cs->mode == CS_SETUP && !cs->keep_names && !cs->err && !cs->no_replay;
}

void cs_block_allow(cs_t *cs, bool allow) { cs->no_replay = !allow; }

/* --- recording ------------------------------------------------------------------------------ */

g16_status cs_block_begin(cs_block *b, cs_t **rec, size_t n_inputs)
{
    memset(b, 0, sizeof *b);
    b->n_inputs = n_inputs;
    g16_status st = cs_create(rec, CS_SETUP, 0, NULL);
    for (size_t i = 0; st == G16_OK && i < n_inputs; i++)
        if (cs_alloc(*rec, NULL) == CS_ONE)
            st = cs_status(*rec);
    if (st) {
        cs_free(*rec);
        *rec = NULL;
    }
    return st;
}

static void mark(uint64_t *bits, size_t i) { bits[i / 64] |= 1ull << (i % 64); }

g16_status cs_block_end(cs_block *b, cs_t *rec)
{
    size_t n_inputs = b->n_inputs;
    memset(b, 0, sizeof *b);
    g16_status st = cs_take_matrices(rec, &b->m);
    cs_free(rec);
    if (st)
        return st;
    b->n_inputs = n_inputs;
    b->n_wires = b->m.n_vars - 1 - n_inputs;
    for (int k = 0; k < 3; k++)
        b->n_terms[k] = b->m.row_start[k][b->m.n_constraints];
    for (int k = 0; k < 2; k++) {
        b->own_density[k] = calloc(density_words(b->n_wires) + 1, sizeof(uint64_t));
        b->input_density[k] = calloc(density_words(n_inputs) + 1, sizeof(uint64_t));
        if (!b->own_density[k] || !b->input_density[k]) {
            cs_block_free(b);
            return status_fail(G16_ERR_OUT_OF_MEMORY, "circuit: a block's densities");
        }
        /* The recording merged repeats and dropped cancelled terms: every term counts. */
        for (size_t t = 0; t < b->n_terms[k]; t++) {
            cs_var w = b->m.terms[k][t].wire;
            if (w == CS_ONE)
                continue;
            if (w <= n_inputs)
                mark(b->input_density[k], w - 1);
            else
                mark(b->own_density[k], w - 1 - n_inputs);
        }
    }
    return G16_OK;
}

void cs_block_free(cs_block *b)
{
    constraint_matrices_free(&b->m);
    for (int k = 0; k < 2; k++) {
        free(b->own_density[k]);
        free(b->input_density[k]);
    }
    memset(b, 0, sizeof *b);
}

/* --- copies --------------------------------------------------------------------------------- */

bool cs_block_reserve(cs_t *cs, const cs_block *b, cs_block_span *span)
{
    if (!cs_setup_reserve(cs, b->m.n_constraints, b->n_wires, b->n_terms, &span->row,
                          &span->wire, span->term))
        return false;
    cs->n_block_copies++;
    return true;
}

size_t cs_block_copies(const cs_t *cs) { return cs->n_block_copies; }

/* Copies at distinct spans share density words: at their ends, and wherever their inputs
 * are the same wires or another copy's own. */
static void or_bits(uint64_t *word, uint64_t bits)
{
    if (bits)
        __atomic_fetch_or(word, bits, __ATOMIC_RELAXED);
}

/* dst bits [at, at + n) |= src bits [0, n); src is clear beyond n. */
static void or_shifted(uint64_t *dst, size_t at, const uint64_t *src, size_t n)
{
    uint64_t *d = dst + at / 64;
    unsigned shift = at % 64;
    for (size_t i = 0; i < density_words(n); i++) {
        or_bits(&d[i], src[i] << shift);
        if (shift)
            or_bits(&d[i + 1], src[i] >> (64 - shift)); /* nonzero only for bits below n */
    }
}

void cs_block_fill(cs_t *cs, const cs_block *b, const cs_block_span *span, const cs_var *inputs)
{
    size_t n_rows = b->m.n_constraints;
    for (int k = 0; k < 3; k++) {
        /* row_start[k][span->row] is the previous row's end, written before. */
        const size_t *from = b->m.row_start[k];
        size_t *to = cs->row_start[k] + span->row;
        for (size_t r = 1; r <= n_rows; r++)
            to[r] = span->term[k] + from[r];
        const lc_term *src = b->m.terms[k];
        lc_term *dst = cs->terms[k] + span->term[k];
        for (size_t t = 0; t < b->n_terms[k]; t++) {
            dst[t].wire = cs_block_wire(b, span, inputs, src[t].wire);
            dst[t].coeff = src[t].coeff;
        }
    }
    size_t first_aux = 1 + cs->n_public;
    for (int k = 0; k < 2; k++) {
        or_shifted(cs->density[k], span->wire - first_aux, b->own_density[k], b->n_wires);
        for (size_t i = 0; i < b->n_inputs; i++)
            if ((b->input_density[k][i / 64] >> (i % 64) & 1) && inputs[i] >= first_aux)
                or_bits(&cs->density[k][(inputs[i] - first_aux) / 64],
                        1ull << ((inputs[i] - first_aux) % 64));
    }
    /* Zero is all-zero limbs in Montgomery form. */
    memset(cs->z + span->wire, 0, b->n_wires * sizeof *cs->z);
}

/* --- distinct inputs ------------------------------------------------------------------------ */

typedef struct {
    cs_var first, last;
} wire_run;

static int run_order(const void *x, const void *y)
{
    const wire_run *a = x, *b = y;
    return (a->first > b->first) - (a->first < b->first);
}

bool cs_vars_distinct(const cs_var *v, size_t n)
{
    if (n < 2)
        return true;
    size_t n_runs = 1;
    for (size_t i = 1; i < n; i++)
        n_runs += (uint64_t)v[i - 1] + 1 != v[i];
    wire_run local[128];
    wire_run *runs = n_runs <= 128 ? local : malloc(n_runs * sizeof *runs);
    if (!runs)
        return false; /* the caller runs its gadgets, which is always right */
    size_t r = 0;
    runs[0] = (wire_run){v[0], v[0]};
    for (size_t i = 1; i < n; i++) {
        if ((uint64_t)v[i - 1] + 1 == v[i])
            runs[r].last = v[i];
        else
            runs[++r] = (wire_run){v[i], v[i]};
    }
    qsort(runs, n_runs, sizeof *runs, run_order);
    bool distinct = true;
    for (size_t i = 1; i < n_runs && distinct; i++)
        distinct = runs[i].first > runs[i - 1].last;
    if (runs != local)
        free(runs);
    return distinct;
}
