/* The Groth16 prover on the CPU, for snarkjs keys (.zkey) and witnesses (.wtns).
 *
 * For a witness z (z_0 = 1, public signals z_1..z_l):
 *   1. a = A.z, b = B.z from the key's coefficient section, c = a*b (pointwise: the
 *      witness satisfies A.z * B.z = C.z on every constraint row; groth16/zkey_evals.h,
 *      shared with jobs whose partitions are witness files);
 *   2. h at the odd points of the 2n-domain, exactly as snarkjs (groth16/h_poly.h);
 *   3. MSMs: A.z, B1.z (G1), B2.z (G2), C.z_aux, H.h;
 *   4. blinding with fresh r, s from the OS CSPRNG:
 *        pi_a = alpha1 + A.z + r delta1,   pi_b = beta2 + B2.z + s delta2,
 *        pi_c = C.z_aux + H.h + s pi_a + r (beta1 + B1.z + s delta1) - r s delta1.
 * Every figure it measures goes into groth16_prove_stats. */
#ifndef G16_GROTH16_PROVE_H
#define G16_GROTH16_PROVE_H

#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/wtns.h"
#include "io/zkey.h"

typedef struct groth16_prove_stats_s {
    double ms_witness;   /* checking the witness, a = A.z and b = B.z, c = a*b */
    double ms_h;         /* the H polynomial (NTTs) */
    double ms_msm_g1;    /* the G1 MSMs: A, B1, C, H */
    double ms_msm_g2;    /* the B2 MSM */
    double ms_upload;    /* host-to-device copies (GPU backends) */
    double ms_total;
    size_t scalars_zero, scalars_one, scalars_other; /* the mix of A's witness scalars */
} groth16_prove_stats;

struct groth16_prover_key_s;
struct groth16_msm_results_s;
/* Steps 2-3 of a proof done elsewhere (a GPU backend, src/backend/backend.h): from the
 * evaluations a, b, c (overwritten) and the witness (z in Montgomery form or z_bytes
 * canonical, as for groth16_prove_evals) to the five MSM results. */
typedef g16_status (*groth16_partition_fn)(void *ctx, struct groth16_msm_results_s *out,
                                           struct groth16_prove_stats_s *stats,
                                           const struct groth16_prover_key_s *pk,
                                           const fr_t *z, const uint8_t *z_bytes, fr_t *a,
                                           fr_t *b, fr_t *c);

typedef struct {
    /* Test only: use these r, s instead of fresh randomness (NULL: CSPRNG). */
    const fr_t *fixed_r, *fixed_s;
    /* When set, steps 2-3 run there instead of on the CPU (the backend layer sets it). */
    groth16_partition_fn partition;
    void *partition_ctx;
    /* The B2 MSM (G2) on the CPU, on a thread of its own, concurrently with the rest of
     * steps 2-3: with a GPU backend while the device computes H and the G1 MSMs (the
     * partition is told to leave B2 alone); on the CPU it runs beside them, sharing the
     * thread pool. The proof is the same either way. */
    bool g2_on_cpu;
} groth16_prove_options;

/* The points a prover reads, wherever they live (a mapped .zkey or native key, a key made
 * in memory by groth16_setup): arrays in the layout of the .zkey point sections
 * (g1_affine_t / g2_affine_t, any alignment, all-zero = infinity).
 *
 * A, B1 and B2 are dense (a point per wire) when their density is NULL, and otherwise
 * density-compressed (groth16/density.h): points only for the wires marked in density_a
 * (n_a of them) and density_b (n_b), and the prover gathers the matching witness entries
 * before those MSMs. */
typedef struct groth16_prover_key_s {
    size_t n_vars, n_public, domain_size;
    unsigned log2_domain;
    g1_affine_t alpha1, beta1, delta1;
    g2_affine_t beta2, delta2;
    const uint64_t *density_a, *density_b; /* NULL: dense */
    size_t n_a, n_b;       /* points in a, in b1 and b2 (n_vars when dense) */
    const uint8_t *a, *b1; /* G1, n_a and n_b */
    const uint8_t *b2;     /* G2, n_b */
    const uint8_t *c;      /* G1, n_vars - n_public - 1 */
    const uint8_t *h;      /* G1, domain_size */
} groth16_prover_key;

void groth16_prover_key_from_zkey(groth16_prover_key *pk, const zkey_t *key);
void groth16_prover_key_from_setup(groth16_prover_key *pk, const groth16_setup_key *key);

/* The proving steps 2-4 from the evaluations a, b, c over the whole domain (rows past the
 * constraints included: the public rows a[m+s] = z_s of the snarkjs convention, zeros
 * after) and the witness, given either as z (Montgomery form) or as z_bytes (canonical
 * little-endian, the .wtns layout), n_vars entries. a, b, c are overwritten. */
g16_status groth16_prove_evals(groth16_proof *proof, groth16_prove_stats *stats,
                               const groth16_prover_key *pk, const fr_t *z,
                               const uint8_t *z_bytes, fr_t *a, fr_t *b, fr_t *c,
                               const groth16_prove_options *opts);

/* groth16_prove_evals in two parts, for a pipeline whose finalize stage computes the B2 MSM
 * on the CPU while the backend takes the next partition: the first runs steps 2-3 without
 * B2 (res->b2 is left alone), the second computes B2.z on the CPU from the witness (which
 * must be unchanged) and assembles the proof. With the same options the proof equals
 * groth16_prove_evals'. */
g16_status groth16_prove_evals_deferred(struct groth16_msm_results_s *res,
                                        groth16_prove_stats *stats,
                                        const groth16_prover_key *pk, const fr_t *z,
                                        const uint8_t *z_bytes, fr_t *a, fr_t *b, fr_t *c,
                                        const groth16_prove_options *opts);
g16_status groth16_finish_deferred(groth16_proof *proof, groth16_prove_stats *stats,
                                   const groth16_prover_key *pk,
                                   struct groth16_msm_results_s *res, const fr_t *z,
                                   const uint8_t *z_bytes, const groth16_prove_options *opts);

/* The five MSMs of a proof (step 3), whoever computed them (CPU or GPU backend). */
typedef struct groth16_msm_results_s {
    g1_jac_t a, b1, c, h; /* A.z, B1.z, C.z_aux, H.h */
    g2_jac_t b2;          /* B2.z */
    /* In, for a partition function: set by the caller, which computes b2 itself
     * (groth16_prove_options.g2_on_cpu); the partition then leaves b2 alone. */
    bool b2_elsewhere;
} groth16_msm_results;

/* Step 4: draws r, s (or takes opts' fixed ones) and assembles the proof from the MSMs. */
g16_status groth16_assemble(groth16_proof *proof, const groth16_prover_key *pk,
                            const groth16_msm_results *msm, const groth16_prove_options *opts);

/* Proves; *public_inputs (malloc'd, n_public entries, free it) receives z_1..z_l.
 * opts and stats may be NULL. The key's big point sections are used as they are in the
 * file (their validity is the key's promise; groth16_verify_zkey checks the result). */
g16_status groth16_prove_zkey(groth16_proof *proof, fr_t **public_inputs,
                              groth16_prove_stats *stats, const zkey_t *key,
                              const wtns_t *witness, const groth16_prove_options *opts);

/* The verifying key held in a .zkey (alpha1, beta2, gamma2, delta2, IC), decoded and
 * checked; free with groth16_vk_free. */
g16_status groth16_vk_from_zkey(groth16_vk *vk, const zkey_t *key);

#endif
