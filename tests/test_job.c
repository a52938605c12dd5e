/* Jobs (job/job.h): P partitions of the synthetic circuit at N = 1024 sharing one key.
 * Every partition is proved and verified, its public inputs are its own (the challenges of
 * its seed), results stay in partition order whatever order the partitions are proved in,
 * and, for fixed r and s, each proof equals the one made by synthesizing and proving that
 * partition alone, also when its stages (synthesize, prove, verify) are called apart. A
 * partition whose circuit does not match the key fails with a message and stops
 * job_prove_all (the rest stay pending); a wrong verifying key fails every partition's
 * check; a cancelled partition makes the job CANCELLED; bad configurations and arguments
 * are refused.
 *
 * Jobs from a snarkjs key (JOB_SOURCE_ZKEY) on the fixtures multiplier, poseidon and mimc:
 * for fixed r and s every partition's proof and public inputs equal groth16_prove_zkey's on
 * the same witness, whether the job maps the witness files or takes mapped ones, makes its
 * prover key or is given it, runs its stages together or apart. A damaged witness
 * (truncated, one value short, another curve, w[0] != 1, another circuit's) fails its
 * partition with a message naming the file and the problem, after the partitions before
 * it were proved; a zkey source without its key or a witness, a prover key of another
 * shape and a key with a bad coefficient entry are refused at job_create. */
#include <stdlib.h>
#include <string.h>

#include "circuit/synthetic.h"
#include "circuit_key.h"
#include "harness.h"
#include "job/job.h"
#include "zkey_fixture.h"

enum { N_TARGET = 1024, N_PUBLIC = 4, PARTITIONS = 3 };

typedef test_circuit_key test_key;

static bool make_key(test_key *k)
{
    synthetic_params params = {.n_constraints = N_TARGET, .n_public = N_PUBLIC};
    return test_circuit_key_make(k, synthetic_circuit, &params, N_PUBLIC);
}

typedef struct {
    synthetic_params params[PARTITIONS];
    const void *ptrs[PARTITIONS];
} partitions;

static void make_partitions(partitions *ps, uint64_t first_seed)
{
    for (size_t p = 0; p < PARTITIONS; p++) {
        ps->params[p] = (synthetic_params){.n_constraints = N_TARGET, .n_public = N_PUBLIC,
                                           .seed = first_seed + p};
        ps->ptrs[p] = &ps->params[p];
    }
}

static job_config config(const test_key *k, const partitions *ps)
{
    return (job_config){.circuit = synthetic_circuit, .params = ps->ptrs,
                        .n_partitions = PARTITIONS, .n_public = N_PUBLIC,
                        .n_constraints = k->mat.n_constraints, .pk = &k->pk, .vk = &k->vk};
}

/* The plain way: synthesize partition `params` alone and prove it. */
static void prove_alone(groth16_proof *proof, const test_key *k, const synthetic_params *params,
                        const groth16_prove_options *opts)
{
    size_t nv = k->pk.n_vars, n = k->pk.domain_size, m = k->mat.n_constraints;
    fr_t *z = calloc(nv, sizeof *z), *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b),
         *c = calloc(n, sizeof *c);
    cs_prove_buffers bufs = {.z = z, .z_cap = nv, .a = a, .b = b, .c = c, .abc_cap = m};
    cs_t *cs = NULL;
    g16_status st = cs_create(&cs, CS_PROVE, N_PUBLIC, &bufs);
    if (st == G16_OK)
        st = cs_synthesize(cs, synthetic_circuit, params);
    cs_free(cs);
    for (size_t s = 0; s <= N_PUBLIC; s++)
        a[m + s] = z[s];
    groth16_prove_stats stats = {0};
    CHECK(st == G16_OK &&
          groth16_prove_evals(proof, &stats, &k->pk, z, NULL, a, b, c, opts) == G16_OK);
    free(z);
    free(a);
    free(b);
    free(c);
}

