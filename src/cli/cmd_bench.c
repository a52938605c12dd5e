/* g16 bench --circuit synthetic --constraints N --partitions P [--threads T]
 *           [--public K] [--proofs FILE] [--out DIR] [--key FILE] [--synth-only]
 *           [--backend cpu|cuda|auto] [--trace FILE] [--timeline]
 * A job (job/job.h) of P partitions of a native circuit on the chosen backend: setup once
 * (development setup, in memory), then for each partition synthesize its witness (seed =
 * partition index), prove, verify; per-stage times, constraints per second, proofs per
 * hour and peak memory. --proofs writes the P proofs as 192-byte zcash-encoded records; --out DIR
 * writes verification_key.json and, per partition, proof_P.bin and public_P.json, which
 * `g16 verify` checks.
 * --key caches the key in a native key file (io/native_key.h): an existing FILE made for
 * the same circuit, N and K is mapped (and read in) and the setup skipped; a missing FILE is written
 * after the setup; a FILE made for other parameters (or unreadable) is an error, exit 2,
 * and is never overwritten.
 * --trace FILE records the partitions' timeline (trace/trace_session.h) for `g16 trace`;
 * --timeline prints it on stderr as TIMELINE and TIMING lines. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backend/backend.h"
#include "circuit/cs.h"
#include "circuit/synthetic.h"
#include "commands.h"
#include "curve/encoding.h"
#include "groth16/prove.h"
#include "io/proof_bin.h"
#include "io/snarkjs_json.h"
#include "io/native_key.h"
#include "trace/trace_session.h"
#include "job/job.h"
#include "util/clock.h"
#include "util/parallel.h"
#include "util/status.h"

static double peak_rss_gib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / (1024.0 * 1024.0); /* ru_maxrss is in KiB on Linux */
}

