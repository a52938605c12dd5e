/* util/big_alloc: both paths (malloc below a megabyte, a mapping of its own above, fresh
 * or a freed one reused or grown) give 64-byte aligned buffers of at least the size asked,
 * writable to the last byte;
 * big_calloc's are zero on both paths; sizes that overflow are refused. Under ASan the
 * malloc path's overruns would show; the mapping path is checked by writing every byte. */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "util/big_alloc.h"

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

int main(void)
{
    test_init("big_alloc");
    const size_t sizes[] = {0, 1, 63, 64, 4096, ((size_t)1 << 20) - 65, (size_t)1 << 20,
                            ((size_t)2 << 20) - 64, (size_t)2 << 20, ((size_t)5 << 20) + 3};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        uint8_t *p = big_alloc(n);
        CHECK(p != NULL);
        if (!p)
            continue;
        CHECK((uintptr_t)p % 64 == 0);
        uint8_t v = (uint8_t)test_rand64();
        memset(p, v, n);
        CHECK(n == 0 || (p[0] == v && p[n - 1] == v));
        big_free(p);

        /* Zeroed, also when the allocator hands back memory that was just dirtied. */
        uint8_t *dirty = big_alloc(n);
        CHECK(dirty != NULL);
        if (dirty)
            memset(dirty, 0xa5, n);
        big_free(dirty);
        uint8_t *z = big_calloc(n, 1);
        CHECK(z != NULL);
        if (z) {
            CHECK((uintptr_t)z % 64 == 0);
            if (!CHECK(all_zero(z, n)))
                fprintf(stderr, "  big_calloc(%zu) not zero\n", n);
            memset(z, 1, n);
        }
        big_free(z);
    }
    /* A larger request after a smaller buffer was freed grows that mapping (its pages move
     * along, only the growth is fresh): writable to the last byte, its old contents kept
     * (how the test sees that the growth path ran), and big_calloc's zero. */
    for (int round = 0; round < 2; round++) {
        /* Larger than anything freed before, so that no cached mapping fits either. */
        size_t small = (size_t)(9 + 8 * round) << 20, large = small + ((size_t)4 << 20) + 100;
        uint8_t *s = big_alloc(small);
        CHECK(s != NULL);
        if (!s)
            continue;
        memset(s, 0x5a, small);
        big_free(s);
        uint8_t *g = round ? big_calloc(large, 1) : big_alloc(large);
        CHECK(g != NULL);
        if (!g)
            continue;
        CHECK((uintptr_t)g % 64 == 0);
        if (round) {
            if (!CHECK(all_zero(g, large)))
                fprintf(stderr, "  grown big_calloc(%zu) not zero\n", large);
        } else {
            if (!CHECK(g[0] == 0x5a && g[small - 1] == 0x5a))
                fprintf(stderr, "  a grown buffer lost its pages (not grown in place?)\n");
        }
        memset(g, 0xc3, large);
        CHECK(g[large - 1] == 0xc3);
        big_free(g);
    }

    uint64_t *w = big_calloc(3, sizeof *w);
    CHECK(w && w[0] == 0 && w[2] == 0);
    big_free(w);
    big_free(NULL);
    CHECK(big_alloc(SIZE_MAX) == NULL);
    CHECK(big_alloc(SIZE_MAX - 100) == NULL);
    CHECK(big_calloc(SIZE_MAX / 2, 3) == NULL);
    return test_finish();
}
