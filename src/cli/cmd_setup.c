/* g16 setup circuit.r1cs circuit.zkey [--vk verification_key.json]
 * A single-party development setup. Exit status 0 on success, 2 on bad input. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "groth16/setup.h"
#include "io/snarkjs_json.h"
#include "util/clock.h"
#include "util/parallel.h"

static double g_start;

static void progress(const char *stage)
{
    fprintf(stderr, "  [%7.2f s] %s\n", clock_ms() / 1e3 - g_start, stage);
}

int cmd_setup(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *vk_path = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--vk") && i + 1 < argc)
            vk_path = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "g16 setup: unknown option %s\n", argv[i]);
            return 2;
        } else if (!in)
            in = argv[i];
        else if (!out)
            out = argv[i];
        else {
            fprintf(stderr, "g16 setup: too many arguments\n");
            return 2;
        }
    }
    if (!in || !out) {
        return cli_usage_error("setup");
    }
    const cli_path inputs[] = {{"constraint system", in}};
    const cli_path outputs[] = {{"key", out}, {"verifying key", vk_path}};
    if (!cli_paths_apart("g16 setup", inputs, 1, outputs, 2))
        return 2;
    /* Paths that cannot be written fail now, not after the setup's minutes. */
    atomic_file vk_out = {0};
    if (!cli_output_path_ok("g16 setup", out))
        return 2;
    if (vk_path && atomic_file_open(&vk_out, vk_path)) {
        fprintf(stderr, "g16 setup: %s\n", g16_last_error());
        return 2;
    }
    fprintf(stderr,
            "g16 setup: DEVELOPMENT SETUP, NOT FOR PRODUCTION. One party (this process) knows\n"
            "the trapdoor while it runs; it comes from the OS CSPRNG and is wiped after use,\n"
            "but production keys need a multi-party ceremony.\n");
    g_start = clock_ms() / 1e3;
    r1cs_t r1cs;
    constraint_matrices cs;
    groth16_setup_key key;
    g16_status st = r1cs_open(&r1cs, in);
    if (!st) {
        st = constraint_matrices_from_r1cs(&cs, &r1cs);
        r1cs_close(&r1cs);
    }
    if (st) {
        fprintf(stderr, "g16 setup: %s\n", g16_last_error());
        if (vk_path)
            atomic_file_discard(&vk_out);
        return 2;
    }
    fprintf(stderr, "  %zu constraints, %zu wires, %zu public, domain %zu, %u threads\n",
            cs.n_constraints, cs.n_vars, cs.n_public,
            setup_domain_size(cs.n_constraints, cs.n_public), parallel_threads());
    /* The key and its verifying key are written whole before either replaces its file:
     * a failure (a full disk) leaves both as they were. */
    atomic_file key_out = {0};
    st = groth16_setup(&key, &cs, progress);
    if (!st) {
        progress("writing the key");
        st = zkey_write_staged(&key_out, out, &key, &cs);
    }
    if (!st && vk_path) {
        groth16_vk vk = {.alpha1 = key.alpha1, .beta2 = key.beta2, .gamma2 = key.gamma2,
                         .delta2 = key.delta2, .n_public = key.n_public, .ic = key.ic};
        st = json_finish(&vk_out, json_vk_object(&vk));
    }
    if (!st)
        st = atomic_file_commit(&key_out);
    if (!st && vk_path)
        st = atomic_file_commit(&vk_out);
    if (key_out.name)
        atomic_file_discard(&key_out);
    if (vk_out.name)
        atomic_file_discard(&vk_out);
    if (!st)
        fprintf(stderr, "  [%7.2f s] done: %s%s%s\n", clock_ms() / 1e3 - g_start, out,
                vk_path ? ", " : "", vk_path ? vk_path : "");
    groth16_setup_key_free(&key);
    constraint_matrices_free(&cs);
    if (st) {
        fprintf(stderr, "g16 setup: %s\n", g16_last_error());
        return 2;
    }
    return 0;
}
