#include "density.h"

#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"

enum { ELEMENT_BYTES = 32, CHUNK_WORDS = 4096 /* 2^18 wires per parallel chunk */ };

size_t density_count(const uint64_t *bits, size_t begin, size_t end)
{
    size_t c = 0;
    while (begin < end && begin % 64) {
        c += density_has(bits, begin);
        begin++;
    }
    for (; begin + 64 <= end; begin += 64)
        c += (size_t)__builtin_popcountll(bits[begin / 64]);
    for (; begin < end; begin++)
        c += density_has(bits, begin);
    return c;
}

bool density_tail_clear(const uint64_t *bits, size_t n_wires)
{
    if (n_wires % 64 == 0)
        return true;
    return (bits[n_wires / 64] >> (n_wires % 64)) == 0;
}

typedef struct {
    uint8_t *out;
    const uint8_t *in;
    const uint64_t *bits;
    size_t n_wires;
    size_t *offset; /* [chunks]: elements before chunk c */
} gather_ctx;

static void chunk_range(const gather_ctx *g, size_t c, size_t *begin, size_t *end)
{
    *begin = c * CHUNK_WORDS * 64;
    *end = *begin + CHUNK_WORDS * 64 < g->n_wires ? *begin + CHUNK_WORDS * 64 : g->n_wires;
}

static void count_body(void *p, size_t begin, size_t end, unsigned worker)
{
    gather_ctx *g = p;
    for (size_t c = begin; c < end; c++) {
        size_t b, e;
        chunk_range(g, c, &b, &e);
        g->offset[c] = density_count(g->bits, b, e);
    }
}

static void copy_range(uint8_t *out, const uint8_t *in, const uint64_t *bits, size_t begin,
                       size_t end)
{
    for (size_t w = begin; w < end; w++)
        if (density_has(bits, w)) {
            memcpy(out, in + w * ELEMENT_BYTES, ELEMENT_BYTES);
            out += ELEMENT_BYTES;
        }
}

static void copy_body(void *p, size_t begin, size_t end, unsigned worker)
{
    gather_ctx *g = p;
    for (size_t c = begin; c < end; c++) {
        size_t b, e;
        chunk_range(g, c, &b, &e);
        copy_range(g->out + g->offset[c] * ELEMENT_BYTES, g->in, g->bits, b, e);
    }
}

void density_gather(void *out, const void *in, const uint64_t *bits, size_t n_wires)
{
    size_t chunks = (n_wires + CHUNK_WORDS * 64 - 1) / (CHUNK_WORDS * 64);
    gather_ctx g = {.out = out, .in = in, .bits = bits, .n_wires = n_wires};
    g.offset = chunks > 1 ? malloc(chunks * sizeof *g.offset) : NULL;
    if (!g.offset) {
        /* One chunk, or no memory for the offsets: one pass on this thread. */
        copy_range(out, in, bits, 0, n_wires);
        return;
    }
    parallel_for(chunks, 1, count_body, &g);
    size_t sum = 0;
    for (size_t c = 0; c < chunks; c++) {
        size_t n = g.offset[c];
        g.offset[c] = sum;
        sum += n;
    }
    parallel_for(chunks, 1, copy_body, &g);
    free(g.offset);
}
