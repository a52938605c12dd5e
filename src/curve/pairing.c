/* Optimal ate pairing on BLS12-381.
 *
 * Miller loop: Q stays in homogeneous projective coordinates (X : Y : Z) on the twist
 * E': y^2 = x^3 + b', b' = 4 xi, and every step evaluates its line at P directly, with
 * no inversion and no precomputed table (Costello, Lange, Naehrig, "Faster Pairing
 * Computations on Curves with High-Degree Twists", PKC 2010; the doubling and mixed
 * addition formulas as written in Aranha, Karabina, Longa, Gebotys, Lopez, "Faster
 * Explicit Formulas for Computing Pairings over Ordinary Curves", Eurocrypt 2011).
 *
 * BLS12-381's twist is an M-twist: psi(x', y') = (x' / w^2, y' / w^3) maps E' to E.
 * A line through points of E' with slope m', evaluated at P = (xP, yP) and multiplied by
 * w^3 (w^3 lies in Fp4, which the final exponentiation sends to 1), is
 *   (m' x' - y') - m' xP w^2 + yP w^3,
 * so it has non-zero Fp2 slots 0 (constant), 1 (w^2 = v) and 4 (w^3 = v w) only: lines
 * are multiplied in with fp12_mul_by_014. Each line below is further scaled by an Fp2
 * factor (also sent to 1) chosen to keep it free of divisions.
 *
 * Final exponentiation: (p^12 - 1)/r = (p^6 - 1)(p^2 + 1) * d, d = (p^4 - p^2 + 1)/r.
 * The easy part costs one inversion and a Frobenius; for the hard part we use the
 * decomposition of Hayashida, Hayasaka and Teruya ("Efficient Final Exponentiation via
 * Cyclotomic Structure for Pairings over Families of Elliptic Curves", 2020):
 *   3d = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3,
 * i.e. we raise to 3d, not d: the result is the cube of the reduced pairing. That is the
 * value blst, @noble/curves, zkcrypto/bls12_381 and snarkjs compute (e(G1, G2).c0.c0.c0
 * = 0x1250ebd871...), so GT values such as snarkjs's vk_alphabeta_12 match ours byte for
 * byte; the cube is still a non-degenerate bilinear pairing (3 is prime to r). It costs
 * five exponentiations by |x| (6 set bits), each with cyclotomic squarings.
 */
#include "pairing.h"

/* |x|, x = -0xd201000000010000 the BLS12-381 parameter; bit 63 is its top bit. */
static const uint64_t X_ABS = 0xd201000000010000ull;

typedef struct {
    fp2_t x, y, z;
} g2_proj_t;

/* The per-pair state of a Miller loop. P enters the lines as -xP and yP only. */
typedef struct {
    g2_proj_t t;
    const g2_affine_t *q;
    fp_t neg_px, py;
} miller_pair_t;

static bool infinity_g1(const g1_affine_t *p)
{
    return fp_is_zero(&p->x) & fp_is_zero(&p->y);
}

static bool infinity_g2(const g2_affine_t *q)
{
    return fp2_is_zero(&q->x) & fp2_is_zero(&q->y);
}

/* T = 2T and the tangent line at T, evaluated at P.
 * CLN doubling: B = Y^2, C = Z^2, E = 3b'C, F = 3E, H = (Y + Z)^2 - B - C = 2YZ; then
 *   X3 = XY(B - F)/2, Y3 = ((B + F)/2)^2 - 3E^2, Z3 = BH,
 * and the tangent, times 2YZ against the affine form above, is
 *   (B - E) - 3X^2 xP v + H yP v w.
 * We keep (4 X3 : 4 Y3 : 4 Z3), the same projective point, to avoid halvings. */
