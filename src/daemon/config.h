/* The daemon's settings: one table (config.c) names every setting with its type, default,
 * bounds and meaning; the JSON config file, the command-line flags, `g16 daemon --help`,
 * `--print-config` and the README's table all come from it (redis's habit).
 *
 * Precedence: defaults, then the file (--config FILE, a JSON object whose keys are the
 * settings' names), then the flags (--name-with-dashes VALUE). A list setting named on the
 * command line replaces the file's list (the first such flag clears it, later ones append).
 * Every value is checked against its bounds when it is set; errors name the setting, the
 * value and where it came from. */
#ifndef G16_DAEMON_CONFIG_H
#define G16_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "g16.h"

/* A proving key the daemon serves: an id that requests name and the .zkey it loads. */
typedef struct {
    char *id;
    char *path;
} daemon_key_spec;

typedef struct {
    char **items;
    size_t count;
} daemon_list;

typedef struct {
    /* HTTP */
    char *listen;            /* address to bind */
    int64_t port;            /* 0: any free port (written to state_dir/port either way) */
    char *token_file;        /* "": state_dir/token, created when missing */
    uint64_t max_body;       /* bytes of a request body */
    int64_t http_threads;
    /* jobs and store */
    char *state_dir;
    char *store;             /* "": sqlite:state_dir/jobs.db */
    char *owner;             /* "": hostname and a hash of the state directory */
    int64_t max_queued;      /* queued jobs beyond which submissions get 429 */
    int64_t max_partitions;  /* per job (native partitions, or witnesses) */
    int64_t max_constraints; /* native circuits */
    int64_t max_attempts;    /* claims of one job before it is failed */
    double lease;            /* seconds; heartbeats every lease / 3 */
    double poll;             /* seconds between store polls when idle */
    double shutdown_grace;   /* seconds SIGTERM waits for in-flight jobs */
    /* inputs and keys */
    daemon_list input_dirs;  /* witness paths must resolve inside one of these */
    daemon_key_spec *keys;   /* zkey keys by id */
    size_t n_keys;
    daemon_list preload;     /* key ids loaded at start */
    uint64_t key_budget;     /* bytes of loaded keys; 0: half of the pipeline budget */
    /* proving */
    char *backend;           /* cpu | cuda | auto */
    int64_t concurrency;     /* jobs in flight */
    int64_t threads;         /* 0: every CPU */
    int64_t synth_threads, lookahead, provers; /* the pipeline's; 0: its default */
    uint64_t mem_budget;     /* each pipeline's host budget; 0: the pipeline's default */
} daemon_config;

/* Fills cfg with every default. */
g16_status config_defaults(daemon_config *cfg);
void config_free(daemon_config *cfg);

/* Reads a JSON config file: an object of settings; an unknown name, a wrong type or a
 * value out of bounds is G16_ERR_INVALID_ARGUMENT naming it (G16_ERR_IO when the file
 * cannot be read, G16_ERR_FORMAT for malformed JSON with its line). */
g16_status config_load_file(daemon_config *cfg, const char *path);

/* Applies command-line flags (argv without the command name): --config FILE is read
 * first wherever it appears, then every other flag in order. *help is set for --help,
 * *print for --print-config; neither stops the parsing. */
g16_status config_parse_args(daemon_config *cfg, bool *help, bool *print, int argc,
                             char **argv);

/* Sets one setting by name from text ("8G", "30", "cpu", "id=path" for keys); from
 * says where the value came from, for messages. */
g16_status config_set(daemon_config *cfg, const char *name, const char *value,
                      const char *from);

/* The synopsis (printed on bad usage), and the help: the synopsis, then every setting, its
 * flag, default, bounds and meaning. */
void config_print_usage(FILE *out);
void config_print_help(FILE *out);
/* The settings table as Markdown (the README's table). */
void config_print_markdown(FILE *out);
/* The settings in effect as a JSON object (the config file format); NULL on OOM. */
char *config_to_json(const daemon_config *cfg);

/* Path confinement: resolves path (relative paths against the first input directory)
 * with realpath, which follows every symbolic link and removes "." and "..", and
 * accepts it only when the result lies inside one of the directories (themselves
 * resolved). Existence outside is never told: a path that does not resolve is called
 * missing only when the deepest part of it that exists resolves inside (a dangling link
 * is refused). On success *resolved is
 * malloc'd. G16_ERR_IO when a file inside does not exist,
 * G16_ERR_INVALID_ARGUMENT naming the path when it lies outside (or there are no input
 * directories). */
g16_status config_confine_path(char **resolved, const daemon_list *dirs, const char *path);

#endif