static void test_prove_all(const test_key *k)
{
    partitions ps;
    make_partitions(&ps, 100);
    job_config cfg = config(k, &ps);
    job_t *job = NULL;
    if (!CHECK(job_create(&job, &cfg) == G16_OK))
        return;
    CHECK(job_num_partitions(job) == PARTITIONS && job_num_public(job) == N_PUBLIC);
    CHECK(job_get_result(job, 0)->state == JOB_PARTITION_PENDING);
    CHECK(job_status(job) == G16_ERR_INVALID_ARGUMENT);
    CHECK(strstr(g16_last_error(), "3 of 3 partitions not proved") != NULL);
    CHECK(job_prove_all(job) == G16_OK);
    CHECK(job_status(job) == G16_OK);
    for (size_t p = 0; p < PARTITIONS; p++) {
        const job_result *r = job_get_result(job, p);
        CHECK(r->state == JOB_PARTITION_PROVED && r->status == G16_OK);
        CHECK(groth16_verify(&k->vk, r->public_inputs, N_PUBLIC, &r->proof) == G16_OK);
        /* Its own inputs: the challenges of seed 100 + p. */
        for (size_t i = 0; i + 1 < N_PUBLIC; i++) {
            fr_t want;
            fr_from_u64(&want, synthetic_challenge(100 + p, i));
            CHECK(fr_equal(&r->public_inputs[i], &want));
        }
        CHECK(r->ms_total >= r->ms_synth && r->ms_synth > 0 && r->ms_verify > 0);
        CHECK(r->scalars_zero + r->scalars_one + r->scalars_other == k->pk.n_a);
        if (p > 0)
            CHECK(memcmp(r->public_inputs, job_get_result(job, p - 1)->public_inputs,
                         N_PUBLIC * sizeof(fr_t)) != 0);
    }
    CHECK(job_get_result(job, PARTITIONS) == NULL);
    job_free(job);
}

/* Out of order, fixed r and s: each result is the partition's own, equal to proving it
 * alone. */
static void test_out_of_order(const test_key *k)
{
    partitions ps;
    make_partitions(&ps, 7);
    fr_t r, s;
    test_random_fr(&r);
    test_random_fr(&s);
    groth16_prove_options opts = {.fixed_r = &r, .fixed_s = &s};
    job_config cfg = config(k, &ps);
    cfg.prove_opts = &opts;
    job_t *job = NULL;
    job_buffers bufs;
    if (!CHECK(job_create(&job, &cfg) == G16_OK))
        return;
    if (!CHECK(job_buffers_alloc(&bufs, job) == G16_OK)) {
        job_free(job);
        return;
    }
    static const size_t order[PARTITIONS] = {2, 0, 1};
    for (size_t i = 0; i < PARTITIONS; i++) {
        CHECK(job_prove_partition(job, order[i], &bufs) == G16_OK);
        CHECK(job_get_result(job, order[i])->state == JOB_PARTITION_PROVED);
        if (i == 0)
            CHECK(job_get_result(job, 0)->state == JOB_PARTITION_PENDING);
    }
    for (size_t p = 0; p < PARTITIONS; p++) {
        groth16_proof alone;
        prove_alone(&alone, k, &ps.params[p], &opts);
        CHECK(memcmp(&alone, &job_get_result(job, p)->proof, sizeof alone) == 0);
    }
    /* Proving a partition again replaces its result with the same one. */
    groth16_proof before = job_get_result(job, 1)->proof;
    CHECK(job_prove_partition(job, 1, &bufs) == G16_OK);
    CHECK(memcmp(&before, &job_get_result(job, 1)->proof, sizeof before) == 0);
    job_buffers_free(&bufs);
    job_free(job);
}

/* The three stages called apart (as the pipeline does, on different buffers for each
 * partition) give job_prove_partition's proof; a cancelled partition makes the job
 * CANCELLED unless another failed. */
