/* Implementation of point_api.h for one group (a C "template", included once by g1.c
 * and once by g2.c).
 *
 * Before including, define POINT and POINT_FIELD as for point_api.h, include the group's
 * header, and define in the including file:
 *   static const FIELD_t curve_b;                          b of y^2 = x^3 + b
 *   static void curve_mul_by_3b(FIELD_t *r, const FIELD_t *a);   r = 3b * a
 *   static const POINT_affine_t curve_generator;           Montgomery form
 * Both curves have a = 0 and a group E(F) of odd order (no points of order two), which
 * the complete formulas below require and which lets Y = 0 stand for nothing but errors.
 *
 * After the include, the file may use the static helper mul_by_x_abs for its subgroup
 * test (the one part that differs between G1 and G2).
 *
 * Formula sources (facts, with their operation counts):
 *   Jacobian:  add-2007-bl, madd-2007-bl, dbl-2009-l of the Explicit-Formulas Database
 *              (hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html).
 *   XYZZ:      add-2008-s, madd-2008-s, dbl-2008-s-1 (EFD auto-shortw-xyzz.html).
 *   Complete:  Renes, Costello, Batina, "Complete addition formulas for prime order
 *              elliptic curves", ePrint 2015/1060, Algorithms 7 and 9 (a = 0).
 */
#include <string.h>

#define POINT_CAT2(a, b) a##_##b
#define POINT_CAT(a, b) POINT_CAT2(a, b)
#define FN(name) POINT_CAT(POINT, name)
#define F(name) POINT_CAT(POINT_FIELD, name)
#define FE POINT_CAT(POINT_FIELD, t)
#define AFF POINT_CAT(POINT, affine_t)
#define JAC POINT_CAT(POINT, jac_t)
#define XYZZ POINT_CAT(POINT, xyzz_t)

/* |x| for the BLS12-381 parameter x = -0xd201000000010000 (r = x^4 - x^2 + 1). */
static const uint64_t bls_x_abs = 0xd201000000010000ull;

/* ====================================================================================
 * Affine
 * ==================================================================================== */

void FN(affine_set_infinity)(AFF *r) { memset(r, 0, sizeof *r); }

bool FN(affine_is_infinity)(const AFF *a) { return F(is_zero)(&a->x) & F(is_zero)(&a->y); }

void FN(affine_generator)(AFF *r) { *r = curve_generator; }

bool FN(affine_equal)(const AFF *a, const AFF *b)
{
    return F(equal)(&a->x, &b->x) & F(equal)(&a->y, &b->y);
}

void FN(affine_neg)(AFF *r, const AFF *a)
{
    /* -0 = 0, so the infinity encoding stays infinity. */
    r->x = a->x;
    F(neg)(&r->y, &a->y);
}

/* x^3 + b */
static void curve_rhs(FE *r, const FE *x)
{
    FE t;
    F(sqr)(&t, x);
    F(mul)(&t, &t, x);
    F(add)(r, &t, &curve_b);
}

bool FN(affine_from_x)(AFF *r, const FE *x, bool y_largest)
{
    FE rhs, y;
    curve_rhs(&rhs, x);
    if (!F(sqrt)(&y, &rhs)) {
        FN(affine_set_infinity)(r);
        return false;
    }
    /* y = 0 cannot occur (no points of order two), so the two roots differ in sign. */
    if (F(is_lexicographically_largest)(&y) != y_largest)
        F(neg)(&y, &y);
    r->x = *x;
    r->y = y;
    return true;
}

bool FN(affine_is_on_curve)(const AFF *a)
{
    FE lhs, rhs;
    F(sqr)(&lhs, &a->y);
    curve_rhs(&rhs, &a->x);
    return F(equal)(&lhs, &rhs) | FN(affine_is_infinity)(a);
}

bool FN(affine_is_in_subgroup)(const AFF *a)
{
    JAC p;
    FN(from_affine)(&p, a);
    return FN(is_in_subgroup)(&p);
}

/* ====================================================================================
 * Jacobian
 * ==================================================================================== */

void FN(set_infinity)(JAC *r) { memset(r, 0, sizeof *r); }

bool FN(is_infinity)(const JAC *a) { return F(is_zero)(&a->z); }

