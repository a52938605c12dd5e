/* Recording errors for g16_last_error(): each failing path sets a message and returns
 * its status in one statement: `return status_fail(G16_ERR_FORMAT, "zkey: ...", ...);`
 * A G16_ERR_OUT_OF_MEMORY detail is stored as "out of memory: <detail>" unless it says
 * "out of ..." itself, so it reads well printed alone. One longer than g16_last_error's
 * 511 bytes (a path of thousands of characters) loses its middle, not its end. */
#ifndef G16_UTIL_STATUS_H
#define G16_UTIL_STATUS_H

#include <stddef.h>

#include "g16.h"

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((format(printf, 2, 3)))
g16_status status_fail(g16_status status, const char *fmt, ...);

/* text copied into dst[cap] (NUL-terminated); when too long it loses its middle, marked
 * " [...] ", and keeps its beginning and its end (where a message says what is wrong).
 * For messages kept in fixed buffers (a job's error, a partition's). */
void status_text_fit(char *dst, size_t cap, const char *text);

/* Forget the last error (at the start of a public call). */
void status_clear(void);

#ifdef __cplusplus
}
#endif

#endif
