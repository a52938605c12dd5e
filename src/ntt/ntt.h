/* Number-theoretic transforms over Fr (BLS12-381), CPU.
 *
 * Domains are the multiplicative subgroups of size n = 2^log2n, 0 <= log2n <= 28, generated
 * by w = fr_root_of_unity(log2n) (generator 5, the snarkjs/ffjavascript convention).
 * Coefficient j of a polynomial and evaluation i at w^i (or at shift * w^i on a coset) are
 * both stored at index j / i: natural order in and out.
 *
 * Conventions: forward computes X[i] = sum_j x[j] w^(ij); inverse is its exact inverse
 * (with the 1/n). Outputs first; every function accepts out == in (in place) and otherwise
 * requires the two arrays not to overlap. Results do not depend on the thread count.
 *
 * Design notes (why it looks like this):
 * - No bit-reversal pass where it can be avoided. Decimation in frequency (DIF) takes
 *   natural order to bit-reversed order and decimation in time (DIT) takes bit-reversed to
 *   natural, so an inverse DIF followed by a forward DIT needs no permutation at all. That
 *   is how ntt_change_coset (and so the H computation) runs. The plain natural-to-natural
 *   transforms add one cache-blocked bit-reversal pass (Carter and Gatlin, "Towards an
 *   optimal bit-reversal permutation program", FOCS 1998).
 * - Memory passes: a transform of 2^L points is a few "column" passes of k <= 9 radix-2
 *   stages each (tiles of 2^k rows by 8 columns gathered into per-thread scratch, so each
 *   row read is 256 contiguous bytes) followed by one "leaf" pass that finishes blocks of
 *   at most 2^13 contiguous points (256 KiB) inside the cache: the four-step idea of
 *   Bailey ("FFTs in external or hierarchical memory", J. Supercomputing 4, 1990), applied
 *   recursively. 2^20 takes 2 passes over memory, 2^27 three. Stages run two at a time
 *   (radix 4) so each pass over a block loads and stores each element once per two stages.
 * - Twiddles: the in-cache stages use per-level tables (at most 2^13 entries per
 *   direction), the column passes get w_m^(c*e) from a chain of products seeded from a
 *   two-level table of w^j (2 * 2^(L/2) entries). A full table of n/2 roots would save
 *   one multiplication per element per column pass (about 10% at 2^20) but costs n/2 * 32
 *   bytes per domain and direction (2 GiB at 2^27): memory is the scarcer resource here.
 * - Cosets cost nothing extra in DIT/DIF form: the shift s enters the level-m twiddles as
 *   s^(n/m) (P(s w^k) = E((s w^k)^2) + s w^k O((s w^k)^2), recursively), so coset tables
 *   replace the plain ones. Constant scale factors (1/n, 1/Z) ride on the twiddle chains.
 * - Montgomery multiplications dominate: about (n/2) log2(n) of them per transform, plus
 *   n per column pass; nothing here is memory-bound on a CPU core, but the pass structure
 *   keeps it from becoming so on many cores.
 * - On CPUs with AVX-512 IFMA the passes run their butterflies 8 at a time in 52-bit
 *   limbs (ntt_ifma_x86.c; a tile's row of 8 columns is one vector), ~3-4x faster, with
 *   the same results bit for bit.
 */
#ifndef G16_NTT_NTT_H
#define G16_NTT_NTT_H

#include <stdbool.h>
#include <stddef.h>

#include "field/fr.h"
#include "g16.h"

#define NTT_MAX_LOG2N 28

/* The twiddle tables and pass plan for one size. Immutable after creation except for an
 * internal, mutex-guarded cache of coset tables: share one domain between threads freely. */
typedef struct ntt_domain ntt_domain;

/* Creates a domain of size 2^log2n. G16_ERR_INVALID_ARGUMENT when log2n > NTT_MAX_LOG2N,
 * G16_ERR_OUT_OF_MEMORY when tables cannot be allocated (tables are small: O(2^13 + 2^(L/2))
 * elements). */
