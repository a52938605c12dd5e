/* Fp2 = Fp[u] / (u^2 + 1), the field of G2 coordinates. Element c0 + c1*u.
 * The names mirror fp.h so that the point code (curve/point_impl.h) is written once for
 * G1 over Fp and G2 over Fp2. */
#ifndef G16_FIELD_FP2_H
#define G16_FIELD_FP2_H

#include "fp.h"

typedef struct {
    fp_t c0, c1;
} fp2_t;

void fp2_zero(fp2_t *r);
void fp2_one(fp2_t *r);
bool fp2_is_zero(const fp2_t *a);
bool fp2_is_one(const fp2_t *a);
bool fp2_equal(const fp2_t *a, const fp2_t *b);
void fp2_cmov(fp2_t *r, const fp2_t *a, bool flag);

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_dbl(fp2_t *r, const fp2_t *a);
void fp2_neg(fp2_t *r, const fp2_t *a);
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sqr(fp2_t *r, const fp2_t *a);
/* r = a * k for an Fp scalar k. */
void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *k);
/* r = a * (u + 1), the non-residue that builds Fp6 and the twist's b = 4(u + 1). */
void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a);
/* r = c0 - c1*u: the conjugate, which is also the Frobenius map a^p. */
void fp2_conj(fp2_t *r, const fp2_t *a);
/* r = 1/a; false (r = 0) when a = 0. */
bool fp2_inv(fp2_t *r, const fp2_t *a);
/* fp2_inv in variable time (fp_inv_vartime): public or variable-time data only. */
bool fp2_inv_vartime(fp2_t *r, const fp2_t *a);
/* r = a^e, e little-endian limbs, time depends on e (public exponents only). */
void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *e, size_t e_limbs);
/* A square root when a is a square (true); false otherwise, r untouched. */
bool fp2_sqrt(fp2_t *r, const fp2_t *a);
/* The zcash "sign" of an Fp2 y: c1 lexicographically largest, or c1 = 0 and c0 largest. */
bool fp2_is_lexicographically_largest(const fp2_t *a);

#endif
