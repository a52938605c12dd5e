/* A Filecoin-like synthetic workload: a native circuit of any size from 2^10 to 2^27
 * constraints whose shape resembles a PoRep C2 partition (SHA-256 heavy; A-aux density near
 * 100%, B-aux near a quarter, almost every witness value 0 or 1), for benchmarks and tests at
 * scales where .r1cs/.zkey files would be tens of gigabytes.
 *
 * The circuit is a labelling chain. Base words come from the partition's data (private, from
 * the seed) and from the public challenges (64-bit public inputs, decomposed into bits). Each
 * label is a SHA-256 compression (synthetic_sha256_compress) whose state is the previous label and whose block is two
 * "parent" nodes (earlier labels or base nodes); every label is packed into two field
 * elements and folded into a running sum, and the last public input commits to that sum.
 * When no further full compression fits, truncated compressions (SHA-256 rounds without the
 * message schedule) and then one-constraint XOR steps fill the budget, so the circuit lands
 * within a few hundred constraints of its target.
 *
 * Why the parents come from a fixed graph seed and not from the partition seed: one proving
 * key serves every partition, so the matrices must be a function of (n_constraints, n_public)
 * alone. As in Filecoin, where the DRG is fixed per PoRep id and each partition differs only
 * in data and challenges, the partition seed changes the witness and never the structure.
 *
 * SETUP mode replays one recorded full compression (cs_block.h) for every label whose
 * inputs are distinct wires, writing the copies on every thread of the pool; the rest run
 * the gadgets. The matrices are the same either way (tests/test_cs_block.c), and the
 * wires inside a replayed compression read as zero in cs_value (SETUP values are dummies;
 * the labels' bits still carry their values, so the commitment is the same).
 *
 * Constraint count: n_constraints - n_public - 1 at most (and at least 97% of the target),
 * so that with the n_public + 1 rows a Groth16 setup adds for the inputs, a target of 2^k
 * still fits a domain of 2^k, as Filecoin's 130.3 M constraints fit 2^27.
 */
#ifndef G16_CIRCUIT_SYNTHETIC_H
#define G16_CIRCUIT_SYNTHETIC_H

#include <stdint.h>
#include <stdio.h>

#include "gadgets.h"

#define SYNTHETIC_MIN_CONSTRAINTS ((size_t)1 << 10)
#define SYNTHETIC_MAX_CONSTRAINTS ((size_t)1 << 27)

typedef struct {
    size_t n_constraints; /* target N, SYNTHETIC_MIN .. SYNTHETIC_MAX_CONSTRAINTS */
    size_t n_public;      /* >= 1: n_public - 1 challenges, then the commitment */
    uint64_t seed;        /* per partition: data and challenges */
    fr_t *commitment;     /* optional out: the last public input's value */
} synthetic_params;

/* The circuit for cs_synthesize: params is a synthetic_params, and the cs must have been
 * created with the same n_public. Returns G16_ERR_INVALID_ARGUMENT (with a message) when
 * the target is out of range or too small for the requested public inputs. Namespaces:
 * "challenge %zu", "data", "label %zu" (full compressions), "tail %zu"
 * (truncated compressions, "round %u/..."), "glue %zu", "filler", "commitment". */
g16_status synthetic_circuit(cs_t *cs, const void *params);

/* SHA-256 compression, out := compress(state, block), as cs_sha256_compress (sha256.h) and
 * at the same cost, with MAJ as (a xor b) ? c : a so that every wire it creates is used in
 * A: the full compressions of the synthetic circuit then have PoRep's densities. Paths
 * "schedule/w %u", "round %u/{S1,ch,S0,maj,e,a}/...", "final %u". */
void synthetic_sha256_compress(cs_t *cs, cs_word out[8], const cs_word state[8],
                               const cs_word block[16]);

/* The value of challenge i (< n_public - 1): the public input on wire 1 + i. */
uint64_t synthetic_challenge(uint64_t seed, size_t i);

/* The shape of one synthesized partition. */
typedef struct {
    size_t n_aux, n_constraints;
    size_t in_a, in_b;          /* private variables with a nonzero coefficient in A, in B */
    double density_a, density_b; /* in_a / n_aux, in_b / n_aux */
    size_t zeros, ones, others;  /* private witness values: 0, 1, anything else */
    double share_0, share_1, share_other;
} synthetic_stats;

/* Densities from a SETUP cs after cs_synthesize (before or after cs_take_matrices). */
void synthetic_stats_density(synthetic_stats *s, const cs_t *setup_cs);
/* Witness shares from a PROVE assignment z (z[0] the one wire, then n_public inputs, then
 * the private values up to n_vars). */
void synthetic_stats_witness(synthetic_stats *s, const fr_t *z, size_t n_vars, size_t n_public);
void synthetic_stats_print(FILE *f, const synthetic_stats *s);

#endif
