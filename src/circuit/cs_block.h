/* Recorded blocks of constraints, replayed in SETUP mode with their wires relocated.
 *
 * A circuit that repeats one piece many times (the synthetic circuit's SHA-256
 * compressions: 26k constraints each, thousands of them) spends its SETUP synthesis
 * running the same gadgets over and over on one thread. A block is that piece recorded
 * once on a scratch cs whose inputs are fresh wires 1..n_inputs; each copy then reserves
 * its rows, wires and terms at the end of the real cs (cs_block_reserve, serial and
 * cheap), and the copies are written later, in parallel (cs_block_fill), with every wire
 * relocated: 0 stays the one wire, input i becomes the copy's inputs[i], and the block's
 * own wires become the copy's consecutive new wires.
 *
 * When a copy is identical to running the gadgets: gadgets decide what to emit from the
 * kinds of their operands (constant, wire, negated wire) and from which wires are equal
 * (x xor x folds to a constant, a repeated wire in a linear combination merges into one
 * term), never from wire numbers or (in SETUP) values. So a copy whose inputs have the
 * kinds the block was recorded with and are pairwise distinct wires (cs_vars_distinct)
 * yields exactly the rows the gadgets would; one whose inputs repeat a wire must run the
 * gadgets instead. Values of a block's own wires are not computed: cs_value reads zero
 * for them (SETUP values are dummies, cs.h), so a circuit that needs a copy's outputs'
 * values computes them itself.
 *
 * Copies leave no constraint names, so they are for SETUP without cs_keep_names
 * (cs_block_usable). */
#ifndef G16_CIRCUIT_CS_BLOCK_H
#define G16_CIRCUIT_CS_BLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "cs.h"

typedef struct {
    constraint_matrices m; /* wire 0 one, 1..n_inputs the inputs, then the block's own */
    size_t n_inputs, n_wires; /* n_wires: the block's own wires */
    size_t n_terms[3];
    /* Bits over the block's own wires (A, B), and over its inputs (A, B): where a term
     * with a nonzero coefficient puts the wire in the cs's densities. */
    uint64_t *own_density[2], *input_density[2];
} cs_block;

/* Where one copy lives in the real cs. */
typedef struct {
    size_t row, wire, term[3];
} cs_block_span;

/* Whether cs takes copies: SETUP mode, names not kept, no error, replay not turned off. */
bool cs_block_usable(const cs_t *cs);
/* For tests: allow (the default) or forbid copies in cs, so that a circuit runs its
 * gadgets everywhere and the two results can be compared. */
void cs_block_allow(cs_t *cs, bool allow);

/* Recording: clears b and makes *rec a fresh SETUP cs with no public inputs whose wires
 * 1..n_inputs are allocated (value zero) to serve as the block's inputs; run the block's
 * gadgets on rec, then cs_block_end takes its rows into b and frees rec. Both return
 * G16_OK or the recording's first error; after an error b is empty and, from
 * cs_block_begin, *rec is NULL (nothing to end). */
g16_status cs_block_begin(cs_block *b, cs_t **rec, size_t n_inputs);
g16_status cs_block_end(cs_block *b, cs_t *rec);
void cs_block_free(cs_block *b);

/* The wire that the block's wire w (0, an input, or its own) becomes in the copy at span
 * with inputs. */
static inline cs_var cs_block_wire(const cs_block *b, const cs_block_span *span,
                                   const cs_var *inputs, cs_var w)
{
    if (w == CS_ONE)
        return CS_ONE;
    if (w <= b->n_inputs)
        return inputs[w - 1];
    return (cs_var)(span->wire + (w - 1 - b->n_inputs));
}

/* Appends a copy's rows and wires to cs, unwritten, and returns where they are. Serial
 * (like every call that adds to cs). Returns false when cs has failed (out of memory: the
 * error is cs's, sticky). */
bool cs_block_reserve(cs_t *cs, const cs_block *b, cs_block_span *span);
/* Copies reserved in cs so far (for tests: that a circuit did replay). */
size_t cs_block_copies(const cs_t *cs);

/* Writes the copy at span: its rows with wires relocated, the densities of its own wires
 * and of its inputs, zero values for its own wires. Copies at distinct spans may be
 * written concurrently (densities are set with atomic ORs), but not while any other call
 * adds to cs, and all before cs_take_matrices. */
void cs_block_fill(cs_t *cs, const cs_block *b, const cs_block_span *span,
                   const cs_var *inputs);

/* Whether the n wires are pairwise distinct. Cheap for runs of consecutive wires (words,
 * as gadgets allocate them): O(runs log runs). */
bool cs_vars_distinct(const cs_var *v, size_t n);

#endif