void FN(from_affine)(JAC *r, const AFF *a)
{
    FE zero;
    F(zero)(&zero);
    r->x = a->x;
    r->y = a->y;
    F(one)(&r->z);
    F(cmov)(&r->z, &zero, FN(affine_is_infinity)(a));
}

void FN(generator)(JAC *r) { FN(from_affine)(r, &curve_generator); }

void FN(to_affine)(AFF *r, const JAC *a)
{
    /* inv(0) = 0 gives (0, 0) for infinity without a branch. */
    FE zi, zi2, zi3;
    F(inv)(&zi, &a->z);
    F(sqr)(&zi2, &zi);
    F(mul)(&zi3, &zi2, &zi);
    F(mul)(&r->x, &a->x, &zi2);
    F(mul)(&r->y, &a->y, &zi3);
}

void FN(batch_to_affine)(AFF *r, const JAC *a, size_t n)
{
    if (n == 0)
        return;
    /* Forward pass: r[i].x = product of the non-zero Z of a[0..i-1]. */
    FE acc;
    F(one)(&acc);
    for (size_t i = 0; i < n; i++) {
        r[i].x = acc;
        if (!F(is_zero)(&a[i].z))
            F(mul)(&acc, &acc, &a[i].z);
    }
    F(inv)(&acc, &acc);
    /* Backward pass: acc = 1 / (product of the non-zero Z of a[0..i]). */
    for (size_t i = n; i-- > 0;) {
        if (F(is_zero)(&a[i].z)) {
            FN(affine_set_infinity)(&r[i]);
            continue;
        }
        FE zi, zi2, zi3;
        F(mul)(&zi, &acc, &r[i].x);
        F(mul)(&acc, &acc, &a[i].z);
        F(sqr)(&zi2, &zi);
        F(mul)(&zi3, &zi2, &zi);
        F(mul)(&r[i].x, &a[i].x, &zi2);
        F(mul)(&r[i].y, &a[i].y, &zi3);
    }
}

bool FN(equal)(const JAC *a, const JAC *b)
{
    bool ia = FN(is_infinity)(a), ib = FN(is_infinity)(b);
    FE z1z1, z2z2, u1, u2, s1, s2;
    F(sqr)(&z1z1, &a->z);
    F(sqr)(&z2z2, &b->z);
    F(mul)(&u1, &a->x, &z2z2);
    F(mul)(&u2, &b->x, &z1z1);
    F(mul)(&s1, &a->y, &b->z);
    F(mul)(&s1, &s1, &z2z2);
    F(mul)(&s2, &b->y, &a->z);
    F(mul)(&s2, &s2, &z1z1);
    /* With one side at infinity both products vanish on the other: mask them out. */
    bool same = F(equal)(&u1, &u2) & F(equal)(&s1, &s2);
    return (ia & ib) | (!ia & !ib & same);
}

bool FN(is_on_curve)(const JAC *a)
{
    /* Y^2 = X^3 + b Z^6 */
    FE lhs, rhs, z2, z6;
    F(sqr)(&lhs, &a->y);
    F(sqr)(&rhs, &a->x);
    F(mul)(&rhs, &rhs, &a->x);
    F(sqr)(&z2, &a->z);
    F(sqr)(&z6, &z2);
    F(mul)(&z6, &z6, &z2);
    F(mul)(&z6, &z6, &curve_b);
    F(add)(&rhs, &rhs, &z6);
    return F(equal)(&lhs, &rhs) | FN(is_infinity)(a);
}

void FN(neg)(JAC *r, const JAC *a)
{
    r->x = a->x;
    F(neg)(&r->y, &a->y);
    r->z = a->z;
}

void FN(dbl)(JAC *r, const JAC *a)
{
    /* dbl-2009-l. Infinity stays infinity through Z3 = 2 Y1 Z1. */
    FE A, B, C, D, E, EE, t, x3, y3, z3;
    F(sqr)(&A, &a->x);
    F(sqr)(&B, &a->y);
    F(sqr)(&C, &B);
    F(add)(&t, &a->x, &B);
    F(sqr)(&t, &t);
    F(sub)(&t, &t, &A);
    F(sub)(&t, &t, &C);
    F(dbl)(&D, &t);
    F(dbl)(&E, &A);
    F(add)(&E, &E, &A);
    F(sqr)(&EE, &E);
    F(mul)(&z3, &a->y, &a->z);
    F(dbl)(&z3, &z3);
    F(dbl)(&t, &D);
    F(sub)(&x3, &EE, &t);
    F(sub)(&t, &D, &x3);
    F(mul)(&y3, &E, &t);
    F(dbl)(&C, &C);
    F(dbl)(&C, &C);
    F(dbl)(&C, &C);
    F(sub)(&y3, &y3, &C);
    r->x = x3;
    r->y = y3;
    r->z = z3;
}