static void double_step(fp2_t *l0, fp2_t *l1, fp2_t *l4, miller_pair_t *s)
{
    g2_proj_t *t = &s->t;
    fp2_t xy, b, c, e, f, h, u;
    fp2_mul(&xy, &t->x, &t->y);
    fp2_sqr(&b, &t->y);
    fp2_sqr(&c, &t->z);
    /* E = 3 * 4 xi * C */
    fp2_mul_by_nonresidue(&e, &c);
    fp2_dbl(&e, &e);
    fp2_dbl(&e, &e);
    fp2_dbl(&u, &e);
    fp2_add(&e, &e, &u);
    fp2_dbl(&f, &e);
    fp2_add(&f, &f, &e);
    fp2_add(&h, &t->y, &t->z);
    fp2_sqr(&h, &h);
    fp2_sub(&h, &h, &b);
    fp2_sub(&h, &h, &c);

    /* The line. */
    fp2_sub(l0, &b, &e);
    fp2_sqr(&u, &t->x);
    fp2_dbl(l1, &u);
    fp2_add(&u, l1, &u);
    fp2_mul_fp(l1, &u, &s->neg_px);
    fp2_mul_fp(l4, &h, &s->py);

    /* X = 2XY(B - F) */
    fp2_sub(&u, &b, &f);
    fp2_mul(&t->x, &xy, &u);
    fp2_dbl(&t->x, &t->x);
    /* Z = 4BH */
    fp2_mul(&t->z, &b, &h);
    fp2_dbl(&t->z, &t->z);
    fp2_dbl(&t->z, &t->z);
    /* Y = (B + F)^2 - 12 E^2 */
    fp2_add(&u, &b, &f);
    fp2_sqr(&t->y, &u);
    fp2_sqr(&e, &e);
    fp2_dbl(&e, &e);
    fp2_dbl(&e, &e);
    fp2_dbl(&u, &e);
    fp2_add(&u, &u, &e);
    fp2_sub(&t->y, &t->y, &u);
}

/* T = T + Q (Q affine) and the line through T and Q, evaluated at P.
 * With theta = Y - yQ Z and lambda = X - xQ Z (slope theta/lambda):
 *   C = theta^2, D = lambda^2, E = lambda D, F = Z C, G = X D, H = E + F - 2G,
 *   X3 = lambda H, Y3 = theta (G - H) - Y E, Z3 = Z E,
 * and the line, times lambda, is (theta xQ - lambda yQ) - theta xP v + lambda yP v w.
 * Never called with T = +-Q: T runs through [k]Q for 1 < k < |x| < r. */
static void add_step(fp2_t *l0, fp2_t *l1, fp2_t *l4, miller_pair_t *s)
{
    g2_proj_t *t = &s->t;
    const g2_affine_t *q = s->q;
    fp2_t theta, lambda, c, d, e, f, g, h, u;
    fp2_mul(&theta, &q->y, &t->z);
    fp2_sub(&theta, &t->y, &theta);
    fp2_mul(&lambda, &q->x, &t->z);
    fp2_sub(&lambda, &t->x, &lambda);

    /* The line. */
    fp2_mul(&u, &theta, &q->x);
    fp2_mul(l0, &lambda, &q->y);
    fp2_sub(l0, &u, l0);
    fp2_mul_fp(l1, &theta, &s->neg_px);
    fp2_mul_fp(l4, &lambda, &s->py);

    fp2_sqr(&c, &theta);
    fp2_sqr(&d, &lambda);
    fp2_mul(&e, &lambda, &d);
    fp2_mul(&f, &t->z, &c);
    fp2_mul(&g, &t->x, &d);
    fp2_dbl(&h, &g);
    fp2_sub(&h, &f, &h);
    fp2_add(&h, &h, &e);

    fp2_mul(&t->x, &lambda, &h);
    fp2_sub(&u, &g, &h);
    fp2_mul(&u, &u, &theta);
    fp2_mul(&t->y, &t->y, &e);
    fp2_sub(&t->y, &u, &t->y);
    fp2_mul(&t->z, &t->z, &e);
}

