/* The thread pool: every item is processed exactly once, at every thread count, with
 * nested calls and with calls from several threads at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

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
    }
    return test_finish();
}
