/* Output files replaced whole (atomic_file.h). */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/status.h"

static void release(atomic_file *af)
{
    free(af->name);
    free(af->path);
    free(af->tmp);
    *af = (atomic_file){0};
}

/* O_EXCL on a name no other writer uses: this process's id and a counter, so threads and
 * processes never meet. -1 with errno when it cannot be made. */
static int create_temporary(char **tmp, const char *path)
{
    static atomic_uint serial;
    size_t cap = strlen(path) + 48;
    if (!(*tmp = malloc(cap))) {
        errno = ENOMEM;
        return -1;
    }
    for (int tries = 0; tries < 100; tries++) {
        snprintf(*tmp, cap, "%s.tmp-%ld-%u", path, (long)getpid(),
                 atomic_fetch_add(&serial, 1));
        int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* /dev/stdout, /dev/fd/N, /proc/self/fd/N: the descriptor itself (reopening it by name
 * would truncate a file that the shell appends to, and write from its start). */
static int own_descriptor(const char *path)
{
    static const char *const PREFIX[] = {"/dev/fd/", "/proc/self/fd/"};
    if (!strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(PREFIX[i]);
        char *end;
        if (!strncmp(path, PREFIX[i], n) && path[n] >= '0' && path[n] <= '9') {
            long fd = strtol(path + n, &end, 10);
            if (!*end && fd <= 1024)
                return (int)fd;
        }
    }
    return -1;
}

static g16_status open_in_place(atomic_file *af)
{
    free(af->tmp);
    af->tmp = NULL;
    int own = own_descriptor(af->path), fd = own >= 0 ? dup(own) : -1;
    if (fd >= 0 && (af->f = fdopen(fd, "w")))
        return G16_OK;
    if (fd >= 0)
        close(fd);
    g16_status s = own < 0 ? output_file_open(&af->f, af->path)
                           : status_fail(G16_ERR_IO, "%s: %s", af->name, strerror(errno));
    if (s)
        release(af);
    return s;
}

g16_status output_file_open(FILE **f, const char *path)
{
    /* O_NONBLOCK for the open alone: a FIFO that no process reads is an error (ENXIO),
     * not a wait. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0666);
    int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 && (*f = fdopen(fd, "w")))
        return G16_OK;
    g16_status s = status_fail(G16_ERR_IO, "%s: %s", path,
                               errno == ENXIO ? "a FIFO that no process reads"
                                              : strerror(errno));
    if (fd >= 0)
        close(fd);
    return s;
}

/* Where nothing may be renamed over the target: /dev/stdout and the like (a file that
 * stdout appends to would be replaced, and stdout left writing to the old one), devices,
 * FIFOs, links to nowhere. */
static bool in_place(const char *path, bool *exists, struct stat *st)
{
    if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6))
        return true;
    struct stat ln;
    if (lstat(path, &ln) != 0)
        return false; /* a new file (or an error that creating one will report) */
    *exists = stat(path, st) == 0;
    return S_ISLNK(ln.st_mode) ? !*exists || !S_ISREG(st->st_mode) : !S_ISREG(ln.st_mode);
}

g16_status atomic_file_open(atomic_file *af, const char *path)
{
    *af = (atomic_file){0};
    struct stat st;
    bool exists = false;
    if (!(af->name = strdup(path))) {
        release(af);
        return status_fail(G16_ERR_OUT_OF_MEMORY, "%s: writer", path);
    }
    if (in_place(path, &exists, &st)) {
        if (!(af->path = strdup(path))) {
            release(af);
            return status_fail(G16_ERR_OUT_OF_MEMORY, "%s: writer", path);
        }
        return open_in_place(af);
    }
    af->path = exists ? realpath(path, NULL) : strdup(path);
    if (!af->path) {
        g16_status s = exists ? status_fail(G16_ERR_IO, "%s: %s", path, strerror(errno))
                              : status_fail(G16_ERR_OUT_OF_MEMORY, "%s: writer", path);
        release(af);
        return s;
    }
    int fd = create_temporary(&af->tmp, af->path);
    if (fd < 0) {
        /* No room beside it (permissions, the name's length): the old way, if it works. */
        if (errno != ENOMEM && (exists || errno == ENAMETOOLONG))
            return open_in_place(af);
        g16_status s = status_fail(errno == ENOMEM ? G16_ERR_OUT_OF_MEMORY : G16_ERR_IO,
                                   "%s: %s", path, strerror(errno));
        release(af);
        return s;
    }
    if (exists) {
        /* The replacement is the same file to its readers: mode and, for root, owner. */
        (void)!fchown(fd, st.st_uid, st.st_gid);
        (void)!fchmod(fd, st.st_mode & 07777);
    }
    if ((af->f = fdopen(fd, "wb")))
        return G16_OK;
    g16_status s = status_fail(G16_ERR_OUT_OF_MEMORY, "%s: writer", path);
    close(fd);
    unlink(af->tmp);
    release(af);
    return s;
}

/* A rename that the filesystem refuses (the target is a mount point of its own, or on
 * another filesystem): the temporary's bytes copied over the target instead. */
static int copy_over(const char *tmp, const char *path)
{
    FILE *in = fopen(tmp, "rb"), *out = in ? fopen(path, "wb") : NULL;
    int err = in && out ? 0 : errno;
    char buf[1 << 16];
    size_t n;
    while (!err && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            err = errno ? errno : EIO;
    if (!err && ferror(in))
        err = EIO;
    if (out && fclose(out) != 0 && !err)
        err = errno;
    if (in)
        fclose(in);
    return err;
}

/* The rename made durable: the directory's entry synced (where the filesystem can). */
static void sync_directory(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(copy);
}

/* fsync's answers that say the filesystem does not sync, not that the data is lost. */
static bool sync_unsupported(int err)
{
    return err == EINVAL || err == ENOTSUP || err == EOPNOTSUPP || err == ENOSYS;
}

/* The temporary made whole and durable but not yet in place; on failure af is released. */
g16_status atomic_file_finish(atomic_file *af)
{
    if (!af->f)
        return G16_OK; /* finished already */
    int err = 0;
    errno = 0;
    if (fflush(af->f) != 0)
        err = errno ? errno : EIO;
    else if (ferror(af->f))
        err = EIO; /* an earlier write failed; its errno is gone */
    if (!err && af->tmp && fsync(fileno(af->f)) != 0 && !sync_unsupported(errno))
        err = errno;
    if (fclose(af->f) != 0 && !err)
        err = errno ? errno : EIO;
    af->f = NULL;
    if (!err)
        return G16_OK;
    g16_status s = status_fail(G16_ERR_IO, "%s: write failed: %s", af->name, strerror(err));
    atomic_file_discard(af);
    return s;
}

g16_status atomic_file_commit(atomic_file *af)
{
    g16_status s = atomic_file_finish(af);
    if (s)
        return s;
    int err = 0;
    bool renamed = false;
    if (af->tmp) {
        if ((renamed = rename(af->tmp, af->path) == 0))
            sync_directory(af->path);
        else if (errno == EBUSY || errno == EXDEV)
            err = copy_over(af->tmp, af->path);
        else
            err = errno;
        if (!renamed)
            unlink(af->tmp);
    }
    s = err ? status_fail(G16_ERR_IO, "%s: write failed: %s", af->name, strerror(err))
            : G16_OK;
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
        s = status_fail(G16_ERR_IO, "%s: write failed: %s", af.name, strerror(errno));
        atomic_file_discard(&af);
        return s;
    }
    return atomic_file_commit(&af);
}
