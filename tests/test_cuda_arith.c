/* The GPU's field and point arithmetic (src/backend/cuda/field.cuh, curve.cuh) against the
 * CPU's, element by element, for equality.
 *
 *   test_cuda_arith            the same source compiled for the host (runs in CI: it
 *                              checks the algorithms, constants and carry handling)
 *   test_cuda_arith --device   on the GPU (skipped, exit 77, without one)
 *
 * Inputs: seeded random elements plus the edges (0, 1, -1, values near the modulus) and
 * for points P + P, P + (-P), infinity on either side. */
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp2.h"
#include "harness.h"

#ifdef G16_HAVE_CUDA
#include "backend/cuda/cuda_backend.h"

static cuda_ctx *ctx;
static bool on_device;

enum { OP_ADD, OP_SUB, OP_MUL, OP_SQR, OP_FROM_MONT, OP_INV };
static const char *op_names[] = {"add", "sub", "mul", "sqr", "from_montgomery", "inv"};

/* Fills a[i], b[i] with random elements, the first few with edge values. */
#define FIELD_INPUTS(F, a, b, n)                                                        \
    do {                                                                                \
        for (size_t i = 0; i < (n); i++) {                                              \
            test_random_##F(&(a)[i]);                                                   \
            test_random_##F(&(b)[i]);                                                   \
        }                                                                               \
        F##_zero(&(a)[0]);                                                          \
        F##_one(&(b)[1]);                                                           \
        F##_one(&(a)[2]);                                                           \
        F##_neg(&(a)[2], &(a)[2]);                                                      \
        (b)[2] = (a)[2];                                                                \
        F##_neg(&(a)[3], &(b)[3]);                                                      \
        F##_zero(&(b)[4]);                                                          \
        F##_zero(&(a)[5]);                                                          \
        F##_zero(&(b)[5]);                                                          \
    } while (0)

/* One prime field F (fr or fp, cuda_field_check's field id, LIMBS 64-bit limbs): every
 * op on the device (or its host build) against the CPU's. */
#define DEFINE_CHECK_FIELD(F, ID, LIMBS)                                                  \
    static void check_field_##F(size_t n)                                                \
    {                                                                                    \
        F##_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);                    \
        F##_t *got = malloc(n * sizeof *got);                                            \
        FIELD_INPUTS(F, a, b, n);                                                        \
        for (int op = OP_ADD; op <= OP_INV; op++) {                                      \
            memcpy(got, a, n * sizeof *a);                                               \
            if (!CHECK(cuda_field_check(ctx, ID, op, on_device, got, b, n) == G16_OK))    \
                continue;                                                                \
            size_t bad = 0;                                                              \
            for (size_t i = 0; i < n; i++) {                                             \
                F##_t want;                                                              \
                switch (op) {                                                            \
                case OP_ADD: F##_add(&want, &a[i], &b[i]); break;                        \
                case OP_SUB: F##_sub(&want, &a[i], &b[i]); break;                        \
                case OP_MUL: F##_mul(&want, &a[i], &b[i]); break;                        \
                case OP_SQR: F##_sqr(&want, &a[i]); break;                               \
                case OP_INV: F##_inv(&want, &a[i]); break;                               \
                default: {                                                               \
                    uint64_t limbs[LIMBS];                                               \
                    F##_to_limbs(limbs, &a[i]);                                          \
                    memcpy(&want, limbs, sizeof want);                                   \
                }                                                                        \
                }                                                                        \
                if (memcmp(&want, &got[i], sizeof want) && bad++ < 3)                    \
                    printf("  " #F " %s differs at %zu\n", op_names[op], i);             \
            }                                                                            \
            CHECK(bad == 0);                                                             \
        }                                                                                \
        free(a);                                                                         \
        free(b);                                                                         \
        free(got);                                                                       \
    }
DEFINE_CHECK_FIELD(fr, 0, 4)
DEFINE_CHECK_FIELD(fp, 1, 6)

/* Fp's loose products (field.cuh's loose_mul, the batch-affine walk's): (a b b)^2 with a
 * and b given p more where that stays below 8/7 p (cuda_field_check's op 6), the small
 * values among the inputs (0 and ~1/8 of the random ones) so raised. */
static void check_loose_fp(size_t n)
{
    fp_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *got = malloc(n * sizeof *got);
    FIELD_INPUTS(fp, a, b, n);
    memcpy(got, a, n * sizeof *a);
    if (CHECK(cuda_field_check(ctx, 1, 6, on_device, got, b, n) == G16_OK)) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            fp_t want;
            fp_mul(&want, &a[i], &b[i]);
            fp_mul(&want, &want, &b[i]);
            fp_sqr(&want, &want);
            if (memcmp(&want, &got[i], sizeof want) && bad++ < 3)
                printf("  fp loose products differ at %zu\n", i);
        }
        CHECK(bad == 0);
    }
    /* Not for the other fields (Fr's p is above R / 8). */
    CHECK(cuda_field_check(ctx, 0, 6, on_device, got, b, 1) == G16_ERR_INVALID_ARGUMENT);
    free(a);
    free(b);
    free(got);
}

static void random_fp2(fp2_t *r)
{
    test_random_fp(&r->c0);
    test_random_fp(&r->c1);
}