/* f = prod of the Miller loops of n <= PAIRING_BATCH pairs, one squaring per step. */
static void miller_loop_batch(fp12_t *f, const g1_affine_t *p, const g2_affine_t *q,
                              size_t n)
{
    miller_pair_t st[PAIRING_BATCH];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (infinity_g1(&p[i]) || infinity_g2(&q[i]))
            continue;
        miller_pair_t *s = &st[m++];
        s->q = &q[i];
        s->t.x = q[i].x;
        s->t.y = q[i].y;
        fp2_one(&s->t.z);
        fp_neg(&s->neg_px, &p[i].x);
        s->py = p[i].y;
    }
    fp12_one(f);
    if (m == 0)
        return;

    /* f_{|x|,Q}: the bits of |x| below its top bit, most significant first. */
    fp2_t l0, l1, l4;
    for (int bit = 62; bit >= 0; bit--) {
        bool first = bit == 62;
        if (!first)
            fp12_sqr(f, f);
        for (size_t j = 0; j < m; j++) {
            double_step(&l0, &l1, &l4, &st[j]);
            if (first && j == 0) {
                /* f is 1: the line itself, no product. */
                fp12_zero(f);
                f->c0.c0 = l0;
                f->c0.c1 = l1;
                f->c1.c1 = l4;
            } else
                fp12_mul_by_014(f, f, &l0, &l1, &l4);
        }
        if ((X_ABS >> bit) & 1)
            for (size_t j = 0; j < m; j++) {
                add_step(&l0, &l1, &l4, &st[j]);
                fp12_mul_by_014(f, f, &l0, &l1, &l4);
            }
    }
    /* x < 0: f_{x,Q} = 1/(f_{|x|,Q} v_{[|x|]Q}); the vertical line lies in Fp6 and dies in
     * the final exponentiation, and 1/f and conj(f) agree after its easy part. */
    fp12_conj(f, f);
}

void miller_loop(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
    fp12_t acc, f;
    fp12_one(&acc);
    for (size_t start = 0; start < n; start += PAIRING_BATCH) {
        size_t m = n - start < PAIRING_BATCH ? n - start : PAIRING_BATCH;
        miller_loop_batch(&f, p + start, q + start, m);
        if (start == 0)
            acc = f;
        else
            fp12_mul(&acc, &acc, &f);
    }
    *r = acc;
}

/* r = a^|x| for a in the cyclotomic subgroup. */
static void cyclotomic_exp_abs_x(fp12_t *r, const fp12_t *a)
{
    fp12_t base = *a, acc = *a;
    for (int bit = 62; bit >= 0; bit--) {
        fp12_cyclotomic_sqr(&acc, &acc);
        if ((X_ABS >> bit) & 1)
            fp12_mul(&acc, &acc, &base);
    }
    *r = acc;
}

void final_exponentiation(fp12_t *r, const fp12_t *f)
{
    fp12_t g, t, a, b, c, d;

    /* Easy part: g = f^((p^6 - 1)(p^2 + 1)); g is in the cyclotomic subgroup from here on,
     * so conj is inversion and cyclotomic squaring applies. */
    (void)fp12_inv(&t, f);
    fp12_conj(&g, f);
    fp12_mul(&g, &g, &t);
    fp12_frobenius(&t, &g, 2);
    fp12_mul(&g, &g, &t);

    /* Hard part, g^(3d) = g^((x-1)^2 (x+p)(x^2+p^2-1)) * g^3. Negative powers of x are
     * conjugates of powers of |x|; x - 1 = -(|x| + 1). */
    cyclotomic_exp_abs_x(&a, &g);
    fp12_mul(&a, &a, &g);
    fp12_conj(&a, &a); /* a = g^(x-1) */

    cyclotomic_exp_abs_x(&b, &a);
    fp12_mul(&b, &b, &a);
    fp12_conj(&b, &b); /* b = a^(x-1) */

    cyclotomic_exp_abs_x(&c, &b);
    fp12_conj(&c, &c);
    fp12_frobenius(&t, &b, 1);
    fp12_mul(&c, &c, &t); /* c = b^(x+p) */

    cyclotomic_exp_abs_x(&d, &c);
    cyclotomic_exp_abs_x(&d, &d);
    fp12_frobenius(&t, &c, 2);
    fp12_mul(&d, &d, &t);
    fp12_conj(&t, &c);
    fp12_mul(&d, &d, &t); /* d = c^(x^2+p^2-1) */

    fp12_cyclotomic_sqr(&t, &g);
    fp12_mul(&t, &t, &g); /* g^3 */
    fp12_mul(r, &d, &t);
}

void pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q)
{
    multi_pairing(r, p, q, 1);
}

void multi_pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
    fp12_t f;
    miller_loop(&f, p, q, n);
    final_exponentiation(r, &f);
}

bool pairing_product_is_one(const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
    fp12_t e;
    multi_pairing(&e, p, q, n);
    return fp12_is_one(&e);
}
