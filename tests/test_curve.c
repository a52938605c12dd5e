/* G1 and G2 point arithmetic: group laws across the three representations, scalar
 * multiplication laws, the fast subgroup tests against multiplication by r (on points in
 * and out of the subgroup, small-order torsion included), and batch normalisation.
 *
 * The checks are written once for both groups: this file includes itself with
 * CURVE_TEST_GROUP defined, once per group (the same template idea as
 * curve/point_impl.h). The second part, at the bottom, is the driver. */
#ifdef CURVE_TEST_GROUP

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define PT(name) CAT(CURVE_TEST_GROUP, name)
#define FLD(name) CAT(CURVE_TEST_FIELD, name)
#define FE CAT(CURVE_TEST_FIELD, t)
#define AFF CAT(CURVE_TEST_GROUP, affine_t)
#define JAC CAT(CURVE_TEST_GROUP, jac_t)
#define XYZZ CAT(CURVE_TEST_GROUP, xyzz_t)

/* A random point of the prime-order subgroup, [k]G. */
static void PT(t_random)(JAC *r)
{
    JAC g;
    fr_t k;
    PT(generator)(&g);
    test_random_fr(&k);
    PT(mul_vartime)(r, &g, &k);
}

/* A random point of E(F), almost surely outside the subgroup: random x until x^3 + b is
 * a square, random root, no cofactor clearing. */
static void PT(t_random_curve_point)(JAC *r)
{
    AFF a;
    FE x;
    do
        CURVE_TEST_RANDOM_FE(&x);
    while (!PT(affine_from_x)(&a, &x, test_rand64() & 1));
    PT(from_affine)(r, &a);
}

/* The same point with another Z: (X l^2, Y l^3, Z l). */
static void PT(t_rescale)(JAC *r, const JAC *a)
{
    FE l, l2, l3;
    do
        CURVE_TEST_RANDOM_FE(&l);
    while (FLD(is_zero)(&l));
    FLD(sqr)(&l2, &l);
    FLD(mul)(&l3, &l2, &l);
    FLD(mul)(&r->x, &a->x, &l2);
    FLD(mul)(&r->y, &a->y, &l3);
    FLD(mul)(&r->z, &a->z, &l);
}

static void PT(t_to_xyzz)(XYZZ *r, const JAC *a)
{
    AFF t;
    PT(to_affine)(&t, a);
    PT(xyzz_from_affine)(r, &t);
}

static bool PT(t_xyzz_equal)(const XYZZ *a, const JAC *b)
{
    JAC t;
    PT(xyzz_to_jac)(&t, a);
    return PT(equal)(&t, b) && PT(is_on_curve)(&t);
}

/* Every way of adding a and b must give the same point; want = a + b computed by the
 * caller some other way when want != NULL. */
static void PT(t_check_sum)(const JAC *a, const JAC *b, const JAC *want)
{
    JAC s, t, ra, rb;
    AFF aa, ab;
    XYZZ xa, xb, xs;
    PT(add)(&s, a, b);
    CHECK(PT(is_on_curve)(&s));
    if (want)
        CHECK(PT(equal)(&s, want));
    PT(add)(&t, b, a);
    CHECK(PT(equal)(&t, &s));
    PT(t_rescale)(&ra, a);
    PT(t_rescale)(&rb, b);
    PT(add)(&t, &ra, &rb);
    CHECK(PT(equal)(&t, &s));
    PT(to_affine)(&aa, a);
    PT(to_affine)(&ab, b);
    PT(add_mixed)(&t, &ra, &ab);
    CHECK(PT(equal)(&t, &s));
    PT(add_mixed)(&t, &rb, &aa);
    CHECK(PT(equal)(&t, &s));
    PT(t_to_xyzz)(&xa, a);
    PT(t_to_xyzz)(&xb, b);
    PT(xyzz_add_mixed)(&xs, &xa, &ab);
    CHECK(PT(t_xyzz_equal)(&xs, &s));
    PT(xyzz_add)(&xs, &xa, &xb);
    CHECK(PT(t_xyzz_equal)(&xs, &s));
    /* XYZZ with Z != 1 on both sides: double first, then add against the doubled b. */
    XYZZ xa2, xb2;
    JAC a2, b2, s2;
    PT(xyzz_dbl)(&xa2, &xa);
    PT(xyzz_dbl)(&xb2, &xb);
    PT(dbl)(&a2, a);
    PT(dbl)(&b2, b);
    CHECK(PT(t_xyzz_equal)(&xa2, &a2));
    PT(add)(&s2, &a2, &b2);
    PT(xyzz_add)(&xs, &xa2, &xb2);
    CHECK(PT(t_xyzz_equal)(&xs, &s2));
    AFF ab2;
    PT(to_affine)(&ab2, &b2);
    PT(xyzz_add_mixed)(&xs, &xa2, &ab2);
    CHECK(PT(t_xyzz_equal)(&xs, &s2));
    /* Outputs aliasing inputs. */
    t = *a;
    PT(add)(&t, &t, b);
    CHECK(PT(equal)(&t, &s));
    t = *b;
    PT(add)(&t, a, &t);
    CHECK(PT(equal)(&t, &s));
    xs = xa;
    PT(xyzz_add)(&xs, &xs, &xb);
    CHECK(PT(t_xyzz_equal)(&xs, &s));
}

