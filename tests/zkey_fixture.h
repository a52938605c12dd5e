/* snarkjs fixtures (tests/fixtures/<name>/) for the tests of jobs and the pipeline: a key
 * mapped with its prover and verifying keys, and damaged copies of a witness, made in a
 * temporary folder, that a partition's synthesis must refuse. Linked into those tests
 * only (CMakeLists.txt), like circuit_key.c. */
#ifndef G16_TESTS_ZKEY_FIXTURE_H
#define G16_TESTS_ZKEY_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "groth16/groth16.h"
#include "groth16/prove.h"
#include "io/wtns.h"
#include "io/zkey.h"

enum { TEST_PATH_BYTES = 4200 };

typedef struct {
    zkey_t zkey;
    groth16_prover_key pk;
    groth16_vk vk;
    char wtns_path[TEST_PATH_BYTES]; /* the fixture's witness.wtns */
} test_zkey;

/* tests/fixtures/<name>/<file> under G16_SOURCE_DIR (the test is skipped without it). */
void test_fixture_path(char *out, size_t cap, const char *name, const char *file);

/* Opens the fixture's circuit.zkey and makes its keys. A failure is a failed check (with
 * its message) and returns false. */
bool test_zkey_open(test_zkey *k, const char *name);
void test_zkey_close(test_zkey *k);

/* groth16_prove_zkey on the fixture's witness file at path: the one-by-one reference a
 * job's proofs must equal. False (a failed check) when it fails. */
bool test_zkey_prove(groth16_proof *proof, fr_t **public_inputs, const test_zkey *k,
                     const char *wtns_path, const groth16_prove_options *opts);

/* A witness damaged in one way, and what its error message must contain besides the
 * path. */
typedef struct {
    const char *what;
    char path[TEST_PATH_BYTES];
    const char *expect;
} test_bad_wtns;

enum { TEST_BAD_WTNS = 4 };

/* Writes into dir copies of the witness at good, each bad in one way: truncated, one
 * value short (nWitness = nVars - 1 with the sections to match: another circuit's size),
 * BN254's prime (another curve), w[0] = 2. Returns false (a failed check) when the file
 * does not have the layout snarkjs writes or a copy cannot be written. */
bool test_bad_witnesses(test_bad_wtns out[TEST_BAD_WTNS], const char *dir, const char *good);

/* mkdtemp under /tmp with this prefix; *dir receives the path. False on failure. */
bool test_dir_make(char *dir, size_t cap, const char *prefix);
/* Removes the files in dir (not recursing) and dir. */
void test_dir_remove(const char *dir);

#endif
