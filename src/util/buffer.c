/* util/buffer.h */
#include "buffer.h"

#include <stdlib.h>
#include <string.h>

bool buffer_append(buffer *b, const void *bytes, size_t n)
{
    if (n > ((size_t)-1) / 4 - b->len)
        return false;
    if (b->len + n + 1 > b->cap) {
        /* Doubling keeps appends amortised O(1) for bodies arriving in small pieces. */
        size_t cap = (b->len + n + 1) * 2;
        char *grown = realloc(b->data, cap);
        if (!grown)
            return false;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = 0;
    return true;
}
