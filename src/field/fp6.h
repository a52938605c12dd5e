/* Fp6 = Fp2[v] / (v^3 - xi), xi = u + 1: the middle floor of the BLS12-381 tower
 * (Fp2 -> Fp6 -> Fp12, the same tower as @noble/curves, zkcrypto and blst).
 * Element c0 + c1*v + c2*v^2. Outputs may alias inputs. Everything is constant time in
 * the values except fp6_frobenius's power, which is public.
 */
#ifndef G16_FIELD_FP6_H
#define G16_FIELD_FP6_H

#include "fp2.h"

typedef struct {
    fp2_t c0, c1, c2;
} fp6_t;

/* Bytes of fp6_to_bytes: the six Fp coordinates c0.c0, c0.c1, c1.c0, ..., c2.c1, each
 * 48 bytes big-endian (noble's Fp6.toBytes layout). */
enum { FP6_BYTES = 6 * fp_BYTES };

void fp6_zero(fp6_t *r);
void fp6_one(fp6_t *r);
bool fp6_is_zero(const fp6_t *a);
bool fp6_is_one(const fp6_t *a);
bool fp6_equal(const fp6_t *a, const fp6_t *b);

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_dbl(fp6_t *r, const fp6_t *a);
void fp6_neg(fp6_t *r, const fp6_t *a);
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sqr(fp6_t *r, const fp6_t *a);
/* r = a * k for an Fp2 scalar k (k must not alias r). */
void fp6_mul_by_fp2(fp6_t *r, const fp6_t *a, const fp2_t *k);
/* r = a * v, the non-residue that builds Fp12 (w^2 = v). */
void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a);
/* Sparse products for the Miller loop's lines: r = a * (b0 + b1 v) and r = a * (b1 v).
 * b0 and b1 must not alias r. */
void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1);
void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1);
/* r = 1/a; false (r = 0) when a = 0. */
bool fp6_inv(fp6_t *r, const fp6_t *a);
/* r = a^(p^power), any power >= 0 (the map has order 6). */
void fp6_frobenius(fp6_t *r, const fp6_t *a, unsigned power);

void fp6_to_bytes(uint8_t out[FP6_BYTES], const fp6_t *a);
/* false when a coordinate is not below p (r is then unspecified). */
bool fp6_from_bytes(fp6_t *r, const uint8_t in[FP6_BYTES]);

#endif
