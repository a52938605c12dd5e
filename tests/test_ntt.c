/* The NTT and the H computation against deliberately naive references: O(n^2) DFTs and
 * Horner evaluations, polynomial products and long division. Tiny pass plans (in-cache
 * blocks of 2 points, column passes of 1 to 4 stages) run the multi-pass code at sizes
 * the naive DFT can check. G16_TEST_SCALE=k repeats the random cases k times. Round trips
 * go up to 2^20 (2^16 in debug and sanitizer builds). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "field/cpu.h"
#include "groth16/h_poly.h"
#include "harness.h"
#include "ntt/ntt.h"
#include "util/parallel.h"

/* --- helpers -------------------------------------------------------------------------- */


static void random_nonzero(fr_t *x)
{
    do
        test_random_fr(x);
    while (fr_is_zero(x));
}

/* Compares whole vectors; reports the first differing index once. */
static bool same(const fr_t *got, const fr_t *want, size_t n, const char *what, unsigned log2n)
{
    size_t i = 0;
    while (i < n && fr_equal(&got[i], &want[i]))
        i++;
    char msg[160];
    snprintf(msg, sizeof msg, "%s at 2^%u: equal (first difference at index %zu)", what, log2n,
             i);
    return test_check(i == n, msg, __FILE__, __LINE__);
}

static void horner(fr_t *r, const fr_t *p, size_t n, const fr_t *z)
{
    fr_t acc;
    fr_zero(&acc);
    for (size_t j = n; j-- > 0;) {
        fr_mul(&acc, &acc, z);
        fr_add(&acc, &acc, &p[j]);
    }
    *r = acc;
}

/* out[i] = p(shift * w^i), the O(n^2) definition. */
static void naive_eval(fr_t *out, const fr_t *p, size_t n, const fr_t *w, const fr_t *shift)
{
    fr_t z;
    if (shift)
        z = *shift;
    else
        fr_one(&z);
    for (size_t i = 0; i < n; i++) {
        horner(&out[i], p, n, &z);
        fr_mul(&z, &z, w);
    }
}

/* Coefficients p_j = shift^-j / n * sum_i v_i w^(-ij). */
static void naive_interp(fr_t *out, const fr_t *v, size_t n, const fr_t *w, const fr_t *shift)
{
    fr_t winv, s, f, nn;
    fr_inv(&winv, w);
    fr_from_u64(&nn, n);
    fr_inv(&f, &nn);
    naive_eval(out, v, n, &winv, NULL);
    if (shift)
        fr_inv(&s, shift);
    else
        fr_one(&s);
    for (size_t j = 0; j < n; j++) {
        fr_mul(&out[j], &out[j], &f);
        fr_mul(&f, &f, &s);
    }
}

static void bitrev_copy(fr_t *out, const fr_t *in, unsigned log2n)
{
    size_t n = (size_t)1 << log2n;
    for (size_t i = 0; i < n; i++) {
        size_t r = 0;
        for (unsigned b = 0; b < log2n; b++)
            r |= ((i >> b) & 1) << (log2n - 1 - b);
        out[r] = in[i];
    }
}

static const ntt_domain *shared_domain(unsigned log2n)
{
    const ntt_domain *d = NULL;
    CHECK(ntt_domain_get(&d, log2n) == G16_OK);
    return d;
}

/* Plans: {leaf_log, tile_log}; {0, 0} is the default plan. */
static const unsigned plans[][2] = {{0, 0}, {1, 1}, {2, 1}, {1, 2}, {2, 3}, {3, 2}, {2, 4}, {5, 3}};
enum { NPLANS = sizeof plans / sizeof plans[0] };

static ntt_domain *plan_domain(unsigned log2n, size_t p)
{
    ntt_domain *d = NULL;
    g16_status st = plans[p][0] ? ntt_domain_create_with_plan(&d, log2n, plans[p][0], plans[p][1])
                                : ntt_domain_create(&d, log2n);
    CHECK(st == G16_OK);
    return d;
}

/* --- every transform against the naive DFT, sizes 2^0..2^10, every plan ---------------- */

