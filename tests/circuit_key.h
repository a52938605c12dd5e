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

#endif
