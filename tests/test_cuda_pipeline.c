/* The pipeline on the GPU (needs a CUDA device; exit 77, skipped, without one):
 *
 * - Two jobs (3 then 4 partitions of the synthetic circuit at 2^14 with its
 *   density-compressed key, so the device gathers A's and B's scalars) through two GPU
 *   workers on each device: for fixed r, s every proof and public input equals proving
 *   the same partitions one by one on the CPU.
 * - The steady state allocates nothing on the device: cudaMalloc, cudaFree and pool trims
 *   counted after the first job stay the same through the second (every device buffer comes
 *   from the workers' pools, the key is resident, the host slots pinned once).
 * - The same with the B2 MSM on the CPU, and with the key streamed from host memory in
 *   small chunks instead of resident (pinned at start-up; nothing of the key then
 *   resident).
 * - The development setup with the GPU's fixed-base products makes the CPU's key.
 * - The figures the pipeline reports: workers per device, peak device memory, the key
 *   resident; pinned host buffers are pinned (and plain ones are not). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "circuit/synthetic.h"
#include "circuit_key.h"
#include "harness.h"
#include "pipeline/pipeline.h"

enum { N_TARGET = 1 << 14, N_PUBLIC = 3, MAX_PARTS = 6, TIMEOUT_S = 600 };

static fr_t g_r, g_s;
static groth16_prove_options g_fixed = {.fixed_r = &g_r, .fixed_s = &g_s};

typedef struct {
    synthetic_params params[MAX_PARTS];
    const void *ptrs[MAX_PARTS];
    size_t n;
    job_t *job;
} test_job;

static g16_status circuit(cs_t *cs, const void *p) { return synthetic_circuit(cs, p); }

static bool make_job(test_job *tj, const test_circuit_key *k, int32_t id, size_t n, uint64_t seed)
{
    memset(tj, 0, sizeof *tj);
    tj->n = n;
    for (size_t p = 0; p < n; p++) {
        tj->params[p] = (synthetic_params){.n_constraints = N_TARGET, .n_public = N_PUBLIC,
                                           .seed = seed + p};
        tj->ptrs[p] = &tj->params[p];
    }
    job_config cfg = {.circuit = circuit, .params = tj->ptrs, .n_partitions = n,
                      .n_public = N_PUBLIC, .n_constraints = k->mat.n_constraints,
                      .pk = &k->pk, .vk = &k->vk, .prove_opts = &g_fixed, .id = id};
    return CHECK(job_create(&tj->job, &cfg) == G16_OK);
}


static bool run_job(pipeline *pl, const test_circuit_key *k, int32_t id, size_t n, uint64_t seed)
{
    test_job tj;
    pipeline_job *pj = NULL;
    if (!make_job(&tj, k, id, n, seed))
        return false;
    bool ok = CHECK(pipeline_submit(pl, &pj, tj.job) == G16_OK) &&
              CHECK(pipeline_wait(pl, pj) == G16_OK);
    if (!ok)
        fprintf(stderr, "  job %d: %s\n", (int)id, g16_last_error());
    if (pj)
        pipeline_job_release(pl, pj);
    if (ok)
        test_job_equals_sequential(k, tj.job, tj.n); /* the CPU: the job's own options */
    job_free(tj.job);
    return ok;
}

/* The key's host pages dropped once it is resident (release_key_host): the pipeline gets
 * a copy of the key's points, whose pages it drops at start-up (they read as zeros
 * after), and its proofs equal the CPU's with the original key; the budget no longer
 * charges the key. */