static void test_naive(unsigned max_log)
{
    for (unsigned L = 0; L <= max_log; L++) {
        size_t n = (size_t)1 << L;
        fr_t w, s1, s2, scale;
        fr_root_of_unity(&w, L);
        fr_t *x = test_fr_vec(n), *y = test_fr_vec(n), *want_f = test_fr_vec(n),
             *want_i = test_fr_vec(n), *want_cf = test_fr_vec(n), *want_ci = test_fr_vec(n),
             *want_cc = test_fr_vec(n), *want_br = test_fr_vec(n), *tmp = test_fr_vec(n);
        test_random_fr_vec(x, n);
        random_nonzero(&s1);
        random_nonzero(&s2);
        random_nonzero(&scale);
        naive_eval(want_f, x, n, &w, NULL);
        naive_interp(want_i, x, n, &w, NULL);
        naive_eval(want_cf, x, n, &w, &s1);
        naive_interp(want_ci, x, n, &w, &s1);
        for (size_t i = 0; i < n; i++)
            fr_mul(&want_ci[i], &want_ci[i], &scale);
        naive_interp(tmp, x, n, &w, &s1); /* change of coset s1 -> s2 */
        naive_eval(want_cc, tmp, n, &w, &s2);
        naive_interp(tmp, x, n, &w, &s2); /* inverse to bit-reversed order, coset s2 */
        bitrev_copy(want_br, tmp, L);

        for (size_t p = 0; p < NPLANS; p++) {
            ntt_domain *d = plan_domain(L, p);
            if (!d)
                continue;
            char what[96];
            snprintf(what, sizeof what, "forward, plan %zu (%u passes)", p, ntt_domain_passes(d));
            CHECK(ntt_forward(d, y, x) == G16_OK);
            same(y, want_f, n, what, L);
            CHECK(ntt_inverse(d, y, x) == G16_OK);
            same(y, want_i, n, "inverse", L);
            memcpy(y, x, n * sizeof *y); /* in place */
            CHECK(ntt_coset_forward(d, y, y, &s1) == G16_OK);
            same(y, want_cf, n, "coset forward", L);
            CHECK(ntt_coset_inverse(d, y, x, &s1, &scale) == G16_OK);
            same(y, want_ci, n, "coset inverse, scaled", L);
            CHECK(ntt_change_coset(d, y, x, &s1, &s2, NULL, NULL) == G16_OK);
            same(y, want_cc, n, "change of coset", L);
            CHECK(ntt_inverse_to_br(d, y, x, &s2, NULL) == G16_OK);
            same(y, want_br, n, "inverse to bit-reversed", L);
            CHECK(ntt_forward_from_br(d, tmp, y, &s2) == G16_OK);
            same(tmp, x, n, "forward from bit-reversed", L);
            ntt_domain_free(d);
        }
        free(x), free(y), free(want_f), free(want_i), free(want_cf), free(want_ci);
        free(want_cc), free(want_br), free(tmp);
    }
}

/* --- single outputs at large sizes (O(n) each) ----------------------------------------- */

static void test_spot(unsigned L, size_t points)
{
    size_t n = (size_t)1 << L;
    const ntt_domain *d = shared_domain(L);
    fr_t *x = test_fr_vec(n), *y = test_fr_vec(n), *z = test_fr_vec(n);
    fr_t w, s, pt, v;
    fr_root_of_unity(&w, L);
    random_nonzero(&s);
    test_random_fr_vec(x, n);
    CHECK(ntt_forward(d, y, x) == G16_OK);
    CHECK(ntt_coset_forward(d, z, x, &s) == G16_OK);
    for (size_t k = 0; k < points; k++) {
        size_t i = k == 0 ? 0 : k == 1 ? n - 1 : (size_t)(test_rand64() & (n - 1));
        uint64_t e[1] = {i};
        fr_pow(&pt, &w, e, 1);
        horner(&v, x, n, &pt);
        char what[96];
        snprintf(what, sizeof what, "forward output %zu of 2^%u = x(w^i)", i, L);
        test_check(fr_equal(&y[i], &v), what, __FILE__, __LINE__);
        fr_mul(&pt, &pt, &s);
        horner(&v, x, n, &pt);
        snprintf(what, sizeof what, "coset output %zu of 2^%u = x(s w^i)", i, L);
        test_check(fr_equal(&z[i], &v), what, __FILE__, __LINE__);
    }
    free(x), free(y), free(z);
}

