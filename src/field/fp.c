/* Fp for BLS12-381: constants and the operations only the base field needs. */
#include "fp.h"
#include "mont_x86.h"

const uint64_t FP_MODULUS[6] = {
    0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
    0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a,
};
static const uint64_t FP_MINV = 0x89f3fffcfffcfffd;
static const uint64_t FP_R2[6] = {
    0xf4df1f341c341746, 0x0a76e6a609d104f1, 0x8de5476c4c95b6d5,
    0x67eb88a9939d83c0, 0x9a793e85b519952d, 0x11988fe592cae3aa,
};
static const uint64_t FP_ONE[6] = {
    0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
    0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493,
};

#define FIELD fp
#define FIELD_LIMBS 6
#define FIELD_MOD FP_MODULUS
#define FIELD_MINV FP_MINV
#define FIELD_R2 FP_R2
#define FIELD_ONE FP_ONE
#ifdef G16_HAVE_X86_ASM
#define FIELD_MUL_ASM(r, a, b) mont_mul_adx_6((r), (a), (b), FP_MODULUS, FP_MINV)
#define FIELD_SQR_ASM(r, a) mont_sqr_adx_6((r), (a), FP_MODULUS, FP_MINV)
#endif
#include "field_impl.h"

bool fp_sqrt(fp_t *r, const fp_t *a)
{
    /* p = 3 mod 4, so a^((p+1)/4) is a root whenever one exists. */
    static const uint64_t exp[6] = {
        0xee7fbfffffffeaab, 0x07aaffffac54ffff, 0xd9cc34a83dac3d89,
        0xd91dd2e13ce144af, 0x92c6e9ed90d2eb35, 0x0680447a8e5ff9a6,
    };
    fp_t root, check;
    fp_pow(&root, a, exp, 6);
    fp_sqr(&check, &root);
    if (!fp_equal(&check, a))
        return false;
    *r = root;
    return true;
}

bool fp_is_lexicographically_largest(const fp_t *a)
{
    static const uint64_t half[6] = {/* (p-1)/2 */
        0xdcff7fffffffd555, 0x0f55ffff58a9ffff, 0xb39869507b587b12,
        0xb23ba5c279c2895f, 0x258dd3db21a5d66b, 0x0d0088f51cbff34d,
    };
    uint64_t v[6], borrow = 0;
    fp_to_limbs(v, a);
    /* half - v borrows iff v > half. */
    for (size_t i = 0; i < 6; i++)
        (void)mont_sbb(half[i], v[i], &borrow);
    return borrow == 1;
}