static void PT(t_laws_on)(const JAC *p, const JAC *q, const JAC *r)
{
    JAC o, t, u, np, p2;
    PT(set_infinity)(&o);
    PT(neg)(&np, p);
    PT(dbl)(&p2, p);
    CHECK(PT(is_on_curve)(&p2));

    PT(t_check_sum)(p, q, NULL);
    PT(t_check_sum)(p, &o, p);   /* identity on either side */
    PT(t_check_sum)(&o, q, q);
    PT(t_check_sum)(&o, &o, &o);
    PT(t_check_sum)(p, &np, &o); /* inverse */
    PT(t_check_sum)(p, p, &p2);  /* P + P = 2P through every add */
    PT(sub)(&t, p, p);
    CHECK(PT(is_infinity)(&t));
    PT(sub)(&t, &p2, p);
    CHECK(PT(equal)(&t, p));

    /* associativity */
    PT(add)(&t, p, q);
    PT(add)(&t, &t, r);
    PT(add)(&u, q, r);
    PT(add)(&u, p, &u);
    CHECK(PT(equal)(&t, &u));

    /* doubling agrees with XYZZ doubling and with 2P = P + P in affine form */
    XYZZ xp;
    PT(t_to_xyzz)(&xp, p);
    PT(xyzz_dbl)(&xp, &xp);
    CHECK(PT(t_xyzz_equal)(&xp, &p2));
    PT(dbl)(&t, &o);
    CHECK(PT(is_infinity)(&t));
    XYZZ xo;
    PT(xyzz_set_infinity)(&xo);
    PT(xyzz_dbl)(&xo, &xo);
    CHECK(PT(xyzz_is_infinity)(&xo));
    PT(xyzz_to_jac)(&t, &xo);
    CHECK(PT(is_infinity)(&t));

    /* affine round trip and affine negation */
    AFF a, na;
    PT(to_affine)(&a, p);
    CHECK(PT(affine_is_on_curve)(&a));
    PT(from_affine)(&t, &a);
    CHECK(PT(equal)(&t, p));
    PT(affine_neg)(&na, &a);
    PT(from_affine)(&t, &na);
    CHECK(PT(equal)(&t, &np));
    CHECK(PT(equal)(p, p) && PT(equal)(&o, &o));
    if (!PT(is_infinity)(p))
        CHECK(!PT(equal)(p, &o) && !PT(equal)(&o, p));
    CHECK(PT(is_infinity)(p) == PT(affine_is_infinity)(&a));
}

static void PT(t_laws)(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        JAC p, q, r;
        PT(t_random)(&p);
        PT(t_random)(&q);
        PT(t_random)(&r);
        PT(t_laws_on)(&p, &q, &r);
        /* The group law holds on all of E(F), not just the subgroup. */
        PT(t_random_curve_point)(&p);
        PT(t_random_curve_point)(&q);
        PT(t_random_curve_point)(&r);
        PT(t_laws_on)(&p, &q, &r);
    }
    /* An XYZZ bucket accumulating many affine points, repeats and negations included,
     * must equal the Jacobian sum. */
    enum { N = 48 };
    AFF pts[N];
    JAC jac[N], sum;
    XYZZ acc;
    for (size_t i = 0; i < N; i++) {
        if (i >= 8 && i % 8 == 0)
            PT(affine_neg)(&pts[i], &pts[i - 3]);
        else if (i >= 8 && i % 8 == 1)
            pts[i] = pts[i - 5];
        else if (i % 8 == 2)
            PT(affine_set_infinity)(&pts[i]);
        else {
            PT(t_random)(&jac[i]);
            PT(to_affine)(&pts[i], &jac[i]);
        }
    }
    PT(set_infinity)(&sum);
    PT(xyzz_set_infinity)(&acc);
    for (size_t i = 0; i < N; i++) {
        PT(add_mixed)(&sum, &sum, &pts[i]);
        PT(xyzz_add_mixed)(&acc, &acc, &pts[i]);
        CHECK(PT(t_xyzz_equal)(&acc, &sum));
    }
}