/* --- round trips, linearity, constants ------------------------------------------------- */

static void test_round_trips(unsigned max_log)
{
    for (unsigned L = 0; L <= max_log; L++) {
        size_t n = (size_t)1 << L;
        const ntt_domain *d = shared_domain(L);
        fr_t *x = test_fr_vec(n), *y = test_fr_vec(n);
        test_random_fr_vec(x, n);
        CHECK(ntt_forward(d, y, x) == G16_OK);
        CHECK(ntt_inverse(d, y, y) == G16_OK);
        same(y, x, n, "inverse(forward(x))", L);
        if (L % 3 == 2) {
            fr_t s1, s2;
            random_nonzero(&s1);
            random_nonzero(&s2);
            CHECK(ntt_inverse(d, y, x) == G16_OK);
            CHECK(ntt_forward(d, y, y) == G16_OK);
            same(y, x, n, "forward(inverse(x))", L);
            CHECK(ntt_coset_forward(d, y, x, &s1) == G16_OK);
            CHECK(ntt_coset_inverse(d, y, y, &s1, NULL) == G16_OK);
            same(y, x, n, "coset round trip", L);
            CHECK(ntt_change_coset(d, y, x, &s1, &s2, NULL, NULL) == G16_OK);
            CHECK(ntt_change_coset(d, y, y, &s2, &s1, NULL, NULL) == G16_OK);
            same(y, x, n, "change of coset and back", L);
            CHECK(ntt_change_coset(d, y, x, NULL, NULL, NULL, NULL) == G16_OK);
            same(y, x, n, "change to the same coset", L);
        }
        free(x), free(y);
    }
}

static void test_linearity(unsigned L)
{
    size_t n = (size_t)1 << L;
    const ntt_domain *d = shared_domain(L);
    fr_t *x = test_fr_vec(n), *y = test_fr_vec(n), *z = test_fr_vec(n), *fx = test_fr_vec(n),
         *fy = test_fr_vec(n);
    fr_t alpha, s;
    test_random_fr_vec(x, n);
    test_random_fr_vec(y, n);
    random_nonzero(&alpha);
    random_nonzero(&s);
    for (size_t i = 0; i < n; i++) {
        fr_mul(&z[i], &x[i], &alpha);
        fr_add(&z[i], &z[i], &y[i]);
    }
    CHECK(ntt_coset_forward(d, fx, x, &s) == G16_OK);
    CHECK(ntt_coset_forward(d, fy, y, &s) == G16_OK);
    CHECK(ntt_coset_forward(d, z, z, &s) == G16_OK);
    for (size_t i = 0; i < n; i++) {
        fr_mul(&fx[i], &fx[i], &alpha);
        fr_add(&fx[i], &fx[i], &fy[i]);
    }
    same(z, fx, n, "linearity", L);
    free(x), free(y), free(z), free(fx), free(fy);
}

static void test_constants(void)
{
    static const unsigned sizes[] = {0, 1, 2, 3, 7, 13, 14, 16};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        unsigned L = sizes[k];
        size_t n = (size_t)1 << L;
        const ntt_domain *d = shared_domain(L);
        fr_t *x = test_fr_vec(n), *y = test_fr_vec(n), *want = test_fr_vec(n);
        fr_t s, w, nn;
        random_nonzero(&s);
        fr_root_of_unity(&w, L);
        fr_from_u64(&nn, n);

        memset(x, 0, n * sizeof *x);
        memset(want, 0, n * sizeof *want);
        CHECK(ntt_forward(d, y, x) == G16_OK);
        same(y, want, n, "forward(0) = 0", L);
        CHECK(ntt_coset_inverse(d, y, x, &s, NULL) == G16_OK);
        same(y, want, n, "coset inverse(0) = 0", L);

        for (size_t i = 0; i < n; i++)
            fr_one(&x[i]);
        want[0] = nn;
        CHECK(ntt_forward(d, y, x) == G16_OK);
        same(y, want, n, "forward(1, 1, ...) = (n, 0, ...)", L);
        fr_one(&want[0]);
        CHECK(ntt_inverse(d, y, x) == G16_OK);
        same(y, want, n, "inverse(1, 1, ...) = (1, 0, ...)", L);
        CHECK(ntt_coset_forward(d, y, want, &s) == G16_OK);
        same(y, x, n, "coset forward(1, 0, ...) = (1, 1, ...)", L);

        if (n > 1) { /* x = X: values w^i, on the coset s w^i */
            memset(x, 0, n * sizeof *x);
            fr_one(&x[1]);
            fr_one(&want[0]);
            for (size_t i = 1; i < n; i++)
                fr_mul(&want[i], &want[i - 1], &w);
            CHECK(ntt_forward(d, y, x) == G16_OK);
            same(y, want, n, "forward(X) = (w^i)", L);
            for (size_t i = 0; i < n; i++)
                fr_mul(&want[i], &want[i], &s);
            CHECK(ntt_coset_forward(d, y, x, &s) == G16_OK);
            same(y, want, n, "coset forward(X) = (s w^i)", L);
        }
        free(x), free(y), free(want);
    }
}

