/* The constraint system for native C circuits: one circuit function, written once, runs in
 * three modes chosen when the cs is created.
 *
 *   CS_SETUP  collects the sparse A, B, C matrices (a constraint_matrices, as the
 *             development setup consumes them) and the A/B density of private variables.
 *   CS_PROVE  writes the assignment z and the evaluations a_i = <A_i,z>, b_i = <B_i,z>,
 *             c_i = <C_i,z> straight into caller-provided buffers. Nothing is allocated
 *             per constraint or per variable; linear combinations keep only their value.
 *   CS_CHECK  evaluates every constraint and remembers the first unsatisfied one by its
 *             namespaced name ("sha256/round 17/maj/bit 3").
 *
 * Wires: 0 is the constant one; 1..n_public are the public inputs, numbered in the order
 * they are allocated; private variables follow from n_public + 1. The number of public
 * inputs is declared when the cs is created, so a circuit may allocate a public input at
 * any point (a digest computed at the end, say) and still give it a low wire number, and
 * PROVE mode can place every private variable at its final index at once.
 *
 * Witness values are computed by the circuit itself and passed to the allocators in every
 * mode (in SETUP they may be dummies, but gadgets still derive bits from them, so they must
 * be in range). Errors are sticky: after the first failure (a linear combination over
 * capacity, a buffer too small, too many public inputs) every later call is a no-op and
 * cs_synthesize returns the first error, so circuit code need not test each call.
 *
 * A circuit that repeats one block of gadgets many times may, in SETUP mode, record it
 * once and replay its rows with the wires relocated, on every thread (cs_block.h); the
 * matrices are the ones its gadgets would give.
 *
 * Why a private header (src/circuit) and not include/g16_circuit.h yet: circuits handle
 * fr_t coefficients and produce constraint_matrices, both internal types today. The public
 * header should come with an opaque scalar type and the native key format (issue 4).
 */
#ifndef G16_CIRCUIT_CS_H
#define G16_CIRCUIT_CS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "g16.h"
#include "groth16/setup.h"

typedef uint32_t cs_var;
#define CS_ONE ((cs_var)0)

typedef enum { CS_SETUP, CS_PROVE, CS_CHECK } cs_mode;

typedef struct cs cs_t;

/* A linear combination sum(coeff * z[wire]) over caller-provided term storage (usually a
 * stack array: see CS_LC). In SETUP mode the terms are kept, with repeated wires merged;
 * in PROVE and CHECK modes only the value is kept and the storage is never touched. Adding
 * more distinct wires than cap marks the cs failed (the enforce that uses it reports it). */
typedef struct {
    cs_t *cs;
    lc_term *terms;
    uint32_t n, cap;
    fr_t value; /* <lc, z>, maintained in PROVE and CHECK modes */
    /* SETUP: bit (wire mod 256) is set for every wire among the terms, so that adding a
     * wire whose bit is clear needs no search for a repeat. */
    uint64_t seen[4];
} cs_lc;