g16_status ntt_domain_create(ntt_domain **out, unsigned log2n);

/* Same, with the pass plan's limits chosen by the caller (for tests, which use tiny
 * limits to run many column passes at sizes a naive DFT can check, and for tuning): in-cache
 * blocks of at most 2^leaf_log points (1..16), column passes of at most tile_log stages
 * (1..12). The default is 13 and 9. */
g16_status ntt_domain_create_with_plan(ntt_domain **out, unsigned log2n, unsigned leaf_log,
                                       unsigned tile_log);

void ntt_domain_free(ntt_domain *d);

/* A process-wide domain for this size, created on first use and kept until exit (thread
 * safe). Same errors as ntt_domain_create. */
g16_status ntt_domain_get(const ntt_domain **out, unsigned log2n);

unsigned ntt_domain_log2n(const ntt_domain *d);
size_t ntt_domain_size(const ntt_domain *d);
/* The generator w of the domain (fr_root_of_unity(log2n)). */
const fr_t *ntt_domain_root(const ntt_domain *d);
/* How many memory passes a transform takes: column passes, plus one for the leaf pass. */
unsigned ntt_domain_passes(const ntt_domain *d);

/* out[i] = sum_j in[j] w^(ij) (evaluations from coefficients). */
g16_status ntt_forward(const ntt_domain *d, fr_t *out, const fr_t *in);

/* out = coefficients of the polynomial with values in[i] at w^i. */
g16_status ntt_inverse(const ntt_domain *d, fr_t *out, const fr_t *in);

/* out[i] = sum_j in[j] (shift w^i)^j: evaluations on the coset shift*H. shift must be
 * nonzero (G16_ERR_INVALID_ARGUMENT otherwise). */
g16_status ntt_coset_forward(const ntt_domain *d, fr_t *out, const fr_t *in, const fr_t *shift);

/* out = scale * (coefficients of the polynomial with values in[i] at shift * w^i);
 * scale NULL means 1. Dividing by a vanishing polynomial's constant value on the coset is
 * the usual use of scale, at no extra cost. */
g16_status ntt_coset_inverse(const ntt_domain *d, fr_t *out, const fr_t *in, const fr_t *shift,
                             const fr_t *scale);

/* Called by ntt_change_coset with final output values while they are still in cache:
 * values[0..count) are the outputs at indices [begin, begin + count) (a run of contiguous
 * indices; runs are disjoint, cover the domain once, and arrive from several threads). The
 * callback may rewrite them. */
typedef void (*ntt_epilogue)(void *ctx, fr_t *values, size_t begin, size_t count);

/* Re-evaluates a polynomial on another coset: in[i] are its values at from * w^i, out[i]
 * becomes its values at to * w^i (degree < n). from/to NULL mean 1 (the subgroup itself).
 * Both orders are natural and no permutation pass runs (inverse DIF, then forward DIT over
 * the same blocks, the 1/n folded into a twiddle chain). epilogue, when not NULL, sees
 * every output once (see ntt_epilogue). */
g16_status ntt_change_coset(const ntt_domain *d, fr_t *out, const fr_t *in, const fr_t *from,
                            const fr_t *to, ntt_epilogue epilogue, void *ctx);

/* The building blocks, for callers that keep data in bit-reversed order between steps
 * (and for the GPU backend's tests). "br" is bit-reversed order.
 * ntt_inverse_to_br:   natural values on coset shift (NULL: 1) -> scale * coefficients
 *                      (scale NULL: 1), bit-reversed.
 * ntt_forward_from_br: bit-reversed coefficients -> natural values on coset shift. */
g16_status ntt_inverse_to_br(const ntt_domain *d, fr_t *out, const fr_t *in, const fr_t *shift,
                             const fr_t *scale);
g16_status ntt_forward_from_br(const ntt_domain *d, fr_t *out, const fr_t *in,
                               const fr_t *shift);

/* x[i] <-> x[bitrev(i)] over 2^log2n elements (cache-blocked, multithreaded). */
void ntt_bit_reverse(fr_t *x, unsigned log2n);

#endif