void FN(add)(JAC *r, const JAC *a, const JAC *b)
{
    /* add-2007-bl; its H = 0 case (equal x) is where P = Q or P = -Q. */
    if (FN(is_infinity)(a)) {
        *r = *b;
        return;
    }
    if (FN(is_infinity)(b)) {
        *r = *a;
        return;
    }
    FE z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t, x3, y3, z3;
    F(sqr)(&z1z1, &a->z);
    F(sqr)(&z2z2, &b->z);
    F(mul)(&u1, &a->x, &z2z2);
    F(mul)(&u2, &b->x, &z1z1);
    F(mul)(&s1, &a->y, &b->z);
    F(mul)(&s1, &s1, &z2z2);
    F(mul)(&s2, &b->y, &a->z);
    F(mul)(&s2, &s2, &z1z1);
    F(sub)(&h, &u2, &u1);
    F(sub)(&rr, &s2, &s1);
    if (F(is_zero)(&h)) {
        if (F(is_zero)(&rr))
            FN(dbl)(r, a);
        else
            FN(set_infinity)(r);
        return;
    }
    F(dbl)(&i, &h);
    F(sqr)(&i, &i);
    F(mul)(&j, &h, &i);
    F(dbl)(&rr, &rr);
    F(mul)(&v, &u1, &i);
    F(sqr)(&x3, &rr);
    F(sub)(&x3, &x3, &j);
    F(sub)(&x3, &x3, &v);
    F(sub)(&x3, &x3, &v);
    F(sub)(&t, &v, &x3);
    F(mul)(&y3, &rr, &t);
    F(mul)(&t, &s1, &j);
    F(dbl)(&t, &t);
    F(sub)(&y3, &y3, &t);
    F(add)(&z3, &a->z, &b->z);
    F(sqr)(&z3, &z3);
    F(sub)(&z3, &z3, &z1z1);
    F(sub)(&z3, &z3, &z2z2);
    F(mul)(&z3, &z3, &h);
    r->x = x3;
    r->y = y3;
    r->z = z3;
}

void FN(sub)(JAC *r, const JAC *a, const JAC *b)
{
    JAC nb;
    FN(neg)(&nb, b);
    FN(add)(r, a, &nb);
}

