/* G1 over Fp: curve constants, the point template, and the subgroup test. */
#include "g1.h"

/* Montgomery-form constants (x * 2^384 mod p). */
static const fp_t curve_b = {{/* 4 */
    0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f,
    0xb1d37ebee6ba24d7, 0x8ec9733bbf78ab2f, 0x09d645513d83de7e,
}};

static const g1_affine_t curve_generator = {
    {{0x5cb38790fd530c16, 0x7817fc679976fff5, 0x154f95c7143ba1c1,
      0xf0ae6acdf3d0e747, 0xedce6ecc21dbf440, 0x120177419e0bfb75}},
    {{0xbaac93d50ce72271, 0x8c22631a7918fd8e, 0xdd595f13570725ce,
      0x51ac582950405194, 0x0e1c8c3fad0059c0, 0x0bbc3efc5008a26a}},
};

/* beta: the cube root of unity for which phi(x, y) = (beta x, y) acts on G1 as [-x^2]
 * (the other root gives [x^2 - 1]). The same constant as noble's and blst's. */
static const fp_t endo_beta = {{
    0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7,
    0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160,
}};

static void curve_mul_by_3b(fp_t *r, const fp_t *a)
{
    /* 3b = 12: four additions instead of a multiplication. */
    fp_t t;
    fp_dbl(&t, a);
    fp_add(&t, &t, a);
    fp_dbl(&t, &t);
    fp_dbl(r, &t);
}

#define POINT g1
#define POINT_FIELD fp
#include "point_impl.h"
#undef POINT
#undef POINT_FIELD

bool g1_is_in_subgroup(const g1_jac_t *a)
{
    /* Scott, ePrint 2021/1130: on BLS12 curves P is in G1 iff phi(P) = [-x^2]P.
     * Two chains of [|x|] (x^2 > 0) instead of a 255-bit [r]. */
    g1_jac_t t, phi;
    mul_by_x_abs(&t, a);
    mul_by_x_abs(&t, &t);
    g1_neg(&t, &t);
    phi = *a;
    fp_mul(&phi.x, &a->x, &endo_beta);
    return g1_equal(&phi, &t);
}