static void test_release(const test_circuit_key *k, const pipeline_config *base)
{
    groth16_prover_key pk = k->pk;
    const uint8_t *src[BACKEND_KEY_ARRAYS];
    size_t bytes[BACKEND_KEY_ARRAYS];
    backend_key_arrays(&pk, src, bytes);
    uint8_t *copy[BACKEND_KEY_ARRAYS] = {0};
    bool ok = true;
    for (int i = 0; i < 5; i++) {
        copy[i] = aligned_alloc(4096, (bytes[i] + 4095) / 4096 * 4096);
        ok = ok && copy[i];
        if (copy[i])
            memcpy(copy[i], src[i], bytes[i]);
    }
    pipeline *pl = NULL;
    if (CHECK(ok)) {
        pk.a = copy[0], pk.b1 = copy[1], pk.b2 = copy[2], pk.c = copy[3], pk.h = copy[4];
        pipeline_config cfg = *base;
        cfg.key = &pk;
        cfg.key_placement = BACKEND_KEY_RESIDENT;
        cfg.release_key_host = true;
        if (!CHECK(pipeline_create(&pl, &cfg) == G16_OK))
            fprintf(stderr, "  pipeline_create (release): %s\n", g16_last_error());
    }
    if (pl) {
        pipeline_stats st;
        pipeline_stats_get(pl, &st);
        printf("  release_key_host: %.1f MiB of key pages dropped, key charged %llu bytes\n",
               st.key_host_released / 1048576.0, (unsigned long long)st.key_host_bytes);
        CHECK(st.key_host_released >= bytes[4] - 8192 && st.key_host_bytes == 0);
        bool zero = true; /* a dropped page of H's copy */
        for (size_t i = 4096; i < 8192 && i < bytes[4]; i++)
            zero = zero && copy[4][i] == 0;
        CHECK(zero);
        test_job tj;
        memset(&tj, 0, sizeof tj);
        tj.n = 2;
        for (size_t p = 0; p < tj.n; p++) {
            tj.params[p] = (synthetic_params){.n_constraints = N_TARGET, .n_public = N_PUBLIC,
                                              .seed = 500 + p};
            tj.ptrs[p] = &tj.params[p];
        }
        job_config jc = {.circuit = circuit, .params = tj.ptrs, .n_partitions = tj.n,
                         .n_public = N_PUBLIC, .n_constraints = k->mat.n_constraints,
                         .pk = &pk, .vk = &k->vk, .prove_opts = &g_fixed, .id = 5};
        pipeline_job *pj = NULL;
        if (CHECK(job_create(&tj.job, &jc) == G16_OK) &&
            CHECK(pipeline_submit(pl, &pj, tj.job) == G16_OK) &&
            CHECK(pipeline_wait(pl, pj) == G16_OK)) {
            /* The CPU, with the original key's points. */
            job_config seq_cfg = jc;
            seq_cfg.pk = &k->pk;
            job_t *seq = NULL;
            if (CHECK(job_create(&seq, &seq_cfg) == G16_OK) &&
                CHECK(job_prove_all(seq) == G16_OK))
                for (size_t p = 0; p < tj.n; p++) {
                    const job_result *a = job_get_result(tj.job, p), *b = job_get_result(seq, p);
                    CHECK(a->state == JOB_PARTITION_PROVED &&
                          memcmp(&a->proof, &b->proof, sizeof a->proof) == 0);
                }
            job_free(seq);
        }
        if (pj)
            pipeline_job_release(pl, pj);
        CHECK(pipeline_shutdown(pl, PIPELINE_DRAIN) == G16_OK);
        pipeline_free(pl);
        job_free(tj.job);
    }
    for (int i = 0; i < 5; i++)
        free(copy[i]);
}

/* One worker (the 80 GB card's 2^27 plan): the next partition's a is staged on the device
 * during the current one (pipeline_plan_stage, backend.next_input), across partitions and
 * across jobs, with the key resident (G16_GPU_STAGE_NEXT unset: the default) and streamed
 * (=1). The same proofs; partitions after the first job's make no device allocation.
 * G16_GPU_STAGE_NEXT=0: nothing staged. */
