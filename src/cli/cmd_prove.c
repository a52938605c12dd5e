/* g16 prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>
 * (rapidsnark's argument order; --zkey/--wtns/--proof/--public name them instead)
 * Proves on the CPU, checks the proof against the key's own verifying key (skip with
 * --no-verify), writes snarkjs JSON. Exit 0 proved, 1 the proof failed its check,
 * 2 bad arguments or input. --trace FILE and --timeline record the timeline (job 0,
 * partition 0), as in g16 bench. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "backend/backend.h"
#include "groth16/prove.h"
#include "io/snarkjs_json.h"
#include "trace/trace_session.h"
#include "util/parallel.h"

static int fail(const char *what)
{
    fprintf(stderr, "g16 prove: %s%s%s\n", what, *what ? ": " : "", g16_last_error());
    return 2;
}

int cmd_prove(int argc, char **argv)
{
    const char *paths[4] = {NULL, NULL, NULL, NULL};
    static const char *flags[4] = {"--zkey", "--wtns", "--proof", "--public"};
    bool verify = true, quiet = false, timeline = false, g2_on_cpu = false;
    const char *backend_name = "auto";
    const char *trace_path = NULL;
    int positional = 0;
    for (int i = 0; i < argc; i++) {
        int f = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(argv[i], flags[k]))
                f = k;
        if (f >= 0 && i + 1 < argc)
            paths[f] = argv[++i];
        else if (!strcmp(argv[i], "--no-verify"))
            verify = false;
        else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
            quiet = true;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (!cli_threads_arg("g16 prove", argv[++i]))
                return 2;
        } else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            backend_name = argv[++i];
        else if (!strcmp(argv[i], "--trace") && i + 1 < argc)
            trace_path = argv[++i];
        else if (!strcmp(argv[i], "--timeline"))
            timeline = true;
        else if (!strcmp(argv[i], "--g2-cpu"))
            g2_on_cpu = true;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "g16 prove: unknown option %s\n", argv[i]);
            return 2;
        } else if (positional < 4) {
            while (positional < 4 && paths[positional])
                positional++;
            if (positional < 4)
                paths[positional++] = argv[i];
        } else {
            fprintf(stderr, "g16 prove: too many arguments\n");
            return 2;
        }
    }
    for (int k = 0; k < 4; k++)
        if (!paths[k]) {
            return cli_usage_error("prove");
        }
    const cli_path in[] = {{"key", paths[0]}, {"witness", paths[1]}};
    const cli_path out[] = {{"proof", paths[2]}, {"public inputs", paths[3]},
                            {"trace", trace_path}};
    if (!cli_paths_apart("g16 prove", in, 2, out, 3))
        return 2;
    /* Both outputs made (as temporaries) before the work: a path that cannot be written
     * fails now, not after the proof, and never leaves one file of the two. */
    atomic_file proof_out, public_out;
    if (atomic_file_open(&proof_out, paths[2]))
        return fail("");
    if (atomic_file_open(&public_out, paths[3])) {
        atomic_file_discard(&proof_out);
        return fail("");
    }

    backend *be;
    if (backend_open(&be, backend_name)) {
        atomic_file_discard(&proof_out);
        atomic_file_discard(&public_out);
        return fail("");
    }
    zkey_t key;
    wtns_t wtns;
    if (zkey_open(&key, paths[0])) {
        backend_close(be);
        atomic_file_discard(&proof_out);
        atomic_file_discard(&public_out);
        return fail("");
    }
    if (wtns_open(&wtns, paths[1])) {
        zkey_close(&key);
        backend_close(be);
        atomic_file_discard(&proof_out);
        atomic_file_discard(&public_out);
        return fail("");
    }
    groth16_prove_options opts = {0};
    backend_prove_options(be, &opts);
    opts.g2_on_cpu = g2_on_cpu;
    groth16_proof proof;
    fr_t *inputs = NULL;
    groth16_prove_stats stats;
    int rc = 0;
    trace_session *trace = NULL;
    g16_status st = trace_session_start(&trace, trace_path, timeline ? stderr : NULL, "prove",
                                        argc, argv);
    if (st) {
        rc = fail("");
        goto out;
    }
    trace_context_set(0, 0);
    st = groth16_prove_zkey(&proof, &inputs, &stats, &key, &wtns, &opts);
    if (st) {
        rc = fail("");
        goto out;
    }
    if (verify) {
        groth16_vk vk;
        if ((st = groth16_vk_from_zkey(&vk, &key))) {
            rc = fail("reading the verifying key");
            goto out;
        }
        uint64_t trace_t = trace_begin();
        st = groth16_verify(&vk, inputs, key.n_public, &proof);
        trace_end(trace_t, TRACE_VERIFY, "");
        groth16_vk_free(&vk);
        if (st) {
            fprintf(stderr, "g16 prove: the proof does not verify against the key: %s\n",
                    g16_last_error());
            rc = 1;
            goto out;
        }
    }
    /* Both written in full before either replaces its file: a failure (a full disk)
     * leaves the old pair, never a new proof beside old public inputs. */
    st = json_finish(&proof_out, json_proof_object(&proof));
    if (!st)
        st = json_finish(&public_out, json_public_array(inputs, key.n_public));
    if (!st)
        st = atomic_file_commit(&proof_out);
    if (!st)
        st = atomic_file_commit(&public_out);
    if (st) {
        rc = fail("");
        goto out;
    }
    if (!quiet)
        fprintf(stderr,
                "g16 prove: backend %s; domain %u, %u signals: %.1f ms "
                "(witness %.1f, upload %.1f, H %.1f, G1 MSMs %.1f, G2 MSM %.1f); witness %zu "
                "zero, %zu one, %zu other%s\n",
                be->description, key.domain_size, key.n_vars, stats.ms_total,
                stats.ms_witness, stats.ms_upload, stats.ms_h, stats.ms_msm_g1, stats.ms_msm_g2,
                stats.scalars_zero, stats.scalars_one, stats.scalars_other,
                verify ? "; proof verified" : "");
    trace_session_partition_done(trace, 0, 0);
    st = trace_session_finish(trace);
    trace = NULL;
    if (st)
        rc = fail("writing the trace");
out:
    if (proof_out.name) /* neither committed nor discarded yet */
        atomic_file_discard(&proof_out);
    if (public_out.name)
        atomic_file_discard(&public_out);
    trace_session_finish(trace);
    free(inputs);
    wtns_close(&wtns);
    zkey_close(&key);
    backend_close(be);
    return rc;
}