static void test_bit_reverse(void)
{
    for (unsigned L = 0; L <= 14; L++) {
        size_t n = (size_t)1 << L;
        fr_t *x = test_fr_vec(n), *y = test_fr_vec(n), *want = test_fr_vec(n);
        test_random_fr_vec(x, n);
        bitrev_copy(want, x, L);
        memcpy(y, x, n * sizeof *y);
        ntt_bit_reverse(y, L);
        same(y, want, n, "bit reversal", L);
        ntt_bit_reverse(y, L);
        same(y, x, n, "bit reversal twice", L);
        free(x), free(y), free(want);
    }
}

/* Every output index reaches the epilogue exactly once. */
typedef struct {
    atomic_uint *hits;
    atomic_uint bad;
    const fr_t *expect;
} epilogue_ctx;

static void count_epilogue(void *ctx, fr_t *values, size_t begin, size_t count)
{
    epilogue_ctx *e = ctx;
    for (size_t i = 0; i < count; i++) {
        atomic_fetch_add(&e->hits[begin + i], 1);
        if (!fr_equal(&values[i], &e->expect[begin + i]))
            atomic_fetch_add(&e->bad, 1);
    }
}

static void test_epilogue(unsigned L, size_t plan)
{
    size_t n = (size_t)1 << L;
    ntt_domain *d = plan_domain(L, plan);
    fr_t *x = test_fr_vec(n), *y = test_fr_vec(n), *want = test_fr_vec(n), s;
    test_random_fr_vec(x, n);
    random_nonzero(&s);
    CHECK(ntt_change_coset(d, want, x, NULL, &s, NULL, NULL) == G16_OK);
    epilogue_ctx e = {.hits = calloc(n, sizeof(atomic_uint)), .expect = want};
    atomic_init(&e.bad, 0);
    CHECK(ntt_change_coset(d, y, x, NULL, &s, count_epilogue, &e) == G16_OK);
    bool once = true;
    for (size_t i = 0; i < n; i++)
        once &= atomic_load(&e.hits[i]) == 1;
    CHECK(once);
    CHECK(atomic_load(&e.bad) == 0);
    free(e.hits), free(x), free(y), free(want);
    ntt_domain_free(d);
}

/* --- the H computation ----------------------------------------------------------------- */

/* h by its definition: coefficients by naive interpolation, values by Horner. */
static void naive_h(fr_t *h, const fr_t *a, const fr_t *b, const fr_t *c, unsigned L,
                    h_poly_convention conv)
{
    size_t n = (size_t)1 << L;
    fr_t w, shift;
    fr_root_of_unity(&w, L);
    h_poly_shift(&shift, L, conv);
    fr_t *ca = test_fr_vec(n), *cb = test_fr_vec(n), *cc = test_fr_vec(n), *va = test_fr_vec(n),
         *vb = test_fr_vec(n), *vc = test_fr_vec(n);
    naive_interp(ca, a, n, &w, NULL);
    naive_interp(cb, b, n, &w, NULL);
    naive_interp(cc, c, n, &w, NULL);
    naive_eval(va, ca, n, &w, &shift);
    naive_eval(vb, cb, n, &w, &shift);
    naive_eval(vc, cc, n, &w, &shift);
    for (size_t i = 0; i < n; i++) {
        fr_mul(&h[i], &va[i], &vb[i]);
        fr_sub(&h[i], &h[i], &vc[i]);
    }
    if (conv == H_POLY_CLASSIC) {
        fr_t z, one;
        uint64_t e[1] = {n};
        fr_pow(&z, &shift, e, 1);
        fr_one(&one);
        fr_sub(&z, &z, &one);
        fr_inv(&z, &z);
        for (size_t i = 0; i < n; i++)
            fr_mul(&h[i], &h[i], &z);
        naive_interp(va, h, n, &w, &shift);
        memcpy(h, va, n * sizeof *h);
    }
    free(ca), free(cb), free(cc), free(va), free(vb), free(vc);
}

