/* Fp products eight at a time with AVX-512 IFMA (x86-64; fp_x8_impl.h has the method).
 *
 * Call these only while cpu_use_ifma (cpu.h) is true: they execute AVX-512 instructions.
 * Inputs and outputs are ordinary fp_t (Montgomery form, R = 2^384, fully reduced), and
 * every result equals the scalar path's bit for bit. The loops that profit (the G1 MSM's
 * batch affine additions) use the inline core directly; these entry points are for
 * tests and benchmarks. */
#ifndef G16_FIELD_FP_X8_H
#define G16_FIELD_FP_X8_H

#include <stddef.h>

#include "field/fp.h"
#include "field/fp2.h"

#ifdef G16_HAVE_IFMA
/* r[k] = a[k] * b[k] for k < 8. r may alias a or b. */
void fp_mul_x8(fp_t r[8], const fp_t a[8], const fp_t b[8]);
/* r[k] = a[k]^2 for k < 8 (the squaring's own schedule). r may alias a. */
void fp_sqr_x8(fp_t r[8], const fp_t a[8]);
/* The same over n elements, in groups of 8 (the last one partial): for benchmarks. */
void fp_mul_x8_n(fp_t *r, const fp_t *a, const fp_t *b, size_t n);
/* a[i] = 1 / a[i] for i < m, every a[i] non-zero (Montgomery's trick, one inversion).
 * scratch: FP_X8_SCRATCH(m) bytes, 64-byte aligned. Variable time (the inversion is
 * fp_inv_vartime's): for the MSM's data only. */
void fp_batch_inv_x8(fp_t *a, size_t m, void *scratch);

/* Fp2 (fp2.h) eight elements at a time, lane k one element (fp2_x8_impl.h): the G2
 * MSM's batch additions use the inline core; these are for tests. Results equal fp2.h's
 * bit for bit. r may alias the inputs. */
void fp2_mul_x8(fp2_t r[8], const fp2_t a[8], const fp2_t b[8]);
void fp2_sqr_x8(fp2_t r[8], const fp2_t a[8]);
/* a[i] = 1 / a[i] for i < m, every a[i] non-zero: Montgomery's trick over the norms, one
 * Fp inversion. scratch: FP2_X8_SCRATCH(m) bytes, 64-byte aligned. Variable time, as
 * fp_batch_inv_x8. */
void fp2_batch_inv_x8(fp2_t *a, size_t m, void *scratch);
#endif
/* Bytes of scratch for m elements: one 8-lane vector (512 bytes) per group of 8; over
 * Fp2 two (the norms and their prefix products). */
#define FP_X8_SCRATCH(m) (((m) + 7) / 8 * 512)
#define FP2_X8_SCRATCH(m) (2 * FP_X8_SCRATCH(m))

#endif
