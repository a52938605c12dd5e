/* fr_x8.h: the 8-lane Fr core as functions over fr_t arrays. Compiled with
 * -mavx512f -mavx512ifma (CMakeLists.txt: files named *_ifma_x86.c). */
#include "field/fr_x8.h"
#include "field/fr_x8_impl.h"

/* v[k] = a[k] + ka[k] r in normalized limbs (< 2^261: scalar words, then 52-bit limbs). */
static void load_lazy(frx8 *v, const fr_t a[8], const unsigned ka[8])
{
    uint64_t limbs[5][8];
    for (int k = 0; k < 8; k++) {
        uint64_t w[5];
        unsigned __int128 acc = 0;
        for (int i = 0; i < 4; i++) {
            acc += (unsigned __int128)a[k].l[i] + (unsigned __int128)FR_MODULUS[i] * ka[k];
            w[i] = (uint64_t)acc;
            acc >>= 64;
        }
        w[4] = (uint64_t)acc;
        limbs[0][k] = w[0] & FRX8_M52;
        limbs[1][k] = (w[0] >> 52 | w[1] << 12) & FRX8_M52;
        limbs[2][k] = (w[1] >> 40 | w[2] << 24) & FRX8_M52;
        limbs[3][k] = (w[2] >> 28 | w[3] << 36) & FRX8_M52;
        limbs[4][k] = w[3] >> 16 | w[4] << 48;
    }
    for (int j = 0; j < 5; j++)
        v->l[j] = _mm512_loadu_si512(limbs[j]);
}

static void store_canonical(fr_t r[8], const frx8 *v)
{
    frx8 c;
    frx8_canonical(&c, v);
    frx8_store(r, &c);
}

void fr_mul_x8(fr_t r[8], const fr_t a[8], const fr_t b[8])
{
    frx8 x, y;
    frx8_load(&x, a);
    frx8_load(&y, b);
    frx8_mul(&x, &x, &y);
    store_canonical(r, &x);
}

/* ab < 1.46r (a, b < r), c < r: ab - c + 9r < 10.5r, canonical from there. */
void fr_mul_sub_x8_n(fr_t *h, const fr_t *a, const fr_t *b, const fr_t *c, size_t n)
{
    static const uint64_t K9[5] = FRX8_K9;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        frx8 x, y, z;
        frx8_load(&x, a + i);
        frx8_load(&y, b + i);
        frx8_load(&z, c + i);
        frx8_mul(&x, &x, &y);
        frx8_sub_raw(&x, &x, &z, K9);
        frx8_normalize(&x);
        store_canonical(h + i, &x);
    }
    for (; i < n; i++) {
        fr_t ab;
        fr_mul(&ab, &a[i], &b[i]);
        fr_sub(&h[i], &ab, &c[i]);
    }
}

void fr_mul_x8_lazy(fr_t r[8], const fr_t a[8], const unsigned ka[8], const fr_t b[8])
{
    frx8 x, y;
    load_lazy(&x, a, ka);
    frx8_load(&y, b);
    frx8_mul(&x, &x, &y);
    store_canonical(r, &x);
}

void fr_canonical_x8_lazy(fr_t r[8], const fr_t a[8], const unsigned ka[8])
{
    frx8 x;
    load_lazy(&x, a, ka);
    store_canonical(r, &x);
}

void fr_butterfly_x8(fr_t x0[8], fr_t x1[8], const fr_t t[8], const unsigned k0[8],
                     const unsigned k1[8], fr_x8_butterfly kind)
{
    frx8 a, b, w;
    load_lazy(&a, x0, k0);
    load_lazy(&b, x1, k1);
    frx8_load(&w, t);
    if (kind == FR_X8_DIF)
        frx8_dif(&a, &b, &w);
    else if (kind == FR_X8_DIT)
        frx8_dit(&a, &b, &w);
    else
        frx8_butterfly_one(&a, &b);
    store_canonical(x0, &a);
    store_canonical(x1, &b);
}
