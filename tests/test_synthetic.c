/* The synthetic Filecoin-like circuit: at each size, SETUP/PROVE/CHECK agree, the count
 * lands in [0.95 N, N], the matrices do not depend on the seed while the witness does, a
 * planted wrong value is named, and the shape (densities, 0/1 share) is PoRep-like.
 * Sizes 2^10 .. 2^16 by default; G16_SYNTHETIC_LOG2=20 (say) runs up to 2^20. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuit/sha256.h"
#include "circuit/synthetic.h"
#include "harness.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t publics_for(unsigned lg)
{
    return lg <= 10 ? 2 : lg <= 12 ? 4 : 16;
}

/* A SETUP run: matrices and the shape's densities. names: keep constraint names and
 * report the row called want (SIZE_MAX when none). */
static bool setup(constraint_matrices *m, synthetic_stats *st, const synthetic_params *p,
                  const char *const *want, size_t n_want, size_t *row, const char **found)
{
    cs_t *cs;
    if (!CHECK(cs_create(&cs, CS_SETUP, p->n_public, NULL) == G16_OK))
        return false;
    if (want)
        cs_keep_names(cs);
    bool ok = CHECK(cs_synthesize(cs, synthetic_circuit, p) == G16_OK);
    if (!ok)
        printf("  %s\n", g16_last_error());
    if (ok && want) {
        *row = SIZE_MAX;
        for (size_t w = 0; w < n_want && *row == SIZE_MAX; w++)
            for (size_t i = 0; i < cs_num_constraints(cs); i++)
                if (strcmp(cs_constraint_name(cs, i), want[w]) == 0) {
                    *row = i;
                    *found = want[w];
                    break;
                }
    }
    if (ok && st)
        synthetic_stats_density(st, cs);
    ok = ok && CHECK(cs_take_matrices(cs, m) == G16_OK);
    cs_free(cs);
    return ok;
}

typedef struct {
    fr_t *z, *abc;
    cs_prove_buffers b;
} prove_bufs;

static bool bufs_alloc(prove_bufs *pb, const constraint_matrices *m)
{
    pb->z = malloc(m->n_vars * sizeof(fr_t));
    pb->abc = malloc(3 * m->n_constraints * sizeof(fr_t));
    pb->b = (cs_prove_buffers){pb->z, m->n_vars, pb->abc, pb->abc + m->n_constraints,
                               pb->abc + 2 * m->n_constraints, m->n_constraints};
    return CHECK(pb->z && pb->abc);
}

static void bufs_free(prove_bufs *pb)
{
    free(pb->z);
    free(pb->abc);
}

/* PROVE synthesis into pb; returns seconds. */
static double prove(prove_bufs *pb, const synthetic_params *p)
{
    cs_t *cs;
    if (!CHECK(cs_create(&cs, CS_PROVE, p->n_public, &pb->b) == G16_OK))
        return 0;
    double t0 = now_s();
    g16_status st = cs_synthesize(cs, synthetic_circuit, p);
    double t = now_s() - t0;
    if (!CHECK(st == G16_OK))
        printf("  %s\n", g16_last_error());
    cs_free(cs);
    return t;
}

/* CHECK with value planted at wire (or nothing when wire is 0): the failure's name and
 * row, or NULL when satisfied. */
static bool check_plant(const synthetic_params *p, cs_var wire, uint64_t value, char *name,
                        size_t cap, size_t *row)
{
    cs_t *cs;
    if (!CHECK(cs_create(&cs, CS_CHECK, p->n_public, NULL) == G16_OK))
        return false;
    if (wire) {
        fr_t v;
        fr_from_u64(&v, value);
        cs_check_plant(cs, wire, &v);
    }
    g16_status st = cs_synthesize(cs, synthetic_circuit, p);
    const char *f = cs_check_failure(cs, row);
    snprintf(name, cap, "%s", f ? f : "");
    cs_free(cs);
    return st == G16_OK && !f;
}

