/* Implementation of field_api.h for one prime field (a C "template").
 *
 * Before including, define:
 *   FIELD         prefix (fp, fr)          FIELD_LIMBS  limb count
 *   FIELD_MOD     modulus limbs            FIELD_MINV   -modulus^-1 mod 2^64
 *   FIELD_R2      2^(128*FIELD_LIMBS) mod m (to enter Montgomery form)
 *   FIELD_ONE     2^(64*FIELD_LIMBS) mod m (1 in Montgomery form)
 * and optionally FIELD_MUL_ASM / FIELD_SQR_ASM: functions (r, a, b) / (r, a) on limb
 * arrays used when the CPU supports them (cpu.h decides, tests can switch them off).
 */
#include <string.h>

#include "mont.h"
#include "cpu.h"
#include "inv_vartime.h"

#define FIELD_CAT2(a, b) a##_##b
#define FIELD_CAT(a, b) FIELD_CAT2(a, b)
#define FN(name) FIELD_CAT(FIELD, name)
#define T FIELD_CAT(FIELD, t)
#define N FIELD_LIMBS

void FN(zero)(T *r) { memset(r, 0, sizeof *r); }

void FN(one)(T *r) { memcpy(r->l, FIELD_ONE, sizeof r->l); }

bool FN(is_zero)(const T *a) { return mont_is_zero(a->l, N); }

bool FN(equal)(const T *a, const T *b)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < N; i++)
        acc |= a->l[i] ^ b->l[i];
    return acc == 0;
}

bool FN(is_one)(const T *a)
{
    T one;
    FN(one)(&one);
    return FN(equal)(a, &one);
}

void FN(add)(T *r, const T *a, const T *b) { mont_add(r->l, a->l, b->l, FIELD_MOD, N); }

void FN(sub)(T *r, const T *a, const T *b) { mont_sub(r->l, a->l, b->l, FIELD_MOD, N); }

void FN(dbl)(T *r, const T *a) { mont_add(r->l, a->l, a->l, FIELD_MOD, N); }

void FN(neg)(T *r, const T *a) { mont_neg(r->l, a->l, FIELD_MOD, N); }

void FN(mul_portable)(T *r, const T *a, const T *b)
{
    mont_mul(r->l, a->l, b->l, FIELD_MOD, FIELD_MINV, N);
}

void FN(mul)(T *r, const T *a, const T *b)
{
#ifdef FIELD_MUL_ASM
    if (cpu_use_asm) {
        FIELD_MUL_ASM(r->l, a->l, b->l);
        return;
    }
#endif
    mont_mul(r->l, a->l, b->l, FIELD_MOD, FIELD_MINV, N);
}

void FN(sqr)(T *r, const T *a)
{
#ifdef FIELD_SQR_ASM
    if (cpu_use_asm) {
        FIELD_SQR_ASM(r->l, a->l);
        return;
    }
#endif
    FN(mul)(r, a, a);
}

void FN(from_u64)(T *r, uint64_t v)
{
    uint64_t w[N] = {v};
    mont_mul(r->l, w, FIELD_R2, FIELD_MOD, FIELD_MINV, N);
}

bool FN(from_limbs)(T *r, const uint64_t v[N])
{
    if (!mont_is_canonical(v, FIELD_MOD, N)) {
        FN(zero)(r);
        return false;
    }
    mont_mul(r->l, v, FIELD_R2, FIELD_MOD, FIELD_MINV, N);
    return true;
}

void FN(to_limbs)(uint64_t v[N], const T *a)
{
    static const uint64_t one[N] = {1};
    mont_mul(v, a->l, one, FIELD_MOD, FIELD_MINV, N);
}

void FN(pow)(T *r, const T *a, const uint64_t *e, size_t e_limbs)
{
    T acc, base = *a;
    FN(one)(&acc);
    for (size_t i = e_limbs; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            FN(sqr)(&acc, &acc);
            if ((e[i] >> bit) & 1)
                FN(mul)(&acc, &acc, &base);
        }
    *r = acc;
}