static void test_stages_apart(const test_key *k)
{
    partitions ps;
    make_partitions(&ps, 40);
    fr_t r, s;
    test_random_fr(&r);
    test_random_fr(&s);
    groth16_prove_options opts = {.fixed_r = &r, .fixed_s = &s};
    groth16_prove_options route = {0}; /* the CPU's own code, as the CPU backend routes */
    job_config cfg = config(k, &ps);
    cfg.prove_opts = &opts;
    job_t *job = NULL;
    job_buffers bufs[2];
    if (!CHECK(job_create(&job, &cfg) == G16_OK))
        return;
    if (!CHECK(job_buffers_alloc(&bufs[0], job) == G16_OK) ||
        !CHECK(job_buffers_alloc(&bufs[1], job) == G16_OK)) {
        job_free(job);
        return;
    }
    CHECK(job_synthesize_partition(job, 0, &bufs[0]) == G16_OK);
    CHECK(job_synthesize_partition(job, 1, &bufs[1]) == G16_OK);
    CHECK(job_get_result(job, 0)->state == JOB_PARTITION_PENDING);
    CHECK(job_prove_synthesized(job, 1, &bufs[1], &route) == G16_OK);
    CHECK(job_prove_synthesized(job, 0, &bufs[0], NULL) == G16_OK);
    CHECK(job_get_result(job, 0)->state == JOB_PARTITION_PENDING); /* not verified yet */
    CHECK(job_verify_partition(job, 0) == G16_OK && job_verify_partition(job, 1) == G16_OK);
    for (size_t p = 0; p < 2; p++) {
        const job_result *res = job_get_result(job, p);
        groth16_proof alone;
        prove_alone(&alone, k, &ps.params[p], &opts);
        CHECK(res->state == JOB_PARTITION_PROVED && memcmp(&alone, &res->proof, sizeof alone) == 0);
        CHECK(res->ms_prove > 0 && res->ms_total == res->ms_synth + res->ms_prove + res->ms_verify);
    }
    job_cancel_partition(job, 0); /* proved: stays proved */
    job_cancel_partition(job, 2);
    CHECK(job_get_result(job, 0)->state == JOB_PARTITION_PROVED);
    CHECK(job_get_result(job, 2)->state == JOB_PARTITION_CANCELLED);
    CHECK(job_status(job) == G16_ERR_CANCELLED && strstr(g16_last_error(), "1 of 3") != NULL);
    job_buffers_free(&bufs[0]);
    job_buffers_free(&bufs[1]);
    job_free(job);
}

static void count_stage(void *ctx, size_t p, const char *stage)
{
    size_t *counts = ctx;
    counts[p]++;
    CHECK(!strcmp(stage, "synthesizing") || !strcmp(stage, "proving") ||
          !strcmp(stage, "verifying"));
}