static void test_staged(const test_circuit_key *k, const pipeline_config *base)
{
    pipeline_config one = *base;
    one.gpu_workers = 1;
    if (backend_cuda_device_count() != 1) { /* one prover a device: staging needs one in all */
        printf("  staged inputs: skipped (%d devices; staging needs one prover in all)\n",
               backend_cuda_device_count());
        return;
    }
    for (int streamed = 0; streamed < 2; streamed++) {
        one.key_placement = streamed ? BACKEND_KEY_STREAMED : BACKEND_KEY_AUTO;
        if (streamed) {
            setenv("G16_GPU_STREAM_CHUNK", "192000", 1);
            setenv("G16_GPU_STAGE_NEXT", "1", 1);
        } else {
            unsetenv("G16_GPU_STAGE_NEXT");
        }
        pipeline *pl = NULL;
        if (!CHECK(pipeline_create(&pl, &one) == G16_OK)) {
            fprintf(stderr, "  pipeline_create: %s\n", g16_last_error());
            unsetenv("G16_GPU_STREAM_CHUNK");
            unsetenv("G16_GPU_STAGE_NEXT");
            return;
        }
        printf("  %s\n", pipeline_describe(pl));
        CHECK(strstr(pipeline_describe(pl), "next partition's a staged") != NULL);
        unsigned long long m0 = 0, f0 = 0, t0 = 0, m1 = 0, f1 = 0, t1 = 0;
        if (run_job(pl, k, 10 + 2 * streamed, 5, 600 + 100 * streamed)) {
#ifdef G16_HAVE_CUDA
            cuda_alloc_counts(&m0, &f0, &t0);
#endif
            run_job(pl, k, 11 + 2 * streamed, 6, 650 + 100 * streamed);
#ifdef G16_HAVE_CUDA
            cuda_alloc_counts(&m1, &f1, &t1);
#endif
            CHECK(m1 == m0 && f1 == f0 && t1 == t0);
        }
        pipeline_stats st;
        pipeline_stats_get(pl, &st);
        printf("  staged (key %s): %llu of %zu partitions' a staged; device allocations in "
               "the second job: %llu mallocs, %llu frees\n",
               streamed ? "streamed" : "resident", (unsigned long long)st.inputs_staged,
               st.partitions_proved, m1 - m0, f1 - f0);
        CHECK(st.inputs_staging && st.partitions_proved == 11);
        CHECK(st.key_streamed == (streamed == 1));
        /* Synthesis of these small partitions outruns the GPU: later ones wait queued. */
        CHECK(st.inputs_staged >= 1 && st.inputs_staged <= 10);
        CHECK(pipeline_shutdown(pl, PIPELINE_DRAIN) == G16_OK);
        pipeline_free(pl);
        unsetenv("G16_GPU_STREAM_CHUNK");
    }
    one.key_placement = BACKEND_KEY_AUTO;
    setenv("G16_GPU_STAGE_NEXT", "0", 1);
    pipeline *pl = NULL;
    if (CHECK(pipeline_create(&pl, &one) == G16_OK)) {
        CHECK(strstr(pipeline_describe(pl), "staged") == NULL);
        run_job(pl, k, 14, 3, 900);
        pipeline_stats st;
        pipeline_stats_get(pl, &st);
        CHECK(!st.inputs_staging && st.inputs_staged == 0 && st.partitions_proved == 3);
        CHECK(pipeline_shutdown(pl, PIPELINE_DRAIN) == G16_OK);
        pipeline_free(pl);
    }
    unsetenv("G16_GPU_STAGE_NEXT");
}

/* The development setup with its fixed-base products on the GPU makes the CPU's key, point
 * for point, for the same trapdoor. */
