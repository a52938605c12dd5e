/* g16 bench --circuit synthetic --constraints N --partitions P [-c/--count N]
 *           [-j/--concurrency J] [--threads T] [--synth-threads T] [--lookahead L]
 *           [--provers W] [--mem-budget BYTES] [--synth-cost K] [--public K]
 *           [--proofs FILE] [--out DIR] [--key FILE] [--synth-only]
 *           [--backend cpu|cuda|auto] [--trace FILE] [--timeline]
 * g16 bench --zkey K.zkey --wtns W0.wtns [W1.wtns ...] [the pipeline, output and
 *           backend flags above]
 * Jobs (job/job.h) of P partitions of a native circuit through the pipeline
 * (pipeline/pipeline.h) on the chosen backend: setup once (development setup, in memory),
 * then N jobs (default 1), J submitted at a time (default 1; the flags of the reference
 * pipeline's benchmark, where c=3, j=3 means three proofs, three at a time). Partition p
 * of job k is the circuit with seed k P + p: synthesized, proved, verified. One job prints
 * a row per partition; several print a row per job; then throughput (seconds per job in
 * steady state, proofs per hour), per-stage averages, each stage's utilisation, the memory
 * budget and peak RSS (bench_run.c). --proofs writes every proof as a 192-byte
 * zcash-encoded record; --out DIR writes verification_key.json and, per partition,
 * proof_P.bin and public_P.json (proof_K_P.bin with several jobs), which `g16 verify`
 * checks.
 * --key caches the key in a native key file (io/native_key.h): an existing FILE made for
 * the same circuit, N and K is mapped (and read in) and the setup skipped; a missing FILE is written
 * after the setup; a FILE made for other parameters (or unreadable) is an error, exit 2,
 * and is never overwritten.
 * --trace FILE records the partitions' timeline (trace/trace_session.h) for `g16 trace`;
 * --timeline prints it on stderr as TIMELINE and TIMING lines.
 * G16_SETUP_TIMES=1 prints the setup's stage times on stderr (bench/NOTES.md).
 * --release-key (CUDA, key resident): the key is uploaded while the pipeline starts and
 * its host pages dropped (pipeline_config.release_key_host), so the budget and the RSS
 * hold partitions only; the peak RSS since the pipeline started is printed beside the
 * whole run's.
 * --zkey takes the circuit from a snarkjs key instead: every job has P = the number of
 * witness files after --wtns (a --partitions that says otherwise is an error), partition
 * p being witness file p, checked against the key when it is synthesized; the key's own
 * verifying key checks the proofs, and --out writes them as snarkjs proof.json files.
 * The flags that describe a native circuit (--circuit, --constraints, --public, --key,
 * --synth-cost, --synth-cache, --synth-only) are refused with it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backend/backend.h"
#include "bench_run.h"
#include "circuit/cs.h"
#include "circuit/synthetic.h"
#include "commands.h"
#include "curve/encoding.h"
#include "groth16/prove.h"
#include "io/native_key.h"
#include "io/zkey.h"
#include "trace/trace_session.h"
#include "util/clock.h"
#include "util/parallel.h"
#include "util/status.h"

static double peak_rss_gib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / (1024.0 * 1024.0); /* ru_maxrss is in KiB on Linux */
}

/* G16_SETUP_TIMES=1: each setup stage's wall time on stderr, and within it the time of
 * the fixed-base batches (wherever they run), so that the host part, which remains when
 * a device computes the batches, can be told apart (bench/NOTES.md). */
static struct {
    bool on;
    const char *stage; /* the stage running, NULL before the first and after the last */
    double start_ms, batch_ms;
    groth16_setup_accel inner;
} g_times;

static void stage_time_end(void)
{
    if (g_times.on && g_times.stage)
        fprintf(stderr, "setup time: %-42s %9.1f ms, fixed-base batches %9.1f ms\n",
                g_times.stage, clock_ms() - g_times.start_ms, g_times.batch_ms);
    g_times.stage = NULL;
}

static void setup_stage(const char *stage)
{
    stage_time_end();
    g_times.stage = stage;
    g_times.batch_ms = 0;
    g_times.start_ms = clock_ms();
    bench_progress("setup: %s", stage);
}

