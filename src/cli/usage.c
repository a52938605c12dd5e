/* Every command's synopsis in one place, so that what a command prints on bad usage and
 * what `g16 CMD --help` and `g16 help CMD` print are the same text. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

typedef struct {
    const char *command, *text;
} usage_entry;

/* The client commands' connection flags (cmd_client.c's conn_flag). */
#define CONN "[--url URL] [--token-file F] [--state-dir DIR]"

static const usage_entry USAGES[] = {
    {"selftest", "usage: g16 selftest\n"
                 "  known-answer checks of the field, curve and pairing arithmetic; exit 0 when\n"
                 "  every one passes\n"},
    {"devices", "usage: g16 devices\n"
                "  the CUDA devices, and a probe kernel run on the first one\n"},
    {"prove", "usage: g16 prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
              "         [--no-verify] [--threads N] [--backend cpu|cuda|auto] [--g2-cpu]\n"
              "         [--quiet] [--trace FILE] [--timeline]\n"
              "       g16 prove --zkey K.zkey --wtns W.wtns --proof P.json --public PUB.json\n"
              "         [the same options]\n"},
    {"bench",
     "usage: g16 bench --circuit synthetic --constraints N --partitions P [-c/--count N]\n"
     "         [-j/--concurrency J] [--threads T] [--synth-threads T] [--lookahead L]\n"
     "         [--provers W] [--mem-budget BYTES] [--device-budget BYTES] [--synth-cost K]\n"
     "         [--synth-cache K] [--public K]\n"
     "         [--proofs FILE] [--out DIR] [--key FILE] [--synth-only]\n"
     "         [--backend cpu|cuda|auto] [--g2-cpu] [--gpu-key auto|resident|streamed]\n"
     "         [--release-key]\n"
     "         [--trace FILE] [--timeline]\n"
     "       g16 bench --zkey K.zkey --wtns W0.wtns [W1.wtns ...] [-c/--count N]\n"
     "         [-j/--concurrency J] [--threads T] [--synth-threads T] [--lookahead L]\n"
     "         [--provers W] [--mem-budget BYTES] [--device-budget BYTES] [--proofs FILE]\n"
     "         [--out DIR]\n"
     "         [--backend cpu|cuda|auto] [--g2-cpu] [--gpu-key auto|resident|streamed]\n"
     "         [--release-key]\n"
     "         [--trace FILE] [--timeline]\n"
     "         (N jobs, each of one partition per witness file)\n"
     "       g16 bench --daemon URL [--token-file F] [-c/--count N] [-j/--concurrency J]\n"
     "         [--constraints N] [--partitions P] [--seed S] [--public K]\n"
     "         (N native jobs through a daemon, J in flight)\n"},
    {"setup", "usage: g16 setup <circuit.r1cs> <circuit.zkey> [--vk verification_key.json]\n"
              "  development setup: one process knows the trapdoor, not for production\n"},
    {"verify", "usage: g16 verify <verification_key.json> <public.json> <proof.json>\n"
               "  exit 0 valid, 1 invalid, 2 bad input; the proof as snarkjs proof.json or\n"
               "  the 192-byte binary form\n"},
    {"info", "usage: g16 info [--check] FILE\n"
             "  FILE: a .zkey, .wtns, .r1cs or native key (.g16k) file (told apart by its\n"
             "  magic)\n"
             "  --check: also read every coefficient, point, value or constraint\n"},
    {"trace", "usage: g16 trace report TRACE [--json]\n"
              "       g16 trace export --format chrome TRACE -o OUT.json\n"
              "       g16 trace plot TRACE -o OUT.svg|OUT.html\n"},
    {"submit", "usage: g16 submit " CONN "\n"
               "         (--key ID --witness W.wtns [--witness ...] |\n"
               "          [--circuit synthetic] --constraints N --partitions P [--seed S]\n"
               "          [--public K])\n"
               "         [--priority K] [--wait [--out DIR] [--timeout S]]\n"},
    {"status", "usage: g16 status " CONN " [ID]\n"
               "  the daemon's status, or job ID's\n"},
    {"wait", "usage: g16 wait " CONN " ID [--out DIR] [--timeout S]\n"
             "  exit 0 when the job is done, 1 when it failed or was cancelled\n"},
    {"cancel", "usage: g16 cancel " CONN " ID\n"},
};

const char *cli_usage(const char *command)
{
    for (size_t i = 0; i < sizeof USAGES / sizeof USAGES[0]; i++)
        if (!strcmp(USAGES[i].command, command))
            return USAGES[i].text;
    return NULL;
}

int cli_usage_error(const char *command)
{
    const char *text = cli_usage(command);
    fputs(text ? text : "usage: g16 help\n", stderr);
    return 2;
}
