/* What the commands share: argument parsing, --out directories, error text. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
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
    struct stat st;
    if (stat(dir, &st) != 0) {
        fprintf(stderr, "%s: %s: %s\n", cmd, dir, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s: exists and is not a directory\n", cmd, dir);
        return false;
    }
    return true;
}

bool cli_output_path_ok(const char *cmd, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s: is a directory\n", cmd, path);
        return false;
    }
    char copy[PATH_MAX];
    if (snprintf(copy, sizeof copy, "%s", path) >= (int)sizeof copy) {
        fprintf(stderr, "%s: %.200s...: %s\n", cmd, path, strerror(ENAMETOOLONG));
        return false;
    }
    const char *dir = dirname(copy);
    errno = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s: %s %s\n", cmd, path, dir,
                errno == ENOENT ? "does not exist" : errno ? strerror(errno)
                                                           : "is not a directory");
        return false;
    }
    return true;
}

/* Who a path is: a regular file's device and inode, else (not made yet) its directory
 * resolved and its name; neither for a device or FIFO, nor for /dev/stdout and the like,
 * which a command may name twice (writing one destroys nothing). */
typedef struct {
    bool regular, missing;
    dev_t dev;
    ino_t ino;
    char canon[PATH_MAX + NAME_MAX + 2];
} file_identity;

static void identify(file_identity *id, const char *path)
{
    struct stat st;
    *id = (file_identity){0};
    if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6))
        return;
    if (stat(path, &st) == 0) {
        id->regular = S_ISREG(st.st_mode);
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return;
    }
    char dir_copy[PATH_MAX], base_copy[PATH_MAX], real[PATH_MAX];
    if (snprintf(dir_copy, sizeof dir_copy, "%s", path) >= (int)sizeof dir_copy)
        return;
    snprintf(base_copy, sizeof base_copy, "%s", path);
    if (realpath(dirname(dir_copy), real)) {
        id->missing = true;
        snprintf(id->canon, sizeof id->canon, "%s/%s", real, basename(base_copy));
    }
}

static bool same_file(const file_identity *a, const file_identity *b)
{
    if (a->regular && b->regular)
        return a->dev == b->dev && a->ino == b->ino;
    return a->missing && b->missing && !strcmp(a->canon, b->canon);
}

bool cli_paths_apart(const char *cmd, const cli_path *inputs, size_t n_in,
                     const cli_path *outputs, size_t n_out)
{
    for (size_t o = 0; o < n_out; o++) {
        if (!outputs[o].path)
            continue;
        file_identity out, other;
        identify(&out, outputs[o].path);
        for (size_t i = 0; i < n_in; i++) {
            if (!inputs[i].path)
                continue;
            identify(&other, inputs[i].path);
            if (same_file(&out, &other)) {
                fprintf(stderr, "%s: the %s %s is the %s %s: writing it would destroy it\n",
                        cmd, outputs[o].what, outputs[o].path, inputs[i].what,
                        inputs[i].path);
                return false;
            }
        }
        for (size_t p = 0; p < o; p++) {
            if (!outputs[p].path)
                continue;
            identify(&other, outputs[p].path);
            if (same_file(&out, &other)) {
                fprintf(stderr, "%s: the %s %s and the %s %s are one file\n", cmd,
                        outputs[p].what, outputs[p].path, outputs[o].what, outputs[o].path);
                return false;
            }
        }
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
