/* Minimal test harness shared by every test program.
 *
 * - Seeded randomness: the seed comes from G16_TEST_SEED (decimal or 0x-hex) or the clock,
 *   and is printed at start and with every failure, so any failing run can be replayed.
 * - Counts scale: test_count(n) returns n times G16_TEST_SCALE (default 1), so
 *   `G16_TEST_SCALE=100 ctest` runs a hundred times more random cases.
 * - CHECK never aborts: it records the failure and the program exits non-zero at the end.
 * - A test that cannot run (no GPU, no vectors) calls test_skip(): exit code 77, which
 *   CMake registers as "skipped", never as "passed".
 */
#ifndef G16_TESTS_HARNESS_H
#define G16_TESTS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "field/fp.h"
#include "field/fr.h"

void test_init(const char *name);
/* Returns the process exit code: 0 if every check passed, 1 otherwise. */
int test_finish(void);
/* Prints the reason and exits with 77 (ctest: skipped). */
_Noreturn void test_skip(const char *reason);

uint64_t test_seed(void);
size_t test_count(size_t base);

uint64_t test_rand64(void);
void test_rand_bytes(uint8_t *out, size_t n);
void test_random_fp(fp_t *r);
void test_random_fr(fr_t *r);
/* A seeded random element that is never 0, 1 or -1 (test_random_fr draws those often, as
 * edge cases): a setup's trapdoor, where tau = +-1 lies in every domain and the setup
 * refuses it. */
void test_random_fr_generic(fr_t *r);
/* n elements (at least one allocated; exits with a message when memory runs out), and
 * n seeded random elements. */
fr_t *test_fr_vec(size_t n);
void test_random_fr_vec(fr_t *x, size_t n);
/* Edge elements of Fr as raw Montgomery limbs, all below r: 0, 1, -1, raw 1, r - 1, r - 2,
 * and 2^k, 2^k - 1 at the 52- and 64-bit limb boundaries and 2^254. Returns the count. */
#define TEST_FR_EDGES 24
size_t test_fr_edge_values(fr_t e[TEST_FR_EDGES]);

bool test_check(bool ok, const char *expr, const char *file, int line);
bool test_check_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what,
                      const char *file, int line);

#define CHECK(cond) test_check((cond), #cond, __FILE__, __LINE__)
#define CHECK_BYTES(got, want, n, what) \
    test_check_bytes((got), (want), (n), (what), __FILE__, __LINE__)

/* Hex helpers for vector files: parse returns the number of bytes written or -1. */
long test_hex_decode(uint8_t *out, size_t cap, const char *hex);
void test_hex_encode(char *out, const uint8_t *in, size_t n);



/* Differential vectors from a JavaScript reference in tools/<tool_dir> (its own
 * package.json and lock file): starts `node tools/<tool_dir>/<script> --seed S --count N`
 * (S is the test seed) and returns its output to read line by line. When node or
 * tools/<tool_dir>/node_modules is missing the test is skipped (exit 77), unless
 * G16_REQUIRE_NOBLE=1, which makes that a failure for every reference (CI sets it). */
FILE *test_js_open(const char *tool_dir, const char *script, size_t count);
/* Closes the stream; a generator that failed counts as a failed check. */
void test_js_close(FILE *f);

/* test_js_open for @noble/curves in tools/noble, and its close. */
FILE *test_noble_open(const char *script, size_t count);
void test_noble_close(FILE *f);

/* Splits a line at spaces in place; returns the number of tokens (at most max). */
size_t test_split(char *line, char **tokens, size_t max);
#endif
