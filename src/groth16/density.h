/* Density of the A and B queries: which wires have a point in a density-compressed
 * proving key, as bellperson stores its keys.
 *
 * A wire absent from every row of A has A_j(tau) = 0, so its A point is infinity and adds
 * nothing to A.z; the same holds for B1 and B2 with B. A compressed key stores the A points
 * only for the wires marked in the A bitmap, and B1, B2 only for those marked in the B
 * bitmap, in wire order; the prover gathers the matching witness entries and runs its MSMs
 * over those alone. For a Filecoin-like circuit (B-aux density ~25%) B1 and B2 shrink by
 * three quarters, and so do their MSMs.
 *
 * A bitmap covers every wire, the constant one and the public inputs included: bit j of
 * bits[j / 64] is wire j; the bits past n_wires in the last word are zero. The Groth16
 * setup in the snarkjs layout marks wires 0..n_public in A always (their extra rows), and
 * marks a wire in B when some row of B holds it. Any superset of the wires with a nonzero
 * column gives the same proofs; the setup's is the structural one (a term present). */
#ifndef G16_GROTH16_DENSITY_H
#define G16_GROTH16_DENSITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "g16.h"

/* Words of a bitmap over n_wires wires. */
static inline size_t density_words(size_t n_wires) { return (n_wires + 63) / 64; }

static inline bool density_has(const uint64_t *bits, size_t wire)
{
    return (bits[wire / 64] >> (wire % 64)) & 1;
}

static inline void density_set(uint64_t *bits, size_t wire)
{
    bits[wire / 64] |= (uint64_t)1 << (wire % 64);
}

/* Marked wires in [begin, end). */
size_t density_count(const uint64_t *bits, size_t begin, size_t end);

/* true iff no bit at or past n_wires is set in the last word. */
bool density_tail_clear(const uint64_t *bits, size_t n_wires);

/* out[0..count) = the 32-byte elements in[j] (fr_t, or canonical scalar bytes: the copy
 * does not look inside) of the marked wires j < n_wires, in wire order; count is
 * density_count(bits, 0, n_wires). On every thread of the pool. */
void density_gather(void *out, const void *in, const uint64_t *bits, size_t n_wires);

#endif
