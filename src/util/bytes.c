/* util/bytes.h */
#include "bytes.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool bytes_parse(uint64_t *out, const char *s)
{
    if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0))
        return false;
    static const char UNITS[] = "KMGT";
    const char *u = *end ? strchr(UNITS, toupper((unsigned char)*end)) : NULL;
    if (u && *u) {
        for (long k = 0; k <= u - UNITS; k++)
            v *= 1024;
        end++;
        if (*end == 'i')
            end++;
    }
    if (*end == 'B')
        end++;
    if (*end || v < 1 || v > 4611686018427387904.0 /* 2^62 */)
        return false;
    *out = (uint64_t)v;
    return true;
}
