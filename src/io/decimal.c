#include "decimal.h"

#include <string.h>

#define MAX_LIMBS 8

bool decimal_to_limbs(uint64_t *r, size_t n, const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len > 200 || n > MAX_LIMBS)
        return false;
    uint64_t acc[MAX_LIMBS] = {0};
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        /* acc = acc * 10 + digit, failing on overflow out of n limbs. */
        unsigned __int128 carry = (unsigned)(s[i] - '0');
        for (size_t k = 0; k < n; k++) {
            unsigned __int128 t = (unsigned __int128)acc[k] * 10 + carry;
            acc[k] = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry)
            return false;
    }
    memcpy(r, acc, n * sizeof *r);
    return true;
}

bool limbs_to_decimal(char *out, size_t cap, const uint64_t *a, size_t n)
{
    if (n > MAX_LIMBS || cap == 0)
        return false;
    uint64_t t[MAX_LIMBS];
    memcpy(t, a, n * sizeof *t);
    char rev[160];
    size_t len = 0;
    /* Divide by 10^19 repeatedly; each remainder gives 19 digits (least significant
     * first), zero-padded except for the last. */
    const uint64_t base = 10000000000000000000ull;
    for (;;) {
        unsigned __int128 rem = 0;
        bool zero = true;
        for (size_t k = n; k-- > 0;) {
            unsigned __int128 cur = (rem << 64) | t[k];
            t[k] = (uint64_t)(cur / base);
            rem = cur % base;
            zero &= t[k] == 0;
        }
        uint64_t chunk = (uint64_t)rem;
        for (int d = 0; d < 19; d++) {
            if (zero && chunk == 0 && d > 0)
                break;
            rev[len++] = (char)('0' + chunk % 10);
            chunk /= 10;
        }
        if (zero)
            break;
    }
    if (len + 1 > cap)
        return false;
    for (size_t i = 0; i < len; i++)
        out[i] = rev[len - 1 - i];
    out[len] = 0;
    return true;
}
