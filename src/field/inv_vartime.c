/* Variable-time modular division, r = b / a mod m: the "safegcd" algorithm of
 * D. J. Bernstein and B.-Y. Yang, "Fast constant-time gcd computation and modular
 * inversion", TCHES 2019(3) (IACR ePrint 2019/266), run in variable time with the
 * half-delta start that T. Pornin proposed for it, and with divsteps batched 62 at a
 * time as in the paper's section 12 ("jumpdivsteps").
 *
 * Divsteps. With f odd, delta' an integer (delta' = delta - 1/2 of the paper, started at
 * delta = 1/2, so delta' = 0):
 *     g odd and delta' >= 0:  (delta', f, g) <- (-delta', g, (g - f) / 2)
 *     g odd, delta' < 0:      (delta', f, g) <- (delta' + 1, f, (g + f) / 2)
 *     g even:                 (delta', f, g) <- (delta' + 1, f, g / 2)
 * From f = m, g = a, every step keeps gcd(f, g) and max(|f|, |g|) never grows; g reaches
 * 0 and then f = +-gcd(a, m). Alongside, d and e with f = d a / b and g = e a / b
 * (mod m), started at d = 0, e = b, follow the same linear maps, so at the end
 * r = f d = b / a. Dividing by b^-1 instead of starting from e = 1 lets the field layer
 * get the Montgomery form of 1/x in one call: for x stored as xR, R^2 / (xR) = x^-1 R.
 *
 * Batches. 62 divsteps depend only on the low 62 bits of f and g (each step reads g's
 * parity and halves once), so they run on one 64-bit word (divsteps_62) and yield a
 * matrix T = [u v; q r] with 2^62 (f', g') = T (f, g), |u| + |v| <= 2^62 and
 * |q| + |r| <= 2^62 (each step at most doubles a row's 1-norm). T is then applied to the
 * full values: f, g exactly (update_fg; the division by 2^62 is exact), d, e modulo m
 * (update_de: a multiple of m makes the low 62 bits zero, Montgomery-style).
 *
 * Variable time within a batch: a run of even g is skipped with one count of trailing
 * zeros; after an odd step with delta' = -k the next k steps cannot swap, so up to
 * min(k, 6) low bits of g are cleared at once by g += w f with w = -g / f mod 2^bits
 * (f^-1 mod 2^6 = f (2 - f^2): Newton from f^-1 = f mod 8).
 *
 * Representation: signed 62-bit limbs, value = sum l[i] 2^(62 i), every limb but the
 * top one in [0, 2^62), the top one signed. With LIMBS62 = 64n/62 + 1 limbs the 64n-bit
 * m and values of magnitude below 2m fit. As f and g shrink their top limbs become 0 or
 * -1 and are folded into the one below, so later batches touch fewer limbs.
 *
 * Invariants: |f|, |g| <= m; d, e in (-2m, m): update_de first adds m to a negative d or
 * e (their magnitude is then below m, so |u d + v e| < 2^62 m), then subtracts t m with
 * 0 <= t < 2^62 to clear the low bits, leaving (-2m, m) after the division by 2^62.
 * Every 128-bit accumulation stays below 2^126 in magnitude.
 *
 * Bound. For the original divstep (delta = 1) Bernstein and Yang prove at most
 * floor((49 d + 57) / 17) steps for d-bit inputs, d >= 46: 1110 for d = 384. The
 * half-delta start needs fewer in practice (P. Wuille's computed bounds for 256-bit
 * inputs: 590 against 724) but has no closed-form proof here, so the loop is capped at
 * twice the original bound (36 batches for 6 limbs) and reports failure past it; a
 * BLS12-381 Fp inversion took 13 batches of 62 (~800 divsteps) on each of 100k random
 * inputs, with ~260 odd steps among them.
 *
 * Cost model (Fp, 381 bits): per batch one divsteps_62 (~62 steps, each a few dependent
 * ALU operations; the bulk steps cut the count) plus 4 x 7 signed 64x64->128 products for
 * f, g (fewer as they shrink) and 6 x 7 for d, e.
 */
#include "inv_vartime.h"

#include <string.h>

#include "mont.h"

__extension__ typedef __int128 inv_i128;

#define LIMBS62(n) ((64 * (n)) / 62 + 1)
enum { MAX62 = LIMBS62(MONT_MAX_LIMBS) };

static const uint64_t M62 = UINT64_MAX >> 2;

/* 2^62 times the transition of 62 divsteps. */
typedef struct {
    int64_t u, v, q, r;
} trans62;

static inline int ctz64(uint64_t x)
{
#if defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int z = 0;
    while (!(x & 1)) {
        x >>= 1;
        z++;
    }
    return z;
#endif
}