bool FN(inv)(T *r, const T *a)
{
    /* Fermat: a^(m-2). Constant time; batch_inv amortises it where speed matters. */
    uint64_t e[N];
    memcpy(e, FIELD_MOD, sizeof e);
    e[0] -= 2; /* m is odd and > 2, so no borrow. */
    bool ok = !FN(is_zero)(a);
    FN(pow)(r, a, e, N);
    return ok;
}

bool FN(inv_vartime)(T *r, const T *a)
{
    /* a is stored as aR, so R^2 / (aR) = a^-1 R is the Montgomery form of 1/a: one
     * division, no conversion. */
    if (FN(is_zero)(a)) {
        FN(zero)(r);
        return false;
    }
    if (mod_div_vartime(r->l, FIELD_R2, a->l, FIELD_MOD, N))
        return true;
    return FN(inv)(r, a); /* the divstep cap was hit (inv_vartime.c): never seen */
}

/* batch_inv with the inversion `inverse`. */
static void batch_inv_by(T *r, const T *a, size_t n, bool (*inverse)(T *, const T *))
{
    if (n == 0)
        return;
    /* r[i] = product of the non-zero a[0..i]. */
    T acc;
    FN(one)(&acc);
    for (size_t i = 0; i < n; i++) {
        r[i] = acc;
        if (!FN(is_zero)(&a[i]))
            FN(mul)(&acc, &acc, &a[i]);
    }
    inverse(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FN(is_zero)(&a[i]))
            continue; /* r[i] already holds a prefix product; zero it below. */
        T t;
        FN(mul)(&t, &acc, &r[i]);
        FN(mul)(&acc, &acc, &a[i]);
        r[i] = t;
    }
    for (size_t i = 0; i < n; i++)
        if (FN(is_zero)(&a[i]))
            FN(zero)(&r[i]);
}

void FN(batch_inv)(T *r, const T *a, size_t n) { batch_inv_by(r, a, n, FN(inv)); }

void FN(batch_inv_vartime)(T *r, const T *a, size_t n)
{
    batch_inv_by(r, a, n, FN(inv_vartime));
}

void FN(cmov)(T *r, const T *a, bool flag)
{
    uint64_t mask = (uint64_t)0 - (uint64_t)flag;
    for (size_t i = 0; i < N; i++)
        r->l[i] ^= (r->l[i] ^ a->l[i]) & mask;
}

bool FN(from_bytes_le)(T *r, const uint8_t *in)
{
    uint64_t v[N];
    mont_limbs_from_le(v, in, N);
    return FN(from_limbs)(r, v);
}

bool FN(from_bytes_be)(T *r, const uint8_t *in)
{
    uint8_t le[8 * N];
    for (size_t i = 0; i < 8 * N; i++)
        le[i] = in[8 * N - 1 - i];
    return FN(from_bytes_le)(r, le);
}

void FN(to_bytes_le)(uint8_t *out, const T *a)
{
    uint64_t v[N];
    FN(to_limbs)(v, a);
    mont_limbs_to_le(out, v, N);
}

void FN(to_bytes_be)(uint8_t *out, const T *a)
{
    uint8_t le[8 * N];
    FN(to_bytes_le)(le, a);
    for (size_t i = 0; i < 8 * N; i++)
        out[i] = le[8 * N - 1 - i];
}

bool FN(from_mont_bytes_le)(T *r, const uint8_t *in)
{
    uint64_t v[N];
    mont_limbs_from_le(v, in, N);
    if (!mont_is_canonical(v, FIELD_MOD, N)) {
        FN(zero)(r);
        return false;
    }
    memcpy(r->l, v, sizeof v);
    return true;
}

void FN(to_mont_bytes_le)(uint8_t *out, const T *a) { mont_limbs_to_le(out, a->l, N); }

#undef N
#undef T
#undef FN
#undef FIELD_CAT
#undef FIELD_CAT2
