/* Opening a file to read it whole (input_file.h). */
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/status.h"

g16_status input_file_open(FILE **f, const char *path)
{
    *f = NULL;
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return status_fail(G16_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        g16_status st = status_fail(G16_ERR_IO, "%s: %s", path, strerror(errno));
        close(fd);
        return st;
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return status_fail(G16_ERR_IO, "%s: %s", path,
                           S_ISDIR(sb.st_mode) ? "is a directory" : "not a regular file");
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || !(*f = fdopen(fd, "rb"))) {
        g16_status st = status_fail(G16_ERR_IO, "%s: %s", path, strerror(errno));
        close(fd);
        return st;
    }
    return G16_OK;
}
