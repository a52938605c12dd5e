/* Development setup for Groth16 (single party): proving and verifying keys for a
 * constraint system, in the layout snarkjs uses (so snarkjs can prove and verify with
 * them, and g16 reads them like any .zkey).
 *
 * NOT FOR PRODUCTION: one party knows the trapdoor while it runs. The trapdoor (tau,
 * alpha, beta, delta) comes from the OS CSPRNG and is wiped from memory before
 * returning, but a real deployment needs a multi-party ceremony.
 *
 * The key follows snarkjs exactly: gamma = 1; the n-domain has
 * n = 2^(floor(log2(m + nPublic)) + 1) points; public signal s gets an extra constraint
 * row m + s with A = 1 (so IC points are independent); H points are the odd-index
 * Lagrange basis of the 2n-domain divided by delta (FORMATS.md). */
#ifndef G16_GROTH16_SETUP_H
#define G16_GROTH16_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "curve/fixed_base.h"
#include "g16.h"
#include "io/r1cs.h"
#include "util/atomic_file.h"

/* One term coeff * z[wire] of a linear combination. */
typedef struct {
    uint32_t wire;
    fr_t coeff; /* Montgomery form */
} lc_term;

/* Sparse A, B, C in rows: matrix k's constraint i is terms[k][row_start[k][i] ..
 * row_start[k][i+1]). row_start[k] has n_constraints + 1 entries. */
typedef struct {
    size_t n_vars;        /* wires, the constant-one wire 0 included */
    size_t n_public;      /* public outputs + public inputs (wires 1..n_public) */
    size_t n_constraints;
    size_t *row_start[3];
    lc_term *terms[3];
} constraint_matrices;

/* The matrices of a circom .r1cs, checked as they are read (nPublic = public outputs +
 * public inputs). Free with constraint_matrices_free. */
g16_status constraint_matrices_from_r1cs(constraint_matrices *cs, const r1cs_t *r1cs);
void constraint_matrices_free(constraint_matrices *cs);
/* Whether x and y are the same matrices: counts, row boundaries, and every term's wire and
 * coefficient in order (what a setup reads; the padding inside lc_term is not compared). */
bool constraint_matrices_equal(const constraint_matrices *x, const constraint_matrices *y);

/* A proving key in memory, laid out as the .zkey sections except that A, B1 and B2 are
 * density-compressed (groth16/density.h): they hold points only for the wires marked in
 * density_a (A) and density_b (B1, B2), in wire order. zkey_write expands them (infinity
 * for the unmarked wires); the native key file stores them as they are. */
typedef struct {
    size_t n_vars, n_public, domain_size, n_constraints;
    g1_affine_t alpha1, beta1, delta1;
    g2_affine_t beta2, gamma2, delta2;
    g1_affine_t *ic;       /* n_public + 1 */
    uint64_t *density_a;   /* density_words(n_vars) words: the wires with an A point */
    uint64_t *density_b;   /* ... with a B1 and a B2 point */
    size_t n_a, n_b;       /* marked wires in density_a, in density_b */
    g1_affine_t *a;        /* n_a */
    g1_affine_t *b1;       /* n_b */
    g2_affine_t *b2;       /* n_b */
    g1_affine_t *c;        /* n_vars - n_public - 1 */
    g1_affine_t *h;        /* domain_size */
} groth16_setup_key;

/* The snarkjs domain size for m constraints and nPublic public signals. Returns 0 when
 * it would exceed 2^28. */
size_t setup_domain_size(size_t n_constraints, size_t n_public);

/* Runs the setup on every thread of the pool. progress (may be NULL) is called with a
 * short stage name as each stage starts. Free the key with groth16_setup_key_free.
 *
 * Costs (2^20 constraints of the synthetic circuit, 2 threads of the dev machine: README):
 * the QAP columns at tau (Lagrange basis by batch inversion per chunk; the matrices'
 * terms accumulated by wire owners, see qap_columns in setup.c), then one fixed-base
 * product per key point: n_a + n_b + (n_vars - n_public - 1) + n_public + 1 + domain_size
 * in G1 and n_b in G2, with 2^(w-1)-point signed windows sized to that count
 * (curve/fixed_base.h). */
g16_status groth16_setup(groth16_setup_key *key, const constraint_matrices *cs,
                         void (*progress)(const char *stage));

/* The same with a fixed trapdoor (tau, alpha, beta, delta), for tests only. */
g16_status groth16_setup_with_trapdoor(groth16_setup_key *key, const constraint_matrices *cs,
                                       const fr_t trapdoor[4],
                                       void (*progress)(const char *stage));

/* Where the setup's fixed-base batches run: a backend on a device (backend_setup_accel
 * fills this for CUDA), with the CPU's tables, giving the same points as the CPU's
 * g1/g2_fixed_base_batch. NULL (or a NULL member): the CPU. */
typedef struct {
    g16_status (*g1_batch)(void *ctx, g1_affine_t *out, const g1_fixed_base *fb,
                           const fr_t *k, size_t n);
    g16_status (*g2_batch)(void *ctx, g2_affine_t *out, const g2_fixed_base *fb,
                           const fr_t *k, size_t n);
    void *ctx;
} groth16_setup_accel;

/* groth16_setup and groth16_setup_with_trapdoor with the batches on accel. */
g16_status groth16_setup_accelerated(groth16_setup_key *key, const constraint_matrices *cs,
                                     void (*progress)(const char *stage),
                                     const groth16_setup_accel *accel);
g16_status groth16_setup_with_trapdoor_accelerated(groth16_setup_key *key,
                                                   const constraint_matrices *cs,
                                                   const fr_t trapdoor[4],
                                                   void (*progress)(const char *stage),
                                                   const groth16_setup_accel *accel);

void groth16_setup_key_free(groth16_setup_key *key);

/* Writes the key as a snarkjs-compatible Groth16 .zkey (sections 1..10; section 4 holds
 * A and B of cs in double-Montgomery form, section 10 an empty contribution list). */
g16_status zkey_write(const char *path, const groth16_setup_key *key,
                      const constraint_matrices *cs);
/* The same, left under its temporary for the caller to commit or discard (atomic_file.h's
 * atomic_file_finish): g16 setup stages the key until its verifying key is written too. */
g16_status zkey_write_staged(atomic_file *staged, const char *path,
                             const groth16_setup_key *key, const constraint_matrices *cs);

#endif

