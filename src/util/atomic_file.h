/* Output files replaced whole. A file is written under a temporary name of its own beside
 * the target (same directory, so the same filesystem), flushed to disk and renamed over
 * it: a reader, or a machine that crashes, sees the old file or the complete new one,
 * never a part of it; a failed write (a full disk, a size limit) leaves the old file as
 * it was and no temporary behind; two writers of one path do not share a temporary.
 * A target that exists and is not a regular file (a FIFO, /dev/stdout, a terminal) is
 * written in place; a symbolic link is followed (the file it names is replaced, the link
 * kept). New files get 0666 less the umask, as fopen's would. */
#ifndef G16_UTIL_ATOMIC_FILE_H
#define G16_UTIL_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "g16.h"

typedef struct {
    FILE *f;     /* where to write, between open and commit/discard */
    char *path;  /* the target (the file a link names) */
    char *tmp;   /* the temporary; NULL when writing in place */
} atomic_file;

/* Starts a replacement of path: G16_ERR_IO naming the file when it cannot be created. */
g16_status atomic_file_open(atomic_file *af, const char *path);
/* Flushes, syncs, closes and renames into place; on any failure removes the temporary
 * and returns G16_ERR_IO naming the target. Releases af either way. */
g16_status atomic_file_commit(atomic_file *af);
/* Gives up: closes, removes the temporary, releases af (the target untouched). */
void atomic_file_discard(atomic_file *af);
/* The whole of data[0..len) as path's new content. */
g16_status atomic_file_write(const char *path, const void *data, size_t len);

#endif