/* Declares `cs_lc name` with room for cap terms on the stack. */
#define CS_LC(name, cs, cap)      \
    lc_term name##_terms_[(cap)]; \
    cs_lc name;                   \
    cs_lc_init(&name, (cs), name##_terms_, (cap))

/* The buffers PROVE mode writes: z has z_cap entries (z[0] is set to one), a, b, c have
 * abc_cap entries. Sizes come from a SETUP run of the same circuit (cs_num_vars,
 * cs_num_constraints). */
typedef struct {
    fr_t *z;
    size_t z_cap;
    fr_t *a, *b, *c;
    size_t abc_cap;
} cs_prove_buffers;

/* Returns G16_OK or G16_ERR_OUT_OF_MEMORY / G16_ERR_INVALID_ARGUMENT. bufs is required in
 * CS_PROVE mode and ignored otherwise. */
g16_status cs_create(cs_t **cs, cs_mode mode, size_t n_public, const cs_prove_buffers *bufs);
void cs_free(cs_t *cs);

/* A circuit: allocates, enforces, and returns G16_OK or its own error. */
typedef g16_status (*cs_circuit_fn)(cs_t *cs, const void *params);

/* Runs circuit(cs, params) and then checks the cs is complete: every declared public input
 * allocated, namespaces balanced. Returns the circuit's error, else the first sticky
 * error, else (CHECK mode) G16_ERR_VERIFY_FAILED naming the first unsatisfied constraint
 * in g16_last_error(), else G16_OK. Call once per cs. */
g16_status cs_synthesize(cs_t *cs, cs_circuit_fn circuit, const void *params);

cs_mode cs_get_mode(const cs_t *cs);
g16_status cs_status(const cs_t *cs); /* the first sticky error, or G16_OK */
size_t cs_num_vars(const cs_t *cs);   /* wires so far, the one wire included */
size_t cs_num_constraints(const cs_t *cs);
size_t cs_num_public(const cs_t *cs); /* declared */

/* --- variables ----------------------------------------------------------------------------- */

/* value may be NULL (zero). Returns the new wire; CS_ONE after an error. */
cs_var cs_alloc(cs_t *cs, const fr_t *value);
cs_var cs_alloc_public(cs_t *cs, const fr_t *value);
/* The assigned value of a wire (of the one wire: one). */
const fr_t *cs_value(const cs_t *cs, cs_var v);
/* 2^i in Montgomery form for i < 256, and its negation. */
const fr_t *cs_pow2(const cs_t *cs, unsigned i);
const fr_t *cs_neg_pow2(const cs_t *cs, unsigned i);

/* For tests of the checker: in CHECK mode, when wire is allocated it receives value
 * instead of the circuit's value. */
void cs_check_plant(cs_t *cs, cs_var wire, const fr_t *value);

/* --- linear combinations and constraints ---------------------------------------------------- */

void cs_lc_init(cs_lc *lc, cs_t *cs, lc_term *storage, uint32_t cap);
/* lc += coeff * v */
void cs_lc_add(cs_lc *lc, cs_var v, const fr_t *coeff);
void cs_lc_add_var(cs_lc *lc, cs_var v); /* coefficient 1 */
void cs_lc_sub_var(cs_lc *lc, cs_var v); /* coefficient -1 */
/* lc += coeff * other */
void cs_lc_add_lc(cs_lc *lc, const cs_lc *other);

/* Enforces <a,z> * <b,z> = <c,z>. The name (printf format) is formatted only when CHECK
 * mode finds the constraint unsatisfied; it is appended to the namespace path. */
__attribute__((format(printf, 5, 6)))
void cs_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c, const char *fmt, ...);

/* Namespaces: cs_push("round %u", t) ... cs_pop(). Formatted in CHECK mode only. Paths
 * longer than the internal buffer are truncated (names only; nothing fails). */
__attribute__((format(printf, 2, 3)))
void cs_push(cs_t *cs, const char *fmt, ...);
void cs_pop(cs_t *cs);

/* Records an error (the first one sticks) and returns it. */
__attribute__((format(printf, 3, 4)))
g16_status cs_fail(cs_t *cs, g16_status status, const char *fmt, ...);

/* --- results ------------------------------------------------------------------------------ */

/* SETUP mode, after cs_synthesize: moves the matrices out; the cs then accepts nothing more
 * (its status turns to G16_ERR_INVALID_ARGUMENT) but densities remain readable.
 * Free with constraint_matrices_free. */
g16_status cs_take_matrices(cs_t *cs, constraint_matrices *out);

/* SETUP mode: bit vectors over private variables (bit j for wire n_public + 1 + j), set
 * where the variable has a nonzero coefficient in some row of A (resp. B). n_aux bits. */
const uint64_t *cs_density_a(const cs_t *cs);
const uint64_t *cs_density_b(const cs_t *cs);
size_t cs_num_aux(const cs_t *cs);

/* SETUP and CHECK modes, before the first constraint: keep every constraint's full name
 * (slow and memory-hungry: for tests and debugging). Then cs_constraint_name(cs, i) gives
 * row i's name, or NULL when names are not kept or i is out of range. */
void cs_keep_names(cs_t *cs);
const char *cs_constraint_name(const cs_t *cs, size_t i);

/* CHECK mode: the first unsatisfied constraint's full name and index, or NULL. */
const char *cs_check_failure(const cs_t *cs, size_t *index);

/* --- self-check ---------------------------------------------------------------------------- */

typedef struct {
    size_t n_vars, n_public, n_aux, n_constraints;
    size_t density_a, density_b; /* private variables present in A, in B */
    size_t terms[3];             /* nonzero terms of A, B, C */
} cs_stats;

/* Runs circuit in SETUP, then PROVE (into buffers sized from SETUP), then CHECK, and
 * verifies they agree: same counts, and for every row the SETUP matrices applied to the
 * PROVE assignment give the PROVE a_i, b_i, c_i with a_i * b_i = c_i. Returns the first
 * synthesis error, G16_ERR_VERIFY_FAILED when CHECK finds an unsatisfied constraint or
 * PROVE output breaks a_i * b_i = c_i, G16_ERR_INTERNAL when the modes disagree. matrices
 * (may be NULL) receives the SETUP matrices on success. */
g16_status cs_roundtrip(cs_stats *stats, constraint_matrices *matrices, cs_circuit_fn circuit,
                        const void *params, size_t n_public);

#endif
