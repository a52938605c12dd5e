/* A growable byte buffer, always NUL-terminated after its bytes: request and answer
 * bodies, generated text. */
#ifndef G16_UTIL_BUFFER_H
#define G16_UTIL_BUFFER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *data; /* malloc'd; NULL while empty; free() it */
    size_t len, cap;
} buffer;

/* Appends n bytes; false (the buffer unchanged) when memory runs out. */
bool buffer_append(buffer *b, const void *bytes, size_t n);

#endif