static void test_setup_on_gpu(const test_circuit_key *k)
{
    backend *be = NULL;
    if (!CHECK(backend_cuda_open(&be, 0) == G16_OK))
        return;
    fr_t trapdoor[4]; /* never 0 or +-1: tau = +-1 lies in the domain (run 114 drew one) */
    for (int i = 0; i < 4; i++)
        test_random_fr_generic(&trapdoor[i]);
    groth16_setup_key cpu = {0}, gpu = {0};
    groth16_setup_accel accel;
    backend_setup_accel(be, &accel);
    CHECK(accel.g1_batch && accel.g2_batch);
    if (CHECK(groth16_setup_with_trapdoor(&cpu, &k->mat, trapdoor, NULL) == G16_OK) &&
        CHECK(groth16_setup_with_trapdoor_accelerated(&gpu, &k->mat, trapdoor, NULL, &accel) ==
              G16_OK)) {
        CHECK(cpu.n_a == gpu.n_a && cpu.n_b == gpu.n_b && cpu.n_vars == gpu.n_vars);
        size_t np = cpu.n_public, n_priv = cpu.n_vars - np - 1;
        CHECK(memcmp(cpu.a, gpu.a, cpu.n_a * sizeof *cpu.a) == 0);
        CHECK(memcmp(cpu.b1, gpu.b1, cpu.n_b * sizeof *cpu.b1) == 0);
        CHECK(memcmp(cpu.b2, gpu.b2, cpu.n_b * sizeof *cpu.b2) == 0);
        CHECK(memcmp(cpu.ic, gpu.ic, (np + 1) * sizeof *cpu.ic) == 0);
        CHECK(memcmp(cpu.c, gpu.c, n_priv * sizeof *cpu.c) == 0);
        CHECK(memcmp(cpu.h, gpu.h, cpu.domain_size * sizeof *cpu.h) == 0);
    }
    groth16_setup_key_free(&cpu);
    groth16_setup_key_free(&gpu);
    backend_close(be);
}

static void test_pinned(void)
{
    void *p = NULL, *q = NULL;
    CHECK(backend_host_alloc(&p, 1 << 20, true) == G16_OK);
    CHECK(backend_host_alloc(&q, 1 << 20, false) == G16_OK);
#ifdef G16_HAVE_CUDA
    CHECK(p && cuda_host_is_pinned(p));
    CHECK(q && !cuda_host_is_pinned(q));
#endif
    backend_host_free(p, true);
    backend_host_free(q, false);
}

