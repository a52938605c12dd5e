/* A development setup of a native circuit in memory, for the tests of jobs and the
 * pipeline (linked into those tests only: CMakeLists.txt adds it where it is used, so
 * that harness.c stays free of the prover's layers for the fuzz build). */
#ifndef G16_TESTS_CIRCUIT_KEY_H
#define G16_TESTS_CIRCUIT_KEY_H

#include <stdbool.h>
#include <stddef.h>

#include "circuit/cs.h"
#include "groth16/groth16.h"
#include "groth16/prove.h"
#include "groth16/setup.h"
#include "job/job.h"

typedef struct {
    constraint_matrices mat;
    groth16_setup_key key;
    groth16_prover_key pk;
    groth16_vk vk; /* its IC is key.ic */
} test_circuit_key;

/* Synthesizes circuit(params) in SETUP mode and runs the setup on it. A failure is a
 * failed check (with its message) and returns false. */
bool test_circuit_key_make(test_circuit_key *k, cs_circuit_fn circuit, const void *params,
                           size_t n_public);
void test_circuit_key_free(test_circuit_key *k);

/* Every partition of job (n of them) is PROVED with the proof and public inputs of proving
 * its partitions one by one (job_prove_all on a new job of the same configuration: the
 * same fixed r, s and the job's own prove options), and the proof verifies under k's vk. */
void test_job_equals_sequential(const test_circuit_key *k, const job_t *job, size_t n);

#endif