static void test_failures(const test_key *k, const test_key *other)
{
    /* Partition 1's circuit is another size: it fails, and the job stops there. */
    partitions ps;
    make_partitions(&ps, 0);
    ps.params[1].n_constraints = 2 * N_TARGET;
    size_t stages[PARTITIONS] = {0};
    job_config cfg = config(k, &ps);
    cfg.on_stage = count_stage;
    cfg.ctx = stages;
    job_t *job = NULL;
    if (CHECK(job_create(&job, &cfg) == G16_OK)) {
        g16_status st = job_prove_all(job);
        CHECK(st != G16_OK);
        const job_result *r1 = job_get_result(job, 1);
        CHECK(job_get_result(job, 0)->state == JOB_PARTITION_PROVED);
        CHECK(r1->state == JOB_PARTITION_FAILED && r1->status == st && r1->error[0]);
        CHECK(job_get_result(job, 2)->state == JOB_PARTITION_PENDING);
        CHECK(stages[0] == 3 && stages[1] == 1 && stages[2] == 0);
        CHECK(job_status(job) == st && strcmp(g16_last_error(), r1->error) == 0);
        job_free(job);
    }

    /* Another key's verifying key: the proof is made and its check fails. */
    make_partitions(&ps, 0);
    cfg = config(k, &ps);
    cfg.vk = &other->vk;
    if (CHECK(job_create(&job, &cfg) == G16_OK)) {
        CHECK(job_prove_all(job) == G16_ERR_VERIFY_FAILED);
        const job_result *r0 = job_get_result(job, 0);
        CHECK(r0->state == JOB_PARTITION_FAILED && r0->status == G16_ERR_VERIFY_FAILED);
        CHECK(strstr(r0->error, "partition 0: the proof does not verify") != NULL);
        CHECK(groth16_verify(&k->vk, r0->public_inputs, N_PUBLIC, &r0->proof) == G16_OK);

        /* Arguments: a partition out of range, buffers too small. */
        job_buffers small;
        CHECK(job_buffers_alloc(&small, job) == G16_OK);
        CHECK(job_prove_partition(job, PARTITIONS, &small) == G16_ERR_INVALID_ARGUMENT);
        small.domain_size--;
        CHECK(job_prove_partition(job, 2, &small) == G16_ERR_INVALID_ARGUMENT);
        CHECK(strstr(g16_last_error(), "buffers smaller") != NULL);
        CHECK(job_get_result(job, 2)->state == JOB_PARTITION_PENDING);
        small.domain_size++;
        job_buffers_free(&small);
        job_free(job);
    }

    /* Configurations refused. */
    job_config bad = config(k, &ps);
    bad.circuit = NULL;
    CHECK(job_create(&job, &bad) == G16_ERR_INVALID_ARGUMENT && job == NULL);
    bad = config(k, &ps);
    bad.n_partitions = 0;
    CHECK(job_create(&job, &bad) == G16_ERR_INVALID_ARGUMENT);
    bad = config(k, &ps);
    bad.n_public = N_PUBLIC + 1;
    CHECK(job_create(&job, &bad) == G16_ERR_INVALID_ARGUMENT);
    CHECK(strstr(g16_last_error(), "5 public inputs, the key 4") != NULL);
    bad = config(k, &ps);
    bad.n_constraints = k->pk.domain_size;
    CHECK(job_create(&job, &bad) == G16_ERR_INVALID_ARGUMENT);
    const void *holes[PARTITIONS] = {ps.ptrs[0], NULL, ps.ptrs[2]};
    bad = config(k, &ps);
    bad.params = holes;
    CHECK(job_create(&job, &bad) == G16_ERR_INVALID_ARGUMENT);
    CHECK(strstr(g16_last_error(), "partition 1 has no parameters") != NULL);
}

/* --- jobs from a snarkjs key ------------------------------------------------------------ */

/* Partition p of job equals the reference proof and inputs. */
static void check_zkey_result(const job_t *job, size_t p, const test_zkey *k,
                              const groth16_proof *want, const fr_t *want_inputs)
{
    const job_result *r = job_get_result(job, p);
    CHECK(r->state == JOB_PARTITION_PROVED && r->status == G16_OK);
    CHECK(memcmp(&r->proof, want, sizeof *want) == 0);
    CHECK(memcmp(r->public_inputs, want_inputs, k->zkey.n_public * sizeof(fr_t)) == 0);
    CHECK(r->scalars_zero + r->scalars_one + r->scalars_other == k->zkey.n_vars);
    CHECK(r->ms_verify > 0 && r->ms_total >= r->ms_synth + r->ms_prove);
}