/* For a*b = c on the domain, (A B - C) / (X^n - 1) by long division: the classic h; and
 * the snarkjs h is that quotient times Z = -2 at the odd points of the 2n-domain. */
static void test_h_quotient(unsigned L)
{
    size_t n = (size_t)1 << L;
    fr_t w;
    fr_root_of_unity(&w, L);
    fr_t *a = test_fr_vec(n), *b = test_fr_vec(n), *c = test_fr_vec(n), *ca = test_fr_vec(n),
         *cb = test_fr_vec(n), *cc = test_fr_vec(n);
    fr_t *prod = test_fr_vec(2 * n), *q = test_fr_vec(n), *h = test_fr_vec(n),
         *a2 = test_fr_vec(n), *b2 = test_fr_vec(n), *c2 = test_fr_vec(n);
    test_random_fr_vec(a, n);
    test_random_fr_vec(b, n);
    for (size_t i = 0; i < n; i++)
        fr_mul(&c[i], &a[i], &b[i]);
    naive_interp(ca, a, n, &w, NULL);
    naive_interp(cb, b, n, &w, NULL);
    naive_interp(cc, c, n, &w, NULL);
    memset(prod, 0, 2 * n * sizeof *prod);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            fr_t t;
            fr_mul(&t, &ca[i], &cb[j]);
            fr_add(&prod[i + j], &prod[i + j], &t);
        }
    for (size_t i = 0; i < n; i++)
        fr_sub(&prod[i], &prod[i], &cc[i]);
    /* Divide by X^n - 1 from the top: X^d = X^(d-n) (X^n - 1) + X^(d-n). */
    memset(q, 0, n * sizeof *q);
    for (size_t dgr = 2 * n - 1; dgr >= n; dgr--) {
        q[dgr - n] = prod[dgr];
        fr_add(&prod[dgr - n], &prod[dgr - n], &prod[dgr]);
    }
    bool rem_zero = true;
    for (size_t i = 0; i < n; i++)
        rem_zero &= fr_is_zero(&prod[i]);
    CHECK(rem_zero);

    memcpy(a2, a, n * sizeof *a), memcpy(b2, b, n * sizeof *b), memcpy(c2, c, n * sizeof *c);
    CHECK(h_poly_compute(h, a2, b2, c2, L, H_POLY_CLASSIC) == G16_OK);
    same(h, q, n, "classic h = (AB - C) / Z", L);

    fr_t w2, pt, v, minus2;
    fr_root_of_unity(&w2, L + 1);
    fr_from_u64(&minus2, 2);
    fr_neg(&minus2, &minus2);
    memcpy(a2, a, n * sizeof *a), memcpy(b2, b, n * sizeof *b), memcpy(c2, c, n * sizeof *c);
    CHECK(h_poly_compute(c2, a2, b2, c2, L, H_POLY_SNARKJS) == G16_OK);
    bool ok = true;
    pt = w2;
    fr_t w2sq;
    fr_sqr(&w2sq, &w2);
    for (size_t i = 0; i < n; i++) {
        horner(&v, q, n, &pt);
        fr_mul(&v, &v, &minus2);
        ok &= fr_equal(&v, &c2[i]);
        fr_mul(&pt, &pt, &w2sq);
    }
    char what[64];
    snprintf(what, sizeof what, "snarkjs h = -2 Q(w_2n^(2i+1)) at 2^%u", L);
    test_check(ok, what, __FILE__, __LINE__);
    free(a), free(b), free(c), free(ca), free(cb), free(cc), free(prod), free(q), free(h);
    free(a2), free(b2), free(c2);
}

