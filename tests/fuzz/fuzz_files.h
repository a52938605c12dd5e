/* Scratch files for the fuzz targets whose readers take paths (fuzz_json, fuzz_daemon).
 * A failure here is the machine's, not the input's, but it traps all the same: a target
 * that cannot write its input cannot test it. */
#ifndef G16_TESTS_FUZZ_FILES_H
#define G16_TESTS_FUZZ_FILES_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_scratch_root[256];

static int fuzz_remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* At exit (a run that ends, not one that crashes): the scratch tree goes. */
static void fuzz_remove_scratch(void)
{
    nftw(fuzz_scratch_root, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh directory TMPDIR/g16-fuzz-NAME-XXXXXX (TMPDIR defaulting to /tmp) into dir,
 * removed with what it holds when the process exits. One a process. */
static inline void fuzz_scratch_dir(char *dir, size_t cap, const char *name)
{
    const char *tmp = getenv("TMPDIR");
    if (fuzz_scratch_root[0] ||
        snprintf(dir, cap, "%s/g16-fuzz-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name) >=
            (int)(cap < sizeof fuzz_scratch_root ? cap : sizeof fuzz_scratch_root) ||
        !mkdtemp(dir))
        __builtin_trap();
    snprintf(fuzz_scratch_root, sizeof fuzz_scratch_root, "%s", dir);
    atexit(fuzz_remove_scratch);
}

/* Writes data[0..size) to path. */
static inline void fuzz_put(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        __builtin_trap();
    int ok = size == 0 || fwrite(data, size, 1, f) == 1;
    if (fclose(f) != 0 || !ok)
        __builtin_trap();
}

#endif