void FN(add_mixed)(JAC *r, const JAC *a, const AFF *b)
{
    /* madd-2007-bl */
    if (FN(affine_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (FN(is_infinity)(a)) {
        FN(from_affine)(r, b);
        return;
    }
    FE z1z1, u2, s2, h, hh, i, j, rr, v, t, x3, y3, z3;
    F(sqr)(&z1z1, &a->z);
    F(mul)(&u2, &b->x, &z1z1);
    F(mul)(&s2, &b->y, &a->z);
    F(mul)(&s2, &s2, &z1z1);
    F(sub)(&h, &u2, &a->x);
    F(sub)(&rr, &s2, &a->y);
    if (F(is_zero)(&h)) {
        if (F(is_zero)(&rr))
            FN(dbl)(r, a);
        else
            FN(set_infinity)(r);
        return;
    }
    F(sqr)(&hh, &h);
    F(dbl)(&i, &hh);
    F(dbl)(&i, &i);
    F(mul)(&j, &h, &i);
    F(dbl)(&rr, &rr);
    F(mul)(&v, &a->x, &i);
    F(sqr)(&x3, &rr);
    F(sub)(&x3, &x3, &j);
    F(sub)(&x3, &x3, &v);
    F(sub)(&x3, &x3, &v);
    F(sub)(&t, &v, &x3);
    F(mul)(&y3, &rr, &t);
    F(mul)(&t, &a->y, &j);
    F(dbl)(&t, &t);
    F(sub)(&y3, &y3, &t);
    F(add)(&z3, &a->z, &h);
    F(sqr)(&z3, &z3);
    F(sub)(&z3, &z3, &z1z1);
    F(sub)(&z3, &z3, &hh);
    r->x = x3;
    r->y = y3;
    r->z = z3;
}

/* ====================================================================================
 * XYZZ
 * ==================================================================================== */

void FN(xyzz_set_infinity)(XYZZ *r) { memset(r, 0, sizeof *r); }

bool FN(xyzz_is_infinity)(const XYZZ *a) { return F(is_zero)(&a->zz); }

void FN(xyzz_from_affine)(XYZZ *r, const AFF *a)
{
    FE zero;
    bool inf = FN(affine_is_infinity)(a);
    F(zero)(&zero);
    r->x = a->x;
    r->y = a->y;
    F(one)(&r->zz);
    F(one)(&r->zzz);
    F(cmov)(&r->zz, &zero, inf);
    F(cmov)(&r->zzz, &zero, inf);
}

void FN(xyzz_dbl)(XYZZ *r, const XYZZ *a)
{
    /* dbl-2008-s-1 (a = 0). ZZ3 = V ZZ1 keeps infinity at infinity. */
    FE U, V, W, S, M, t, x3, y3;
    F(dbl)(&U, &a->y);
    F(sqr)(&V, &U);
    F(mul)(&W, &U, &V);
    F(mul)(&S, &a->x, &V);
    F(sqr)(&M, &a->x);
    F(dbl)(&t, &M);
    F(add)(&M, &M, &t);
    F(sqr)(&x3, &M);
    F(dbl)(&t, &S);
    F(sub)(&x3, &x3, &t);
    F(sub)(&t, &S, &x3);
    F(mul)(&y3, &M, &t);
    F(mul)(&t, &W, &a->y);
    F(sub)(&y3, &y3, &t);
    F(mul)(&r->zz, &V, &a->zz);
    F(mul)(&r->zzz, &W, &a->zzz);
    r->x = x3;
    r->y = y3;
}

void FN(xyzz_add_mixed)(XYZZ *r, const XYZZ *a, const AFF *b)
{
    /* madd-2008-s */
    if (FN(affine_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (FN(xyzz_is_infinity)(a)) {
        FN(xyzz_from_affine)(r, b);
        return;
    }
    FE u2, s2, P, R, PP, PPP, Q, t, x3, y3;
    F(mul)(&u2, &b->x, &a->zz);
    F(mul)(&s2, &b->y, &a->zzz);
    F(sub)(&P, &u2, &a->x);
    F(sub)(&R, &s2, &a->y);
    if (F(is_zero)(&P)) {
        if (F(is_zero)(&R))
            FN(xyzz_dbl)(r, a);
        else
            FN(xyzz_set_infinity)(r);
        return;
    }
    F(sqr)(&PP, &P);
    F(mul)(&PPP, &P, &PP);
    F(mul)(&Q, &a->x, &PP);
    F(sqr)(&x3, &R);
    F(sub)(&x3, &x3, &PPP);
    F(dbl)(&t, &Q);
    F(sub)(&x3, &x3, &t);
    F(sub)(&t, &Q, &x3);
    F(mul)(&y3, &R, &t);
    F(mul)(&t, &a->y, &PPP);
    F(sub)(&y3, &y3, &t);
    F(mul)(&r->zz, &a->zz, &PP);
    F(mul)(&r->zzz, &a->zzz, &PPP);
    r->x = x3;
    r->y = y3;
}

void FN(xyzz_add)(XYZZ *r, const XYZZ *a, const XYZZ *b)
{
    /* add-2008-s */
    if (FN(xyzz_is_infinity)(a)) {
        *r = *b;
        return;
    }
    if (FN(xyzz_is_infinity)(b)) {
        *r = *a;
        return;
    }
    FE u1, u2, s1, s2, P, R, PP, PPP, Q, t, x3, y3, zz3, zzz3;
    F(mul)(&u1, &a->x, &b->zz);
    F(mul)(&u2, &b->x, &a->zz);
    F(mul)(&s1, &a->y, &b->zzz);
    F(mul)(&s2, &b->y, &a->zzz);
    F(sub)(&P, &u2, &u1);
    F(sub)(&R, &s2, &s1);
    if (F(is_zero)(&P)) {
        if (F(is_zero)(&R))
            FN(xyzz_dbl)(r, a);
        else
            FN(xyzz_set_infinity)(r);
        return;
    }
    F(sqr)(&PP, &P);
    F(mul)(&PPP, &P, &PP);
    F(mul)(&Q, &u1, &PP);
    F(sqr)(&x3, &R);
    F(sub)(&x3, &x3, &PPP);
    F(dbl)(&t, &Q);
    F(sub)(&x3, &x3, &t);
    F(sub)(&t, &Q, &x3);
    F(mul)(&y3, &R, &t);
    F(mul)(&t, &s1, &PPP);
    F(sub)(&y3, &y3, &t);
    F(mul)(&zz3, &a->zz, &b->zz);
    F(mul)(&zz3, &zz3, &PP);
    F(mul)(&zzz3, &a->zzz, &b->zzz);
    F(mul)(&zzz3, &zzz3, &PPP);
    r->x = x3;
    r->y = y3;
    r->zz = zz3;
    r->zzz = zzz3;
}

void FN(xyzz_to_jac)(JAC *r, const XYZZ *a)
{
    /* Z = ZZZ (= z^3): X = X ZZ^2 and Y = Y ZZZ^2 give X/Z^2 = X ZZ^2 / ZZ^3 = X/ZZ and
     * Y/Z^3 = Y/ZZZ. Infinity (ZZ = 0) must give Z = 0 even if ZZZ was left non-zero. */
    FE t, zero;
    bool inf = FN(xyzz_is_infinity)(a);
    F(zero)(&zero);
    F(sqr)(&t, &a->zz);
    F(mul)(&r->x, &a->x, &t);
    F(sqr)(&t, &a->zzz);
    F(mul)(&r->y, &a->y, &t);
    r->z = a->zzz;
    F(cmov)(&r->z, &zero, inf);
}

/* ====================================================================================
 * Scalar multiplication
 * ==================================================================================== */

/* Homogeneous projective (x = X/Z, y = Y/Z), used only inside the constant-time
 * multiplication: the RCB formulas have no exceptional inputs on odd-order curves, so
 * neither the table nor the accumulator ever needs a branch. Infinity is (0 : 1 : 0). */
typedef struct {
    FE x, y, z;
} proj_t;

static void proj_add(proj_t *r, const proj_t *p, const proj_t *q)
{
    /* RCB Algorithm 7: 12M + 2 multiplications by 3b. */
    FE t0, t1, t2, t3, t4, x3, y3, z3;
    F(mul)(&t0, &p->x, &q->x);
    F(mul)(&t1, &p->y, &q->y);
    F(mul)(&t2, &p->z, &q->z);
    F(add)(&t3, &p->x, &p->y);
    F(add)(&t4, &q->x, &q->y);
    F(mul)(&t3, &t3, &t4);
    F(add)(&t4, &t0, &t1);
    F(sub)(&t3, &t3, &t4);
    F(add)(&t4, &p->y, &p->z);
    F(add)(&x3, &q->y, &q->z);
    F(mul)(&t4, &t4, &x3);
    F(add)(&x3, &t1, &t2);
    F(sub)(&t4, &t4, &x3);
    F(add)(&x3, &p->x, &p->z);
    F(add)(&y3, &q->x, &q->z);
    F(mul)(&x3, &x3, &y3);
    F(add)(&y3, &t0, &t2);
    F(sub)(&y3, &x3, &y3);
    F(dbl)(&x3, &t0);
    F(add)(&t0, &x3, &t0);
    curve_mul_by_3b(&t2, &t2);
    F(add)(&z3, &t1, &t2);
    F(sub)(&t1, &t1, &t2);
    curve_mul_by_3b(&y3, &y3);
    F(mul)(&x3, &t4, &y3);
    F(mul)(&t2, &t3, &t1);
    F(sub)(&x3, &t2, &x3);
    F(mul)(&y3, &y3, &t0);
    F(mul)(&t1, &t1, &z3);
    F(add)(&y3, &t1, &y3);
    F(mul)(&t0, &t0, &t3);
    F(mul)(&z3, &z3, &t4);
    F(add)(&z3, &z3, &t0);
    r->x = x3;
    r->y = y3;
    r->z = z3;
}

static void proj_dbl(proj_t *r, const proj_t *p)
{
    /* RCB Algorithm 9: 6M + 2S + 1 multiplication by 3b. */
    FE t0, t1, t2, x3, y3, z3;
    F(sqr)(&t0, &p->y);
    F(dbl)(&z3, &t0);
    F(dbl)(&z3, &z3);
    F(dbl)(&z3, &z3);
    F(mul)(&t1, &p->y, &p->z);
    F(sqr)(&t2, &p->z);
    curve_mul_by_3b(&t2, &t2);
    F(mul)(&x3, &t2, &z3);
    F(add)(&y3, &t0, &t2);
    F(mul)(&z3, &t1, &z3);
    F(dbl)(&t1, &t2);
    F(add)(&t2, &t1, &t2);
    F(sub)(&t0, &t0, &t2);
    F(mul)(&y3, &t0, &y3);
    F(add)(&y3, &x3, &y3);
    F(mul)(&t1, &p->x, &p->y);
    F(mul)(&x3, &t0, &t1);
    F(dbl)(&x3, &x3);
    r->x = x3;
    r->y = y3;
    r->z = z3;
}

static void proj_set_infinity(proj_t *r)
{
    F(zero)(&r->x);
    F(one)(&r->y);
    F(zero)(&r->z);
}

static void proj_from_jac(proj_t *r, const JAC *a)
{
    /* Z' = Z^3: X' = X Z, Y' = Y. Jacobian infinity may carry any X, Y; (0 : 1 : 0) is
     * the only form the RCB formulas accept, so it is selected by mask. */
    proj_t inf;
    proj_set_infinity(&inf);
    FE z2;
    F(sqr)(&z2, &a->z);
    F(mul)(&r->x, &a->x, &a->z);
    r->y = a->y;
    F(mul)(&r->z, &z2, &a->z);
    bool is_inf = FN(is_infinity)(a);
    F(cmov)(&r->x, &inf.x, is_inf);
    F(cmov)(&r->y, &inf.y, is_inf);
    F(cmov)(&r->z, &inf.z, is_inf);
}

static void proj_to_jac(JAC *r, const proj_t *a)
{
    /* Same Z: X' = X Z, Y' = Y Z^2. Z = 0 stays Z = 0. */
    FE z2;
    F(sqr)(&z2, &a->z);
    F(mul)(&r->x, &a->x, &a->z);
    F(mul)(&r->y, &a->y, &z2);
    r->z = a->z;
}

enum {
    MUL_WINDOW = 5,
    MUL_TABLE = 1 << (MUL_WINDOW - 1), /* |digit| <= 16: multiples 1..16 */
    /* 256-bit scalars: 52 windows cover bits 0..259; the last window holds at most
     * bit 255 plus a carry, so it never produces a carry of its own. */
    MUL_DIGITS = (256 + MUL_WINDOW - 1) / MUL_WINDOW + 1,
};

/* Signed base-32 digits in [-16, 16] with k = sum d[i] 32^i. Constant time: the carry is
 * computed with arithmetic, and the bit positions depend on i only. */
static void recode_signed(int8_t d[MUL_DIGITS], const uint64_t k[4])
{
    uint64_t carry = 0;
    for (size_t i = 0; i < MUL_DIGITS; i++) {
        size_t bit = MUL_WINDOW * i, limb = bit / 64, shift = bit % 64;
        uint64_t w = 0;
        if (limb < 4) {
            w = k[limb] >> shift;
            if (shift > 64 - MUL_WINDOW && limb + 1 < 4)
                w |= k[limb + 1] << (64 - shift);
        }
        w = (w & ((1u << MUL_WINDOW) - 1)) + carry; /* 0..32 */
        carry = ((uint64_t)MUL_TABLE - w) >> 63;   /* w > 16 */
        d[i] = (int8_t)((int64_t)w - (int64_t)(carry << MUL_WINDOW));
    }
}

/* r = [d] table[0] for d in [-16, 16], reading every entry. */
static void table_lookup(proj_t *r, const proj_t table[MUL_TABLE], int8_t digit)
{
    uint64_t sign = (uint64_t)(uint8_t)digit >> 7;
    uint64_t mag = ((uint64_t)(int64_t)digit ^ (0 - sign)) + sign;
    proj_set_infinity(r);
    for (uint64_t j = 1; j <= MUL_TABLE; j++) {
        bool hit = (((mag ^ j) - 1) >> 63) & 1;
        F(cmov)(&r->x, &table[j - 1].x, hit);
        F(cmov)(&r->y, &table[j - 1].y, hit);
        F(cmov)(&r->z, &table[j - 1].z, hit);
    }
    FE ny;
    F(neg)(&ny, &r->y);
    F(cmov)(&r->y, &ny, sign & 1);
}

void FN(mul_limbs)(JAC *r, const JAC *a, const uint64_t k[4])
{
    proj_t table[MUL_TABLE], acc, t;
    proj_from_jac(&table[0], a);
    proj_dbl(&table[1], &table[0]);
    for (size_t j = 2; j < MUL_TABLE; j++)
        proj_add(&table[j], &table[j - 1], &table[0]);
    int8_t d[MUL_DIGITS];
    recode_signed(d, k);
    table_lookup(&acc, table, d[MUL_DIGITS - 1]);
    for (size_t i = MUL_DIGITS - 1; i-- > 0;) {
        for (int s = 0; s < MUL_WINDOW; s++)
            proj_dbl(&acc, &acc);
        table_lookup(&t, table, d[i]);
        proj_add(&acc, &acc, &t);
    }
    proj_to_jac(r, &acc);
}

void FN(mul)(JAC *r, const JAC *a, const fr_t *k)
{
    uint64_t limbs[4];
    fr_to_limbs(limbs, k);
    FN(mul_limbs)(r, a, limbs);
}

enum { VARTIME_WINDOW = 5, VARTIME_TABLE = 1 << (VARTIME_WINDOW - 1) };

static inline unsigned scalar_bit(const uint64_t *k, size_t i) { return (k[i / 64] >> (i % 64)) & 1; }

void FN(mul_vartime_limbs)(JAC *r, const JAC *a, const uint64_t *k, size_t k_limbs)
{
    /* Left-to-right sliding window over odd multiples a, 3a, ..., 31a: no digit buffer,
     * so scalars of any length (cofactors) work; one addition per ~6 bits. */
    size_t top = 64 * k_limbs;
    while (top > 0 && !scalar_bit(k, top - 1))
        top--;
    if (top == 0 || FN(is_infinity)(a)) {
        FN(set_infinity)(r);
        return;
    }
    JAC table[VARTIME_TABLE], a2, acc;
    table[0] = *a;
    FN(dbl)(&a2, a);
    for (size_t j = 1; j < VARTIME_TABLE; j++)
        FN(add)(&table[j], &table[j - 1], &a2);
    bool started = false;
    FN(set_infinity)(&acc);
    for (size_t i = top; i-- > 0;) {
        if (!scalar_bit(k, i)) {
            if (started)
                FN(dbl)(&acc, &acc);
            continue;
        }
        /* The window is bits i..j, j as low as the width allows, ending on a 1 bit. */
        size_t j = i + 1 >= VARTIME_WINDOW ? i + 1 - VARTIME_WINDOW : 0;
        while (!scalar_bit(k, j))
            j++;
        unsigned value = 0;
        for (size_t b = i + 1; b-- > j;)
            value = value << 1 | scalar_bit(k, b);
        if (started) {
            for (size_t s = j; s <= i; s++)
                FN(dbl)(&acc, &acc);
            FN(add)(&acc, &acc, &table[value >> 1]);
        } else {
            acc = table[value >> 1];
            started = true;
        }
        i = j;
    }
    *r = acc;
}

void FN(mul_vartime)(JAC *r, const JAC *a, const fr_t *k)
{
    uint64_t limbs[4];
    fr_to_limbs(limbs, k);
    FN(mul_vartime_limbs)(r, a, limbs, 4);
}

/* r = [|x|]a by double-and-add over the six set bits of |x|: 63 doublings, 5 additions.
 * Variable time; for the subgroup tests, which see public points only. */
static void mul_by_x_abs(JAC *r, const JAC *a)
{
    JAC acc = *a;
    for (int bit = 62; bit >= 0; bit--) {
        FN(dbl)(&acc, &acc);
        if ((bls_x_abs >> bit) & 1)
            FN(add)(&acc, &acc, a);
    }
    *r = acc;
}

#undef XYZZ
#undef JAC
#undef AFF
#undef FE
#undef F
#undef FN
#undef POINT_CAT
#undef POINT_CAT2