int main(void)
{
    test_init("test_cuda_pipeline");
    alarm(TIMEOUT_S);
    if (backend_cuda_device_count() == 0) {
        printf("test_cuda_pipeline: SKIPPED (no CUDA device)\n");
        return 77;
    }
    test_random_fr(&g_r);
    test_random_fr(&g_s);
    test_pinned();
    test_circuit_key k;
    synthetic_params shape = {.n_constraints = N_TARGET, .n_public = N_PUBLIC};
    if (!test_circuit_key_make(&k, circuit, &shape, N_PUBLIC))
        return test_finish();
    CHECK(k.pk.density_a != NULL && k.pk.density_b != NULL); /* the gathers run */
    test_setup_on_gpu(&k);
    pipeline_config cfg = {.backend = "cuda", .key = &k.pk, .synth_threads = 2,
                           .gpu_workers = 2};
    pipeline *pl = NULL;
    if (!CHECK(pipeline_create(&pl, &cfg) == G16_OK)) {
        fprintf(stderr, "  pipeline_create: %s\n", g16_last_error());
        test_circuit_key_free(&k);
        return test_finish();
    }
    printf("  %s\n", pipeline_describe(pl));
    CHECK(strstr(pipeline_describe(pl), "2 workers each") != NULL);
    if (run_job(pl, &k, 0, 3, 100)) {
        unsigned long long m0 = 0, f0 = 0, t0 = 0, m1 = 0, f1 = 0, t1 = 0;
        /* A build without CUDA has skipped above; it compiles, and has no counters. */
#ifdef G16_HAVE_CUDA
        cuda_alloc_counts(&m0, &f0, &t0);
#endif
        run_job(pl, &k, 1, 4, 200);
#ifdef G16_HAVE_CUDA
        cuda_alloc_counts(&m1, &f1, &t1);
#endif
        printf("  device allocations after job 0: %llu mallocs, %llu frees, %llu trims; "
               "after job 1: %llu, %llu, %llu\n", m0, f0, t0, m1, f1, t1);
        CHECK(m1 == m0 && f1 == f0 && t1 == t0);
    }
    pipeline_stats st;
    pipeline_stats_get(pl, &st);
    CHECK(pipeline_shutdown(pl, PIPELINE_DRAIN) == G16_OK);
    pipeline_free(pl);
    /* The B2 MSM on the CPU beside the device (g2_on_cpu): the same proofs. */
    pipeline_config split = cfg;
    split.g2_on_cpu = true;
    pl = NULL;
    if (CHECK(pipeline_create(&pl, &split) == G16_OK)) {
        run_job(pl, &k, 2, 2, 300);
        CHECK(pipeline_shutdown(pl, PIPELINE_DRAIN) == G16_OK);
        pipeline_free(pl);
    }
    /* The key streamed from host memory (chunks of 2000 G1 points) instead of resident:
     * the same proofs, and nothing of the key resident. */
    pipeline_config streamed = cfg;
    streamed.key_placement = BACKEND_KEY_STREAMED;
    setenv("G16_GPU_STREAM_CHUNK", "192000", 1);
    pl = NULL;
    if (CHECK(pipeline_create(&pl, &streamed) == G16_OK)) {
        run_job(pl, &k, 3, 2, 400);
        pipeline_stats ss;
        pipeline_stats_get(pl, &ss);
        printf("  key streamed: %d (%s), %zu partitions, resident %.1f MiB, device peak "
               "%.1f MiB\n", ss.key_streamed, ss.key_stream_pinned ? "pinned" : "pageable",
               (size_t)ss.partitions_proved, ss.device_resident_bytes / 1048576.0,
               ss.device_peak_bytes / 1048576.0);
        /* Only the density bitmaps of the gathers are resident. */
        CHECK(ss.key_streamed && ss.key_stream_pinned && ss.partitions_proved == 2);
        /* G16_GPU_STREAM_CHUNK's chunk, not the plan's doubled default. */
        CHECK(ss.key_stream_chunk == 192000);
        CHECK(ss.device_resident_bytes < backend_key_device_bytes(&k.pk) / 100);
        CHECK(pipeline_shutdown(pl, PIPELINE_DRAIN) == G16_OK);
        pipeline_free(pl);
    }
    /* A device budget one byte short of the key beside a resident partition: the plan
     * streams, then keeps what fits of the key on the device all the same (a split key:
     * pipeline_plan_stream), and streams the rest. The same proofs. */
    pipeline_config tight = cfg;
    tight.device_budget = backend_key_device_bytes(&k.pk) +
                          backend_partition_device_bytes(&k.pk, 0, false, 0, false) - 1;
    pl = NULL;
    if (CHECK(pipeline_create(&pl, &tight) == G16_OK)) {
        run_job(pl, &k, 4, 2, 500);
        pipeline_stats ts;
        pipeline_stats_get(pl, &ts);
        char kept[32];
        backend_key_arrays_names(ts.key_resident_arrays, kept, sizeof kept);
        printf("  key split: %s resident (%.1f MiB), the rest streamed; %zu partitions\n", kept,
               ts.device_resident_bytes / 1048576.0, (size_t)ts.partitions_proved);
        CHECK(ts.key_streamed && ts.partitions_proved == 2);
        CHECK(ts.key_resident_arrays != 0 && ts.key_resident_arrays != BACKEND_KEY_ALL_ARRAYS);
        CHECK(ts.device_resident_bytes >= backend_key_arrays_bytes(&k.pk, ts.key_resident_arrays));
        CHECK(pipeline_shutdown(pl, PIPELINE_DRAIN) == G16_OK);
        pipeline_free(pl);
    }
    unsetenv("G16_GPU_STREAM_CHUNK");
    test_release(&k, &cfg);
    test_staged(&k, &cfg);
    CHECK(st.gpu_devices >= 1 && st.gpu_workers_per_device == 2);
    CHECK(st.prover_workers == 2 * st.gpu_devices);
    CHECK(st.partitions_proved == 7);
    CHECK(st.device_peak_bytes > st.device_resident_bytes && st.device_resident_bytes > 0);
    CHECK(st.device_pool_bytes > 0);
    printf("  device peak %.1f MiB, key resident %.1f MiB, pool %.1f MiB\n",
           st.device_peak_bytes / 1048576.0, st.device_resident_bytes / 1048576.0,
           st.device_pool_bytes / 1048576.0);
    test_circuit_key_free(&k);
    return test_finish();
}