static void test_h_naive(unsigned max_log)
{
    for (unsigned L = 0; L <= max_log; L++) {
        size_t n = (size_t)1 << L;
        fr_t *a = test_fr_vec(n), *b = test_fr_vec(n), *c = test_fr_vec(n), *want = test_fr_vec(n);
        fr_t *a2 = test_fr_vec(n), *b2 = test_fr_vec(n), *c2 = test_fr_vec(n), *h = test_fr_vec(n);
        test_random_fr_vec(a, n);
        test_random_fr_vec(b, n);
        test_random_fr_vec(c, n); /* unsatisfied on purpose: h is still defined */
        for (int conv = 0; conv < 2; conv++) {
            naive_h(want, a, b, c, L, (h_poly_convention)conv);
            for (size_t p = 0; p < NPLANS; p += 3) {
                ntt_domain *d = plan_domain(L, p);
                /* h separate, then aliasing each input in turn. */
                for (int alias = 0; alias < 4; alias++) {
                    memcpy(a2, a, n * sizeof *a), memcpy(b2, b, n * sizeof *b);
                    memcpy(c2, c, n * sizeof *c);
                    fr_t *out = alias == 0 ? h : alias == 1 ? a2 : alias == 2 ? b2 : c2;
                    CHECK(h_poly_compute_in(d, out, a2, b2, c2, (h_poly_convention)conv) ==
                          G16_OK);
                    same(out, want, n, conv ? "classic h vs naive" : "snarkjs h vs naive", L);
                }
                ntt_domain_free(d);
            }
        }
        free(a), free(b), free(c), free(want), free(a2), free(b2), free(c2), free(h);
    }
}

/* --- threads, arithmetic paths, errors ---------------------------------------------------- */

/* Runs every operation at size 2^L into out[0..7) (each n elements). */
static void run_all(fr_t *out, const fr_t *x, const fr_t *s, unsigned L)
{
    size_t n = (size_t)1 << L;
    const ntt_domain *d = shared_domain(L);
    CHECK(ntt_forward(d, out, x) == G16_OK);
    CHECK(ntt_inverse(d, out + n, x) == G16_OK);
    CHECK(ntt_coset_forward(d, out + 2 * n, x, s) == G16_OK);
    CHECK(ntt_coset_inverse(d, out + 3 * n, x, s, s) == G16_OK);
    CHECK(ntt_change_coset(d, out + 4 * n, x, s, NULL, NULL, NULL) == G16_OK);
    fr_t *a = test_fr_vec(n), *b = test_fr_vec(n);
    for (int conv = 0; conv < 2; conv++) {
        memcpy(a, x, n * sizeof *a);
        memcpy(b, x + n / 2, n / 2 * sizeof *b);
        memcpy(b + n / 2, x, n / 2 * sizeof *b);
        memcpy(out + (5 + conv) * n, x, n * sizeof *x);
        fr_t *c = out + (5 + conv) * n;
        CHECK(h_poly_compute(c, a, b, c, L, (h_poly_convention)conv) == G16_OK);
    }
    free(a), free(b);
}

static void test_threads(unsigned L)
{
    size_t n = (size_t)1 << L;
    unsigned saved = parallel_threads();
    fr_t *x = test_fr_vec(n), *ref = test_fr_vec(7 * n), *got = test_fr_vec(7 * n), s;
    test_random_fr_vec(x, n);
    random_nonzero(&s);
    parallel_set_threads(1);
    run_all(ref, x, &s, L);
    for (unsigned t = 2; t <= 4; t++) {
        parallel_set_threads(t);
        run_all(got, x, &s, L);
        char what[64];
        snprintf(what, sizeof what, "%u threads give the 1-thread results", t);
        same(got, ref, 7 * n, what, L);
    }
    parallel_set_threads(saved);
    free(x), free(ref), free(got);
}

