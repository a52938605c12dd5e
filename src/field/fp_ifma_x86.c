/* fp_x8.h: the 8-lane products as functions over fp_t arrays. Compiled with
 * -mavx512f -mavx512ifma (CMakeLists.txt: files named *_ifma_x86.c). */
#include "field/fp_x8.h"
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

void fp_batch_inv_x8(fp_t *a, size_t m, void *scratch)
{
    static const uint64_t P[8] = FPX8_P;
    if (m == 0)
        return;
    fpx8 *pre = scratch, inv, d, r;
    fpx8_batch_inv_begin(&inv, pre, a, m);
    fp_t one;
    fp_one(&one);
    fp_t *dst[8];
    for (size_t g = (m + 7) / 8; g-- > 0;) {
        size_t n = m - 8 * g < 8 ? m - 8 * g : 8;
        for (size_t k = 0; k < 8; k++)
            dst[k] = &a[8 * g + (k < n ? k : 0)];
        fpx8_load_group(&d, a, g, m, &one);
        fpx8_mul(&r, &inv, &pre[g]);
        fpx8_mul(&inv, &inv, &d);
        fpx8_cond_sub(&r, &r, P);
        fpx8_store(dst, (unsigned)n, &r);
    }
}
