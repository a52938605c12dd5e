/* Montgomery arithmetic on little-endian arrays of 64-bit limbs, generic over the
 * modulus and the limb count.
 *
 * Every function is static inline and takes the limb count n as an argument: the
 * per-field wrappers (field_template.h) call them with a compile-time constant n and a
 * constant modulus, so the compiler unrolls the loops and folds the constants. This is
 * the portable path; src/field/mont_x86.c holds the MULX/ADX one for 4 and 6 limbs.
 *
 * Invariants: n <= MONT_MAX_LIMBS; the modulus m is odd and its top limb is below 2^63
 * (true for BLS12-381's p and r), so a + b < 2m never overflows n limbs. Inputs are
 * fully reduced (< m); outputs are fully reduced. Everything here runs in time
 * independent of the values (masks, no branches on data) except mont_pow_vartime.
 */
#ifndef G16_FIELD_MONT_H
#define G16_FIELD_MONT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define MONT_MAX_LIMBS 6

__extension__ typedef unsigned __int128 mont_u128;

#if defined(__x86_64__)
/* On x86-64 the carry intrinsics compile to plain adc/sbb chains; GCC 12 turns the
 * 128-bit formulation below into spills and extra instructions (fp_add took ~190
 * instructions). These are base x86-64 instructions, not the MULX/ADX path. */
#include <x86intrin.h>

static inline uint64_t mont_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
    unsigned long long out;
    *carry = _addcarry_u64((unsigned char)*carry, a, b, &out);
    return out;
}

static inline uint64_t mont_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
    unsigned long long out;
    *borrow = _subborrow_u64((unsigned char)*borrow, a, b, &out);
    return out;
}
#else
static inline uint64_t mont_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
    mont_u128 t = (mont_u128)a + b + *carry;
    *carry = (uint64_t)(t >> 64);
    return (uint64_t)t;
}

static inline uint64_t mont_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
    mont_u128 t = (mont_u128)a - b - *borrow;
    *borrow = (uint64_t)(t >> 64) & 1;
    return (uint64_t)t;
}
#endif

/* r = a - m if a >= m else a, where a has an extra top limb `hi` (0 or 1). */
static inline void mont_reduce_once(uint64_t *r, const uint64_t *a, uint64_t hi,
                                    const uint64_t *m, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS], borrow = 0;
    for (size_t i = 0; i < n; i++)
        t[i] = mont_sbb(a[i], m[i], &borrow);
    (void)mont_sbb(hi, 0, &borrow);
    /* borrow == 1 means a < m: keep a. */
    uint64_t keep_a = (uint64_t)0 - borrow;
    for (size_t i = 0; i < n; i++)
        r[i] = (a[i] & keep_a) | (t[i] & ~keep_a);
}

static inline void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b,
                            const uint64_t *m, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS], carry = 0;
    for (size_t i = 0; i < n; i++)
        t[i] = mont_adc(a[i], b[i], &carry);
    mont_reduce_once(r, t, carry, m, n);
}

static inline void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b,
                            const uint64_t *m, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS], borrow = 0, carry = 0;
    for (size_t i = 0; i < n; i++)
        t[i] = mont_sbb(a[i], b[i], &borrow);
    uint64_t add_m = (uint64_t)0 - borrow;
    for (size_t i = 0; i < n; i++)
        r[i] = mont_adc(t[i], m[i] & add_m, &carry);
}

static inline bool mont_is_zero(const uint64_t *a, size_t n)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

static inline void mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, size_t n)
{
    uint64_t acc = 0, borrow = 0;
    for (size_t i = 0; i < n; i++)
        acc |= a[i];
    /* -0 must be 0, not m. */
    uint64_t nonzero = (uint64_t)0 - (uint64_t)(acc != 0);
    for (size_t i = 0; i < n; i++)
        r[i] = mont_sbb(m[i], a[i], &borrow) & nonzero;
}

/* r = a * b / 2^(64n) mod m (CIOS). minv = -m^-1 mod 2^64. r may alias a or b. */
static inline void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b,
                            const uint64_t *m, uint64_t minv, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS + 2] = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < n; j++) {
            mont_u128 s = (mont_u128)a[j] * b[i] + t[j] + carry;
            t[j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        mont_u128 s = (mont_u128)t[n] + carry;
        t[n] = (uint64_t)s;
        t[n + 1] = (uint64_t)(s >> 64);

        uint64_t q = t[0] * minv;
        s = (mont_u128)q * m[0] + t[0];
        carry = (uint64_t)(s >> 64);
        for (size_t j = 1; j < n; j++) {
            s = (mont_u128)q * m[j] + t[j] + carry;
            t[j - 1] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        s = (mont_u128)t[n] + carry;
        t[n - 1] = (uint64_t)s;
        t[n] = t[n + 1] + (uint64_t)(s >> 64);
    }
    mont_reduce_once(r, t, t[n], m, n);
}

/* Bytes of a field element, little-endian, 8n bytes; no reduction. */
static inline void mont_limbs_from_le(uint64_t *r, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8; k++)
            w |= (uint64_t)in[8 * i + k] << (8 * k);
        r[i] = w;
    }
}

static inline void mont_limbs_to_le(uint8_t *out, const uint64_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < 8; k++)
            out[8 * i + k] = (uint8_t)(a[i] >> (8 * k));
}

/* true iff a < m (constant time). */
static inline bool mont_is_canonical(const uint64_t *a, const uint64_t *m, size_t n)
{
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++)
        (void)mont_sbb(a[i], m[i], &borrow);
    return borrow == 1;
}

#endif
