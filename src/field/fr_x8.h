/* Fr products and butterflies eight at a time with AVX-512 IFMA (x86-64; fr_x8_impl.h
 * has the method and the lazy bounds).
 *
 * Call these only while cpu_use_ifma (cpu.h) is true: they execute AVX-512 instructions.
 * The NTT (ntt/ntt_ifma_x86.c) uses the inline core directly; fr_mul_sub_x8_n serves the
 * H computation, the others are for tests. All take ordinary fr_t (Montgomery form, R = 2^256). The _lazy forms and the
 * butterflies add multiples of r to their inputs first, so tests reach the largest
 * operands the NTT's lazy reduction allows. Every output is canonical. */
#ifndef G16_FIELD_FR_X8_H
#define G16_FIELD_FR_X8_H

#include <stddef.h>

#include "field/fr.h"

#ifdef G16_HAVE_IFMA
/* r[k] = a[k] * b[k] for k < 8. r may alias a or b. */
void fr_mul_x8(fr_t r[8], const fr_t a[8], const fr_t b[8]);

/* h[i] = a[i] * b[i] - c[i] for i < n, groups of 8 on the vector path and the rest by
 * fr_mul: the H computation's pointwise step. h may be a, b or c (element for element),
 * otherwise it must not overlap them. */
void fr_mul_sub_x8_n(fr_t *h, const fr_t *a, const fr_t *b, const fr_t *c, size_t n);

/* r[k] = (a[k] + ka[k] r) * b[k], computed from the lazy operand; ka[k] <= 32 (the DIF's
 * difference is below 33r + 2^243). */
void fr_mul_x8_lazy(fr_t r[8], const fr_t a[8], const unsigned ka[8], const fr_t b[8]);

/* r[k] = a[k], reduced from the lazy form a[k] + ka[k] r, ka[k] <= 16. */
void fr_canonical_x8_lazy(fr_t r[8], const fr_t a[8], const unsigned ka[8]);

/* One vector butterfly on x0[k] + k0[k] r and x1[k] + k1[k] r (k0, k1 <= 15: stored
 * values stay below 16r + 2^243), results canonical in x0, x1:
 * FR_X8_DIF: (x0 + x1, (x0 - x1) t); FR_X8_DIT: (x0 + x1 t, x0 - x1 t);
 * FR_X8_ONE: (x0 + x1, x0 - x1), the twiddle-1 form of both (t unused). */
typedef enum { FR_X8_DIF, FR_X8_DIT, FR_X8_ONE } fr_x8_butterfly;
void fr_butterfly_x8(fr_t x0[8], fr_t x1[8], const fr_t t[8], const unsigned k0[8],
                     const unsigned k1[8], fr_x8_butterfly kind);
#endif

#endif
