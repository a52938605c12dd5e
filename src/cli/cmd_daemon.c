/* g16 daemon [--config FILE.json] [--SETTING VALUE ...] [--print-config] [--config-table]
 * The proving daemon (daemon/daemon.h): settings from daemon/config.h's table, flags over
 * the file. --print-config prints the settings in effect as a config file and exits;
 * --config-table prints the table as Markdown (the README's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

#ifdef G16_HAVE_DAEMON
#include "daemon/config.h"
#include "daemon/daemon.h"

int cmd_daemon(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--config-table")) {
            config_print_markdown(stdout);
            return 0;
        }
    daemon_config cfg;
    bool help = false, print = false;
    if (config_defaults(&cfg)) {
        fprintf(stderr, "g16 daemon: %s\n", g16_last_error());
        return 2;
    }
    int rc = 2;
    if (config_parse_args(&cfg, &help, &print, argc, argv)) {
        fprintf(stderr, "g16 daemon: %s\n", g16_last_error());
        config_print_usage(stderr);
    } else if (help) {
        config_print_help(stdout);
        rc = 0;
    } else if (print) {
        char *text = config_to_json(&cfg);
        if (text) {
            printf("%s\n", text);
            free(text);
            rc = 0;
        }
    } else {
        rc = daemon_run(&cfg);
    }
    config_free(&cfg);
    return rc;
}

#else

int cmd_daemon(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "g16 daemon: this g16 was built without the daemon (it needs "
                    "libmicrohttpd, SQLite, libpq and libcurl: cmake -DG16_DAEMON=ON)\n");
    return 2;
}

#endif
