/* Implementation of fixed_base.h for one group (a C "template"): define POINT (g1, g2)
 * before including; fixed_base.c includes it once per group. */
#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"
#include "util/status.h"

#define FB_CAT2(a, b) a##_##b
#define FB_CAT(a, b) FB_CAT2(a, b)
#define FN(name) FB_CAT(POINT, name)
#define AFF FB_CAT(POINT, affine_t)
#define JAC FB_CAT(POINT, jac_t)
#define FB FB_CAT(POINT, fixed_base)

/* Scalars are 255-bit integers. */
#define FB_SCALAR_BITS 255

g16_status FN(fixed_base_init)(FB *fb, const JAC *base, unsigned window_bits)
{
    memset(fb, 0, sizeof *fb);
    if (window_bits < 1 || window_bits > 16)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "fixed-base window of %u bits", window_bits);
    size_t per = ((size_t)1 << window_bits) - 1;
    unsigned windows = (FB_SCALAR_BITS + window_bits - 1) / window_bits;
    size_t total = per * windows;
    JAC *jac = malloc(total * sizeof *jac);
    fb->table = malloc(total * sizeof *fb->table);
    if (!jac || !fb->table) {
        free(jac);
        free(fb->table);
        fb->table = NULL;
        return status_fail(G16_ERR_OUT_OF_MEMORY, "fixed-base table of %zu points", total);
    }
    /* Row i: j * B_i for j = 1..per, with B_i = 2^(w*i) * base. */
    JAC row_base = *base;
    for (unsigned i = 0; i < windows; i++) {
        JAC *row = jac + (size_t)i * per;
        row[0] = row_base;
        for (size_t j = 1; j < per; j++)
            FN(add)(&row[j], &row[j - 1], &row_base);
        for (unsigned d = 0; d < window_bits; d++)
            FN(dbl)(&row_base, &row_base);
    }
    FN(batch_to_affine)(fb->table, jac, total);
    free(jac);
    fb->window_bits = window_bits;
    fb->windows = windows;
    return G16_OK;
}

void FN(fixed_base_free)(FB *fb)
{
    free(fb->table);
    memset(fb, 0, sizeof *fb);
}

void FN(fixed_base_mul)(JAC *r, const FB *fb, const fr_t *k)
{
    uint64_t limbs[4];
    fr_to_limbs(limbs, k);
    size_t per = ((size_t)1 << fb->window_bits) - 1;
    FN(set_infinity)(r);
    for (unsigned i = 0; i < fb->windows; i++) {
        unsigned bit = i * fb->window_bits, word = bit / 64, shift = bit % 64;
        uint64_t digit = limbs[word] >> shift;
        if (shift + fb->window_bits > 64 && word + 1 < 4)
            digit |= limbs[word + 1] << (64 - shift);
        digit &= ((uint64_t)1 << fb->window_bits) - 1;
        if (digit)
            FN(add_mixed)(r, r, &fb->table[(size_t)i * per + digit - 1]);
    }
}

typedef struct {
    AFF *out;
    const FB *fb;
    const fr_t *k;
    JAC *scratch; /* one block per chunk, converted to affine together */
    size_t block;
} FB_CAT(POINT, fb_batch_ctx);

static void FB_CAT(POINT, fb_batch_body)(void *p, size_t begin, size_t end, unsigned worker)
{
    FB_CAT(POINT, fb_batch_ctx) *c = p;
    JAC *tmp = c->scratch + (size_t)worker * c->block;
    /* Work in blocks so the batch inversion amortises over many points while the
     * Jacobian scratch stays small and per-thread. */
    for (size_t s = begin; s < end; s += c->block) {
        size_t m = end - s < c->block ? end - s : c->block;
        for (size_t i = 0; i < m; i++)
            FN(fixed_base_mul)(&tmp[i], c->fb, &c->k[s + i]);
        FN(batch_to_affine)(c->out + s, tmp, m);
    }
}

g16_status FN(fixed_base_batch)(AFF *out, const FB *fb, const fr_t *k, size_t n)
{
    FB_CAT(POINT, fb_batch_ctx) c = {.out = out, .fb = fb, .k = k, .block = 1024};
    unsigned threads = parallel_threads();
    c.scratch = malloc((size_t)threads * c.block * sizeof *c.scratch);
    if (!c.scratch)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "fixed-base scratch for %u threads", threads);
    parallel_for(n, c.block, FB_CAT(POINT, fb_batch_body), &c);
    free(c.scratch);
    return G16_OK;
}

#undef FB_SCALAR_BITS
#undef FB
#undef JAC
#undef AFF
#undef FN
#undef FB_CAT
#undef FB_CAT2