/* 62 divsteps on the low words of f (odd) and g from delta'; returns the new delta'. The
 * matrix is kept as unsigned words (wrapping is the two's complement arithmetic wanted;
 * the final entries fit in int64). Rows: 2^s f = u f0 + v g0, 2^s g = q f0 + r g0 after
 * s steps, so halving g doubles u and v instead. */
static int64_t divsteps_62(int64_t delta, uint64_t f, uint64_t g, trans62 *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    int left = 62;
    for (;;) {
        /* The even steps; the mask stops at the steps left (left is 1..62). */
        int z = ctz64(g | (UINT64_MAX << left));
        g >>= z;
        u <<= z;
        v <<= z;
        delta += z;
        left -= z;
        if (left == 0)
            break;
        /* g is odd. Swap (and negate the old f) when delta' >= 0; delta' is preset to
         * -delta' - 1 so that the halving below brings it to -delta'. */
        if (delta >= 0) {
            delta = -delta - 1;
            uint64_t x = f;
            f = g;
            g = 0 - x;
            x = u;
            u = q;
            q = 0 - x;
            x = v;
            v = r;
            r = 0 - x;
        }
        /* delta' = -k (k >= 1): this step and the next k - 1 add f or nothing, then halve. */
        int bits = (int)(-delta < left ? -delta : left);
        if (bits > 6)
            bits = 6;
        uint64_t finv = f * (2 - f * f);
        uint64_t w = (0 - g * finv) & (UINT64_MAX >> (64 - bits));
        g += f * w;
        q += u * w;
        r += v * w;
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return delta;
}

/* (f, g) <- T (f, g) / 2^62 on len limbs; exact division. */
static void update_fg(int64_t *f, int64_t *g, size_t len, const trans62 *t)
{
    inv_i128 cf = (inv_i128)t->u * f[0] + (inv_i128)t->v * g[0];
    inv_i128 cg = (inv_i128)t->q * f[0] + (inv_i128)t->r * g[0];
    cf >>= 62;
    cg >>= 62;
    for (size_t i = 1; i < len; i++) {
        cf += (inv_i128)t->u * f[i] + (inv_i128)t->v * g[i];
        cg += (inv_i128)t->q * f[i] + (inv_i128)t->r * g[i];
        f[i - 1] = (int64_t)((uint64_t)cf & M62);
        g[i - 1] = (int64_t)((uint64_t)cg & M62);
        cf >>= 62;
        cg >>= 62;
    }
    f[len - 1] = (int64_t)cf;
    g[len - 1] = (int64_t)cg;
}

/* (d, e) <- T (d, e) / 2^62 mod m on len limbs, (-2m, m) to (-2m, m); minv = m^-1 mod
 * 2^62. */
static void update_de(int64_t *d, int64_t *e, const int64_t *m, uint64_t minv, size_t len,
                      const trans62 *t)
{
    int64_t sd = d[len - 1] >> 63, se = e[len - 1] >> 63;
    int64_t md = (t->u & sd) + (t->v & se), me = (t->q & sd) + (t->r & se);
    inv_i128 cd = (inv_i128)t->u * d[0] + (inv_i128)t->v * e[0];
    inv_i128 ce = (inv_i128)t->q * d[0] + (inv_i128)t->r * e[0];
    /* t_d = (cd / m + md) mod 2^62, so that cd + (md - t_d) m = 0 mod 2^62. */
    md -= (int64_t)(((uint64_t)cd * minv + (uint64_t)md) & M62);
    me -= (int64_t)(((uint64_t)ce * minv + (uint64_t)me) & M62);
    cd += (inv_i128)md * m[0];
    ce += (inv_i128)me * m[0];
    cd >>= 62;
    ce >>= 62;
    for (size_t i = 1; i < len; i++) {
        cd += (inv_i128)t->u * d[i] + (inv_i128)t->v * e[i] + (inv_i128)md * m[i];
        ce += (inv_i128)t->q * d[i] + (inv_i128)t->r * e[i] + (inv_i128)me * m[i];
        d[i - 1] = (int64_t)((uint64_t)cd & M62);
        e[i - 1] = (int64_t)((uint64_t)ce & M62);
        cd >>= 62;
        ce >>= 62;
    }
    d[len - 1] = (int64_t)cd;
    e[len - 1] = (int64_t)ce;
}

static void to_62(int64_t *r, const uint64_t *a, size_t n)
{
    size_t len = LIMBS62(n);
    for (size_t i = 0; i < len; i++) {
        size_t bit = 62 * i, w = bit / 64, s = bit % 64;
        uint64_t x = w < n ? a[w] >> s : 0;
        if (s > 2 && w + 1 < n)
            x |= a[w + 1] << (64 - s);
        r[i] = (int64_t)(x & M62);
    }
}

/* a in [0, 2^(64n)), normalised limbs. */
static void from_62(uint64_t *r, const int64_t *a, size_t n)
{
    size_t len = LIMBS62(n);
    memset(r, 0, n * sizeof *r);
    for (size_t i = 0; i < len; i++) {
        size_t bit = 62 * i, w = bit / 64, s = bit % 64;
        uint64_t x = (uint64_t)a[i];
        if (w < n)
            r[w] |= x << s;
        if (s > 2 && w + 1 < n)
            r[w + 1] |= x >> (64 - s);
    }
}

/* a <- sa * a + cm * m, limbs normalised again; sa in {1, -1}, |cm| <= 1. */
static void lincomb(int64_t *a, int64_t sa, int64_t cm, const int64_t *m, size_t len)
{
    int64_t carry = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        int64_t x = sa * a[i] + cm * m[i] + carry;
        a[i] = (int64_t)((uint64_t)x & M62);
        carry = x >> 62;
    }
    a[len - 1] = sa * a[len - 1] + cm * m[len - 1] + carry;
}