/* timed_g1_batch / timed_g2_batch: the batch (the backend's, else the CPU's), timed. */
#define DEFINE_TIMED_BATCH(G)                                                            \
    static g16_status timed_##G##_batch(void *ctx, G##_affine_t *out,                    \
                                        const G##_fixed_base *fb, const fr_t *k, size_t n) \
    {                                                                                    \
        (void)ctx;                                                                       \
        double t = clock_ms();                                                           \
        g16_status st = g_times.inner.G##_batch                                          \
                            ? g_times.inner.G##_batch(g_times.inner.ctx, out, fb, k, n)  \
                            : G##_fixed_base_batch(out, fb, k, n);                       \
        g_times.batch_ms += clock_ms() - t;                                              \
        return st;                                                                       \
    }
DEFINE_TIMED_BATCH(g1)
DEFINE_TIMED_BATCH(g2)

/* Touches every page of a mapped key, so that the load time includes reading it in and
 * the first partition's MSMs do not pay for the page faults. */
static void read_in(const uint8_t *p, uint64_t n)
{
    volatile uint8_t sink = 0;
    uint8_t acc = 0;
    for (uint64_t i = 0; i < n; i += 4096)
        acc ^= p[i];
    sink = acc;
    (void)sink;
}

static int usage(void) { return cli_usage_error("bench"); }

/* Jobs from a snarkjs key: the key is mapped (and read in, as a cached native key is) and
 * its coefficients checked once here, so that the jobs need not; the witness files are
 * opened by each partition's synthesis, so a bad one fails its job, not the run's start. */
static int bench_from_zkey(bench_run_opts *ro, const char *zkey_path, trace_session *trace,
                           double t0)
{
    zkey_t key = {0};
    groth16_vk vk = {0};
    bool have_vk = false;
    int rc = 2;
    double t = clock_ms();
    bench_progress("key: loading %s", zkey_path);
    g16_status st = zkey_open(&key, zkey_path);
    if (!st)
        st = zkey_validate_coefs(&key);
    if (!st)
        have_vk = (st = groth16_vk_from_zkey(&vk, &key)) == G16_OK;
    bench_progress_clear();
    if (st) {
        fprintf(stderr, "g16 bench: %s\n", g16_last_error());
        goto out;
    }
    read_in(key.file.data, key.file.size);
    double ms_load = clock_ms() - t;
    groth16_prover_key pk;
    groth16_prover_key_from_zkey(&pk, &key);
    ro->zkey = &key;
    ro->n_public = key.n_public;
    size_t m = zkey_num_constraints(&key);
    printf("g16 bench: zkey %s, %zu constraints (domain 2^%u), %u variables, %u public, %zu "
           "partitions (witness files), %u threads\n", zkey_path, m, key.log2_domain,
           key.n_vars, key.n_public, ro->partitions, parallel_threads());
    printf("  key: loaded %s (%.1f s), %u coefficients checked\n", zkey_path, ms_load / 1e3,
           key.n_coefs);
    fflush(stdout);
    rc = bench_run(ro, &pk, &vk, m, trace, t0);
out:
    if (have_vk)
        groth16_vk_free(&vk);
    zkey_close(&key);
    ro->zkey = NULL;
    return rc;
}

/* --synth-only: the witness side alone (no setup, no key, no proof), so synthesis speed
 * and memory per constraint can be measured at sizes whose key would not fit. Buffers are
 * sized from N (the synthetic circuit has fewer than N wires and constraints). */
