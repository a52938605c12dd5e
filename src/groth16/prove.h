/* The Groth16 prover on the CPU, for snarkjs keys (.zkey) and witnesses (.wtns).
 *
 * For a witness z (z_0 = 1, public signals z_1..z_l):
 *   1. a = A.z, b = B.z from the key's coefficient section, c = a*b (pointwise: the
 *      witness satisfies A.z * B.z = C.z on every constraint row);
 *   2. h at the odd points of the 2n-domain, exactly as snarkjs (groth16/h_poly.h);
 *   3. MSMs: A.z, B1.z (G1), B2.z (G2), C.z_aux, H.h;
 *   4. blinding with fresh r, s from the OS CSPRNG:
 *        pi_a = alpha1 + A.z + r delta1,   pi_b = beta2 + B2.z + s delta2,
 *        pi_c = C.z_aux + H.h + s pi_a + r (beta1 + B1.z + s delta1) - r s delta1.
 * Every figure it measures goes into groth16_prove_stats. */
#ifndef G16_GROTH16_PROVE_H
#define G16_GROTH16_PROVE_H

#include "groth16/groth16.h"
#include "io/wtns.h"
#include "io/zkey.h"

typedef struct {
    double ms_witness;   /* checking the witness, a = A.z and b = B.z, c = a*b */
    double ms_h;         /* the H polynomial (NTTs) */
    double ms_msm_g1;    /* the G1 MSMs: A, B1, C, H */
    double ms_msm_g2;    /* the B2 MSM */
    double ms_total;
    size_t scalars_zero, scalars_one, scalars_other; /* the witness's mix */
} groth16_prove_stats;

typedef struct {
    /* Test only: use these r, s instead of fresh randomness (NULL: CSPRNG). */
    const fr_t *fixed_r, *fixed_s;
} groth16_prove_options;

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
