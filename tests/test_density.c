/* Density bitmaps (groth16/density.h): counts over any range and the parallel gather
 * against plain loops, at sizes around word and chunk boundaries (a chunk of the gather is
 * 2^18 wires), with sparse, dense, empty and full bitmaps. */
#include <stdlib.h>
#include <string.h>

#include "groth16/density.h"
#include "harness.h"
#include "util/parallel.h"

static size_t naive_count(const uint64_t *bits, size_t begin, size_t end)
{
    size_t c = 0;
    for (size_t j = begin; j < end; j++)
        c += (bits[j / 64] >> (j % 64)) & 1;
    return c;
}

/* Bit j set with probability per_256 / 256. */
static void random_bits(uint64_t *bits, size_t n_wires, unsigned per_256)
{
    memset(bits, 0, density_words(n_wires) * 8);
    for (size_t j = 0; j < n_wires; j++)
        if ((test_rand64() & 255) < per_256)
            density_set(bits, j);
}

static void test_size(size_t n_wires, unsigned per_256)
{
    size_t words = density_words(n_wires);
    uint64_t *bits = calloc(words + 1, 8);
    random_bits(bits, n_wires, per_256);
    CHECK(density_tail_clear(bits, n_wires));
    size_t total = density_count(bits, 0, n_wires);
    CHECK(total == naive_count(bits, 0, n_wires));
    for (int i = 0; i < 20 && n_wires; i++) {
        size_t a = test_rand64() % n_wires, b = test_rand64() % (n_wires + 1);
        if (a > b) {
            size_t t = a;
            a = b;
            b = t;
        }
        CHECK(density_count(bits, a, b) == naive_count(bits, a, b));
    }

    uint8_t *in = malloc(n_wires * 32 + 1), *out = malloc(total * 32 + 1);
    uint8_t *want = malloc(total * 32 + 1);
    for (size_t j = 0; j < n_wires; j++)
        for (int x = 0; x < 32; x += 8) {
            uint64_t v = j * 4 + (uint64_t)x;
            memcpy(in + j * 32 + x, &v, 8);
        }
    for (size_t j = 0, o = 0; j < n_wires; j++)
        if (density_has(bits, j))
            memcpy(want + 32 * o++, in + 32 * j, 32);
    density_gather(out, in, bits, n_wires);
    if (!CHECK(total == 0 || memcmp(out, want, total * 32) == 0))
        fprintf(stderr, "  gather of %zu wires (%u/256 marked) differs\n", n_wires, per_256);

    if (n_wires % 64) {
        bits[words - 1] |= (uint64_t)1 << 63;
        CHECK(!density_tail_clear(bits, n_wires));
    }
    free(bits);
    free(in);
    free(out);
    free(want);
}

int main(void)
{
    test_init("test_density");
    static const size_t sizes[] = {0, 1, 63, 64, 65, 1000, (1u << 18) - 1, (1u << 18) + 5,
                                   3 * (1u << 18) + 77};
    static const unsigned shares[] = {0, 3, 64, 200, 256};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t k = 0; k < sizeof shares / sizeof shares[0]; k++)
            test_size(sizes[i], shares[k]);
    unsigned threads = parallel_threads();
    parallel_set_threads(1);
    test_size(3 * (1u << 18) + 77, 64);
    parallel_set_threads(threads);
    return test_finish();
}