/* k = a + b as 256-bit integers (no reduction); false on overflow. */
static bool PT(t_add_limbs)(uint64_t k[4], const uint64_t a[4], const uint64_t b[4])
{
    unsigned __int128 c = 0;
    for (int i = 0; i < 4; i++) {
        c += (unsigned __int128)a[i] + b[i];
        k[i] = (uint64_t)c;
        c >>= 64;
    }
    return c == 0;
}

static void PT(t_mul_agree)(const JAC *p, const uint64_t k[4])
{
    JAC a, b;
    PT(mul_limbs)(&a, p, k);
    PT(mul_vartime_limbs)(&b, p, k, 4);
    CHECK(PT(equal)(&a, &b));
    CHECK(PT(is_on_curve)(&a));
}

static void PT(t_mul)(size_t count)
{
    JAC g, o, t, u;
    PT(generator)(&g);
    PT(set_infinity)(&o);
    static const uint64_t zero[4] = {0}, one[4] = {1};
    uint64_t r_minus_1[4];
    memcpy(r_minus_1, FR_MODULUS, sizeof r_minus_1);
    r_minus_1[0] -= 1;

    for (size_t i = 0; i < count; i++) {
        JAC p, q;
        fr_t a, b, c;
        PT(t_random)(&p);
        test_random_fr(&a);
        test_random_fr(&b);

        /* (a + b)P = aP + bP, (ab)P = a(bP), constant time against vartime */
        fr_add(&c, &a, &b);
        PT(mul)(&t, &p, &c);
        PT(mul)(&q, &p, &a);
        PT(mul)(&u, &p, &b);
        PT(add)(&u, &q, &u);
        CHECK(PT(equal)(&t, &u));
        PT(mul_vartime)(&u, &p, &c);
        CHECK(PT(equal)(&t, &u));
        fr_mul(&c, &a, &b);
        PT(mul)(&t, &p, &c);
        PT(mul)(&u, &p, &b);
        PT(mul)(&u, &u, &a); /* aliasing output and input */
        CHECK(PT(equal)(&t, &u));

        PT(mul_limbs)(&t, &p, FR_MODULUS);
        CHECK(PT(is_infinity)(&t));
        PT(mul_vartime_limbs)(&t, &p, FR_MODULUS, 4);
        CHECK(PT(is_infinity)(&t));
        PT(mul_limbs)(&t, &p, zero);
        CHECK(PT(is_infinity)(&t));
        PT(mul_vartime_limbs)(&t, &p, zero, 4);
        CHECK(PT(is_infinity)(&t));
        PT(mul_limbs)(&t, &p, one);
        CHECK(PT(equal)(&t, &p));
        PT(mul_limbs)(&t, &p, r_minus_1);
        PT(neg)(&u, &p);
        CHECK(PT(equal)(&t, &u));
        PT(mul_vartime_limbs)(&t, &p, r_minus_1, 4);
        CHECK(PT(equal)(&t, &u));
        PT(mul)(&t, &o, &a);
        CHECK(PT(is_infinity)(&t));
        PT(mul_vartime)(&t, &o, &a);
        CHECK(PT(is_infinity)(&t));

        /* 256-bit scalars beyond r: [k + r]P = [k]P on the subgroup */
        uint64_t k[4], kr[4];
        do
            for (int j = 0; j < 4; j++)
                k[j] = test_rand64() >> (j == 3 ? 2 : 0);
        while (!PT(t_add_limbs)(kr, k, FR_MODULUS));
        PT(mul_limbs)(&t, &p, k);
        PT(mul_limbs)(&u, &p, kr);
        CHECK(PT(equal)(&t, &u));
        PT(mul_vartime_limbs)(&u, &p, kr, 4);
        CHECK(PT(equal)(&t, &u));

        /* Off the subgroup, the order is not r: integer laws only. */
        uint64_t ka[4], kb[4], kab[4];
        for (int j = 0; j < 4; j++) {
            ka[j] = test_rand64() >> (j == 3 ? 2 : 0);
            kb[j] = test_rand64() >> (j == 3 ? 2 : 0);
        }
        PT(t_add_limbs)(kab, ka, kb);
        PT(t_random_curve_point)(&q);
        PT(mul_limbs)(&t, &q, kab);
        PT(mul_limbs)(&u, &q, ka);
        PT(mul_vartime_limbs)(&p, &q, kb, 4);
        PT(add)(&u, &u, &p);
        CHECK(PT(equal)(&t, &u));
        PT(t_mul_agree)(&q, kab);
        uint64_t all_ones[4] = {~0ull, ~0ull, ~0ull, ~0ull};
        PT(t_mul_agree)(&q, all_ones);
    }

    /* Small and structured scalars against repeated addition, where the signed windows
     * and the sliding window meet their carries: 0..70, 2^j, 2^j - 1, 2^j + 1 (every j
     * near a limb boundary, every fifth elsewhere). */
    PT(set_infinity)(&u);
    for (uint64_t s = 0; s <= 70; s++) {
        uint64_t k[4] = {s};
        PT(mul_limbs)(&t, &g, k);
        CHECK(PT(equal)(&t, &u));
        PT(t_mul_agree)(&g, k);
        PT(add)(&u, &u, &g);
    }
    for (int j = 0; j < 256; j += (j % 64 < 8 || j % 64 > 56) ? 1 : 5) {
        uint64_t k[4] = {0}, km[4], kp[4];
        k[j / 64] = 1ull << (j % 64);
        memcpy(km, k, sizeof k);
        memcpy(kp, k, sizeof k);
        /* 2^j - 1 and 2^j + 1 */
        for (int l = 0; l < 4 && km[l]-- == 0; l++)
            ;
        kp[0] |= 1;
        PT(t_mul_agree)(&g, k);
        PT(t_mul_agree)(&g, km);
        if (j > 0)
            PT(t_mul_agree)(&g, kp);
    }
    /* A long scalar: [r * 2^64 + 5]P = [5]P needs more than four limbs. */
    uint64_t long_k[5] = {5, FR_MODULUS[0], FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3]};
    uint64_t five[4] = {5};
    PT(mul_vartime_limbs)(&t, &g, long_k, 5);
    PT(mul_limbs)(&u, &g, five);
    CHECK(PT(equal)(&t, &u));
}

