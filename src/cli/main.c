/* g16: the command-line tool. Dispatches to one function per command. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "g16.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command COMMANDS[] = {
    {"selftest", cmd_selftest, "check the arithmetic against known answers"},
    {"prove", cmd_prove, "prove: prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>"},
    {"bench", cmd_bench, "native circuit job: bench --circuit synthetic --constraints N --partitions P"},
    {"setup", cmd_setup, "development setup: setup <circuit.r1cs> <circuit.zkey> [--vk vk.json]"},
    {"verify", cmd_verify, "verify a Groth16 proof: verify <vk.json> <public.json> <proof.json>"},
    {"devices", cmd_devices, "list CUDA devices and probe the first one"},
    {"info", cmd_info, "show what a .zkey, .wtns, .r1cs or .g16k file holds"},
    {"trace", cmd_trace, "timeline of a --trace run: trace report|export|plot TRACE"},
    {"daemon", cmd_daemon, "proving daemon: daemon [--config FILE] [--SETTING VALUE ...] (--help)"},
    {"submit", cmd_submit, "submit a job to a daemon: submit --key ID --witness W ... | --constraints N"},
    {"status", cmd_status, "a daemon's status, or a job's: status [ID]"},
    {"wait", cmd_wait, "wait for a daemon's job and fetch its proofs: wait ID [--out DIR]"},
    {"cancel", cmd_cancel, "cancel a daemon's job: cancel ID"},
};

static void usage(FILE *out)
{
    fprintf(out, "g16 %s: a Groth16 prover for BLS12-381\n\nusage: g16 <command> [args]\n\n",
            g16_version());
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(out, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(out, "  %-10s %s\n  %-10s %s\n", "version", "print the version", "help",
            "this text; help CMD (or CMD --help): a command's options");
}

static bool is_help(const char *arg) { return !strcmp(arg, "--help") || !strcmp(arg, "-h"); }

static const command *find(const char *name)
{
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(name, COMMANDS[i].name))
            return &COMMANDS[i];
    return NULL;
}

/* `g16 help CMD`, or `g16 CMD ... --help`: the command's synopsis on stdout. A command
 * without one in usage.c (the daemon) prints its own help from "--help". */
static int command_help(const command *c)
{
    const char *text = cli_usage(c->name);
    if (!text) {
        char arg[] = "--help";
        char *args[] = {arg, NULL};
        return c->run(1, args);
    }
    fputs(text, stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || is_help(name)) {
        const command *c = argc > 2 && !strcmp(name, "help") ? find(argv[2]) : NULL;
        if (c)
            return command_help(c);
        if (argc > 2 && !strcmp(name, "help")) {
            fprintf(stderr, "g16 help: unknown command '%s'\n\n", argv[2]);
            usage(stderr);
            return 2;
        }
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "version") || !strcmp(name, "--version")) {
        printf("g16 %s\n", g16_version());
        return 0;
    }
    const command *c = find(name);
    if (c) {
        for (int i = 2; i < argc; i++)
            if (is_help(argv[i]))
                return command_help(c);
        return c->run(argc - 2, argv + 2);
    }
    fprintf(stderr, "g16: unknown command '%s'\n\n", name);
    usage(stderr);
    return 2;
}
