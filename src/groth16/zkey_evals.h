/* Step 1 of a proof from a snarkjs key (.zkey) and a witness (.wtns): the witness checked
 * against the key, then the evaluations a = A.z and b = B.z over the whole domain from the
 * key's coefficient section, and c = a*b (pointwise: a satisfying witness has
 * A.z * B.z = C.z on every row, so the C coefficients are not needed; FORMATS.md).
 *
 * The public rows of the snarkjs convention (a[m + s] = z_s for s = 0..nPublic) are
 * coefficient entries like any other, so they come out of the same product; rows past
 * them are zero.
 *
 * Two callers share this: groth16_prove_zkey (one proof, the whole thread pool) and a job
 * whose partitions are witness files (job/job.h), whose synthesis runs on a pipeline
 * synthesis thread of its own and stays on it (the pool belongs to the provers there). */
#ifndef G16_GROTH16_ZKEY_EVALS_H
#define G16_GROTH16_ZKEY_EVALS_H

#include <stdbool.h>

#include "field/fr.h"
#include "g16.h"
#include "io/wtns.h"
#include "io/zkey.h"

/* Checks that w is a witness for key: nWitness = nVars (wtns_check_zkey), every value
 * below r and w[0] = 1 (wtns_validate). The curve was checked when each file was opened.
 * Messages name the files; G16_ERR_INVALID_ARGUMENT or G16_ERR_FORMAT. */
g16_status groth16_zkey_witness_check(const zkey_t *key, const wtns_t *w);

/* Fills a, b, c (domain_size entries each, every one written) and, when z is not NULL,
 * the witness in Montgomery form (n_vars entries). Preconditions, because the
 * coefficient entries index a, b and the witness without bounds checks: the key's
 * coefficients were checked (zkey_validate_coefs) and w passed
 * groth16_zkey_witness_check. parallel: spread over the thread pool (util/parallel.h);
 * otherwise everything runs on the calling thread. G16_ERR_OUT_OF_MEMORY only. */
g16_status groth16_zkey_evals(fr_t *z, fr_t *a, fr_t *b, fr_t *c, const zkey_t *key,
                              const wtns_t *w, bool parallel);

#endif