/* q = a / d for a small d (long division on limbs); returns the remainder. */
static uint64_t PT(t_div_small)(uint64_t *q, const uint64_t *a, size_t n, uint64_t d)
{
    unsigned __int128 rem = 0;
    for (size_t i = n; i-- > 0;) {
        rem = rem << 64 | a[i];
        q[i] = (uint64_t)(rem / d);
        rem %= d;
    }
    return (uint64_t)rem;
}

/* The subgroup test agrees with "[r]P is infinity" on P. */
static void PT(t_subgroup_agrees)(const JAC *p)
{
    JAC t;
    AFF a;
    PT(mul_vartime_limbs)(&t, p, FR_MODULUS, 4);
    bool want = PT(is_infinity)(&t);
    CHECK(PT(is_in_subgroup)(p) == want);
    PT(to_affine)(&a, p);
    CHECK(PT(affine_is_in_subgroup)(&a) == want);
}

static void PT(t_subgroup)(size_t count)
{
    static const uint64_t cofactor[] = CURVE_TEST_COFACTOR;
    static const uint64_t factors[] = CURVE_TEST_COFACTOR_PRIMES;
    const size_t hn = sizeof cofactor / sizeof cofactor[0];
    JAC p, q, t;
    size_t in = 0, out = 0, torsion = 0;
    for (size_t i = 0; i < count; i++) {
        PT(t_random)(&p);
        CHECK(PT(is_in_subgroup)(&p));
        PT(t_subgroup_agrees)(&p);

        PT(t_random_curve_point)(&q);
        PT(t_subgroup_agrees)(&q);
        out += !PT(is_in_subgroup)(&q);

        /* Clearing the cofactor lands in the subgroup. */
        PT(mul_vartime_limbs)(&t, &q, cofactor, hn);
        CHECK(PT(is_in_subgroup)(&t));
        in += PT(is_in_subgroup)(&t);

        /* [r]Q is pure torsion; p + [r]Q is a subgroup point moved off the subgroup. */
        JAC tor;
        PT(mul_vartime_limbs)(&tor, &q, FR_MODULUS, 4);
        PT(t_subgroup_agrees)(&tor);
        PT(add)(&t, &p, &tor);
        PT(t_subgroup_agrees)(&t);
        CHECK(PT(is_infinity)(&tor) || !PT(is_in_subgroup)(&t));

        /* The l-primary torsion for each small prime l dividing the cofactor:
         * T = [h / l^e][r]Q with l^e exactly dividing h. ([h/l] alone would kill it
         * where that part of the group is Z/l x Z/l, as for most l^2 in G1's h.) */
        for (size_t f = 0; f < sizeof factors / sizeof factors[0]; f++) {
            uint64_t hq[8], next[8], le = 1;
            memcpy(hq, cofactor, sizeof cofactor);
            CHECK(PT(t_div_small)(next, hq, hn, factors[f]) == 0);
            while (PT(t_div_small)(next, hq, hn, factors[f]) == 0) {
                memcpy(hq, next, sizeof cofactor);
                le *= factors[f];
            }
            PT(mul_vartime_limbs)(&t, &tor, hq, hn);
            PT(t_subgroup_agrees)(&t);
            if (!PT(is_infinity)(&t)) {
                torsion++;
                /* [l^e]T = O: T really lies in the l-part */
                uint64_t l[1] = {le};
                JAC lt;
                PT(mul_vartime_limbs)(&lt, &t, l, 1);
                CHECK(PT(is_infinity)(&lt));
                CHECK(!PT(is_in_subgroup)(&t));
                PT(add)(&t, &t, &p);
                PT(t_subgroup_agrees)(&t);
                CHECK(!PT(is_in_subgroup)(&t));
            }
        }
    }
    CHECK(in == count);
    CHECK(out == count); /* a random curve point is in the subgroup with chance 1/h */
    CHECK(torsion > 0);  /* T vanishes with chance at most 1/l per prime */

    JAC o, g;
    PT(set_infinity)(&o);
    PT(generator)(&g);
    CHECK(PT(is_in_subgroup)(&o));
    CHECK(PT(is_in_subgroup)(&g));
    AFF ao;
    PT(affine_set_infinity)(&ao);
    CHECK(PT(affine_is_in_subgroup)(&ao));
    CHECK(PT(affine_is_on_curve)(&ao));
}