/* The sign of x (normalised): -1, 0 or 1. */
static int sign_62(const int64_t *x, size_t len)
{
    if (x[len - 1] < 0)
        return -1;
    for (size_t i = 0; i < len; i++)
        if (x[i] != 0)
            return 1;
    return 0;
}

/* +1 or -1 when x is, else 0 (x normalised on len limbs). */
static int unit_62(const int64_t *x, size_t len)
{
    int64_t lo = x[0];
    bool ones = true, zeros = true;
    for (size_t i = 1; i + 1 < len; i++) {
        ones &= x[i] == (int64_t)M62;
        zeros &= x[i] == 0;
    }
    int64_t top = len > 1 ? x[len - 1] : 0;
    if (len == 1)
        return lo == 1 ? 1 : lo == -1 ? -1 : 0;
    if (lo == 1 && zeros && top == 0)
        return 1;
    if (lo == (int64_t)M62 && ones && top == -1)
        return -1;
    return 0;
}

static inline uint64_t low_word(const int64_t *x, size_t len)
{
    return len > 1 ? (uint64_t)x[0] | (uint64_t)x[1] << 62 : (uint64_t)x[0];
}

/* mod_div_vartime for n limbs; inlined per n below so that the limb loops unroll. */
static inline bool mod_div_n(uint64_t *res, const uint64_t *b, const uint64_t *a,
                             const uint64_t *m, size_t n)
{
    const size_t len62 = LIMBS62(n);
    int64_t f[MAX62], g[MAX62], d[MAX62], e[MAX62], m62[MAX62];
    to_62(m62, m, n);
    to_62(g, a, n);
    to_62(e, b, n);
    memcpy(f, m62, len62 * sizeof *f);
    memset(d, 0, len62 * sizeof *d);
    uint64_t minv = m[0]; /* m^-1 mod 2^3, doubled by each Newton step */
    for (int i = 0; i < 5; i++)
        minv *= 2 - m[0] * minv;

    const size_t bits = 64 * n;
    const size_t cap = 2 * ((49 * bits + 57) / 17 / 62 + 1);
    size_t len = len62;
    int64_t delta = 0;
    for (size_t batch = 0;; batch++) {
        if (sign_62(g, len) == 0)
            break;
        if (batch == cap)
            return false;
        trans62 t;
        delta = divsteps_62(delta, low_word(f, len), low_word(g, len), &t);
        update_de(d, e, m62, minv, len62, &t);
        update_fg(f, g, len, &t);
        /* Fold top limbs of 0 or -1 into the limb below. */
        if (len > 1) {
            int64_t ft = f[len - 1], gt = g[len - 1];
            if ((ft == 0 || ft == -1) && (gt == 0 || gt == -1)) {
                f[len - 2] |= (int64_t)((uint64_t)ft << 62);
                g[len - 2] |= (int64_t)((uint64_t)gt << 62);
                len--;
            }
        }
    }
    int unit = unit_62(f, len);
    if (unit == 0)
        return false;
    /* b / a = f d, with d in (-2m, m): bring it to [0, m). */
    if (unit < 0)
        lincomb(d, -1, 0, m62, len62);
    while (sign_62(d, len62) < 0)
        lincomb(d, 1, 1, m62, len62);
    int64_t t[MAX62];
    memcpy(t, d, len62 * sizeof *t);
    lincomb(t, 1, -1, m62, len62);
    if (sign_62(t, len62) >= 0)
        memcpy(d, t, len62 * sizeof *d);
    from_62(res, d, n);
    return true;
}

bool mod_div_vartime(uint64_t *r, const uint64_t *b, const uint64_t *a, const uint64_t *m,
                     size_t n)
{
    switch (n) { /* the limb counts of BLS12-381's Fr and Fp */
    case 4:
        return mod_div_n(r, b, a, m, 4);
    case 6:
        return mod_div_n(r, b, a, m, 6);
    default:
        return mod_div_n(r, b, a, m, n);
    }
}