static bool g_tty;

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
    if (!g_tty)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\r\033[K");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static void progress_clear(void)
{
    if (g_tty)
        fprintf(stderr, "\r\033[K");
}

static void setup_stage(const char *stage) { progress("setup: %s", stage); }

static size_t g_partitions;

static void partition_stage(void *ctx, size_t p, const char *stage)
{
    progress("partition %zu/%zu: %s", p + 1, g_partitions, stage);
}

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

static int usage(void)
{
    fprintf(stderr, "usage: g16 bench --circuit synthetic --constraints N --partitions P "
                    "[--threads T] [--public K] [--proofs FILE] [--out DIR] [--key FILE] [--synth-only]\n"
                    "       [--backend cpu|cuda|auto] [--trace FILE] [--timeline]\n");
    return 2;
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

int cmd_bench(int argc, char **argv)
{
    const char *circuit = "synthetic", *proofs_path = NULL, *key_path = NULL, *out_dir = NULL;
    const char *trace_path = NULL;
    size_t n_constraints = 1 << 16, partitions = 2, n_public = 16;
    bool synth_only = false, timeline = false;
    const char *backend_name = "auto";
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--circuit") && v)
            circuit = argv[++i];
        else if (!strcmp(argv[i], "--constraints") && v)
            n_constraints = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--partitions") && v)
            partitions = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--public") && v)
            n_public = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--threads") && v)
            parallel_set_threads((unsigned)strtoul(argv[++i], NULL, 10));
        else if (!strcmp(argv[i], "--proofs") && v)
            proofs_path = argv[++i];
        else if (!strcmp(argv[i], "--key") && v)
            key_path = argv[++i];
        else if (!strcmp(argv[i], "--out") && v)
            out_dir = argv[++i];
        else if (!strcmp(argv[i], "--synth-only"))
            synth_only = true;
        else if (!strcmp(argv[i], "--backend") && v)
            backend_name = argv[++i];
        else if (!strcmp(argv[i], "--trace") && v)
            trace_path = argv[++i];
        else if (!strcmp(argv[i], "--timeline"))
            timeline = true;
        else
            return usage();
    }
    if (strcmp(circuit, "synthetic") != 0) {
        fprintf(stderr, "g16 bench: unknown circuit '%s' (available: synthetic)\n", circuit);
        return 2;
    }
    if (partitions < 1 || partitions > 100000) {
        fprintf(stderr, "g16 bench: --partitions must be 1..100000\n");
        return 2;
    }
    if (synth_only && (trace_path || timeline)) {
        fprintf(stderr, "g16 bench: --trace and --timeline record proving runs, not --synth-only\n");
        return 2;
    }
    if (synth_only)
        return bench_synthesis_only(n_constraints, n_public, partitions);
    g_tty = isatty(2);
    int rc = 2;
    double t0 = clock_ms(), t;
    cs_t *cs = NULL;
    constraint_matrices matrices = {0};
    groth16_setup_key key = {0};
    native_key_t nkey = {0};
    groth16_vk vk = {0};
    groth16_prover_key pk;
    job_t *job = NULL;
    job_buffers bufs = {0};
    synthetic_params *part_params = NULL;
    const void **part_ptrs = NULL;
    FILE *proofs = NULL;
    backend *be = NULL;
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
    if (key_path && access(key_path, F_OK) == 0) {
        /* A cached key: mapped, its points used in place; the setup is skipped. */
        t = clock_ms();
        progress("key: loading %s", key_path);
        if ((st = native_key_open(&nkey, key_path)))
            goto fail;
        if (strcmp(nkey.circuit, "synthetic") != 0 || nkey.param_n != n_constraints ||
            nkey.param_public != n_public || nkey.n_public != n_public) {
            progress_clear();
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
        progress("setup: synthesizing the constraint system");
        if ((st = cs_create(&cs, CS_SETUP, n_public, NULL)) ||
            (st = cs_synthesize(cs, synthetic_circuit, &params)))
            goto fail;
        synthetic_stats_density(&shape, cs);
        if ((st = cs_take_matrices(cs, &matrices)))
            goto fail;
        cs_free(cs);
        cs = NULL;
        if ((st = groth16_setup(&key, &matrices, setup_stage)))
            goto fail;
        ms_setup = clock_ms() - t;
        m = matrices.n_constraints;
        constraint_matrices_free(&matrices); /* ~40 bytes per term, unused from here */
        if (key_path) {
            progress("key: writing %s", key_path);
            if ((st = native_key_write(key_path, &key, "synthetic", n_constraints, n_public)))
                goto fail;
        }
        groth16_prover_key_from_setup(&pk, &key);
        vk = (groth16_vk){.alpha1 = key.alpha1, .beta2 = key.beta2, .gamma2 = key.gamma2,
                          .delta2 = key.delta2, .n_public = n_public, .ic = key.ic};
    }
    progress_clear();
    nv = pk.n_vars;
    domain = pk.domain_size;
    printf("g16 bench: circuit synthetic, %zu constraints (domain 2^%u), %zu variables, "
           "%zu public, %zu partitions, %u threads\n",
           m, (unsigned)__builtin_ctzll(domain), nv, n_public, partitions, parallel_threads());
    if (loaded)
        printf("  key: loaded %s (%.1f s)\n", key_path, ms_setup / 1e3);
    else
        printf("  development setup (in memory, not for production): %.1f s\n",
               ms_setup / 1e3);
    if (key_path && !loaded)
        printf("  key: wrote %s\n", key_path);
    printf("  shape: A-aux density %.1f%%, B-aux density %.1f%%\n", 100 * shape.density_a,
           100 * shape.density_b);
    if ((st = backend_open(&be, backend_name)))
        goto fail;
    groth16_prove_options prove_opts = {0};
    backend_prove_options(be, &prove_opts);
    printf("  backend: %s\n", be->description);

    /* The job: partition p is the synthetic circuit with seed p, all sharing the key. */
    part_params = calloc(partitions, sizeof *part_params);
    part_ptrs = calloc(partitions, sizeof *part_ptrs);
    if (!part_params || !part_ptrs) {
        fprintf(stderr, "g16 bench: out of memory for %zu partitions\n", partitions);
        goto out;
    }
    for (size_t p = 0; p < partitions; p++) {
        part_params[p] = params;
        part_params[p].seed = p;
        part_ptrs[p] = &part_params[p];
    }
    job_config jc = {.circuit = synthetic_circuit, .params = part_ptrs,
                     .n_partitions = partitions, .n_public = n_public, .n_constraints = m,
                     .pk = &pk, .vk = &vk, .on_stage = partition_stage,
                     .prove_opts = &prove_opts};
    if ((st = job_create(&job, &jc)) || (st = job_buffers_alloc(&bufs, job)))
        goto fail;
    if (proofs_path && !(proofs = fopen(proofs_path, "wb"))) {
        perror(proofs_path);
        goto out;
    }
    if (out_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/verification_key.json", out_dir);
        if ((st = json_write_vk(path, &vk)))
            goto fail;
    }

    double sum_synth = 0, sum_up = 0, sum_h = 0, sum_g1 = 0, sum_g2 = 0, sum_verify = 0,
           sum_total = 0;
    printf("  %-9s %9s %9s %9s %9s %9s %9s %9s  %s\n", "partition", "synth ms", "upload",
           "H ms", "G1 MSM", "G2 MSM", "verify", "total ms", "witness 0/1/other");
    g_partitions = partitions;
    for (size_t p = 0; p < partitions; p++) {
        st = job_prove_partition(job, p, &bufs);
        const job_result *r = job_get_result(job, p);
        if (st == G16_ERR_VERIFY_FAILED) {
            progress_clear();
            fprintf(stderr, "g16 bench: %s\n", r->error);
            rc = 1;
            goto out;
        }
        if (st)
            goto fail;
        const groth16_proof *proof = &r->proof;
        if (proofs) {
            uint8_t rec[PROOF_BIN_BYTES];
            proof_bin_encode(rec, proof);
            if (fwrite(rec, sizeof rec, 1, proofs) != 1) {
                perror(proofs_path);
                goto out;
            }
        }
        if (out_dir) {
            /* What `g16 verify` needs per partition: the 192-byte proof and its inputs. */
            char path[4096];
            snprintf(path, sizeof path, "%s/proof_%zu.bin", out_dir, p);
            if ((st = proof_bin_write(path, proof)))
                goto fail;
            snprintf(path, sizeof path, "%s/public_%zu.json", out_dir, p);
            if ((st = json_write_public(path, r->public_inputs, n_public)))
                goto fail;
        }
        progress_clear();
        printf("  %-9zu %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f  %zu/%zu/%zu\n", p,
               r->ms_synth, r->ms_upload, r->ms_h, r->ms_msm_g1, r->ms_msm_g2, r->ms_verify, r->ms_total,
               r->scalars_zero, r->scalars_one, r->scalars_other);
        fflush(stdout);
        trace_session_partition_done(trace, 0, (int32_t)p);
        sum_synth += r->ms_synth;
        sum_up += r->ms_upload;
        sum_h += r->ms_h;
        sum_g1 += r->ms_msm_g1;
        sum_g2 += r->ms_msm_g2;
        sum_verify += r->ms_verify;
        sum_total += r->ms_total;
    }
    double k = (double)partitions;
    printf("  %-9s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", "average", sum_synth / k,
           sum_up / k, sum_h / k,
           sum_g1 / k, sum_g2 / k, sum_verify / k, sum_total / k);
    printf("  synthesis: %.2f M constraints/s; proving: %.1f proofs/hour (%.2f s per "
           "partition); every proof verified\n",
           m / (sum_synth / k) / 1e3, 3600e3 / (sum_total / k), sum_total / k / 1e3);
    printf("  wall %.1f s, peak RSS %.2f GiB%s%s\n", (clock_ms() - t0) / 1e3, peak_rss_gib(),
           proofs ? "; proofs (192-byte zcash encoding) in " : "", proofs ? proofs_path : "");
    st = trace_session_finish(trace);
    trace = NULL;
    if (st)
        goto fail;
    if (trace_path)
        printf("  timeline: %s (g16 trace report %s)\n", trace_path, trace_path);
    rc = 0;
    goto out;
fail:
    progress_clear();
    fprintf(stderr, "g16 bench: %s\n", g16_last_error());
out:
    trace_session_finish(trace); /* after a failure: what was recorded is still written */
    if (proofs && fclose(proofs) != 0 && rc == 0) {
        perror(proofs_path);
        rc = 2;
    }
    job_buffers_free(&bufs);
    job_free(job);
    free(part_params);
    free(part_ptrs);
    cs_free(cs);
    backend_close(be);
    if (loaded)
        groth16_vk_free(&vk); /* otherwise vk's IC is the setup key's */
    groth16_setup_key_free(&key);
    native_key_close(&nkey);
    constraint_matrices_free(&matrices);
    return rc;
}
