/* The NTT's AVX-512 IFMA passes (ntt/ntt_ifma_x86.c) against the scalar ones
 * (cpu_set_ifma(false)): every transform (forward, inverse, coset forward and inverse with
 * a scale, change of coset, both bit-reversed building blocks, H in both conventions,
 * which runs the change of coset's epilogue) must give the same bytes, at sizes 2^0..2^16
 * under plans that take every vector shape: column passes of 1 to 12 stages, leaf blocks
 * of 2^6..2^16 points and ones below 2^6 (scalar leaf beside vector columns), on 1 and 3
 * threads. Inputs: seeded random elements, then edge values (0, 1, r - 1, raw limb
 * patterns at the 52- and 64-bit boundaries, values next to 2^254 and r) in every lane,
 * and arrays of one edge value throughout. Debug and sanitizer builds stop at 2^14.
 * Skipped (exit 77) on a CPU or build without IFMA. */
#include <stdlib.h>
#include <string.h>

#include "field/cpu.h"
#include "groth16/h_poly.h"
#include "harness.h"
#include "ntt/ntt.h"
#include "util/parallel.h"

#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
enum { MAX_LOG = 14 };
#else
enum { MAX_LOG = 16 };
#endif

/* Outputs of one run of everything: OPS arrays of n. */
enum { OPS = 10 };

/* out[0..OPS n) = every transform of x (and of x, y, z for H). */
static void run_all(fr_t *out, const ntt_domain *d, const fr_t *x, const fr_t *y,
                    const fr_t *z, const fr_t *shift, const fr_t *scale)
{
    size_t n = ntt_domain_size(d);
    fr_t *o = out;
    CHECK(ntt_forward(d, o, x) == G16_OK), o += n;
    CHECK(ntt_inverse(d, o, x) == G16_OK), o += n;
    CHECK(ntt_coset_forward(d, o, x, shift) == G16_OK), o += n;
    CHECK(ntt_coset_inverse(d, o, x, shift, scale) == G16_OK), o += n;
    CHECK(ntt_change_coset(d, o, x, shift, NULL, NULL, NULL) == G16_OK), o += n;
    CHECK(ntt_inverse_to_br(d, o, x, NULL, scale) == G16_OK), o += n;
    CHECK(ntt_forward_from_br(d, o, x, shift) == G16_OK), o += n;
    /* H overwrites its inputs: copies, and the result in the first. */
    for (int conv = H_POLY_SNARKJS; conv <= H_POLY_CLASSIC; conv++) {
        fr_t *b = test_fr_vec(n), *c = test_fr_vec(n);
        memcpy(o, x, n * sizeof *o);
        memcpy(b, y, n * sizeof *b);
        memcpy(c, z, n * sizeof *c);
        CHECK(h_poly_compute_in(d, o, o, b, c, (h_poly_convention)conv) == G16_OK);
        o += n;
        free(b), free(c);
    }
    /* In place, with the change of coset going the other way. */
    memcpy(o, x, n * sizeof *o);
    CHECK(ntt_change_coset(d, o, o, NULL, shift, NULL, NULL) == G16_OK);
}

static const char *const op_names[OPS] = {
    "forward", "inverse", "coset forward", "coset inverse", "change of coset",
    "inverse to br", "forward from br", "H snarkjs", "H classic", "change of coset in place"};

/* Runs everything on both paths and compares. */
static void compare(const ntt_domain *d, const fr_t *x, const fr_t *y, const fr_t *z,
                    const char *what, const char *plan)
{
    size_t n = ntt_domain_size(d);
    fr_t *want = test_fr_vec(OPS * n), *got = test_fr_vec(OPS * n), shift, scale;
    do
        test_random_fr(&shift);
    while (fr_is_zero(&shift));
    test_random_fr(&scale);
    cpu_set_ifma(false);
    run_all(want, d, x, y, z, &shift, &scale);
    cpu_set_ifma(true);
    run_all(got, d, x, y, z, &shift, &scale);
    for (size_t op = 0; op < OPS; op++) {
        size_t i = 0;
        while (i < n && memcmp(&got[op * n + i], &want[op * n + i], sizeof(fr_t)) == 0)
            i++;
        char msg[200];
        snprintf(msg, sizeof msg, "%s at 2^%u, %s inputs, plan %s: IFMA equals scalar (first "
                 "difference at %zu)", op_names[op], ntt_domain_log2n(d), what, plan, i);
        test_check(i == n, msg, __FILE__, __LINE__);
    }
    free(want), free(got);
}

