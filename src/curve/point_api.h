/* The point API shared by G1 and G2, written once and instantiated by g1.h and g2.h
 * (a C "template", as field_api.h is for the prime fields; blst does the same with its
 * point macros). Define POINT (g1, g2) and POINT_FIELD (fp, fp2), declare
 * POINT_affine_t, then include.
 *
 * Representations (every one accepts all-zero memory as the point at infinity, so
 * buckets and accumulators may be cleared with memset):
 *   POINT_affine_t  (x, y);            infinity is x = y = 0.
 *   POINT_jac_t     Jacobian (X, Y, Z): x = X/Z^2, y = Y/Z^3;  infinity iff Z = 0.
 *   POINT_xyzz_t    (X, Y, ZZ, ZZZ):    x = X/ZZ,  y = Y/ZZZ, ZZ^3 = ZZZ^2;
 *                   infinity iff ZZ = 0. The MSM buckets' coordinates: additions cost
 *                   8M + 2S mixed and 12M + 2S full, against 7M + 4S and 11M + 5S in
 *                   Jacobian form.
 *
 * Arguments: outputs first, then inputs; outputs may alias inputs of the same type.
 * Scalars are fr_t (Montgomery form) or little-endian 64-bit limbs.
 *
 * Timing: POINT_mul and POINT_mul_limbs are constant time in the scalar and the point
 * (complete formulas, table lookups by masking). The addition functions are constant time
 * except at their exceptional inputs (an infinity, P = Q, P = -Q), where they branch to
 * the right answer; inputs that are independent of secrets, or that collide only with
 * negligible probability, are safe. Everything named _vartime is for public data only.
 */
#if !defined(POINT) || !defined(POINT_FIELD)
#error "define POINT and POINT_FIELD before including point_api.h"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"

#define POINT_CAT2(a, b) a##_##b
#define POINT_CAT(a, b) POINT_CAT2(a, b)
#define P_FN(name) POINT_CAT(POINT, name)
#define P_F POINT_CAT(POINT_FIELD, t)
#define P_AFF POINT_CAT(POINT, affine_t)
#define P_JAC POINT_CAT(POINT, jac_t)
#define P_XYZZ POINT_CAT(POINT, xyzz_t)

typedef struct {
    P_F x, y, z;
} P_JAC;

typedef struct {
    P_F x, y, zz, zzz;
} P_XYZZ;

/* --- affine ------------------------------------------------------------------------- */

void P_FN(affine_set_infinity)(P_AFF *r);
bool P_FN(affine_is_infinity)(const P_AFF *a);
/* The fixed generator of the prime-order subgroup (the one of zcash, noble, blst). */
void P_FN(affine_generator)(P_AFF *r);
/* true iff the coordinates are equal (affine representations are unique). */
bool P_FN(affine_equal)(const P_AFF *a, const P_AFF *b);
void P_FN(affine_neg)(P_AFF *r, const P_AFF *a);
/* The curve point with abscissa x whose y is lexicographically largest (the zcash sign
 * bit) iff y_largest. Returns false, r = infinity, when x^3 + b is not a square.
 * Variable time (meant for decoding public points). */
bool P_FN(affine_from_x)(P_AFF *r, const P_F *x, bool y_largest);
/* true iff a satisfies the curve equation or is the infinity encoding (0, 0). */
bool P_FN(affine_is_on_curve)(const P_AFF *a);
/* true iff a is in the subgroup of order r. a must be on the curve (see
 * affine_is_on_curve): the fast test below is meaningless for other inputs. Variable time. */
bool P_FN(affine_is_in_subgroup)(const P_AFF *a);

/* --- Jacobian ----------------------------------------------------------------------- */

void P_FN(set_infinity)(P_JAC *r);
bool P_FN(is_infinity)(const P_JAC *a);
void P_FN(generator)(P_JAC *r);
void P_FN(from_affine)(P_JAC *r, const P_AFF *a);
/* One field inversion. Infinity maps to (0, 0). */
void P_FN(to_affine)(P_AFF *r, const P_JAC *a);
/* r[i] = a[i] in affine form for i < n with a single inversion (Montgomery's trick);
 * infinities may appear anywhere and map to (0, 0). No allocation: r holds the running
 * products while the function works. */
void P_FN(batch_to_affine)(P_AFF *r, const P_JAC *a, size_t n);

/* Group equality across representations (X1 Z2^2 = X2 Z1^2, Y1 Z2^3 = Y2 Z1^3). */
bool P_FN(equal)(const P_JAC *a, const P_JAC *b);
/* true iff a is infinity or satisfies Y^2 = X^3 + b Z^6. */
bool P_FN(is_on_curve)(const P_JAC *a);
/* true iff a is in the subgroup of order r; a must be on the curve. Variable time.
 * G1: Scott's test phi(P) = [-x^2]P, G2: psi(P) = [x]P (x the BLS parameter), from
 * M. Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly
 * curves", ePrint 2021/1130. Defined in g1.c / g2.c. */
bool P_FN(is_in_subgroup)(const P_JAC *a);

void P_FN(neg)(P_JAC *r, const P_JAC *a);
/* r = a + b for all inputs, including a = b, a = -b and infinities. 11M + 5S. */
void P_FN(add)(P_JAC *r, const P_JAC *a, const P_JAC *b);
/* r = a - b. */
void P_FN(sub)(P_JAC *r, const P_JAC *a, const P_JAC *b);
/* r = a + b with b affine (Z = 1), for all inputs. 7M + 4S. */
void P_FN(add_mixed)(P_JAC *r, const P_JAC *a, const P_AFF *b);
/* r = 2a. 2M + 5S. */
void P_FN(dbl)(P_JAC *r, const P_JAC *a);

/* r = [k]a, k < r or any 256-bit value. Constant time in k and a: signed 5-bit windows,
 * masked table lookups and the complete formulas of Renes, Costello and Batina. */
void P_FN(mul)(P_JAC *r, const P_JAC *a, const fr_t *k);
void P_FN(mul_limbs)(P_JAC *r, const P_JAC *a, const uint64_t k[4]);
/* r = [k]a for a public k: width-5 NAF. k as fr_t or as k_limbs little-endian limbs of
 * any length (cofactors are wider than r). */
void P_FN(mul_vartime)(P_JAC *r, const P_JAC *a, const fr_t *k);
void P_FN(mul_vartime_limbs)(P_JAC *r, const P_JAC *a, const uint64_t *k, size_t k_limbs);

/* --- XYZZ (MSM buckets) ------------------------------------------------------------- */

void P_FN(xyzz_set_infinity)(P_XYZZ *r);
bool P_FN(xyzz_is_infinity)(const P_XYZZ *a);
void P_FN(xyzz_from_affine)(P_XYZZ *r, const P_AFF *a);
/* r = a + b with b affine, for all inputs. 8M + 2S. */
void P_FN(xyzz_add_mixed)(P_XYZZ *r, const P_XYZZ *a, const P_AFF *b);
/* r = a + b, for all inputs. 12M + 2S. */
void P_FN(xyzz_add)(P_XYZZ *r, const P_XYZZ *a, const P_XYZZ *b);
/* r = 2a. 6M + 3S. */
void P_FN(xyzz_dbl)(P_XYZZ *r, const P_XYZZ *a);
/* The same point in Jacobian coordinates, without an inversion (uses ZZ^3 = ZZZ^2). */
void P_FN(xyzz_to_jac)(P_JAC *r, const P_XYZZ *a);

#undef P_XYZZ
#undef P_JAC
#undef P_AFF
#undef P_F
#undef P_FN
#undef POINT_CAT
#undef POINT_CAT2
