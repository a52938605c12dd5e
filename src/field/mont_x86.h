/* MULX/ADX (BMI2 + ADX) Montgomery multiplication for 4 and 6 limbs, x86-64 only.
 * Same contract as mont_mul in mont.h (inputs reduced, outputs reduced, modulus top limb
 * below 2^63); only called when cpu_use_asm is true. */
#ifndef G16_FIELD_MONT_X86_H
#define G16_FIELD_MONT_X86_H

#include <stdint.h>

#ifdef G16_HAVE_X86_ASM
void mont_mul_adx_4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                    const uint64_t m[4], uint64_t minv);
void mont_sqr_adx_4(uint64_t r[4], const uint64_t a[4], const uint64_t m[4], uint64_t minv);
void mont_mul_adx_6(uint64_t r[6], const uint64_t a[6], const uint64_t b[6],
                    const uint64_t m[6], uint64_t minv);
void mont_sqr_adx_6(uint64_t r[6], const uint64_t a[6], const uint64_t m[6], uint64_t minv);
#endif

#endif