static int bench_synthesis_only(size_t n_constraints, size_t n_public, size_t partitions)
{
    size_t cap = n_constraints;
    fr_t *z = malloc(cap * sizeof *z), *a = malloc(cap * sizeof *a);
    fr_t *b = malloc(cap * sizeof *b), *c = malloc(cap * sizeof *c);
    int rc = 2;
    if (!z || !a || !b || !c) {
        fprintf(stderr, "g16 bench: out of memory for 4 buffers of %zu elements\n", cap);
        goto out;
    }
    printf("g16 bench --synth-only: circuit synthetic, N = %zu, %zu public, %zu partitions "
           "(synthesis runs on one thread)\n", n_constraints, n_public, partitions);
    double sum = 0;
    size_t m = 0, nv = 0;
    for (size_t p = 0; p < partitions; p++) {
        memset(a, 0, cap * sizeof *a);
        memset(b, 0, cap * sizeof *b);
        memset(c, 0, cap * sizeof *c);
        cs_prove_buffers bufs = {.z = z, .z_cap = cap, .a = a, .b = b, .c = c, .abc_cap = cap};
        synthetic_params params = {.n_constraints = n_constraints, .n_public = n_public,
                                   .seed = p};
        cs_t *cs;
        double t = clock_ms();
        g16_status st = cs_create(&cs, CS_PROVE, n_public, &bufs);
        if (!st)
            st = cs_synthesize(cs, synthetic_circuit, &params);
        double ms = clock_ms() - t;
        if (!st) {
            m = cs_num_constraints(cs);
            nv = cs_num_vars(cs);
        }
        cs_free(cs);
        if (st) {
            fprintf(stderr, "g16 bench: %s\n", g16_last_error());
            goto out;
        }
        synthetic_stats ws = {0};
        synthetic_stats_witness(&ws, z, nv, n_public);
        printf("  partition %zu: %.1f ms, %.2f M constraints/s; witness %.1f%% zeros, %.1f%% "
               "ones, %.3f%% other\n", p, ms, m / ms / 1e3, 100 * ws.share_0, 100 * ws.share_1,
               100 * ws.share_other);
        sum += ms;
    }
    printf("  %zu constraints, %zu variables; average %.2f M constraints/s; buffers z, a, b, c: "
           "%.0f bytes per constraint; peak RSS %.2f GiB = %.0f bytes per constraint\n",
           m, nv, m / (sum / partitions) / 1e3, 4.0 * cap * sizeof(fr_t) / m, peak_rss_gib(),
           peak_rss_gib() * 1073741824.0 / m);
    rc = 0;
out:
    free(z);
    free(a);
    free(b);
    free(c);
    return rc;
}

/* A count flag's value: 1..max, else a message and false. */
static bool count_arg(size_t *out, const char *flag, const char *v, size_t max)
{
    return cli_count_arg(out, "g16 bench", flag, v, max);
}

