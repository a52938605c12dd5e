/* Each `g16 <command>` is one function taking the arguments after the command name and
 * returning the process exit status: 0 success, 1 a failed check or proof, 2 usage or
 * input errors. */
#ifndef G16_CLI_COMMANDS_H
#define G16_CLI_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "g16.h"

int cmd_selftest(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_trace(int argc, char **argv);
/* The daemon and its clients (cmd_daemon.c, cmd_client.c); in builds without the daemon
 * they say so and return 2. */
int cmd_daemon(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_wait(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
/* g16 bench --daemon URL: cmd_bench hands its arguments over. */
int client_bench(int argc, char **argv);

/* A decimal integer from lo to hi in v, for flag of cmd (e.g. "g16 bench"); else false with
 * a message naming both and the range (cli_args.c). */
bool cli_int_arg(long long *out, const char *cmd, const char *flag, const char *v,
                 long long lo, long long hi);
/* The same for a count from 1 to max (at most LLONG_MAX). */
bool cli_count_arg(size_t *out, const char *cmd, const char *flag, const char *v, size_t max);
/* --threads v: the pool's thread count (1..PARALLEL_MAX_THREADS), else false and a message. */
bool cli_threads_arg(const char *cmd, const char *v);
/* "<status>: <detail>" for st and g16_last_error(), the status left out where the detail
 * begins with it already (out-of-memory details do: util/status.h). */
const char *cli_status_text(g16_status st);
/* --out DIR: made when missing (not its parents); false and a message when it cannot be
 * made or exists as something other than a directory. */
bool cli_out_dir(const char *cmd, const char *dir);
/* An output path whose directory exists and that is not itself a directory; else false
 * and a message (checked before long work that ends by writing it). */
bool cli_output_path_ok(const char *cmd, const char *path);
/* A path a command reads or writes, and what it is ("key", "proof"); path NULL: not given. */
typedef struct {
    const char *what, *path;
} cli_path;
/* False with a message when an output is one of the inputs (writing it would destroy the
 * input, which a key or witness being mapped turns into a crash) or another output (one
 * would overwrite the other): the same regular file by device and inode, or, for files
 * not made yet, the same name in the same directory. */
bool cli_paths_apart(const char *cmd, const cli_path *inputs, size_t n_in,
                     const cli_path *outputs, size_t n_out);

/* Each command's synopsis (usage.c), or NULL for one that prints its own help (daemon: its
 * settings table). main prints it to stdout for `g16 CMD --help` and `g16 help CMD`. */
const char *cli_usage(const char *command);
/* The synopsis on stderr, for bad usage; returns 2 (the exit status). */
int cli_usage_error(const char *command);

#endif