static void test_asm_paths(unsigned L)
{
    if (!cpu_asm_available())
        return;
    size_t n = (size_t)1 << L;
    fr_t *x = test_fr_vec(n), *ref = test_fr_vec(7 * n), *got = test_fr_vec(7 * n), s;
    test_random_fr_vec(x, n);
    random_nonzero(&s);
    run_all(ref, x, &s, L);
    cpu_set_asm(false);
    run_all(got, x, &s, L);
    cpu_set_asm(true);
    same(got, ref, 7 * n, "portable arithmetic gives the assembly results", L);
    free(x), free(ref), free(got);
}

static void test_errors(void)
{
    ntt_domain *d = NULL;
    const ntt_domain *cd = NULL;
    CHECK(ntt_domain_create(&d, NTT_MAX_LOG2N + 1) == G16_ERR_INVALID_ARGUMENT && d == NULL);
    CHECK(ntt_domain_get(&cd, 40) == G16_ERR_INVALID_ARGUMENT && cd == NULL);
    CHECK(ntt_domain_create_with_plan(&d, 10, 0, 3) == G16_ERR_INVALID_ARGUMENT);
    CHECK(strlen(g16_last_error()) > 0);

    /* The largest domain: tables stay small (no n-sized allocation). */
    CHECK(ntt_domain_create(&d, NTT_MAX_LOG2N) == G16_OK);
    if (d) {
        fr_t w;
        fr_root_of_unity(&w, NTT_MAX_LOG2N);
        CHECK(fr_equal(ntt_domain_root(d), &w));
        CHECK(ntt_domain_size(d) == (size_t)1 << NTT_MAX_LOG2N);
        CHECK(ntt_domain_passes(d) == 3);
        ntt_domain_free(d);
    }
    const ntt_domain *d1 = shared_domain(5), *d2 = shared_domain(5);
    CHECK(d1 == d2 && ntt_domain_log2n(d1) == 5);

    fr_t x[32], zero;
    fr_zero(&zero);
    test_random_fr_vec(x, 32);
    CHECK(ntt_coset_forward(d1, x, x, &zero) == G16_ERR_INVALID_ARGUMENT);
    CHECK(ntt_coset_inverse(d1, x, x, &zero, NULL) == G16_ERR_INVALID_ARGUMENT);
    CHECK(ntt_change_coset(d1, x, x, NULL, &zero, NULL, NULL) == G16_ERR_INVALID_ARGUMENT);
    CHECK(ntt_forward(NULL, x, x) == G16_ERR_INVALID_ARGUMENT);
    CHECK(h_poly_compute(x, x, x, x, NTT_MAX_LOG2N + 1, H_POLY_SNARKJS) ==
          G16_ERR_INVALID_ARGUMENT);
    CHECK(h_poly_compute(x, x, x, NULL, 5, H_POLY_SNARKJS) == G16_ERR_INVALID_ARGUMENT);
    CHECK(h_poly_compute(x, x, x, x, 5, (h_poly_convention)9) == G16_ERR_INVALID_ARGUMENT);

    /* More distinct shifts than the domain caches: still right. */
    fr_t y[32], back[32];
    for (int i = 0; i < 12; i++) {
        fr_t s;
        random_nonzero(&s);
        CHECK(ntt_coset_forward(d1, y, x, &s) == G16_OK);
        CHECK(ntt_coset_inverse(d1, back, y, &s, NULL) == G16_OK);
        CHECK(memcmp(back, x, sizeof x) == 0);
    }
}

/* Debug and sanitizer builds run about 20 times slower: the sizes that dominate the run
 * (2^17..2^20) shrink there, the small exhaustive ones stay. */
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
enum { BIG = 16 };
#else
enum { BIG = 20 };
#endif

int main(void)
{
    test_init("test_ntt");
    size_t reps = test_count(1);
    for (size_t r = 0; r < reps; r++) {
        test_naive(10);
        test_h_naive(7);
        for (unsigned L = 0; L <= 6; L++)
            test_h_quotient(L);
        test_spot(16, 8);
        test_spot(BIG, 4);
        test_round_trips(BIG);
        test_linearity(12);
        test_linearity(15);
        test_constants();
        test_bit_reverse();
        test_epilogue(10, 1);
        test_epilogue(9, 4);
        test_epilogue(16, 0);
        test_threads(14);
        test_threads(BIG - 4);
        test_asm_paths(14);
        test_errors();
    }
    return test_finish();
}