int cmd_bench(int argc, char **argv)
{
    /* --daemon URL: the same jobs submitted to a daemon instead (cmd_client.c). */
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--daemon"))
            return client_bench(argc, argv);
    const char *circuit = "synthetic", *key_path = NULL, *trace_path = NULL;
    const char *zkey_path = NULL, *native_flag = NULL; /* the last native-circuit flag seen */
    size_t n_constraints = 1 << 16, n_wtns = 0;
    bool synth_only = false, timeline = false, partitions_given = false;
    bench_run_opts ro = {.count = 1, .concurrency = 1, .partitions = 2, .n_public = 16,
                         .synth_cost = 1, .backend = "auto"};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        size_t n;
        bool ok = true;
        if (!strcmp(a, "--circuit") || !strcmp(a, "--constraints") || !strcmp(a, "--public") ||
            !strcmp(a, "--key") || !strcmp(a, "--synth-cost") || !strcmp(a, "--synth-only") ||
            !strcmp(a, "--synth-cache"))
            native_flag = a;
        if (!strcmp(a, "--circuit") && v)
            circuit = argv[++i];
        else if (!strcmp(a, "--constraints") && v)
            ok = count_arg(&n_constraints, a, argv[++i], (size_t)1 << 40);
        else if (!strcmp(a, "--partitions") && v) {
            ok = count_arg(&ro.partitions, a, argv[++i], 100000);
            partitions_given = true;
        } else if (!strcmp(a, "--zkey") && v)
            zkey_path = argv[++i];
        else if (!strcmp(a, "--wtns") && v && v[0] != '-' && !ro.wtns_paths) {
            /* The witness files follow --wtns, as a shell glob gives them: they stay in
             * argv, which outlives the run. */
            ro.wtns_paths = (const char *const *)&argv[i + 1];
            while (i + 1 < argc && argv[i + 1][0] != '-') {
                n_wtns++;
                i++;
            }
        }
        else if ((!strcmp(a, "-c") || !strcmp(a, "--count")) && v)
            ok = count_arg(&ro.count, a, argv[++i], 100000);
        else if ((!strcmp(a, "-j") || !strcmp(a, "--concurrency")) && v)
            ok = count_arg(&ro.concurrency, a, argv[++i], 100000);
        else if (!strcmp(a, "--public") && v)
            ok = count_arg(&ro.n_public, a, argv[++i], (size_t)1 << 20);
        else if (!strcmp(a, "--threads") && v)
            ok = cli_threads_arg("g16 bench", argv[++i]);
        else if (!strcmp(a, "--synth-threads") && v) {
            ok = count_arg(&n, a, argv[++i], 256);
            ro.synth_threads = (unsigned)n;
        } else if (!strcmp(a, "--lookahead") && v) {
            ok = count_arg(&n, a, argv[++i], 1024);
            ro.lookahead = (unsigned)n;
        } else if (!strcmp(a, "--provers") && v) {
            ok = count_arg(&n, a, argv[++i], 64);
            ro.provers = (unsigned)n;
        } else if (!strcmp(a, "--synth-cost") && v) {
            ok = count_arg(&n, a, argv[++i], 100000);
            ro.synth_cost = (unsigned)n;
        } else if (!strcmp(a, "--mem-budget") && v) {
            if (!bench_parse_bytes(&ro.mem_budget, argv[++i])) {
                fprintf(stderr, "g16 bench: --mem-budget takes bytes, as 4096, 512M, 8G or "
                                "1.5GiB, not '%s'\n", argv[i]);
                ok = false;
            }
        } else if (!strcmp(a, "--device-budget") && v) {
            if (!bench_parse_bytes(&ro.device_budget, argv[++i])) {
                fprintf(stderr, "g16 bench: --device-budget takes bytes, as 64G, not '%s'\n",
                        argv[i]);
                ok = false;
            }
        } else if (!strcmp(a, "--proofs") && v)
            ro.proofs_path = argv[++i];
        else if (!strcmp(a, "--key") && v)
            key_path = argv[++i];
        else if (!strcmp(a, "--out") && v)
            ro.out_dir = argv[++i];
        else if (!strcmp(a, "--synth-cache") && v)
            ok = count_arg(&ro.synth_cache, a, argv[++i], 1024);
        else if (!strcmp(a, "--g2-cpu"))
            ro.g2_on_cpu = true;
        else if (!strcmp(a, "--release-key"))
            ro.release_key = true;
        else if (!strcmp(a, "--gpu-key") && v) {
            backend_key_placement kp;
            if (backend_key_placement_parse(&kp, argv[++i])) {
                ro.key_placement = (int)kp;
            } else {
                fprintf(stderr, "g16 bench: --gpu-key takes auto, resident or streamed, not '%s'\n",
                        argv[i]);
                ok = false;
            }
        }
        else if (!strcmp(a, "--synth-only"))
            synth_only = true;
        else if (!strcmp(a, "--backend") && v)
            ro.backend = argv[++i];
        else if (!strcmp(a, "--trace") && v)
            trace_path = argv[++i];
        else if (!strcmp(a, "--timeline"))
            timeline = true;
        else
            return usage();
        if (!ok)
            return 2;
    }
    if (ro.wtns_paths && !zkey_path) {
        fprintf(stderr, "g16 bench: --wtns needs --zkey (the key the witnesses are for)\n");
        return 2;
    }
    if (zkey_path) {
        if (!ro.wtns_paths) {
            fprintf(stderr, "g16 bench: --zkey needs --wtns W0.wtns [W1.wtns ...], a witness "
                            "file per partition\n");
            return 2;
        }
        if (native_flag) {
            fprintf(stderr, "g16 bench: %s describes a native circuit; with --zkey the key "
                            "is the circuit\n", native_flag);
            return 2;
        }
        if (partitions_given && ro.partitions != n_wtns) {
            fprintf(stderr, "g16 bench: --partitions %zu, but %zu witness file%s: with --zkey "
                            "each job has one partition per --wtns file\n", ro.partitions,
                    n_wtns, n_wtns == 1 ? "" : "s");
            return 2;
        }
        ro.partitions = n_wtns;
    }
    if (strcmp(circuit, "synthetic") != 0) {
        fprintf(stderr, "g16 bench: unknown circuit '%s' (available: synthetic)\n", circuit);
        return 2;
    }
    if (ro.concurrency > ro.count)
        ro.concurrency = ro.count;
    if (synth_only && (trace_path || timeline)) {
        fprintf(stderr, "g16 bench: --trace and --timeline record proving runs, not --synth-only\n");
        return 2;
    }
    /* --proofs and --trace must not land on the key (--key's file is read and written,
     * --zkey's mapped) or a witness. */
    cli_path *inputs = calloc(n_wtns + 2, sizeof *inputs);
    if (!inputs) {
        fprintf(stderr, "g16 bench: out of memory\n");
        return 2;
    }
    inputs[0] = (cli_path){"key", zkey_path ? zkey_path : key_path};
    for (size_t w = 0; w < n_wtns; w++)
        inputs[1 + w] = (cli_path){"witness", ro.wtns_paths[w]};
    const cli_path outputs[] = {{"--proofs file", ro.proofs_path},
                                {"trace", trace_path},
                                {"--out directory", ro.out_dir}};
    bool apart = cli_paths_apart("g16 bench", inputs, n_wtns + 1, outputs, 3);
    free(inputs);
    if (!apart)
        return 2;
    /* A --proofs path that cannot be a file fails now, not after the setup and the run. */
    if (ro.proofs_path && !cli_output_path_ok("g16 bench", ro.proofs_path))
        return 2;
    if (ro.out_dir && !cli_out_dir("g16 bench", ro.out_dir))
        return 2;
    /* The backend opens now: one that cannot (an unknown name, --backend cuda without a
     * usable GPU) is refused before the setup, which can take minutes; and the setup's
     * fixed-base products run on it (a GPU makes a 2^27 key in seconds). The pipeline
     * opens its own backends afterwards. */
    backend *setup_be = NULL;
    if (!synth_only && backend_open(&setup_be, ro.backend)) {
        fprintf(stderr, "g16 bench: %s\n", g16_last_error());
        return 2;
    }
    size_t n_public = ro.n_public, partitions = ro.partitions;
    ro.n_constraints = n_constraints;
    if (synth_only)
        return bench_synthesis_only(n_constraints, n_public, partitions);
    bench_progress_init(isatty(2));
    int rc = 2;
    double t0 = clock_ms(), t;
    cs_t *cs = NULL;
    constraint_matrices matrices = {0};
    groth16_setup_key key = {0};
    native_key_t nkey = {0};
    groth16_vk vk = {0};
    groth16_prover_key pk;
    trace_session *trace = NULL;
    g16_status st;

    synthetic_params params = {.n_constraints = n_constraints, .n_public = n_public, .seed = 0};
    synthetic_stats shape = {0};
    size_t m, nv, domain;
    double ms_setup = 0;
    bool loaded = false;
    if ((st = trace_session_start(&trace, trace_path, timeline ? stderr : NULL, "bench", argc,
                                  argv)))
        goto fail; /* before the setup: a bad --trace path fails at once */
    if (zkey_path) {
        rc = bench_from_zkey(&ro, zkey_path, trace, t0);
        goto finish;
    }
    if (key_path && access(key_path, F_OK) == 0) {
        /* A cached key: mapped, its points used in place; the setup is skipped. */
        t = clock_ms();
        bench_progress("key: loading %s", key_path);
        if ((st = native_key_open(&nkey, key_path)))
            goto fail;
        if (strcmp(nkey.circuit, "synthetic") != 0 || nkey.param_n != n_constraints ||
            nkey.param_public != n_public || nkey.n_public != n_public) {
            bench_progress_clear();
            fprintf(stderr,
                    "g16 bench: %s is a key for circuit %s with --constraints %llu --public "
                    "%llu, this run asks for circuit synthetic with --constraints %zu "
                    "--public %zu (remove the file or name another --key)\n",
                    key_path, nkey.circuit, (unsigned long long)nkey.param_n,
                    (unsigned long long)nkey.param_public, n_constraints, n_public);
            goto out;
        }
        read_in(nkey.file.data, nkey.file.size);
        if ((st = groth16_vk_from_native(&vk, &nkey)))
            goto fail;
        groth16_prover_key_from_native(&pk, &nkey);
        m = nkey.n_constraints;
        size_t n_aux = nkey.n_vars - nkey.n_public - 1;
        shape.density_a = n_aux ? (double)nkey.in_a / (double)n_aux : 0;
        shape.density_b = n_aux ? (double)nkey.in_b / (double)n_aux : 0;
        ms_setup = clock_ms() - t;
        loaded = true;
    } else {
        /* Setup: the circuit's matrices (its structure does not depend on the seed). */
        t = clock_ms();
        const char *times = getenv("G16_SETUP_TIMES");
        g_times.on = times && *times && strcmp(times, "0");
        setup_stage("synthesizing the constraint system");
        if ((st = cs_create(&cs, CS_SETUP, n_public, NULL)) ||
            (st = cs_synthesize(cs, synthetic_circuit, &params)))
            goto fail;
        setup_stage("taking the matrices");
        synthetic_stats_density(&shape, cs);
        if ((st = cs_take_matrices(cs, &matrices)))
            goto fail;
        cs_free(cs);
        cs = NULL;
        groth16_setup_accel accel;
        backend_setup_accel(setup_be, &accel);
        if (g_times.on) {
            g_times.inner = accel;
            accel = (groth16_setup_accel){.g1_batch = timed_g1_batch,
                                          .g2_batch = timed_g2_batch};
        }
        if ((st = groth16_setup_accelerated(&key, &matrices, setup_stage, &accel)))
            goto fail;
        ms_setup = clock_ms() - t;
        setup_stage("freeing the matrices");
        m = matrices.n_constraints;
        constraint_matrices_free(&matrices); /* ~40 bytes per term, unused from here */
        stage_time_end();
        if (key_path) {
            bench_progress("key: writing %s", key_path);
            if ((st = native_key_write(key_path, &key, "synthetic", n_constraints, n_public)))
                goto fail;
        }
        groth16_prover_key_from_setup(&pk, &key);
        vk = (groth16_vk){.alpha1 = key.alpha1, .beta2 = key.beta2, .gamma2 = key.gamma2,
                          .delta2 = key.delta2, .n_public = n_public, .ic = key.ic};
    }
    bench_progress_clear();
    nv = pk.n_vars;
    domain = pk.domain_size;
    printf("g16 bench: circuit synthetic, %zu constraints (domain 2^%u), %zu variables, "
           "%zu public, %zu partitions, %u threads\n",
           m, (unsigned)__builtin_ctzll(domain), nv, n_public, partitions, parallel_threads());
    if (loaded)
        printf("  key: loaded %s (%.1f s)\n", key_path, ms_setup / 1e3);
    else
        printf("  development setup (in memory, not for production): %.1f s, fixed-base "
               "products on %s\n", ms_setup / 1e3, setup_be->name);
    if (key_path && !loaded)
        printf("  key: wrote %s\n", key_path);
    printf("  shape: A-aux density %.1f%%, B-aux density %.1f%%\n", 100 * shape.density_a,
           100 * shape.density_b);
    fflush(stdout);
    backend_close(setup_be); /* its device scratch is not the pipeline's */
    setup_be = NULL;
    rc = bench_run(&ro, &pk, &vk, m, trace, t0);
finish:
    st = trace_session_finish(trace);
    trace = NULL;
    if (st && rc == 0) {
        fprintf(stderr, "g16 bench: %s\n", g16_last_error());
        rc = 2;
    }
    if (rc == 0 && trace_path)
        printf("  timeline: %s (g16 trace report %s)\n", trace_path, trace_path);
    goto out;
fail:
    bench_progress_clear();
    fprintf(stderr, "g16 bench: %s\n", g16_last_error());
out:
    trace_session_finish(trace); /* after a failure: what was recorded is still written */
    backend_close(setup_be);
    cs_free(cs);
    if (loaded)
        groth16_vk_free(&vk); /* otherwise vk's IC is the setup key's */
    groth16_setup_key_free(&key);
    native_key_close(&nkey);
    constraint_matrices_free(&matrices);
    return rc;
}