static void test_zkey_job(const char *name)
{
    test_zkey k;
    if (!test_zkey_open(&k, name))
        return;
    fr_t r, s;
    test_random_fr(&r);
    test_random_fr(&s);
    groth16_prove_options opts = {.fixed_r = &r, .fixed_s = &s};
    groth16_proof want;
    fr_t *want_inputs = NULL;
    job_t *job = NULL;
    wtns_t w = {0};
    if (!test_zkey_prove(&want, &want_inputs, &k, k.wtns_path, &opts))
        goto out;

    /* The job maps the files, with the caller's prover key; job_prove_all. */
    const char *paths[PARTITIONS] = {k.wtns_path, k.wtns_path, k.wtns_path};
    job_config cfg = {.source = JOB_SOURCE_ZKEY, .zkey = &k.zkey, .wtns_paths = paths,
                      .n_partitions = PARTITIONS, .n_public = k.zkey.n_public, .pk = &k.pk,
                      .vk = &k.vk, .prove_opts = &opts};
    if (CHECK(job_create(&job, &cfg) == G16_OK)) {
        CHECK(job_get_config(job)->pk == &k.pk);
        CHECK(job_prove_all(job) == G16_OK && job_status(job) == G16_OK);
        for (size_t p = 0; p < PARTITIONS; p++)
            check_zkey_result(job, p, &k, &want, want_inputs);
        job_free(job);
        job = NULL;
    }

    /* Mapped by the caller, the job's own prover key, the stages apart on buffers of
     * their own, out of order (as the pipeline runs them). */
    if (!CHECK(wtns_open(&w, k.wtns_path) == G16_OK))
        goto out;
    const wtns_t *mapped[PARTITIONS] = {&w, &w, &w};
    cfg.wtns_paths = NULL;
    cfg.wtns = mapped;
    cfg.pk = NULL;
    cfg.zkey_coefs_checked = true;
    job_buffers bufs[2];
    if (!CHECK(job_create(&job, &cfg) == G16_OK))
        goto out;
    const groth16_prover_key *own = job_get_config(job)->pk;
    CHECK(own != NULL && own->n_vars == k.pk.n_vars && own->a == k.pk.a);
    if (CHECK(job_buffers_alloc(&bufs[0], job) == G16_OK)) {
        if (CHECK(job_buffers_alloc(&bufs[1], job) == G16_OK)) {
            groth16_prove_options route = {0};
            CHECK(job_synthesize_partition(job, 2, &bufs[0]) == G16_OK);
            CHECK(job_synthesize_partition(job, 0, &bufs[1]) == G16_OK);
            CHECK(job_prove_synthesized(job, 0, &bufs[1], &route) == G16_OK);
            CHECK(job_prove_synthesized(job, 2, &bufs[0], NULL) == G16_OK);
            CHECK(job_verify_partition(job, 2) == G16_OK && job_verify_partition(job, 0) == G16_OK);
            CHECK(job_prove_partition(job, 1, &bufs[0]) == G16_OK);
            for (size_t p = 0; p < PARTITIONS; p++)
                check_zkey_result(job, p, &k, &want, want_inputs);
            job_buffers_free(&bufs[1]);
        }
        job_buffers_free(&bufs[0]);
    }
out:
    job_free(job);
    wtns_close(&w);
    free(want_inputs);
    test_zkey_close(&k);
}

/* Partition 1 of a three-partition job has a bad witness: partition 0 is proved, 1 fails
 * with st and a message naming the file and containing expect, 2 stays pending. */
static void check_bad_partition(const test_zkey *k, const char *bad, const char *expect)
{
    const char *paths[PARTITIONS] = {k->wtns_path, bad, k->wtns_path};
    job_config cfg = {.source = JOB_SOURCE_ZKEY, .zkey = &k->zkey, .wtns_paths = paths,
                      .n_partitions = PARTITIONS, .n_public = k->zkey.n_public, .vk = &k->vk};
    job_t *job = NULL;
    if (!CHECK(job_create(&job, &cfg) == G16_OK))
        return;
    g16_status st = job_prove_all(job);
    const job_result *r1 = job_get_result(job, 1);
    CHECK(st != G16_OK && r1->state == JOB_PARTITION_FAILED && r1->status == st);
    CHECK(strncmp(r1->error, "partition 1: ", 13) == 0);
    if (!CHECK(strstr(r1->error, bad) != NULL && strstr(r1->error, expect) != NULL))
        fprintf(stderr, "  wanted '%s' and '%s' in: %s\n", bad, expect, r1->error);
    CHECK(job_get_result(job, 0)->state == JOB_PARTITION_PROVED);
    CHECK(job_get_result(job, 2)->state == JOB_PARTITION_PENDING);
    job_free(job);
}