static void test_size(unsigned lg, double *bytes_per_constraint)
{
    size_t n = (size_t)1 << lg, n_pub = publics_for(lg);
    uint64_t seed1 = test_rand64(), seed2 = seed1 ^ 0x5a5a5a5a12345678ull;
    fr_t com1, com2;
    synthetic_params p1 = {n, n_pub, seed1, &com1}, p2 = {n, n_pub, seed2, &com2};
    printf("2^%u (%zu public inputs):\n", lg, n_pub);

    /* 1. The three modes agree. */
    cs_stats cst;
    constraint_matrices m1, m2;
    g16_status rs = cs_roundtrip(&cst, &m1, synthetic_circuit, &p1, n_pub);
    if (!CHECK(rs == G16_OK)) {
        printf("  roundtrip: %s\n", g16_last_error());
        return;
    }
    size_t nc = cst.n_constraints;
    if (!CHECK(nc <= n && nc >= n - n / 20))
        printf("  %zu constraints for a target of %zu\n", nc, n);
    CHECK(nc + n_pub + 1 <= n); /* the input rows still fit the domain */

    /* 2. One key for every partition: the other seed's matrices are the same. Names are
     * kept here (small sizes only: they cost memory) to find a row to plant into. */
    static const char *const targets[] = {"label 1/round 17/maj/ch/bit 3/ch",
                                          "label 0/round 17/maj/ch/bit 3/ch",
                                          "tail 0/round 1/ch/bit 5/ch"};
    size_t row = SIZE_MAX;
    const char *target = NULL;
    bool names = lg <= 16;
    synthetic_stats ss;
    memset(&ss, 0, sizeof ss);
    if (!setup(&m2, &ss, &p2, names ? targets : NULL, 3, &row, &target)) {
        constraint_matrices_free(&m1);
        return;
    }
    CHECK(constraint_matrices_equal(&m1, &m2));
    CHECK(ss.in_a == cst.density_a && ss.in_b == cst.density_b);

    /* 3. PROVE for both seeds: the witnesses (and the commitments) differ. */
    prove_bufs b1, b2;
    if (bufs_alloc(&b1, &m1) && bufs_alloc(&b2, &m1)) {
        double t = prove(&b1, &p1);
        prove(&b2, &p2);
        size_t differ = 0;
        for (size_t i = 1; i < m1.n_vars; i++)
            differ += !fr_equal(&b1.z[i], &b2.z[i]);
        CHECK(differ > m1.n_vars / 4);
        CHECK(!fr_equal(&com1, &com2));
        CHECK(fr_equal(&b1.z[n_pub], &com1));
        synthetic_stats_witness(&ss, b1.z, m1.n_vars, n_pub);
        printf("  ");
        synthetic_stats_print(stdout, &ss);
        printf("  seeds differ in %.1f%% of wires; PROVE synthesis %.3f s, %.2f M constraints/s "
               "(one thread)\n",
               100.0 * (double)differ / (double)m1.n_vars, t, t > 0 ? (double)nc / t / 1e6 : 0);
        *bytes_per_constraint = (double)(m1.n_vars + 3 * nc) * sizeof(fr_t) / (double)nc;
        CHECK(ss.density_a > 0.9);
        CHECK(ss.density_b > 0.15 && ss.density_b < 0.45);
        CHECK(ss.share_0 + ss.share_1 > 0.8);
    }
    bufs_free(&b1);
    bufs_free(&b2);

    /* 4. CHECK: satisfied, and planted errors are named. */
    char name[512];
    size_t at = 0;
    if (!CHECK(check_plant(&p1, 0, 0, name, sizeof name, &at)))
        printf("  unsatisfied: '%s'\n", name);
    /* The first private wire is challenge 0's bit 0: its booleanity is row 0. */
    CHECK(!check_plant(&p1, (cs_var)(n_pub + 1), 7, name, sizeof name, &at));
    if (!CHECK(strcmp(name, "challenge 0/boolean") == 0 && at == 0))
        printf("  bit: '%s' at %zu\n", name, at);
    /* The commitment (the last public input). */
    CHECK(!check_plant(&p1, (cs_var)n_pub, 2, name, sizeof name, &at));
    if (!CHECK(strcmp(name, "commitment/sum") == 0 && at == nc - 1))
        printf("  commitment: '%s' at %zu\n", name, at);
    /* The last wire: the filler chain's end (or the last accumulator). */
    CHECK(!check_plant(&p1, (cs_var)(m1.n_vars - 1), 7, name, sizeof name, &at));
    if (!CHECK(strncmp(name, "filler/", 7) == 0 || strncmp(name, "glue", 4) == 0))
        printf("  last wire: '%s'\n", name);
    /* Inside a hash: the wire a named row defines (its newest wire in C) fails that row. */
    if (names && CHECK(row != SIZE_MAX)) {
        cs_var w = 0;
        for (size_t j = m1.row_start[2][row]; j < m1.row_start[2][row + 1]; j++)
            if (m1.terms[2][j].wire > w)
                w = m1.terms[2][j].wire;
        CHECK(!check_plant(&p1, w, 7, name, sizeof name, &at));
        if (!CHECK(strcmp(name, target) == 0 && at == row))
            printf("  planted at wire %u: '%s' at %zu, want '%s' at %zu\n", w, name, at, target,
                   row);
        else
            printf("  planted error named '%s'\n", name);
    }
    constraint_matrices_free(&m1);
    constraint_matrices_free(&m2);
}

