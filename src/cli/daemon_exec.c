/* In a build with the daemon, `g16` itself links none of the daemon's libraries: its
 * daemon and client commands run `g16-daemon` (the same CLI linked with them, built
 * beside g16) in this process's place, with the same arguments.
 *
 * Why: the daemon's libraries (libmicrohttpd, SQLite, libpq, libcurl and what they pull
 * in: ~35 shared objects) cost every g16 process ~13 ms of loading and relocation before
 * main (g16 --version: 17 ms with them, 4 ms without, 2026-12-01), which is 5% of a
 * `g16 prove` of a 2^17 circuit. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

#define DAEMON_EXE "g16-daemon"

/* Replaces this process with g16-daemon <command> <args>; returns 2 when it cannot. */
static int daemon_exec(const char *command, int argc, char **argv)
{
    char path[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
    if (len <= 0) {
        fprintf(stderr, "g16 %s: cannot find this program's own path: %s\n", command,
                strerror(errno));
        return 2;
    }
    path[len] = '\0';
    char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    if (dir + sizeof DAEMON_EXE > sizeof path) {
        fprintf(stderr, "g16 %s: path too long: %s\n", command, path);
        return 2;
    }
    memcpy(path + dir, DAEMON_EXE, sizeof DAEMON_EXE);
    char **args = malloc(((size_t)argc + 3) * sizeof *args);
    if (!args) {
        fprintf(stderr, "g16 %s: out of memory\n", command);
        return 2;
    }
    args[0] = "g16";
    args[1] = (char *)command;
    for (int i = 0; i < argc; i++)
        args[i + 2] = argv[i];
    args[argc + 2] = NULL;
    fflush(NULL);
    execv(path, args);
    int e = errno;
    free(args);
    fprintf(stderr, "g16 %s: cannot run %s (%s): the daemon and its client commands are a "
                    "program of their own, built beside g16\n",
            command, path, strerror(e));
    return 2;
}

int cmd_daemon(int argc, char **argv) { return daemon_exec("daemon", argc, argv); }
int cmd_submit(int argc, char **argv) { return daemon_exec("submit", argc, argv); }
int cmd_status(int argc, char **argv) { return daemon_exec("status", argc, argv); }
int cmd_wait(int argc, char **argv) { return daemon_exec("wait", argc, argv); }
int cmd_cancel(int argc, char **argv) { return daemon_exec("cancel", argc, argv); }
/* cmd_bench hands over all of `g16 bench`'s arguments when it sees --daemon. */
int client_bench(int argc, char **argv) { return daemon_exec("bench", argc, argv); }