static void test_zkey_failures(void)
{
    test_zkey k, other;
    if (!test_zkey_open(&k, "multiplier"))
        return;
    if (!test_zkey_open(&other, "mimc")) {
        test_zkey_close(&k);
        return;
    }
    char dir[256];
    test_bad_wtns bad[TEST_BAD_WTNS];
    if (test_dir_make(dir, sizeof dir, "g16_test_job") && test_bad_witnesses(bad, dir, k.wtns_path)) {
        for (size_t i = 0; i < TEST_BAD_WTNS; i++) {
            check_bad_partition(&k, bad[i].path, bad[i].expect);
            printf("  a witness %s: refused\n", bad[i].what);
        }
        check_bad_partition(&k, other.wtns_path, "the witness is for another circuit");
        check_bad_partition(&k, other.wtns_path, k.zkey.file.name); /* both files named */
        test_dir_remove(dir);
    }

    /* Configurations refused. */
    const char *paths[PARTITIONS] = {k.wtns_path, NULL, k.wtns_path};
    job_config good = {.source = JOB_SOURCE_ZKEY, .zkey = &k.zkey, .wtns_paths = paths,
                       .n_partitions = 1, .n_public = k.zkey.n_public};
    job_config bad_cfg = good;
    job_t *job = NULL;
    bad_cfg.zkey = NULL;
    CHECK(job_create(&job, &bad_cfg) == G16_ERR_INVALID_ARGUMENT && job == NULL);
    bad_cfg = good;
    bad_cfg.wtns_paths = NULL;
    CHECK(job_create(&job, &bad_cfg) == G16_ERR_INVALID_ARGUMENT);
    bad_cfg = good;
    bad_cfg.n_partitions = PARTITIONS;
    CHECK(job_create(&job, &bad_cfg) == G16_ERR_INVALID_ARGUMENT);
    CHECK(strstr(g16_last_error(), "partition 1 has no witness") != NULL);
    bad_cfg = good;
    bad_cfg.pk = &other.pk;
    CHECK(job_create(&job, &bad_cfg) == G16_ERR_INVALID_ARGUMENT);
    CHECK(strstr(g16_last_error(), "the prover key has 1325 wires") != NULL);
    bad_cfg = good;
    bad_cfg.vk = &other.vk;
    bad_cfg.n_public = k.zkey.n_public + 1;
    CHECK(job_create(&job, &bad_cfg) == G16_ERR_INVALID_ARGUMENT);
    bad_cfg = good;
    bad_cfg.source = (job_source)7;
    CHECK(job_create(&job, &bad_cfg) == G16_ERR_INVALID_ARGUMENT);

    /* A coefficient naming a signal past nVars: refused unless the caller says it checked
     * the key (it would index past the witness). */
    size_t size = k.zkey.file.size, at = (size_t)(k.zkey.coefs - k.zkey.file.data);
    uint8_t *copy = malloc(size);
    zkey_t broken;
    if (CHECK(copy != NULL)) {
        memcpy(copy, k.zkey.file.data, size);
        memset(copy + at + 8, 0xff, 4); /* entry 0's signal */
        if (CHECK(zkey_open_memory(&broken, "broken.zkey", copy, size) == G16_OK)) {
            bad_cfg = good;
            bad_cfg.zkey = &broken;
            CHECK(job_create(&job, &bad_cfg) == G16_ERR_FORMAT);
            CHECK(strstr(g16_last_error(), "broken.zkey") != NULL);
            zkey_close(&broken);
        }
        free(copy);
    }
    CHECK(job_create(&job, &good) == G16_OK);
    job_free(job);
    test_zkey_close(&other);
    test_zkey_close(&k);
}

int main(void)
{
    test_init("test_job");
    test_key k, other;
    if (!make_key(&k))
        return test_finish();
    if (make_key(&other)) {
        test_prove_all(&k);
        test_out_of_order(&k);
        test_stages_apart(&k);
        test_failures(&k, &other);
        test_circuit_key_free(&other);
    }
    static const char *const ZKEY_FIXTURES[] = {"multiplier", "poseidon", "mimc"};
    for (size_t i = 0; i < sizeof ZKEY_FIXTURES / sizeof ZKEY_FIXTURES[0]; i++)
        test_zkey_job(ZKEY_FIXTURES[i]);
    test_zkey_failures();
    test_circuit_key_free(&k);
    return test_finish();
}