/* Random inputs; edge values, each in every lane (runs of 8 of one value, so lane k of
 * vector g meets them all); one edge value throughout. */
static void compare_inputs(const ntt_domain *d, const char *plan, size_t round)
{
    size_t n = ntt_domain_size(d);
    fr_t *x = test_fr_vec(n), *y = test_fr_vec(n), *z = test_fr_vec(n), e[TEST_FR_EDGES];
    size_t ne = test_fr_edge_values(e);
    test_random_fr_vec(x, n);
    test_random_fr_vec(y, n);
    test_random_fr_vec(z, n);
    compare(d, x, y, z, "random", plan);
    for (size_t i = 0; i < n; i++) {
        x[i] = e[(i / 8 + i % 8 * round) % ne];
        y[i] = e[(i / 8 + 1) % ne];
        if (i % 3 == 0)
            test_random_fr(&z[i]);
        else
            z[i] = e[(i + round) % ne];
    }
    compare(d, x, y, z, "edge", plan);
    if (n <= 4096) {
        for (size_t i = 0; i < n; i++) {
            x[i] = e[round % ne];
            y[i] = e[(round + 3) % ne];
            z[i] = e[(round + 5) % ne];
        }
        compare(d, x, y, z, "constant edge", plan);
    }
    free(x), free(y), free(z);
}

/* {leaf_log, tile_log}; {0, 0} is the default plan. Leaves below 6 keep the scalar leaf
 * pass beside vector column passes; tiles of 1..12 stages, leaves up to 16. */
static const unsigned plans[][2] = {{0, 0}, {6, 1}, {6, 2}, {6, 3}, {7, 4}, {8, 5},
                                    {9, 9}, {6, 12}, {10, 7}, {16, 12}, {3, 3}, {5, 6}};
enum { NPLANS = sizeof plans / sizeof plans[0] };

/* Every plan at every size up to 2^12; above, each size takes a third of the plans in
 * turn (every plan still meets 2^13..2^16), which keeps the run near ten seconds. */
static void test_plans(void)
{
    for (unsigned L = 0; L <= MAX_LOG; L++)
        for (size_t p = 0; p < NPLANS; p++) {
            if (L > 12 && (p + L) % 3 != 0)
                continue;
            ntt_domain *d = NULL;
            g16_status st = plans[p][0]
                                ? ntt_domain_create_with_plan(&d, L, plans[p][0], plans[p][1])
                                : ntt_domain_create(&d, L);
            if (!CHECK(st == G16_OK))
                continue;
            char plan[32];
            snprintf(plan, sizeof plan, "%u/%u (%u passes)", plans[p][0], plans[p][1],
                     ntt_domain_passes(d));
            compare_inputs(d, plan, L + p);
            ntt_domain_free(d);
        }
}

/* Per-worker 52-bit blocks: other thread counts, where a pass has many items. */
static void test_threads(void)
{
    unsigned saved = parallel_threads();
    static const unsigned threads[] = {1, 3};
    for (size_t t = 0; t < 2; t++) {
        parallel_set_threads(threads[t]);
        for (unsigned L = 12; L <= MAX_LOG; L += 2) {
            ntt_domain *d = NULL;
            CHECK(ntt_domain_create_with_plan(&d, L, 7, 3) == G16_OK);
            char plan[32];
            snprintf(plan, sizeof plan, "7/3 on %u threads", threads[t]);
            compare_inputs(d, plan, L);
            ntt_domain_free(d);
        }
    }
    parallel_set_threads(saved);
}

int main(void)
{
    test_init("test_ntt_ifma");
    if (!cpu_ifma_available())
        test_skip("this CPU (or OS) has no AVX-512 IFMA: the 8-lane NTT is not tested");
    size_t reps = test_count(1);
    for (size_t r = 0; r < reps; r++) {
        test_plans();
        test_threads();
    }
    cpu_set_ifma(true);
    return test_finish();
}
