/* What the commands share: argument parsing, --out directories, error text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "util/parallel.h"

bool cli_int_arg(long long *out, const char *cmd, const char *flag, const char *v,
                 long long lo, long long hi)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < lo || n > hi) {
        fprintf(stderr, "%s: %s must be %lld..%lld, not '%s'\n", cmd, flag, lo, hi, v);
        return false;
    }
    *out = n;
    return true;
}

bool cli_count_arg(size_t *out, const char *cmd, const char *flag, const char *v, size_t max)
{
    long long n;
    if (!cli_int_arg(&n, cmd, flag, v, 1, (long long)max))
        return false;
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

bool cli_out_dir(const char *cmd, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s: %s\n", cmd, dir, strerror(errno));
        return false;
    }
    return true;
}

const char *cli_status_text(g16_status st)
{
    static _Thread_local char text[600];
    const char *what = g16_status_message(st), *detail = g16_last_error();
    if (!strncmp(detail, what, strlen(what)))
        snprintf(text, sizeof text, "%s", detail);
    else
        snprintf(text, sizeof text, "%s: %s", what, detail);
    return text;
}
