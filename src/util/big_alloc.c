#include "big_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Below this a buffer is cheap to fault in and a mapping of its own would waste most of
 * a huge page. */
#define BIG_MIN ((size_t)1 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
#define HEADER 64 /* keeps the caller's pointer 64-byte aligned */

typedef struct {
    void *base;       /* what malloc or mmap returned */
    size_t map_bytes; /* 0 for malloc'd buffers */
} header;

static header *header_of(void *p) { return (header *)((char *)p - HEADER); }

void *big_alloc(size_t bytes)
{
    if (bytes > SIZE_MAX - HEADER - 2 * HUGE_PAGE)
        return NULL;
    if (bytes < BIG_MIN) {
        size_t total = (bytes + HEADER + 63) & ~(size_t)63;
        char *raw = aligned_alloc(64, total);
        if (!raw)
            return NULL;
        *(header *)raw = (header){raw, 0};
        return raw + HEADER;
    }
    /* Map a huge page more than needed, then trim to a 2 MiB aligned run of whole huge
     * pages: only aligned 2 MiB extents can be backed by huge pages. */
    size_t len = (bytes + HEADER + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *base = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    size_t lead = (size_t)(base - raw), tail = HUGE_PAGE - lead;
    if (lead)
        munmap(raw, lead);
    if (tail)
        munmap(base + len, tail);
    /* Advice only: where THP is off the buffer works the same on small pages. */
    (void)madvise(base, len, MADV_HUGEPAGE);
    *(header *)base = (header){base, len};
    return base + HEADER;
}

void *big_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    void *p = big_alloc(bytes);
    if (p && header_of(p)->map_bytes == 0)
        memset(p, 0, bytes);
    return p;
}

void big_free(void *p)
{
    if (!p)
        return;
    header h = *header_of(p);
    if (h.map_bytes)
        munmap(h.base, h.map_bytes);
    else
        free(h.base);
}
