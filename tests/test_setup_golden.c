/* The development setup of the synthetic circuit with a fixed trapdoor, pinned: digests
 * of its matrices (SETUP-mode synthesis) and of every array of the key, recorded from the
 * implementation before the host stages were parallelised (bench/NOTES.md, "Development
 * setup (host part)"). Any change to synthesis, the QAP evaluation, the Lagrange bases or
 * the fixed-base products that alters a single bit of the key fails here. The digests do
 * not depend on the thread count: the test runs at 1 and at 3 threads, and at 2 with the
 * batches handed to an accelerator (one that runs the CPU's batches: routing them through
 * groth16_setup_accel must not change a bit). */
#include <stdlib.h>
#include <string.h>

#include "circuit/cs.h"
#include "circuit/synthetic.h"
#include "groth16/density.h"
#include "groth16/setup.h"
#include "harness.h"
#include "util/parallel.h"

/* A streaming 64-bit digest over words: enough to tell two keys apart, not a MAC. */
typedef struct {
    uint64_t h;
} digest;

static void dig_word(digest *d, uint64_t x)
{
    d->h ^= x + 0x9e3779b97f4a7c15ull + (d->h << 6) + (d->h >> 2);
    d->h *= 0xbf58476d1ce4e5b9ull;
    d->h ^= d->h >> 31;
}

static void dig_words(digest *d, const uint64_t *w, size_t n)
{
    dig_word(d, n);
    for (size_t i = 0; i < n; i++)
        dig_word(d, w[i]);
}

/* Field elements and points are arrays of uint64_t limbs without padding. */
#define DIG_ARRAY(d, p, n) dig_words((d), (const uint64_t *)(p), (n) * sizeof *(p) / 8)

static uint64_t matrices_digest(const constraint_matrices *m)
{
    digest d = {0};
    dig_word(&d, m->n_vars);
    dig_word(&d, m->n_public);
    dig_word(&d, m->n_constraints);
    for (int k = 0; k < 3; k++) {
        size_t nt = m->row_start[k][m->n_constraints];
        for (size_t i = 0; i <= m->n_constraints; i++)
            dig_word(&d, m->row_start[k][i]);
        /* lc_term has padding after its wire: hash the members, not the bytes. */
        for (size_t t = 0; t < nt; t++) {
            dig_word(&d, m->terms[k][t].wire);
            DIG_ARRAY(&d, &m->terms[k][t].coeff, 1);
        }
    }
    return d.h;
}

static uint64_t key_digest(const groth16_setup_key *k)
{
    digest d = {0};
    dig_word(&d, k->n_vars);
    dig_word(&d, k->n_public);
    dig_word(&d, k->domain_size);
    dig_word(&d, k->n_constraints);
    dig_word(&d, k->n_a);
    dig_word(&d, k->n_b);
    DIG_ARRAY(&d, &k->alpha1, 1);
    DIG_ARRAY(&d, &k->beta1, 1);
    DIG_ARRAY(&d, &k->delta1, 1);
    DIG_ARRAY(&d, &k->beta2, 1);
    DIG_ARRAY(&d, &k->gamma2, 1);
    DIG_ARRAY(&d, &k->delta2, 1);
    DIG_ARRAY(&d, k->ic, k->n_public + 1);
    dig_words(&d, k->density_a, density_words(k->n_vars));
    dig_words(&d, k->density_b, density_words(k->n_vars));
    DIG_ARRAY(&d, k->a, k->n_a);
    DIG_ARRAY(&d, k->b1, k->n_b);
    DIG_ARRAY(&d, k->b2, k->n_b);
    DIG_ARRAY(&d, k->c, k->n_vars - k->n_public - 1);
    DIG_ARRAY(&d, k->h, k->domain_size);
    return d.h;
}

typedef struct {
    size_t n_constraints, n_public;
    uint64_t matrices, key; /* recorded before the change */
} golden;

static const golden GOLDEN[] = {
    {1u << 12, 4, 0x3151a706de9ab328ull, 0x33cf043b4956f614ull},
    {1u << 14, 16, 0x385a37b3bba4f3abull, 0x08b807d690384ff6ull},
};

/* An accelerator that runs the CPU's batches: the setup's accelerated path (every batch
 * handed over) must give the same key. */
static unsigned accel_calls;

static g16_status cpu_accel_g1(void *ctx, g1_affine_t *out, const g1_fixed_base *fb,
                               const fr_t *k, size_t n)
{
    (void)ctx;
    accel_calls++;
    return g1_fixed_base_batch(out, fb, k, n);
}

static g16_status cpu_accel_g2(void *ctx, g2_affine_t *out, const g2_fixed_base *fb,
                               const fr_t *k, size_t n)
{
    (void)ctx;
    accel_calls++;
    return g2_fixed_base_batch(out, fb, k, n);
}

static void run_case(const golden *g, unsigned threads, bool accelerated)
{
    parallel_set_threads(threads);
    synthetic_params params = {.n_constraints = g->n_constraints, .n_public = g->n_public,
                               .seed = 7};
    cs_t *cs = NULL;
    constraint_matrices mat = {0};
    g16_status st = cs_create(&cs, CS_SETUP, g->n_public, NULL);
    if (st == G16_OK)
        st = cs_synthesize(cs, synthetic_circuit, &params);
    if (st == G16_OK)
        st = cs_take_matrices(cs, &mat);
    cs_free(cs);
    if (!CHECK(st == G16_OK)) {
        fprintf(stderr, "  synthesis: %s\n", g16_last_error());
        return;
    }
    /* A fixed trapdoor: small integers, none of them in the domain (tau = 5 is no root of
     * unity of order 2^k in Fr for any k the setup uses). */
    fr_t trapdoor[4];
    for (int i = 0; i < 4; i++)
        fr_from_u64(&trapdoor[i], 5 + 2 * (uint64_t)i);
    groth16_setup_key key = {0};
    groth16_setup_accel accel = {.g1_batch = cpu_accel_g1, .g2_batch = cpu_accel_g2};
    accel_calls = 0;
    st = accelerated
             ? groth16_setup_with_trapdoor_accelerated(&key, &mat, trapdoor, NULL, &accel)
             : groth16_setup_with_trapdoor(&key, &mat, trapdoor, NULL);
    CHECK(accelerated == (accel_calls == 6)); /* A, B1, B2, IC, C, H */
    if (CHECK(st == G16_OK)) {
        uint64_t hm = matrices_digest(&mat), hk = key_digest(&key);
        printf("  2^%d constraints, %zu public, %u threads%s: matrices %016llx key %016llx\n",
               __builtin_ctzll(g->n_constraints), g->n_public, threads,
               accelerated ? ", batches through an accelerator" : "",
               (unsigned long long)hm, (unsigned long long)hk);
        CHECK(hm == g->matrices);
        CHECK(hk == g->key);
    } else {
        fprintf(stderr, "  setup: %s\n", g16_last_error());
    }
    groth16_setup_key_free(&key);
    constraint_matrices_free(&mat);
}

int main(void)
{
    test_init("setup_golden");
    for (size_t i = 0; i < sizeof GOLDEN / sizeof GOLDEN[0]; i++) {
        run_case(&GOLDEN[i], 1, false);
        run_case(&GOLDEN[i], 3, false);
        run_case(&GOLDEN[i], 2, true);
    }
    return test_finish();
}
