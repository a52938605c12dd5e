/* Checks shared by the fuzz targets of the key readers (.zkey, g16k): a failed promise
 * traps, so libFuzzer keeps the input as a crash. */
#ifndef G16_TESTS_FUZZ_POINTS_H
#define G16_TESTS_FUZZ_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "curve/encoding.h"

static inline void require(int ok)
{
    if (!ok)
        __builtin_trap();
}

/* [p, p + n) lies inside the input [data, data + size). */
static inline void check_range(const uint8_t *data, size_t size, const uint8_t *p, uint64_t n)
{
    require(n == 0 ||
            (p >= data && (uint64_t)(p - data) <= size && n <= size - (size_t)(p - data)));
}

/* A point section exposed by a reader: count points (G1: 96 bytes, G2: 192) inside the
 * input, each one read by the decoder (whatever it says of them). */
static inline void touch_points(const uint8_t *pts, size_t pts_count, size_t count, int g2,
                                const uint8_t *data, size_t size)
{
    size_t bytes = g2 ? G2_SNARKJS_BYTES : G1_SNARKJS_BYTES;
    require(pts_count == count);
    check_range(data, size, pts, (uint64_t)count * bytes);
    g1_affine_t p1;
    g2_affine_t p2;
    for (size_t i = 0; i < count; i++) {
        if (g2)
            (void)g2_decode_snarkjs(&p2, pts + i * bytes, false);
        else
            (void)g1_decode_snarkjs(&p1, pts + i * bytes, false);
    }
}

#endif
