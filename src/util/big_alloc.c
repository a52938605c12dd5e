#include "big_alloc.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this a buffer is cheap to fault in and a mapping of its own would waste most of
 * a huge page. */
#define BIG_MIN ((size_t)1 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
#define HEADER 64 /* in front of the caller's pointer; keeps it 64-byte aligned */

/* Freed mappings kept for reuse: a proof allocates the same few buffers once per MSM
 * (scalars, bucket scratch), and each fresh huge page costs the kernel 2 MiB of zeroing.
 * Only small mappings are kept, so the cache never holds more than CACHE_BYTES. */
#define CACHE_SLOTS 16
#define CACHE_MAX_ONE ((size_t)64 << 20)
#define CACHE_BYTES ((size_t)128 << 20)

typedef struct {
    void *map;        /* what malloc or mmap returned */
    size_t map_bytes; /* the mapping's length; 0 for malloc'd buffers */
    size_t data_bytes; /* usable bytes from the caller's pointer */
} header;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static header cache[CACHE_SLOTS];
static size_t cache_n, cache_total;

static header *header_of(void *p) { return (header *)((char *)p - HEADER); }

/* A cached mapping of at least `bytes` that wastes at most about half of itself, or NULL. */
static char *cache_take(size_t bytes)
{
    char *p = NULL;
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < cache_n; i++) {
        size_t have = cache[i].data_bytes;
        if (have >= bytes && have - bytes <= bytes + HUGE_PAGE) {
            header h = cache[i];
            cache[i] = cache[--cache_n];
            cache_total -= h.map_bytes;
            p = (char *)h.map + (h.map_bytes - h.data_bytes);
            break;
        }
    }
    pthread_mutex_unlock(&cache_mu);
    return p;
}

/* The largest cached mapping smaller than `bytes` (taken out of the cache), or false. */
static bool cache_take_smaller(size_t bytes, header *out)
{
    bool found = false;
    size_t best = 0;
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < cache_n; i++)
        if (cache[i].data_bytes < bytes && (!found || cache[i].data_bytes > cache[best].data_bytes)) {
            best = i;
            found = true;
        }
    if (found) {
        *out = cache[best];
        cache[best] = cache[--cache_n];
        cache_total -= out->map_bytes;
    }
    pthread_mutex_unlock(&cache_mu);
    return found;
}

static bool cache_put(const header *h)
{
    bool kept = false;
    pthread_mutex_lock(&cache_mu);
    if (h->map_bytes <= CACHE_MAX_ONE && cache_n < CACHE_SLOTS &&
        cache_total + h->map_bytes <= CACHE_BYTES) {
        cache[cache_n++] = *h;
        cache_total += h->map_bytes;
        kept = true;
    }
    pthread_mutex_unlock(&cache_mu);
    return kept;
}

/* Room for `len` bytes of data from a 2 MiB boundary with a small page in front: the
 * address of the data in a PROT_NONE reservation (trimmed to exactly that span), or NULL.
 * Only aligned 2 MiB extents can be backed by huge pages, and the header lives in the small
 * page, so a buffer of exactly 2^k bytes takes 2^k / 2 MiB huge pages and not one more. */
static char *reserve(size_t len, size_t page)
{
    char *raw = mmap(NULL, len + HUGE_PAGE + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *data = (char *)(((uintptr_t)raw + page + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    char *start = data - page, *end = data + len, *raw_end = raw + len + HUGE_PAGE + page;
    if (start > raw)
        munmap(raw, (size_t)(start - raw));
    if (raw_end > end)
        munmap(end, (size_t)(raw_end - end));
    return data;
}

/* A cached mapping smaller than len, its data moved into an aligned span of len bytes:
 * its pages (already faulted in: on the VMs g16 is measured on, zeroing fresh pages is the
 * costly part) come along, only the growth is fresh. A proof's MSMs ask for scratch a bit
 * larger than the polynomial buffers freed before them (4.6 against 4 MiB at 2^17). NULL
 * when nothing smaller is cached or the move fails (the mapping is then released). The
 * data and the header page are separate VMAs (madvise splits them), and mremap moves one
 * VMA: the data moves, the new header page is the reservation's. */
static char *grow_cached(size_t len, size_t page)
{
#ifdef MREMAP_FIXED
    header h;
    if (!cache_take_smaller(len, &h))
        return NULL;
    char *old_data = (char *)h.map + (h.map_bytes - h.data_bytes);
    char *data = reserve(len, page);
    if (data) {
        void *moved = mremap(old_data, h.data_bytes, len, MREMAP_MAYMOVE | MREMAP_FIXED, data);
        if (moved != MAP_FAILED) {
            munmap(h.map, h.map_bytes - h.data_bytes); /* the old header page */
            if (mprotect(data - page, page, PROT_READ | PROT_WRITE) != 0) {
                munmap(data - page, len + page);
                return NULL;
            }
            (void)madvise(data, len, MADV_HUGEPAGE);
            *header_of(data) = (header){data - page, len + page, len};
            return data;
        }
        munmap(data - page, len + page);
    }
    munmap(h.map, h.map_bytes);
#else
    (void)len;
    (void)page;
#endif
    return NULL;
}

/* *fresh: the memory is a new mapping's, so still zero. */
static void *alloc(size_t bytes, bool *fresh)
{
    *fresh = false;
    if (bytes > SIZE_MAX / 2)
        return NULL;
    if (bytes < BIG_MIN) {
        size_t total = (bytes + HEADER + 63) & ~(size_t)63;
        char *raw = aligned_alloc(64, total);
        if (!raw)
            return NULL;
        *(header *)raw = (header){raw, 0, total - HEADER};
        return raw + HEADER;
    }
    size_t len = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    char *p = cache_take(bytes);
    if (p)
        return p;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if ((p = grow_cached(len, page)))
        return p;
    char *data = reserve(len, page);
    if (!data || mprotect(data - page, len + page, PROT_READ | PROT_WRITE) != 0) {
        if (data)
            munmap(data - page, len + page);
        return NULL;
    }
    /* Advice only: where THP is off the buffer works the same on small pages. */
    (void)madvise(data, len, MADV_HUGEPAGE);
    *header_of(data) = (header){data - page, len + page, len};
    *fresh = true;
    return data;
}

void *big_alloc(size_t bytes)
{
    bool fresh;
    return alloc(bytes, &fresh);
}

void *big_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    bool fresh;
    void *p = alloc(bytes, &fresh);
    if (p && !fresh)
        memset(p, 0, bytes);
    return p;
}

void big_free(void *p)
{
    if (!p)
        return;
    header h = *header_of(p);
    if (!h.map_bytes)
        free(h.map);
    else if (!cache_put(&h))
        munmap(h.map, h.map_bytes);
}
