/* Output files replaced whole. A file is written under a temporary name of its own beside
 * the target (same directory, so the same filesystem), flushed to disk and renamed over
 * it: a reader, or a machine that crashes, sees the old file or the complete new one,
 * never a part of it; a failed write (a full disk, a size limit) leaves the old file as
 * it was and no temporary behind; two writers of one path do not share a temporary.
 * A replaced file keeps its mode (and owner, where allowed); a new one gets 0666 less the
 * umask, as fopen's would. A symbolic link is followed: the file it names is replaced,
 * the link kept.
 *
 * Written in place instead, as fopen("w") would: paths under /dev/ and /proc/ (/dev/stdout,
 * /dev/fd/N and /proc/self/fd/N through the descriptor itself, so a file that the shell
 * appends to is appended to), targets that are not regular files (a FIFO, a terminal), a
 * link to nowhere (the file it names is created), and, where
 * the temporary cannot be made beside an existing file (a directory the user may not
 * write to, a name at the length limit) or cannot be renamed over it (a file bind-mounted
 * on its own), the existing file. A hard link's other names keep the old content. A writer
 * killed mid-way leaves its temporary (PATH.tmp-PID-N) behind. */
#ifndef G16_UTIL_ATOMIC_FILE_H
#define G16_UTIL_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "g16.h"

typedef struct {
    FILE *f;     /* where to write, between open and commit/discard */
    char *name;  /* the path as given, for messages */
    char *path;  /* the file replaced (a link's target) */
    char *tmp;   /* the temporary; NULL when writing in place */
} atomic_file;

/* Starts a replacement of path: G16_ERR_IO naming the file when it cannot be created. */
g16_status atomic_file_open(atomic_file *af, const char *path);
/* Flushes, syncs and closes, so that every byte is known to be written, but leaves the
 * target as it was: for outputs that belong together (a proof and its public inputs, a
 * key and its verifying key), each is finished before any is committed, so a failure
 * leaves all of them as they were. On failure removes the temporary, releases af and
 * returns G16_ERR_IO naming the file; on success af awaits commit or discard. (A file
 * written in place has no old content to keep: finishing it only closes it.) */
g16_status atomic_file_finish(atomic_file *af);
/* Finishes (if not done) and renames into place; on any failure removes the temporary
 * and returns G16_ERR_IO naming the file. Releases af either way. */
g16_status atomic_file_commit(atomic_file *af);
/* Gives up: closes, removes the temporary, releases af (the target untouched, unless it
 * was being written in place). */
void atomic_file_discard(atomic_file *af);
/* fopen(path, "w") but for a FIFO that no process reads, which is G16_ERR_IO at once
 * ("a FIFO that no process reads") rather than a wait: for files written as a run goes
 * (traces), and atomic_file's in-place writes. */
g16_status output_file_open(FILE **f, const char *path);
/* The whole of data[0..len) as path's new content. */
g16_status atomic_file_write(const char *path, const void *data, size_t len);

#endif
