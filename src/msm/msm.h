/* CPU multi-scalar multiplication (MSM) over G1 and G2: r = sum_i [k_i] P_i.
 *
 * Inputs come as they lie in snarkjs files, usually memory-mapped, with no alignment:
 *   bases    n packed affine points in g16's in-memory layout (g1_affine_t /
 *            g2_affine_t: Montgomery little-endian limbs, x then y; G2 as x.c0 x.c1
 *            y.c0 y.c1), byte-identical to the .zkey point sections. All-zero bytes are
 *            the point at infinity and contribute nothing. Points must be on the curve
 *            (the key reader checks them); other points give a meaningless sum.
 *   scalars  n canonical little-endian 32-byte integers below r (the .wtns layout).
 *            A scalar >= r is an error (G16_ERR_BAD_ENCODING naming its index).
 *
 * Groth16 runs several MSMs over one scalar vector (A and B1 in G1, B2 in G2, all over
 * z), so the scalar work is separated from the point work: msm_scalars_prepare splits
 * the vector into zeros (skipped), ones (summed by batch affine addition, no Pippenger)
 * and the others, recoded once into signed windows; msm_g1_run / msm_g2_run then take
 * any base vector of the same length. msm_g1 / msm_g2 do both for one-off callers.
 *
 * Algorithm (msm_impl.h has the details and the references): Pippenger's bucket method
 * with signed c-bit digits (2^(c-1) buckets per window), buckets accumulated in affine
 * coordinates with batched inversions (Montgomery's trick) or in XYZZ coordinates for
 * small inputs, running-sum bucket reduction, windows joined by doublings. Work is split
 * over windows and point ranges on the thread pool (util/parallel.h).
 *
 * Timing: variable time in the scalars and the points (memory access follows the
 * digits), as in every Pippenger prover. Not for secret scalars on a machine shared with
 * an attacker who can observe caches.
 *
 * Arguments: outputs first, then inputs; a length follows its array. Functions return
 * G16_OK or a status with a message (g16_last_error()); on failure r is infinity.
 */
#ifndef G16_MSM_MSM_H
#define G16_MSM_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"

/* Bytes per packed base and per scalar. */
enum { MSM_G1_BASE_BYTES = 96, MSM_G2_BASE_BYTES = 192, MSM_SCALAR_BYTES = 32 };
/* Window widths accepted by msm_scalars_prepare_window. */
enum { MSM_MIN_WINDOW_BITS = 1, MSM_MAX_WINDOW_BITS = 22 };

/* A scalar vector classified and recoded for Pippenger; immutable once prepared, so one
 * object may serve several MSMs at once (from several threads). */
typedef struct msm_scalars msm_scalars;

/* *out = the prepared form of scalars[0..n) (32 bytes each, unaligned), window width
 * chosen from the number of "other" scalars (msm_window_bits). n may be 0. Returns
 * G16_ERR_BAD_ENCODING for a scalar >= r, G16_ERR_UNSUPPORTED for n >= 2^32,
 * G16_ERR_OUT_OF_MEMORY. Free with msm_scalars_free. */
g16_status msm_scalars_prepare(msm_scalars **out, const uint8_t *scalars, size_t n);
/* The same with a fixed window width c in [MSM_MIN_WINDOW_BITS, MSM_MAX_WINDOW_BITS]
 * (0 = automatic): for benchmarks and tests. */
g16_status msm_scalars_prepare_window(msm_scalars **out, const uint8_t *scalars, size_t n,
                                      unsigned window_bits);
/* The same from Montgomery-form field elements (always below r). */
g16_status msm_scalars_prepare_fr(msm_scalars **out, const fr_t *scalars, size_t n);
g16_status msm_scalars_prepare_fr_window(msm_scalars **out, const fr_t *scalars, size_t n,
                                         unsigned window_bits);
void msm_scalars_free(msm_scalars *s);
/* For logs: how many scalars are 0 (skipped), 1 (batch addition) and other (Pippenger).
 * Any output may be NULL. */
void msm_scalars_counts(const msm_scalars *s, size_t *zeros, size_t *ones, size_t *others);
/* The window width c of the prepared digits and the number of windows, ceil(256 / c). */
unsigned msm_scalars_window_bits(const msm_scalars *s);
unsigned msm_scalars_windows(const msm_scalars *s);

/* The window width the cost model picks for `others` scalars going through Pippenger
 * over bases of base_bytes (the buckets' share of the cache differs: G2's are twice G1's);
 * msm_window_bits is the G1 choice, the one msm_scalars_prepare makes. */
unsigned msm_window_bits(size_t others);
unsigned msm_window_bits_for(size_t others, size_t base_bytes);

/* How buckets accumulate points. AUTO takes batch affine when every task has enough
 * points to amortise its inversions, XYZZ otherwise. The others are for tests/benches. */
typedef enum {
    MSM_ACCUMULATE_AUTO = 0,
    MSM_ACCUMULATE_XYZZ,
    MSM_ACCUMULATE_BATCH_AFFINE,
} msm_accumulate;

typedef struct {
    msm_accumulate accumulate;
    /* Point ranges per window (0 = from the thread count and the cost model). */
    unsigned point_chunks;
} msm_options;

/* r = sum [k_i] P_i over the prepared scalars s and bases[0..s->n). opts may be NULL. */
g16_status msm_g1_run(g1_jac_t *r, const uint8_t *bases, const msm_scalars *s);
g16_status msm_g1_run_with(g1_jac_t *r, const uint8_t *bases, const msm_scalars *s,
                           const msm_options *opts);
g16_status msm_g2_run(g2_jac_t *r, const uint8_t *bases, const msm_scalars *s);
g16_status msm_g2_run_with(g2_jac_t *r, const uint8_t *bases, const msm_scalars *s,
                           const msm_options *opts);

/* One-shot: prepare, run, free. */
g16_status msm_g1(g1_jac_t *r, const uint8_t *bases, const uint8_t *scalars, size_t n);
g16_status msm_g1_fr(g1_jac_t *r, const uint8_t *bases, const fr_t *scalars, size_t n);
g16_status msm_g2(g2_jac_t *r, const uint8_t *bases, const uint8_t *scalars, size_t n);
g16_status msm_g2_fr(g2_jac_t *r, const uint8_t *bases, const fr_t *scalars, size_t n);

/* The deliberately plain definition, for tests: sum of g1_mul_vartime_limbs(k_i, P_i),
 * one point at a time, on the calling thread. Any 256-bit scalars are accepted. */
void msm_g1_reference(g1_jac_t *r, const uint8_t *bases, const uint8_t *scalars, size_t n);
void msm_g2_reference(g2_jac_t *r, const uint8_t *bases, const uint8_t *scalars, size_t n);

#endif
