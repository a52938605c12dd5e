/* The thread pool: every item is processed exactly once, at every thread count, with
 * nested calls and with calls from several threads at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util/parallel.h"

typedef struct {
    atomic_uint *hits;
    size_t n;
    unsigned max_worker;
    atomic_uint bad_worker;
} count_ctx;

static void count_body(void *p, size_t begin, size_t end, unsigned worker)
{
    count_ctx *c = p;
    if (worker >= c->max_worker)
        atomic_fetch_add(&c->bad_worker, 1);
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add(&c->hits[i], 1);
}

static bool run_count(size_t n, size_t chunk)
{
    count_ctx c = {.hits = calloc(n ? n : 1, sizeof(atomic_uint)), .n = n,
                   .max_worker = parallel_threads()};
    atomic_init(&c.bad_worker, 0);
    parallel_for(n, chunk, count_body, &c);
    bool ok = atomic_load(&c.bad_worker) == 0;
    for (size_t i = 0; i < n; i++)
        ok &= atomic_load(&c.hits[i]) == 1;
    free(c.hits);
    return ok;
}

static void nested_body(void *p, size_t begin, size_t end, unsigned worker)
{
    atomic_uint *ok = p;
    for (size_t i = begin; i < end; i++)
        if (!run_count(100, 7))
            atomic_store(ok, 0);
}

static void *thread_main(void *arg)
{
    bool *ok = arg;
    for (int r = 0; r < 20; r++)
        *ok &= run_count(1000 + (size_t)r, 3);
    return NULL;
}

/* parallel_memcpy: sizes around its 4 MiB blocks (none, part of one, one and a byte,
 * several and a tail), at an odd offset, on the whole pool and in 3 ways; every byte
 * lands, none past the end. */
static void test_memcpy(void)
{
    const size_t block = 4u << 20, sizes[] = {0, 1, 4097, block, block + 1, 3 * block + 12345};
    size_t most = sizes[sizeof sizes / sizeof sizes[0] - 1];
    unsigned char *src = malloc(most + 1), *dst = malloc(most + 2);
    if (!CHECK(src && dst)) {
        free(src);
        free(dst);
        return;
    }
    for (size_t i = 0; i <= most; i++)
        src[i] = (unsigned char)test_rand64();
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        for (unsigned ways = 0; ways <= 3; ways += 3) {
            memset(dst, 0xA5, most + 2);
            parallel_memcpy(dst + 1, src + 1, n, ways);
            bool same = memcmp(dst + 1, src + 1, n) == 0;
            if (!CHECK(same && dst[0] == 0xA5 && dst[n + 1] == 0xA5))
                printf("  parallel_memcpy of %zu bytes in %u ways: %s\n", n, ways,
                       same ? "wrote past its end" : "differs");
        }
    }
    free(src);
    free(dst);
}

int main(void)
{
    test_init("test_parallel");
    for (unsigned t = 1; t <= 8; t *= 2) {
        CHECK(parallel_set_threads(t) == t);
        size_t sizes[] = {0, 1, 2, 7, 64, 1000, 100003};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            CHECK(run_count(sizes[i], 1));
            CHECK(run_count(sizes[i], 1 + test_rand64() % 100));
        }
        atomic_uint ok;
        atomic_init(&ok, 1);
        parallel_for(50, 1, nested_body, &ok);
        CHECK(atomic_load(&ok) == 1);
        pthread_t th[4];
        bool thread_ok[4] = {true, true, true, true};
        for (int i = 0; i < 4; i++)
            pthread_create(&th[i], NULL, thread_main, &thread_ok[i]);
        for (int i = 0; i < 4; i++) {
            pthread_join(th[i], NULL);
            CHECK(thread_ok[i]);
        }
        test_memcpy();
    }
    return test_finish();
}
