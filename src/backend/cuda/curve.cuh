/* Short Weierstrass points (a = 0) for the GPU, over Fp (G1) or Fp2 (G2), in the layouts
 * of the CPU (src/curve/point_api.h): affine (x, y), all-zero = infinity, and XYZZ
 * (x = X/ZZ, y = Y/ZZZ; ZZ = 0 is infinity). The formulas are those of the CPU's XYZZ
 * code (Bernstein-Lange EFD, "xyzz" coordinates: madd-2008-s, add-2008-s,
 * dbl-2008-s-1, mdbl-2008-s), so device results can be compared with the CPU's bit for bit
 * after conversion to affine. */
#ifndef G16_BACKEND_CUDA_CURVE_CUH
#define G16_BACKEND_CUDA_CURVE_CUH

#include "field.cuh"

/* Point operations are not inlined: each is ~10 field products of ~700 instructions, and
 * inlining them into every kernel (G2 above all) made ptxas take minutes per file with
 * no gain in the hot loops, where the call costs a few percent of an addition. */
#define G16_POINT_FN __host__ __device__ __noinline__

template <class F>
struct affine_d {
    F x, y;
    G16_HD bool is_infinity() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct xyzz_d {
    F x, y, zz, zzz;

    G16_HD static xyzz_d infinity()
    {
        return xyzz_d{F::zero(), F::zero(), F::zero(), F::zero()};
    }
    G16_HD bool is_infinity() const { return zz.is_zero(); }
};

typedef affine_d<fp_d> g1_affine_d;
typedef affine_d<fp2_d> g2_affine_d;
typedef xyzz_d<fp_d> g1_xyzz_d;
typedef xyzz_d<fp2_d> g2_xyzz_d;

template <class F>
G16_HD xyzz_d<F> xyzz_from_affine(const affine_d<F> &a)
{
    if (a.is_infinity())
        return xyzz_d<F>::infinity();
    return xyzz_d<F>{a.x, a.y, F::one(), F::one()};
}

/* 2P for an affine P (mdbl-2008-s). */
template <class F>
G16_POINT_FN xyzz_d<F> xyzz_dbl_affine(const affine_d<F> &a)
{
    F u = dbl(a.y), v = sqr(u), w = u * v, s = a.x * v;
    F xx = sqr(a.x), m = dbl(xx) + xx;
    xyzz_d<F> r;
    r.x = sqr(m) - dbl(s);
    r.y = m * (s - r.x) - w * a.y;
    r.zz = v;
    r.zzz = w;
    return r;
}

/* 2P (dbl-2008-s-1). */
template <class F>
G16_POINT_FN xyzz_d<F> xyzz_dbl(const xyzz_d<F> &a)
{
    if (a.is_infinity())
        return a;
    F u = dbl(a.y), v = sqr(u), w = u * v, s = a.x * v;
    F xx = sqr(a.x), m = dbl(xx) + xx;
    xyzz_d<F> r;
    r.x = sqr(m) - dbl(s);
    r.y = m * (s - r.x) - w * a.y;
    r.zz = v * a.zz;
    r.zzz = w * a.zzz;
    return r;
}

/* a + b for an affine b (madd-2008-s), every special case handled. */
template <class F>
G16_POINT_FN xyzz_d<F> xyzz_add_affine(const xyzz_d<F> &a, const affine_d<F> &b)
{
    if (b.is_infinity())
        return a;
    if (a.is_infinity())
        return xyzz_from_affine(b);
    F u2 = b.x * a.zz, s2 = b.y * a.zzz;
    F p = u2 - a.x, r = s2 - a.y;
    if (p.is_zero()) {
        if (r.is_zero())
            return xyzz_dbl_affine(b);
        return xyzz_d<F>::infinity();
    }
    F pp = sqr(p), ppp = p * pp, q = a.x * pp;
    xyzz_d<F> o;
    o.x = sqr(r) - ppp - dbl(q);
    o.y = r * (q - o.x) - a.y * ppp;
    o.zz = a.zz * pp;
    o.zzz = a.zzz * ppp;
    return o;
}

/* a + b (add-2008-s), every special case handled. */
template <class F>
G16_POINT_FN xyzz_d<F> xyzz_add(const xyzz_d<F> &a, const xyzz_d<F> &b)
{
    if (b.is_infinity())
        return a;
    if (a.is_infinity())
        return b;
    F u1 = a.x * b.zz, u2 = b.x * a.zz;
    F s1 = a.y * b.zzz, s2 = b.y * a.zzz;
    F p = u2 - u1, r = s2 - s1;
    if (p.is_zero()) {
        if (r.is_zero())
            return xyzz_dbl(a);
        return xyzz_d<F>::infinity();
    }
    F pp = sqr(p), ppp = p * pp, q = u1 * pp;
    xyzz_d<F> o;
    o.x = sqr(r) - ppp - dbl(q);
    o.y = r * (q - o.x) - s1 * ppp;
    o.zz = a.zz * b.zz * pp;
    o.zzz = a.zzz * b.zzz * ppp;
    return o;
}

template <class F>
G16_HD affine_d<F> affine_neg(const affine_d<F> &a)
{
    return affine_d<F>{a.x, neg(a.y)};
}

/* The chord's slope dy * inv_dx. In Fp (G1) it is left loosely reduced (loose_mul: below
 * 1.15 p for inv_dx below 1.17 p, as the batch-affine walk's inverses are), which sqr and
 * operator* reduce in affine_add_chord, so x3 and y3 come out canonical; in Fp2 the
 * product. */
G16_HD fp_d chord_slope(const fp_d &dy, const fp_d &inv_dx) { return loose_mul(dy, inv_dx); }
template <class F>
G16_HD F chord_slope(const F &dy, const F &inv_dx)
{
    return dy * inv_dx;
}

/* a + b along the chord, given inv_dx = (b.x - a.x)^-1: neither point at infinity and
 * a.x != b.x (affine_add_is_chord says so; affine_add_with_inverse takes every case); in
 * Fp inv_dx may be loosely reduced (chord_slope). */
template <class F>
G16_HD affine_d<F> affine_add_chord(const affine_d<F> &a, const affine_d<F> &b, const F &inv_dx)
{
    F lambda = chord_slope(b.y - a.y, inv_dx);
    affine_d<F> r;
    r.x = sqr(lambda) - a.x - b.x;
    r.y = lambda * (a.x - r.x) - a.y;
    return r;
}

/* Whether a + b is a chord (affine_add_chord applies), with its denominator b.x - a.x in
 * *d (meaningful only when it is). */
template <class F>
G16_HD bool affine_add_is_chord(const affine_d<F> &a, const affine_d<F> &b, F *d)
{
    *d = b.x - a.x;
    return !(a.is_infinity() || b.is_infinity() || d->is_zero());
}

/* The denominator whose inverse affine_add_with_inverse takes: b.x - a.x along a chord,
 * 2 y for a doubling (a = b, y != 0), 1 where no division is needed (either point at
 * infinity, a = -b), so that a product of denominators is never zero. The batch-affine
 * MSM (msm_batch_affine.cuh) inverts many at once with one field inversion. */
template <class F>
G16_HD F affine_add_denominator(const affine_d<F> &a, const affine_d<F> &b)
{
    F d = b.x - a.x;
    if (a.is_infinity() || b.is_infinity())
        return F::one();
    if (d.is_zero())
        return a.y == b.y && !a.y.is_zero() ? dbl(a.y) : F::one();
    return d;
}

/* a + b in affine coordinates given inv_d, the inverse of affine_add_denominator(a, b):
 * the chord's slope (b.y - a.y) / (b.x - a.x) or the tangent's 3 x^2 / (2 y) from one
 * product, then x3 = l^2 - a.x - b.x and y3 = l (a.x - x3) - a.y for both (b.x = a.x for
 * the tangent), with no inversion of its own. */
template <class F>
G16_HD affine_d<F> affine_add_with_inverse(const affine_d<F> &a, const affine_d<F> &b,
                                           const F &inv_d)
{
    const bool same_x = a.x == b.x;
    F num;
    if (same_x) {
        F xx = sqr(a.x);
        num = dbl(xx) + xx;
    } else {
        num = b.y - a.y;
    }
    F lambda = num * inv_d;
    affine_d<F> r;
    r.x = sqr(lambda) - a.x - b.x;
    r.y = lambda * (a.x - r.x) - a.y;
    if (a.is_infinity())
        return b;
    if (b.is_infinity())
        return a;
    if (same_x && (a.y != b.y || a.y.is_zero()))
        return affine_d<F>{F::zero(), F::zero()};
    return r;
}

/* k * a for a small non-negative k (double and add from the top bit). */
template <class F>
G16_POINT_FN xyzz_d<F> xyzz_mul_small(const xyzz_d<F> &a, uint32_t k)
{
    /* From k's top bit down: the doublings of infinity above it cost what any doubling
     * does (the formulas have no branch for it), and k is a bucket offset or a segment's
     * length, ~10-20 bits of the 32 (the reductions' segments, the split sums). */
    if (k == 0)
        return xyzz_d<F>::infinity();
    int top = 31;
    while (!((k >> top) & 1))
        top--;
    xyzz_d<F> r = a;
    for (int bit = top - 1; bit >= 0; bit--) {
        r = xyzz_dbl(r);
        if ((k >> bit) & 1)
            r = xyzz_add(r, a);
    }
    return r;
}

#endif