static void PT(t_batch)(size_t count)
{
    enum { N = 40 };
    JAC in[N];
    AFF out[N], want;
    for (size_t round = 0; round < count; round++) {
        size_t n = round % N + 1;
        for (size_t i = 0; i < n; i++) {
            /* infinities in runs and alone, at both ends; all-infinity when round % 7 == 3 */
            bool inf = round % 7 == 3 || test_rand64() % 4 == 0;
            if (inf) {
                PT(t_random)(&in[i]);
                FLD(zero)(&in[i].z); /* any X, Y with Z = 0 is infinity */
            } else {
                PT(t_random)(&in[i]);
                PT(t_rescale)(&in[i], &in[i]);
            }
        }
        PT(batch_to_affine)(out, in, n);
        for (size_t i = 0; i < n; i++) {
            PT(to_affine)(&want, &in[i]);
            CHECK(PT(affine_equal)(&out[i], &want));
            CHECK(PT(is_infinity)(&in[i]) == PT(affine_is_infinity)(&out[i]));
        }
    }
    PT(batch_to_affine)(out, in, 0); /* n = 0 touches nothing */
}

static void PT(t_on_curve)(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        AFF a;
        JAC p;
        PT(t_random)(&p);
        PT(to_affine)(&a, &p);
        CHECK(PT(affine_is_on_curve)(&a) && PT(is_on_curve)(&p));
        if (!PT(affine_is_infinity)(&a)) {
            FE one;
            FLD(one)(&one);
            FLD(add)(&a.y, &a.y, &one);
            CHECK(!PT(affine_is_on_curve)(&a));
            PT(from_affine)(&p, &a);
            CHECK(!PT(is_on_curve)(&p));
        }
        /* affine_from_x gives the root with the requested sign */
        FE x;
        CURVE_TEST_RANDOM_FE(&x);
        for (int s = 0; s < 2; s++)
            if (PT(affine_from_x)(&a, &x, s)) {
                CHECK(PT(affine_is_on_curve)(&a));
                CHECK(FLD(is_lexicographically_largest)(&a.y) == (s == 1));
            } else
                CHECK(PT(affine_is_infinity)(&a));
    }
}

static void PT(t_all)(size_t count)
{
    PT(t_laws)(count);
    PT(t_mul)(count);
    PT(t_subgroup)(count);
    PT(t_batch)(4 * count);
    PT(t_on_curve)(4 * count);
}

