/* The API shared by the prime fields Fp and Fr, written once and instantiated by
 * fp.h and fr.h (a C "template": define FIELD and FIELD_LIMBS, then include).
 *
 * Elements are stored in Montgomery form (x * 2^(64*FIELD_LIMBS) mod m) and are always
 * fully reduced. Arguments follow one order: outputs first, then inputs; a length comes
 * right after its array. Outputs may alias inputs unless a function says otherwise.
 * Everything is constant time in the values except where marked _vartime or where the
 * only variable input is public (exponents passed to FIELD_pow).
 */
#if !defined(FIELD) || !defined(FIELD_LIMBS)
#error "define FIELD and FIELD_LIMBS before including field_api.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define FIELD_CAT2(a, b) a##_##b
#define FIELD_CAT(a, b) FIELD_CAT2(a, b)
#define FIELD_FN(name) FIELD_CAT(FIELD, name)
#define FIELD_T FIELD_CAT(FIELD, t)

typedef struct {
    uint64_t l[FIELD_LIMBS];
} FIELD_T;

/* Number of bytes of a canonical encoding. */
enum { FIELD_CAT(FIELD, BYTES) = 8 * FIELD_LIMBS };

void FIELD_FN(zero)(FIELD_T *r);
void FIELD_FN(one)(FIELD_T *r);
void FIELD_FN(from_u64)(FIELD_T *r, uint64_t v);
bool FIELD_FN(is_zero)(const FIELD_T *a);
bool FIELD_FN(is_one)(const FIELD_T *a);
bool FIELD_FN(equal)(const FIELD_T *a, const FIELD_T *b);

void FIELD_FN(add)(FIELD_T *r, const FIELD_T *a, const FIELD_T *b);
void FIELD_FN(sub)(FIELD_T *r, const FIELD_T *a, const FIELD_T *b);
void FIELD_FN(dbl)(FIELD_T *r, const FIELD_T *a);
void FIELD_FN(neg)(FIELD_T *r, const FIELD_T *a);
void FIELD_FN(mul)(FIELD_T *r, const FIELD_T *a, const FIELD_T *b);
void FIELD_FN(sqr)(FIELD_T *r, const FIELD_T *a);
/* Multiplication without the assembly path, for tests and for the fallback. */
void FIELD_FN(mul_portable)(FIELD_T *r, const FIELD_T *a, const FIELD_T *b);

/* r = a^e, e little-endian 64-bit limbs. Time depends on e (meant for public e). */
void FIELD_FN(pow)(FIELD_T *r, const FIELD_T *a, const uint64_t *e, size_t e_limbs);
/* r = 1/a. Returns false (and sets r = 0) when a = 0. */
bool FIELD_FN(inv)(FIELD_T *r, const FIELD_T *a);
/* r[i] = 1/a[i] for i < n with one inversion (Montgomery's trick); zeros map to zero.
 * r must not alias a. */
void FIELD_FN(batch_inv)(FIELD_T *r, const FIELD_T *a, size_t n);
/* inv and batch_inv with the same results, in variable time (safegcd, inv_vartime.c;
 * ~9x faster than Fermat for Fp, ~5x for Fr): only for public data or data already handled in
 * variable time, such as the MSM's bucket sums. */
bool FIELD_FN(inv_vartime)(FIELD_T *r, const FIELD_T *a);
void FIELD_FN(batch_inv_vartime)(FIELD_T *r, const FIELD_T *a, size_t n);

/* r = a if flag else r, constant time. */
void FIELD_FN(cmov)(FIELD_T *r, const FIELD_T *a, bool flag);

/* Canonical (standard-form) integers, as little-endian limbs. from_ returns false when
 * the value is not below the modulus (r is then left zero). */
bool FIELD_FN(from_limbs)(FIELD_T *r, const uint64_t v[FIELD_LIMBS]);
void FIELD_FN(to_limbs)(uint64_t v[FIELD_LIMBS], const FIELD_T *a);

/* Canonical bytes, standard form, 8*FIELD_LIMBS bytes. from_ returns false for a value
 * not below the modulus. */
bool FIELD_FN(from_bytes_le)(FIELD_T *r, const uint8_t *in);
bool FIELD_FN(from_bytes_be)(FIELD_T *r, const uint8_t *in);
void FIELD_FN(to_bytes_le)(uint8_t *out, const FIELD_T *a);
void FIELD_FN(to_bytes_be)(uint8_t *out, const FIELD_T *a);

/* Montgomery-form bytes, little-endian: the layout of snarkjs .zkey files, whose
 * Montgomery radix 2^(8*n8) equals ours. from_ rejects values not below the modulus. */
bool FIELD_FN(from_mont_bytes_le)(FIELD_T *r, const uint8_t *in);
void FIELD_FN(to_mont_bytes_le)(uint8_t *out, const FIELD_T *a);

#undef FIELD_T
#undef FIELD_FN
#undef FIELD_CAT
#undef FIELD_CAT2
