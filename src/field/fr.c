/* Fr for BLS12-381: constants and roots of unity. */
#include "fr.h"
#include "mont_x86.h"

const uint64_t FR_MODULUS[4] = {
    0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48,
};
static const uint64_t FR_MINV = 0xfffffffeffffffff;
static const uint64_t FR_R2[4] = {
    0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f, 0x0748d9d99f59ff11,
};
static const uint64_t FR_ONE[4] = {
    0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5, 0x1824b159acc5056f,
};

#define FIELD fr
#define FIELD_LIMBS 4
#define FIELD_MOD FR_MODULUS
#define FIELD_MINV FR_MINV
#define FIELD_R2 FR_R2
#define FIELD_ONE FR_ONE
#ifdef G16_HAVE_X86_ASM
#define FIELD_MUL_ASM(r, a, b) mont_mul_adx_4((r), (a), (b), FR_MODULUS, FR_MINV)
#define FIELD_SQR_ASM(r, a) mont_sqr_adx_4((r), (a), FR_MODULUS, FR_MINV)
#endif
#include "field_impl.h"

bool fr_root_of_unity(fr_t *r, unsigned log2n)
{
    if (log2n > FR_TWO_ADICITY)
        return false;
    static const uint64_t odd[4] = {/* (r-1) / 2^32 */
        0xfffe5bfeffffffff, 0x09a1d80553bda402, 0x299d7d483339d808, 0x0000000073eda753,
    };
    fr_t w;
    fr_from_u64(&w, 5);
    fr_pow(&w, &w, odd, 4);
    for (unsigned k = FR_TWO_ADICITY; k > log2n; k--)
        fr_sqr(&w, &w);
    *r = w;
    return true;
}
