/* Byte counts written by people: "8G", "512M", "1.5GiB", "4096" (g16 bench --mem-budget,
 * the daemon's budgets). */
#ifndef G16_UTIL_BYTES_H
#define G16_UTIL_BYTES_H

#include <stdbool.h>
#include <stdint.h>

/* K, M, G, T are binary multiples; "B" and "iB" are optional. False for anything else,
 * for zero and for more than 2^62. */
bool bytes_parse(uint64_t *out, const char *s);

#endif
