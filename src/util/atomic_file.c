/* Output files replaced whole (atomic_file.h). */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/status.h"

static void release(atomic_file *af)
{
    free(af->path);
    free(af->tmp);
    *af = (atomic_file){0};
}

/* O_EXCL on a name no other writer uses: this process's id and a counter, so threads and
 * processes never meet, and a temporary left by a killed writer is never reused. */
static int create_temporary(char **tmp, const char *path)
{
    static atomic_uint serial;
    size_t cap = strlen(path) + 48;
    if (!(*tmp = malloc(cap)))
        return -1;
    for (int tries = 0; tries < 100; tries++) {
        snprintf(*tmp, cap, "%s.tmp-%ld-%u", path, (long)getpid(),
                 atomic_fetch_add(&serial, 1));
        int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

g16_status atomic_file_open(atomic_file *af, const char *path)
{
    *af = (atomic_file){0};
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device or FIFO: replacing it would be wrong (and /dev/stdout's link). */
        if (!(af->path = strdup(path)))
            return status_fail(G16_ERR_OUT_OF_MEMORY, "%s: writer", path);
        if (!(af->f = fopen(path, "w"))) {
            g16_status s = status_fail(G16_ERR_IO, "%s: %s", path, strerror(errno));
            release(af);
            return s;
        }
        return G16_OK;
    }
    /* A link is followed: its file is replaced, the link stays. */
    char *target = exists ? realpath(path, NULL) : strdup(path);
    if (!target)
        return status_fail(exists ? G16_ERR_IO : G16_ERR_OUT_OF_MEMORY, "%s: %s", path,
                           exists ? strerror(errno) : "writer");
    af->path = target;
    int fd = create_temporary(&af->tmp, target);
    if (fd >= 0 && (af->f = fdopen(fd, "wb")))
        return G16_OK;
    g16_status s = af->tmp ? status_fail(G16_ERR_IO, "%s: %s", path, strerror(errno))
                           : status_fail(G16_ERR_OUT_OF_MEMORY, "%s: writer", path);
    if (fd >= 0) {
        close(fd);
        unlink(af->tmp);
    }
    release(af);
    return s;
}

g16_status atomic_file_commit(atomic_file *af)
{
    int err = 0;
    if (fflush(af->f) != 0 || ferror(af->f))
        err = errno ? errno : EIO;
    /* In place there is nothing to sync for (a FIFO, a terminal). */
    if (!err && af->tmp && fsync(fileno(af->f)) != 0)
        err = errno;
    if (fclose(af->f) != 0 && !err)
        err = errno ? errno : EIO;
    af->f = NULL;
    if (!err && af->tmp && rename(af->tmp, af->path) != 0)
        err = errno;
    g16_status s = G16_OK;
    if (err) {
        s = status_fail(G16_ERR_IO, "%s: write failed: %s", af->path, strerror(err));
        if (af->tmp)
            unlink(af->tmp);
    }
    release(af);
    return s;
}

void atomic_file_discard(atomic_file *af)
{
    if (af->f)
        fclose(af->f);
    if (af->tmp)
        unlink(af->tmp);
    release(af);
}

g16_status atomic_file_write(const char *path, const void *data, size_t len)
{
    atomic_file af;
    g16_status s = atomic_file_open(&af, path);
    if (s)
        return s;
    if (len && fwrite(data, len, 1, af.f) != 1) {
        s = status_fail(G16_ERR_IO, "%s: write failed: %s", af.path, strerror(errno));
        atomic_file_discard(&af);
        return s;
    }
    return atomic_file_commit(&af);
}
