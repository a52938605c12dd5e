/* Fp12 = Fp6[w] / (w^2 - v): the top of the BLS12-381 tower, where pairings take their
 * values. Element c0 + c1*w.
 *
 * Read as a polynomial in w over Fp2 (w^6 = xi = u + 1) an element is
 *   c0.c0 + c1.c0 w + c0.c1 w^2 + c1.c1 w^3 + c0.c2 w^4 + c1.c2 w^5,
 * and the sparse products name the Fp2 slots by their place in the struct:
 * 0 = c0.c0, 1 = c0.c1, 2 = c0.c2, 3 = c1.c0, 4 = c1.c1, 5 = c1.c2.
 *
 * Outputs may alias inputs. Constant time in the values except where an exponent or
 * Frobenius power is passed (those are public).
 */
#ifndef G16_FIELD_FP12_H
#define G16_FIELD_FP12_H

#include "fp6.h"

typedef struct {
    fp6_t c0, c1;
} fp12_t;

/* Bytes of fp12_to_bytes: c0 then c1, each in fp6_to_bytes layout, so the twelve Fp
 * coordinates c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1 each as 48 bytes big-endian.
 * This is exactly @noble/curves' bls12_381.fields.Fp12.toBytes. */
enum { FP12_BYTES = 2 * FP6_BYTES };

void fp12_zero(fp12_t *r);
void fp12_one(fp12_t *r);
bool fp12_is_zero(const fp12_t *a);
bool fp12_is_one(const fp12_t *a);
bool fp12_equal(const fp12_t *a, const fp12_t *b);

void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_neg(fp12_t *r, const fp12_t *a);
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sqr(fp12_t *r, const fp12_t *a);
/* r = 1/a; false (r = 0) when a = 0. */
bool fp12_inv(fp12_t *r, const fp12_t *a);
/* r = c0 - c1 w = a^(p^6). For a in the cyclotomic subgroup (every pairing value) this
 * is also 1/a. */
void fp12_conj(fp12_t *r, const fp12_t *a);
/* r = a^(p^power), any power >= 0 (the map has order 12). */
void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned power);

/* r = a * (l0 + l1 v + l4 v w): the sparse element whose only non-zero Fp2 slots are 0,
 * 1 and 4 -- the shape of the Miller loop's line functions on the M-type twist.
 * 13 Fp2 products instead of 18. l0, l1, l4 must not alias r. */
void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *l0, const fp2_t *l1,
                     const fp2_t *l4);

/* r = a^2 for a in the cyclotomic subgroup G_{Phi_12(p)} (a^(p^4 - p^2 + 1) = 1, e.g. the
 * output of any final exponentiation): Granger-Scott squaring, 18 Fp products against 36.
 * The result is wrong for other a. */
void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a);

/* r = a^e, e little-endian 64-bit limbs; time depends on e (public exponents only). */
void fp12_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t e_limbs);
/* Same for a in the cyclotomic subgroup, with cyclotomic squarings and a 4-bit sliding
 * window: about twice as fast as fp12_pow. Time depends on e. */
void fp12_cyclotomic_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t e_limbs);

void fp12_to_bytes(uint8_t out[FP12_BYTES], const fp12_t *a);
/* false when a coordinate is not below p (r is then unspecified). */
bool fp12_from_bytes(fp12_t *r, const uint8_t in[FP12_BYTES]);

#endif