static void check_field_fp2(size_t n)
{
    fp2_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *got = malloc(n * sizeof *got);
    for (size_t i = 0; i < n; i++) {
        random_fp2(&a[i]);
        random_fp2(&b[i]);
    }
    fp2_zero(&a[0]);
    fp2_one(&b[1]);
    fp2_neg(&a[2], &b[2]);
    /* Coefficients whose Montgomery limbs are p - 1 (the largest value an element's limbs
     * hold) on either side, zero beside them: Karatsuba's sums and differences at their
     * extremes. */
    fp_t top;
    memcpy(&top, FP_MODULUS, sizeof top);
    top.l[0] -= 1;
    fp_t zero;
    fp_zero(&zero);
    if (n > 8) {
        a[3] = (fp2_t){top, top};
        b[3] = (fp2_t){top, top};
        a[4] = (fp2_t){zero, top};
        b[4] = (fp2_t){zero, top};
        a[5] = (fp2_t){top, zero};
        b[5] = (fp2_t){zero, top};
        a[6] = (fp2_t){zero, top};
        b[6] = (fp2_t){top, top};
        a[7] = (fp2_t){top, top};
        b[7] = (fp2_t){top, zero};
    }
    for (int op = OP_ADD; op <= OP_INV; op++) {
        if (op == OP_FROM_MONT)
            continue;
        memcpy(got, a, n * sizeof *a);
        if (!CHECK(cuda_field_check(ctx, 2, op, on_device, got, b, n) == G16_OK))
            continue;
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            fp2_t want;
            switch (op) {
            case OP_ADD: fp2_add(&want, &a[i], &b[i]); break;
            case OP_SUB: fp2_sub(&want, &a[i], &b[i]); break;
            case OP_MUL: fp2_mul(&want, &a[i], &b[i]); break;
            case OP_INV: fp2_inv(&want, &a[i]); break;
            default: fp2_sqr(&want, &a[i]); break;
            }
            if (memcmp(&want, &got[i], sizeof want) && bad++ < 3)
                printf("  fp2 %s differs at %zu\n", op_names[op], i);
        }
        CHECK(bad == 0);
    }
    free(a);
    free(b);
    free(got);
}

/* Points: random [k]G pairs with P + P, P + (-P) and infinities planted; the device's
 * XYZZ result converted by the CPU and compared as a point. */
#define CHECK_POINTS(G, group, n)                                                         \
    do {                                                                                  \
        G##_affine_t *pa = malloc((n) * sizeof *pa), *pb = malloc((n) * sizeof *pb);      \
        G##_xyzz_t *out = malloc((n) * sizeof *out);                                      \
        G##_jac_t g, t;                                                                   \
        G##_generator(&g);                                                                \
        for (size_t i = 0; i < (n); i++) {                                                \
            fr_t k;                                                                       \
            test_random_fr(&k);                                                           \
            G##_mul_vartime(&t, &g, &k);                                                  \
            G##_to_affine(&pa[i], &t);                                                    \
            test_random_fr(&k);                                                           \
            G##_mul_vartime(&t, &g, &k);                                                  \
            G##_to_affine(&pb[i], &t);                                                    \
        }                                                                                 \
        pb[0] = pa[0];                           /* doubling through addition */          \
        G##_affine_neg(&pb[1], &pa[1]);          /* P + (-P) = infinity */                \
        G##_affine_set_infinity(&pa[2]);                                                  \
        G##_affine_set_infinity(&pb[3]);                                                  \
        G##_affine_set_infinity(&pa[4]);                                                  \
        G##_affine_set_infinity(&pb[4]);                                                  \
        for (int op = 0; op <= 3; op++) {                                                 \
            memset(out, 0x5a, (n) * sizeof *out);                                         \
            if (!CHECK(cuda_point_check(ctx, group, op, on_device, out, pa, pb, (n)) ==  \
                       G16_OK))                                                           \
                continue;                                                                 \
            size_t bad = 0;                                                               \
            for (size_t i = 0; i < (n); i++) {                                            \
                G##_jac_t want, got, ja, jb;                                              \
                G##_from_affine(&ja, &pa[i]);                                             \
                G##_from_affine(&jb, &pb[i]);                                             \
                if (op == 2)                                                              \
                    G##_dbl(&want, &ja);                                                  \
                else                                                                      \
                    G##_add(&want, &ja, &jb);                                             \
                G##_xyzz_to_jac(&got, &out[i]);                                           \
                if (!G##_equal(&got, &want) && bad++ < 3)                                 \
                    printf("  %s op %d differs at %zu\n", #G, op, i);                     \
            }                                                                             \
            CHECK(bad == 0);                                                              \
        }                                                                                 \
        free(pa);                                                                         \
        free(pb);                                                                         \
        free(out);                                                                        \
    } while (0)

int main(int argc, char **argv)
{
    test_init("test_cuda_arith");
    on_device = argc > 1 && !strcmp(argv[1], "--device");
    if (on_device) {
        g16_status st = cuda_ctx_create(&ctx, 0);
        if (st == G16_ERR_UNSUPPORTED)
            test_skip(g16_last_error());
        if (!CHECK(st == G16_OK))
            return test_finish();
        printf("device: %s\n", cuda_ctx_describe(ctx));
    } else {
        printf("host build of the device arithmetic\n");
    }
    size_t n = on_device ? test_count(1 << 16) : test_count(2000);
    check_field_fr(n);
    check_field_fp(n);
    check_loose_fp(n);
    check_field_fp2(n);
    size_t np = on_device ? test_count(4096) : test_count(200);
    CHECK_POINTS(g1, 1, np);
    CHECK_POINTS(g2, 2, np);
    cuda_ctx_free(ctx);
    return test_finish();
}

#else

int main(void)
{
    test_init("test_cuda_arith");
    test_skip("this build has no CUDA backend");
}

#endif
