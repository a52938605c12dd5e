#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[512];

const char *g16_status_message(g16_status status)
{
    switch (status) {
    case G16_OK: return "ok";
    case G16_ERR_INVALID_ARGUMENT: return "invalid argument";
    case G16_ERR_BAD_ENCODING: return "bad encoding";
    case G16_ERR_NOT_ON_CURVE: return "point not on curve";
    case G16_ERR_NOT_IN_SUBGROUP: return "point not in the prime-order subgroup";
    case G16_ERR_IO: return "input/output error";
    case G16_ERR_FORMAT: return "malformed file";
    case G16_ERR_UNSUPPORTED: return "not supported";
    case G16_ERR_OUT_OF_MEMORY: return "out of memory";
    case G16_ERR_VERIFY_FAILED: return "proof does not verify";
    case G16_ERR_INTERNAL: return "internal error";
    case G16_ERR_CANCELLED: return "cancelled";
    }
    return "unknown status";
}

const char *g16_last_error(void) { return last_error; }

const char *g16_version(void) { return G16_VERSION; }

void status_clear(void) { last_error[0] = 0; }

void status_text_fit(char *dst, size_t cap, const char *text)
{
    static const char CUT[] = " [...] ";
    size_t n = strlen(text), room = cap ? cap - 1 : 0;
    if (n <= room) {
        memcpy(dst, text, n + 1);
    } else if (room < 3 * (sizeof CUT - 1)) {
        if (cap) { /* too small to cut well: the beginning */
            memcpy(dst, text, room);
            dst[room] = '\0';
        }
    } else {
        /* Too long (a path of thousands of characters): the middle goes, so that what
         * the message says of the path (at its end) is kept with its beginning. */
        size_t head = room / 3, tail = room - head - (sizeof CUT - 1);
        memcpy(dst, text, head);
        memcpy(dst + head, CUT, sizeof CUT - 1);
        memcpy(dst + head + sizeof CUT - 1, text + n - tail, tail + 1);
    }
}

g16_status status_fail(g16_status status, const char *fmt, ...)
{
    /* Out-of-memory details name what was being allocated ("setup for 4026531840 wires
     * and domain 16"); printed alone they would not say what went wrong, so they read
     * "out of memory: ..." unless they say "out of ..." themselves. Formatted apart
     * first: callers may pass g16_last_error() itself to wrap it ("proof A: %s"). */
    char local[2048], *text = local;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int len = vsnprintf(local, sizeof local, fmt, ap);
    va_end(ap);
    if (len >= (int)sizeof local && (text = malloc((size_t)len + 1)))
        vsnprintf(text, (size_t)len + 1, fmt, again);
    else if (!text)
        text = local; /* cut at 2 KiB: the middle goes below all the same */
    va_end(again);
    static const char OOM[] = "out of memory: ";
    size_t k = status == G16_ERR_OUT_OF_MEMORY && !strstr(text, "out of ") ? sizeof OOM - 1 : 0;
    memcpy(last_error, OOM, k);
    status_text_fit(last_error + k, sizeof last_error - k, text);
    if (text != local)
        free(text);
    return status;
}
