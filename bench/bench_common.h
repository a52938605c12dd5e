/* Inputs shared by the MSM benchmarks (bench_msm, bench_gpu_msm): a fast repeatable RNG,
 * scalars (dense, or the 55% zero / 30% one / 15% random witness mix) and many distinct
 * subgroup points made cheaply (chains of mixed additions of random multiples of the
 * generator, normalised to affine in batches, on the thread pool). Included once per
 * benchmark program. */
#ifndef G16_BENCH_COMMON_H
#define G16_BENCH_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "util/parallel.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* splitmix64: the bench needs speed and repeatability, not quality. */
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform below r by rejection over 255-bit values. */
static void random_scalar(uint8_t out[32])
{
    for (;;) {
        uint64_t v[4] = {rnd(), rnd(), rnd(), rnd() >> 1};
        int i = 3;
        while (i > 0 && v[i] == FR_MODULUS[i])
            i--;
        if (v[i] < FR_MODULUS[i]) {
            memcpy(out, v, 32);
            return;
        }
    }
}

static uint8_t *make_scalars(size_t n, bool mix)
{
    uint8_t *s = calloc(n, 32);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = rnd() % 100;
        if (!mix || u >= 85)
            random_scalar(s + 32 * i);
        else if (u >= 55)
            s[32 * i] = 1;
    }
    return s;
}

/* Bases: per chunk of BASE_CHUNK, a random multiple of G followed by steps of eight
 * random points (one addition each), normalised with one inversion; chunks in parallel.
 * Seconds for 2^20 points instead of minutes of scalar multiplications. */
enum { BASE_CHUNK = 4096, STEPS = 8 };

#define BENCH_GROUP(G, AFF, JAC)                                                            \
    typedef struct {                                                                        \
        AFF *out;                                                                           \
        size_t n;                                                                           \
        JAC start[1024];                                                                    \
        AFF step[STEPS];                                                                    \
    } G##_gen_ctx;                                                                          \
                                                                                            \
    static void G##_gen_body(void *p, size_t begin, size_t end, unsigned worker)            \
    {                                                                                       \
        G##_gen_ctx *c = p;                                                                 \
        JAC *tmp = malloc(BASE_CHUNK * sizeof *tmp);                                        \
        for (size_t ch = begin; ch < end; ch++) {                                           \
            size_t lo = ch * BASE_CHUNK, hi = lo + BASE_CHUNK < c->n ? lo + BASE_CHUNK : c->n; \
            JAC acc = c->start[ch % 1024];                                                  \
            for (size_t i = lo; i < hi; i++) {                                              \
                G##_add_mixed(&acc, &acc, &c->step[(i * 7 + ch) % STEPS]);                  \
                tmp[i - lo] = acc;                                                          \
            }                                                                               \
            G##_batch_to_affine(c->out + lo, tmp, hi - lo);                                 \
        }                                                                                   \
        free(tmp);                                                                          \
    }                                                                                       \
                                                                                            \
    static uint8_t *G##_make_bases(size_t n)                                                \
    {                                                                                       \
        G##_gen_ctx *c = malloc(sizeof *c);                                                 \
        c->out = malloc(n * sizeof(AFF));                                                   \
        c->n = n;                                                                           \
        JAC g, t;                                                                           \
        G##_generator(&g);                                                                  \
        size_t chunks = (n + BASE_CHUNK - 1) / BASE_CHUNK;                                  \
        size_t starts = chunks < 1024 ? chunks : 1024;                                      \
        for (size_t i = 0; i < starts + STEPS; i++) {                                       \
            uint64_t k[4] = {rnd(), rnd(), rnd(), rnd() >> 2};                              \
            G##_mul_vartime_limbs(i < starts ? &c->start[i] : &t, &g, k, 4);                \
            if (i >= starts)                                                                \
                G##_to_affine(&c->step[i - starts], &t);                                    \
        }                                                                                   \
        parallel_for(chunks, 1, G##_gen_body, c);                                           \
        uint8_t *out = (uint8_t *)c->out;                                                   \
        free(c);                                                                            \
        return out;                                                                         \
    }

BENCH_GROUP(g1, g1_affine_t, g1_jac_t)
BENCH_GROUP(g2, g2_affine_t, g2_jac_t)

#endif
