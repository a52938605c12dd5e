/* fp_x8.h: the 8-lane products as functions over fp_t arrays. Compiled with
 * -mavx512f -mavx512ifma (CMakeLists.txt: files named *_ifma_x86.c). */
#include "field/fp_x8.h"
#include "field/fp2_x8_impl.h"
#include "field/fp_x8_impl.h"

static void mul_group(fp_t *r, const fp_t *a, const fp_t *b, unsigned n)
{
    static const fp_t zero;
    const fp_t *pa[8], *pb[8];
    fp_t *pr[8];
    for (unsigned k = 0; k < 8; k++) {
        pa[k] = k < n ? &a[k] : &zero;
        pb[k] = k < n ? &b[k] : &zero;
        pr[k] = &r[k < n ? k : 0];
    }
    fpx8 x, y;
    fpx8_load(&x, pa);
    fpx8_load(&y, pb);
    fpx8_mul(&x, &x, &y);
    fpx8_canonical(&x, &x);
    fpx8_store(pr, n, &x);
}

void fp_mul_x8(fp_t r[8], const fp_t a[8], const fp_t b[8]) { mul_group(r, a, b, 8); }

void fp_sqr_x8(fp_t r[8], const fp_t a[8])
{
    static const uint64_t P[8] = FPX8_P;
    const fp_t *pa[8];
    fp_t *pr[8];
    for (unsigned k = 0; k < 8; k++) {
        pa[k] = &a[k];
        pr[k] = &r[k];
    }
    fpx8 x;
    fpx8_load(&x, pa);
    fpx8_sqr(&x, &x);
    fpx8_cond_sub(&x, &x, P);
    fpx8_store(pr, 8, &x);
}

void fp_mul_x8_n(fp_t *r, const fp_t *a, const fp_t *b, size_t n)
{
    for (size_t i = 0; i < n; i += 8)
        mul_group(r + i, a + i, b + i, n - i < 8 ? (unsigned)(n - i) : 8);
}

/* Eight Fp2 products or squares, canonical, from arrays. */
static void fp2_group(fp2_t r[8], const fp2_t a[8], const fp2_t *b)
{
    const fp2_t *pa[8], *pb[8];
    fp2_t *pr[8];
    for (unsigned k = 0; k < 8; k++) {
        pa[k] = &a[k];
        pb[k] = b ? &b[k] : &a[k];
        pr[k] = &r[k];
    }
    fp2x8 x, y;
    fp2x8_load(&x, pa);
    if (b) {
        fp2x8_load(&y, pb);
        fp2x8_mul(&x, &x, &y);
    } else {
        fp2x8_sqr(&x, &x);
        fpx8_canonical(&x.c0, &x.c0);
        fpx8_canonical(&x.c1, &x.c1);
    }
    fp2x8_store(pr, 8, &x);
}

void fp2_mul_x8(fp2_t r[8], const fp2_t a[8], const fp2_t b[8]) { fp2_group(r, a, b); }

void fp2_sqr_x8(fp2_t r[8], const fp2_t a[8]) { fp2_group(r, a, NULL); }

/* The batch inversions: the forward half, then the walk back storing each group's
 * inverses (read before they are overwritten), reduced by REDUCE to canonical. */
#define BATCH_INV_X8(name, FE, X8, REDUCE)                                                  \
    void name(FE *a, size_t m, void *scratch)                                              \
    {                                                                                      \
        X8##_batch_inv st;                                                                 \
        if (m == 0)                                                                        \
            return;                                                                        \
        X8##_batch_inv_begin(&st, scratch, a, m);                                          \
        FE *dst[8];                                                                        \
        for (size_t g = (m + 7) / 8; g-- > 0;) {                                           \
            size_t n = m - 8 * g < 8 ? m - 8 * g : 8;                                      \
            for (size_t k = 0; k < 8; k++)                                                 \
                dst[k] = &a[8 * g + (k < n ? k : 0)];                                      \
            X8 r;                                                                          \
            X8##_batch_inv_next(&r, &st, a, g, m);                                         \
            REDUCE(&r);                                                                    \
            X8##_store(dst, (unsigned)n, &r);                                              \
        }                                                                                  \
    }

/* 1 / den < 1.41p (fpx8_batch_inv). */
static inline void reduce_fp(fpx8 *r)
{
    static const uint64_t P[8] = FPX8_P;
    fpx8_cond_sub(r, r, P);
}

/* c0 < 1.15p; c1 = 2p - (a lazy d1 / N) may be 2p itself when d1 = 0. */
static inline void reduce_fp2(fp2x8 *r)
{
    static const uint64_t P[8] = FPX8_P;
    fpx8_cond_sub(&r->c0, &r->c0, P);
    fpx8_canonical(&r->c1, &r->c1);
}

BATCH_INV_X8(fp_batch_inv_x8, fp_t, fpx8, reduce_fp)
BATCH_INV_X8(fp2_batch_inv_x8, fp2_t, fp2x8, reduce_fp2)
