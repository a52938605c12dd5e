/* Argument parsing the commands share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "util/parallel.h"

bool cli_count_arg(size_t *out, const char *cmd, const char *flag, const char *v, size_t max)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 0);
    /* strtoull takes "-5" as a huge number: a count never starts with a sign */
    if (errno || end == v || *end || v[0] == '-' || v[0] == '+' || n < 1 || n > max) {
        fprintf(stderr, "%s: %s must be 1..%zu, not '%s'\n", cmd, flag, max, v);
        return false;
    }
    *out = (size_t)n;
    return true;
}

bool cli_threads_arg(const char *cmd, const char *v)
{
    size_t n;
    if (!cli_count_arg(&n, cmd, "--threads", v, PARALLEL_MAX_THREADS))
        return false;
    parallel_set_threads((unsigned)n);
    return true;
}