#undef XYZZ
#undef JAC
#undef AFF
#undef FE
#undef FLD
#undef PT
#undef CAT
#undef CAT2

#else /* the driver */

#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/cpu.h"
#include "harness.h"

static void random_fp2(fp2_t *r)
{
    test_random_fp(&r->c0);
    test_random_fp(&r->c1);
}

#define CURVE_TEST_GROUP g1
#define CURVE_TEST_FIELD fp
#define CURVE_TEST_RANDOM_FE test_random_fp
/* h1 = (x - 1)^2 / 3 = 3 * 11^2 * 10177^2 * 859267^2 * 52437899^2 */
#define CURVE_TEST_COFACTOR {0x8c00aaab0000aaab, 0x396c8c005555e156}
#define CURVE_TEST_COFACTOR_PRIMES {3, 11, 10177, 859267, 52437899}
#include "test_curve.c"
#undef CURVE_TEST_GROUP
#undef CURVE_TEST_FIELD
#undef CURVE_TEST_RANDOM_FE
#undef CURVE_TEST_COFACTOR
#undef CURVE_TEST_COFACTOR_PRIMES

#define CURVE_TEST_GROUP g2
#define CURVE_TEST_FIELD fp2
#define CURVE_TEST_RANDOM_FE random_fp2
/* h2 = 13^2 * 23^2 * 2713 * 11953 * 262069 * (a 448-bit prime) */
#define CURVE_TEST_COFACTOR                                                               \
    {0xcf1c38e31c7238e5, 0x1616ec6e786f0c70, 0x21537e293a6691ae, 0xa628f1cb4d9e82ef,      \
     0xa68a205b2e5a7ddf, 0xcd91de4547085aba, 0x091d50792876a202, 0x05d543a95414e7f1}
#define CURVE_TEST_COFACTOR_PRIMES {13, 23, 2713, 11953, 262069}
#include "test_curve.c"

static void test_generators(void)
{
    /* The generators' affine coordinates, as in the zcash spec and noble. */
    static const uint8_t g1x[48] = {
        0x17, 0xf1, 0xd3, 0xa7, 0x31, 0x97, 0xd7, 0x94, 0x26, 0x95, 0x63, 0x8c,
        0x4f, 0xa9, 0xac, 0x0f, 0xc3, 0x68, 0x8c, 0x4f, 0x97, 0x74, 0xb9, 0x05,
        0xa1, 0x4e, 0x3a, 0x3f, 0x17, 0x1b, 0xac, 0x58, 0x6c, 0x55, 0xe8, 0x3f,
        0xf9, 0x7a, 0x1a, 0xef, 0xfb, 0x3a, 0xf0, 0x0a, 0xdb, 0x22, 0xc6, 0xbb};
    static const uint8_t g2x0[48] = {
        0x02, 0x4a, 0xa2, 0xb2, 0xf0, 0x8f, 0x0a, 0x91, 0x26, 0x08, 0x05, 0x27,
        0x2d, 0xc5, 0x10, 0x51, 0xc6, 0xe4, 0x7a, 0xd4, 0xfa, 0x40, 0x3b, 0x02,
        0xb4, 0x51, 0x0b, 0x64, 0x7a, 0xe3, 0xd1, 0x77, 0x0b, 0xac, 0x03, 0x26,
        0xa8, 0x05, 0xbb, 0xef, 0xd4, 0x80, 0x56, 0xc8, 0xc1, 0x21, 0xbd, 0xb8};
    g1_affine_t a;
    g2_affine_t b;
    fp_t x;
    g1_affine_generator(&a);
    CHECK(fp_from_bytes_be(&x, g1x) && fp_equal(&x, &a.x));
    CHECK(g1_affine_is_on_curve(&a) && !g1_affine_is_infinity(&a));
    g2_affine_generator(&b);
    CHECK(fp_from_bytes_be(&x, g2x0) && fp_equal(&x, &b.x.c0));
    CHECK(g2_affine_is_on_curve(&b) && !g2_affine_is_infinity(&b));
}

int main(void)
{
    test_init("test_curve");
    size_t count = test_count(8);
    test_generators();
    g1_t_all(count);
    g2_t_all(count);
    /* The group code must not depend on which multiplication the field uses. */
    if (cpu_asm_available()) {
        cpu_set_asm(false);
        g1_t_all(2);
        g2_t_all(2);
        cpu_set_asm(true);
    }
    return test_finish();
}

#endif
