#include "circuit_key.h"

#include <string.h>

#include "harness.h"

bool test_circuit_key_make(test_circuit_key *k, cs_circuit_fn circuit, const void *params,
                           size_t n_public)
{
    memset(k, 0, sizeof *k);
    cs_t *cs = NULL;
    g16_status st = cs_create(&cs, CS_SETUP, n_public, NULL);
    if (st == G16_OK)
        st = cs_synthesize(cs, circuit, params);
    if (st == G16_OK)
        st = cs_take_matrices(cs, &k->mat);
    cs_free(cs);
    if (st == G16_OK)
        st = groth16_setup(&k->key, &k->mat, NULL);
    if (!CHECK(st == G16_OK)) {
        fprintf(stderr, "  setup: %s\n", g16_last_error());
        return false;
    }
    groth16_prover_key_from_setup(&k->pk, &k->key);
    k->vk = (groth16_vk){.alpha1 = k->key.alpha1, .beta2 = k->key.beta2,
                         .gamma2 = k->key.gamma2, .delta2 = k->key.delta2,
                         .n_public = n_public, .ic = k->key.ic};
    return true;
}

void test_circuit_key_free(test_circuit_key *k)
{
    groth16_setup_key_free(&k->key);
    constraint_matrices_free(&k->mat);
}

void test_job_equals_sequential(const test_circuit_key *k, const job_t *job, size_t n)
{
    job_config cfg = *job_get_config(job);
    job_t *seq = NULL;
    if (!CHECK(job_create(&seq, &cfg) == G16_OK))
        return;
    CHECK(job_prove_all(seq) == G16_OK);
    size_t np = k->vk.n_public;
    for (size_t p = 0; p < n; p++) {
        const job_result *a = job_get_result(job, p), *b = job_get_result(seq, p);
        CHECK(a->state == JOB_PARTITION_PROVED && a->status == G16_OK);
        CHECK(memcmp(&a->proof, &b->proof, sizeof a->proof) == 0);
        CHECK(memcmp(a->public_inputs, b->public_inputs, np * sizeof(fr_t)) == 0);
        CHECK(groth16_verify(&k->vk, a->public_inputs, np, &a->proof) == G16_OK);
    }
    job_free(seq);
}
