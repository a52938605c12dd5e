/* Scratch files for the fuzz targets whose readers take paths (fuzz_json, fuzz_daemon).
 * A failure here is the machine's, not the input's, but it traps all the same: a target
 * that cannot write its input cannot test it. */
#ifndef G16_TESTS_FUZZ_FILES_H
#define G16_TESTS_FUZZ_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A fresh directory TMPDIR/g16-fuzz-NAME-XXXXXX (TMPDIR defaulting to /tmp) into dir. */
static inline void fuzz_scratch_dir(char *dir, size_t cap, const char *name)
{
    const char *tmp = getenv("TMPDIR");
    if (snprintf(dir, cap, "%s/g16-fuzz-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name) >=
            (int)cap ||
        !mkdtemp(dir))
        __builtin_trap();
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
