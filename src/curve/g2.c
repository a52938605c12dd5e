/* G2 over Fp2: curve constants, the point template, and the subgroup test. */
#include "g2.h"

/* Montgomery-form constants (x * 2^384 mod p per coefficient). */
static const fp2_t curve_b = {/* 4 + 4u */
    {{0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f,
      0xb1d37ebee6ba24d7, 0x8ec9733bbf78ab2f, 0x09d645513d83de7e}},
    {{0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f,
      0xb1d37ebee6ba24d7, 0x8ec9733bbf78ab2f, 0x09d645513d83de7e}},
};

static const g2_affine_t curve_generator = {
    {{{0xf5f28fa202940a10, 0xb3f5fb2687b4961a, 0xa1a893b53e2ae580,
       0x9894999d1a3caee9, 0x6f67b7631863366b, 0x058191924350bcd7}},
     {{0xa5a9c0759e23f606, 0xaaa0c59dbccd60c3, 0x3bb17e18e2867806,
       0x1b1ab6cc8541b367, 0xc2b6ed0ef2158547, 0x11922a097360edf3}}},
    {{{0x4c730af860494c4a, 0x597cfa1f5e369c5a, 0xe7e6856caa0a635a,
       0xbbefb5e96e0d495f, 0x07d3a975f0ef25a2, 0x0083fd8e7e80dae5}},
     {{0xadc0fc92df64b05d, 0x18aa270a2b1461dc, 0x86adac6a3be4eba0,
       0x79495c4ec93da33a, 0xe7175850a43ccaed, 0x0b2bc2a163de1bf2}}},
};

/* psi = untwist-Frobenius-twist: psi(x, y) = (conj(x) cx, conj(y) cy) with
 * cx = (u + 1)^-((p-1)/3) and cy = (u + 1)^-((p-1)/2). cx has c0 = 0. */
static const fp2_t psi_cx = {
    {{0, 0, 0, 0, 0, 0}},
    {{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c,
      0xa20d1b8c7e881024, 0x14e4f04fe2db9068, 0x14e56d3f1564853a}},
};
static const fp2_t psi_cy = {
    {{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732,
      0x92ad2afd19103e18, 0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8}},
    {{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1,
      0xd1ca2087da74d4a7, 0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2}},
};

static void curve_mul_by_3b(fp2_t *r, const fp2_t *a)
{
    /* 3b = 12(u + 1): the non-residue product (two additions) and four more. */
    fp2_t t, u;
    fp2_mul_by_nonresidue(&t, a);
    fp2_dbl(&u, &t);
    fp2_add(&u, &u, &t);
    fp2_dbl(&u, &u);
    fp2_dbl(r, &u);
}

#define POINT g2
#define POINT_FIELD fp2
#include "point_impl.h"
#undef POINT
#undef POINT_FIELD

/* Frobenius is a field automorphism, so psi applies coordinate-wise in Jacobian form:
 * (conj(X) cx, conj(Y) cy, conj(Z)). */
static void psi(g2_jac_t *r, const g2_jac_t *a)
{
    fp2_t t;
    fp2_conj(&t, &a->x);
    fp2_mul(&r->x, &t, &psi_cx);
    fp2_conj(&t, &a->y);
    fp2_mul(&r->y, &t, &psi_cy);
    fp2_conj(&r->z, &a->z);
}

bool g2_is_in_subgroup(const g2_jac_t *a)
{
    /* Scott, ePrint 2021/1130 (after Bowe, ePrint 2019/814): on BLS12 curves P is in
     * G2 iff psi(P) = [x]P. x < 0, so [x]P = -[|x|]P. */
    g2_jac_t t, p;
    mul_by_x_abs(&t, a);
    g2_neg(&t, &t);
    psi(&p, a);
    return g2_equal(&p, &t);
}