/* The compression the labels use, against the plain C reference. */
typedef struct {
    uint32_t state[8], block[16], out[8];
} compress_params;

static g16_status compress_circuit(cs_t *cs, const void *p)
{
    compress_params *cp = (compress_params *)p;
    cs_word st[8], blk[16], out[8];
    for (unsigned i = 0; i < 8; i++)
        st[i] = cs_word_alloc(cs, cp->state[i]);
    for (unsigned i = 0; i < 16; i++)
        blk[i] = cs_word_alloc(cs, cp->block[i]);
    synthetic_sha256_compress(cs, out, st, blk);
    for (unsigned i = 0; i < 8; i++)
        cp->out[i] = cs_word_value(&out[i]);
    return G16_OK;
}

static void test_compress(void)
{
    size_t reps = test_count(2);
    for (size_t r = 0; r < reps; r++) {
        compress_params cp;
        uint32_t want[8];
        for (int i = 0; i < 8; i++)
            want[i] = cp.state[i] = (uint32_t)test_rand64();
        for (int i = 0; i < 16; i++)
            cp.block[i] = (uint32_t)test_rand64();
        sha256_ref_compress(want, cp.block);
        cs_stats s;
        if (!CHECK(cs_roundtrip(&s, NULL, compress_circuit, &cp, 0) == G16_OK)) {
            printf("  %s\n", g16_last_error());
            continue;
        }
        CHECK(memcmp(cp.out, want, sizeof want) == 0);
        if (r == 0) {
            /* As the gadget: 26416 beyond the 768 input booleanity constraints. */
            printf("compression: %zu constraints; A-aux %zu, B-aux %zu of %zu\n",
                   s.n_constraints - 768, s.density_a, s.density_b, s.n_aux);
            CHECK(s.n_constraints - 768 == 26416);
        }
    }
}

/* Out-of-range targets and too many inputs are refused with a message. */
static void test_arguments(void)
{
    cs_t *cs;
    synthetic_params p = {512, 2, 1, NULL};
    CHECK(cs_create(&cs, CS_CHECK, 2, NULL) == G16_OK);
    CHECK(cs_synthesize(cs, synthetic_circuit, &p) == G16_ERR_INVALID_ARGUMENT);
    cs_free(cs);
    p = (synthetic_params){1024, 16, 1, NULL};
    CHECK(cs_create(&cs, CS_CHECK, 16, NULL) == G16_OK);
    CHECK(cs_synthesize(cs, synthetic_circuit, &p) == G16_ERR_INVALID_ARGUMENT);
    cs_free(cs);
    p = (synthetic_params){4096, 3, 1, NULL};
    CHECK(cs_create(&cs, CS_CHECK, 2, NULL) == G16_OK); /* declared count disagrees */
    CHECK(cs_synthesize(cs, synthetic_circuit, &p) == G16_ERR_INVALID_ARGUMENT);
    cs_free(cs);
}

int main(void)
{
    test_init("test_synthetic");
    test_arguments();
    test_compress();
    unsigned max_lg = 16;
    const char *env = getenv("G16_SYNTHETIC_LOG2");
    if (env && atoi(env) >= 10 && atoi(env) <= 27)
        max_lg = (unsigned)atoi(env);
    double bpc = 0;
    for (unsigned lg = 10; lg <= max_lg; lg += 2) {
        double b = 0;
        test_size(lg, &b);
        if (lg == 16)
            bpc = b;
    }
    if (bpc > 0)
        printf("PROVE buffers at 2^16: %.1f bytes per constraint (z, a, b, c)\n", bpc);
    return test_finish();
}
