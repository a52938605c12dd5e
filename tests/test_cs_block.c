/* Recorded blocks replayed in SETUP mode (circuit/cs_block.h) against running the gadgets:
 * the matrices, the densities, the wire count and (for the synthetic circuit) the
 * commitment must be the same, bit for bit, whatever the thread count.
 *
 * - cs_vars_distinct on runs, overlaps, repeats and many runs (its heap path);
 * - a small block of word gadgets copied among other constraints, with inputs that mix
 *   public and private wires, in and out of order, filled in reverse order;
 * - the synthetic circuit at sizes where the budget cuts the compressions at different
 *   points (odd sizes, 1 to several full compressions, 1 to 16 public inputs), replayed
 *   on 1, 2, 3 and 7 threads against its gadgets on one, checking that copies were made
 *   and that labels whose parents repeat a wire ran the gadgets (at these sizes, with few
 *   nodes to draw parents from, most labels do), and both against digests recorded before
 *   replay existed.
 * G16_CS_BLOCK_BIG=1 adds sizes up to 2^20. */
#include <stdlib.h>
#include <string.h>

#include "circuit/cs_block.h"
#include "circuit/synthetic.h"
#include "groth16/density.h"
#include "harness.h"
#include "util/parallel.h"

/* FNV-1a over the matrices' members (lc_term has padding: members, not bytes). */
static uint64_t fnv_word(uint64_t h, uint64_t x)
{
    for (int i = 0; i < 8; i++)
        h = (h ^ (x >> (8 * i) & 0xff)) * 0x100000001b3ull;
    return h;
}

static uint64_t matrices_fnv(const constraint_matrices *m)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv_word(fnv_word(fnv_word(h, m->n_vars), m->n_public), m->n_constraints);
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i <= m->n_constraints; i++)
            h = fnv_word(h, m->row_start[k][i]);
        for (size_t j = 0; j < m->row_start[k][m->n_constraints]; j++) {
            uint64_t limbs[4];
            fr_to_limbs(limbs, &m->terms[k][j].coeff);
            h = fnv_word(h, m->terms[k][j].wire);
            for (int l = 0; l < 4; l++)
                h = fnv_word(h, limbs[l]);
        }
    }
    return h;
}

static bool same_density(const cs_t *x, const cs_t *y)
{
    size_t n = cs_num_aux(x);
    return n == cs_num_aux(y) &&
           !memcmp(cs_density_a(x), cs_density_a(y), density_words(n) * sizeof(uint64_t)) &&
           !memcmp(cs_density_b(x), cs_density_b(y), density_words(n) * sizeof(uint64_t));
}

/* --- cs_vars_distinct ------------------------------------------------------------------------ */

static void test_distinct(void)
{
    cs_var v[600];
    for (unsigned i = 0; i < 96; i++)
        v[i] = 1000 + i; /* three consecutive words: one run */
    CHECK(cs_vars_distinct(v, 96));
    CHECK(cs_vars_distinct(v, 1) && cs_vars_distinct(v, 0));
    v[95] = 1000; /* a repeat inside a run */
    CHECK(!cs_vars_distinct(v, 96));
    for (unsigned i = 0; i < 32; i++) {
        v[i] = 500 + i;      /* word at 500 */
        v[32 + i] = 100 + i; /* word at 100, earlier wires after later ones */
        v[64 + i] = 516 + i; /* overlaps the first word's top half */
    }
    CHECK(cs_vars_distinct(v, 64));
    CHECK(!cs_vars_distinct(v, 96));
    for (unsigned i = 0; i < 32; i++)
        v[64 + i] = 532 + i; /* adjacent to the first word: distinct */
    CHECK(cs_vars_distinct(v, 96));
    /* Wires 2^32 - 1 and 0 are not consecutive. */
    v[0] = UINT32_MAX;
    v[1] = 0;
    v[2] = UINT32_MAX;
    CHECK(cs_vars_distinct(v, 2));
    CHECK(!cs_vars_distinct(v, 3));
    /* 600 runs of one (a random permutation of even numbers): the heap path. */
    for (unsigned i = 0; i < 600; i++)
        v[i] = 2 * i;
    for (unsigned i = 599; i > 0; i--) {
        unsigned j = (unsigned)(test_rand64() % (i + 1));
        cs_var t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
    CHECK(cs_vars_distinct(v, 600));
    unsigned a = (unsigned)(test_rand64() % 600), b = (unsigned)(test_rand64() % 599);
    v[a] = v[b + (b >= a)];
    CHECK(!cs_vars_distinct(v, 600));
}

/* --- a small block among other constraints ------------------------------------------------- */

enum { SMALL_INPUTS = 96, SMALL_PUBLIC = 5 };

/* The block: (x xor y xor z) + x + y + 0x9e3779b9, and ch(x, y, z), on three words. */
static void small_block(cs_t *cs, cs_word out[2], const cs_word in[3])
{
    cs_word x = cs_word_xor3(cs, &in[0], &in[1], &in[2]);
    const cs_word *ops[3] = {&x, &in[0], &in[1]};
    out[0] = cs_word_add(cs, ops, 3, 0x9e3779b9u);
    out[1] = cs_word_ch(cs, &in[0], &in[1], &in[2]);
}

static void words_of(cs_word w[3], const cs_var *in)
{
    for (unsigned i = 0; i < SMALL_INPUTS; i++)
        w[i / 32].b[i % 32] = (cs_bit){in[i], CS_BIT_VAR, (uint8_t)(i % 3 == 0)};
}

/* One cs of the small test: public inputs, 200 private bits (wires SMALL_PUBLIC + 1 ..),
 * then copies of the block on in[c], a bit between copies, by gadgets or by replay. */
enum { SMALL_COPIES = 6, SMALL_POOL = 200 };

static bool small_run(cs_t *cs, const cs_block *b, cs_var in[SMALL_COPIES][SMALL_INPUTS],
                      bool replay)
{
    for (unsigned i = 0; i < SMALL_PUBLIC; i++)
        cs_alloc_public(cs, cs_pow2(cs, i));
    for (unsigned i = 0; i < SMALL_POOL; i++)
        cs_bit_alloc(cs, i & 1);
    cs_block_span span[SMALL_COPIES];
    for (unsigned c = 0; c < SMALL_COPIES; c++) {
        if (replay) {
            if (!CHECK(cs_block_reserve(cs, b, &span[c])))
                return false;
        } else {
            cs_word w[3], out[2];
            words_of(w, in[c]);
            small_block(cs, out, w);
        }
        cs_bit_alloc(cs, c & 1);
    }
    if (replay)
        for (unsigned c = SMALL_COPIES; c-- > 0;)
            cs_block_fill(cs, b, &span[c], in[c]);
    return cs_status(cs) == G16_OK;
}

static void test_small_block(void)
{
    cs_block b;
    cs_t *rec = NULL;
    if (!CHECK(cs_block_begin(&b, &rec, SMALL_INPUTS) == G16_OK))
        return;
    cs_var rin[SMALL_INPUTS];
    for (unsigned i = 0; i < SMALL_INPUTS; i++)
        rin[i] = 1 + i;
    cs_word w[3], out[2];
    words_of(w, rin);
    small_block(rec, out, w);
    if (!CHECK(cs_block_end(&b, rec) == G16_OK))
        return;
    CHECK(b.n_inputs == SMALL_INPUTS && b.m.n_constraints > 100 && b.n_wires > 64);

    /* Copy c's inputs: pool bits and public wires, shuffled, each at most once. */
    cs_var in[SMALL_COPIES][SMALL_INPUTS];
    for (unsigned c = 0; c < SMALL_COPIES; c++) {
        cs_var cand[SMALL_POOL + SMALL_PUBLIC];
        for (unsigned i = 0; i < SMALL_POOL + SMALL_PUBLIC; i++)
            cand[i] = 1 + i;
        for (unsigned i = 0; i < SMALL_INPUTS; i++) {
            unsigned j = i + (unsigned)(test_rand64() % (SMALL_POOL + SMALL_PUBLIC - i));
            cs_var t = cand[i];
            cand[i] = cand[j];
            cand[j] = t;
        }
        memcpy(in[c], cand, sizeof in[c]);
    }
    cs_t *cs[2];
    constraint_matrices m[2];
    for (int r = 0; r < 2; r++) {
        CHECK(cs_create(&cs[r], CS_SETUP, SMALL_PUBLIC, NULL) == G16_OK);
        CHECK(small_run(cs[r], &b, in, r == 1));
        CHECK(cs_take_matrices(cs[r], &m[r]) == G16_OK);
    }
    CHECK(cs_block_copies(cs[0]) == 0 && cs_block_copies(cs[1]) == SMALL_COPIES);
    CHECK(constraint_matrices_equal(&m[0], &m[1]));
    CHECK(same_density(cs[0], cs[1]));
    for (int r = 0; r < 2; r++) {
        constraint_matrices_free(&m[r]);
        cs_free(cs[r]);
    }
    cs_block_free(&b);
}

/* --- the synthetic circuit ----------------------------------------------------------------- */

typedef struct {
    constraint_matrices m;
    cs_t *cs; /* after cs_take_matrices: densities */
    fr_t commitment;
    size_t copies;
} setup_run;

static bool synth_setup(setup_run *r, size_t n, size_t n_public, bool replay, bool names)
{
    memset(r, 0, sizeof *r);
    synthetic_params p = {.n_constraints = n, .n_public = n_public, .seed = 11,
                          .commitment = &r->commitment};
    if (!CHECK(cs_create(&r->cs, CS_SETUP, n_public, NULL) == G16_OK))
        return false;
    cs_block_allow(r->cs, replay);
    if (names)
        cs_keep_names(r->cs);
    g16_status st = cs_synthesize(r->cs, synthetic_circuit, &p);
    if (!CHECK(st == G16_OK)) {
        printf("  %s\n", g16_last_error());
        return false;
    }
    r->copies = cs_block_copies(r->cs);
    return CHECK(cs_take_matrices(r->cs, &r->m) == G16_OK);
}

static void synth_free(setup_run *r)
{
    constraint_matrices_free(&r->m);
    cs_free(r->cs);
}

/* Full compressions in a run that kept names: the distinct "label %zu" prefixes. */
static size_t full_compressions(const cs_t *cs, size_t n_rows)
{
    size_t count = 0, last = SIZE_MAX;
    for (size_t i = 0; i < n_rows; i++) {
        size_t l;
        if (sscanf(cs_constraint_name(cs, i), "label %zu/", &l) == 1 && l != last) {
            count++;
            last = l;
        }
    }
    return count;
}

static void test_synthetic(void)
{
    static const struct {
        size_t n, n_public;
    } sizes[] = {
        {32768, 1},   {45001, 4},   {54321, 16},  {65536, 1},   {80001, 2},
        {98765, 16},  {131071, 4},  {158003, 1},  {1u << 18, 16}, {(1u << 20) - 3, 16},
    };
    static const unsigned threads[] = {1, 2, 3, 7};
    /* matrices_fnv recorded from the code before replay existed (every label by its
     * gadgets): anchors both paths to it where test_setup_golden's sizes have no full
     * compression. */
    static const struct {
        size_t n, n_public;
        uint64_t fnv;
    } before[] = {
        {158003, 1, 0xc3e6efc9a1486f36ull},
        {1u << 18, 16, 0x9b56d3575620ece8ull},
        {(1u << 20) - 3, 16, 0x521dd8f001c8c998ull},
    };
    const char *big = getenv("G16_CS_BLOCK_BIG");
    size_t n_sizes = big && *big && strcmp(big, "0") ? 10 : 9;
    size_t copies = 0, fallbacks = 0;
    for (size_t s = 0; s < n_sizes; s++) {
        parallel_set_threads(1);
        setup_run ref;
        if (!synth_setup(&ref, sizes[s].n, sizes[s].n_public, false, true))
            return;
        size_t full = full_compressions(ref.cs, ref.m.n_constraints);
        CHECK(ref.copies == 0);
        for (size_t b = 0; b < sizeof before / sizeof before[0]; b++)
            if (before[b].n == sizes[s].n && before[b].n_public == sizes[s].n_public)
                CHECK(matrices_fnv(&ref.m) == before[b].fnv);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            parallel_set_threads(threads[t]);
            setup_run r;
            if (!synth_setup(&r, sizes[s].n, sizes[s].n_public, true, false))
                break;
            bool ok = CHECK(constraint_matrices_equal(&ref.m, &r.m));
            ok &= CHECK(same_density(ref.cs, r.cs));
            ok &= CHECK(fr_equal(&ref.commitment, &r.commitment));
            ok &= CHECK(r.copies <= full);
            if (t == 0) {
                printf("  %zu constraints, %zu public: %zu full compressions, %zu replayed\n",
                       sizes[s].n, sizes[s].n_public, full, r.copies);
                copies += r.copies;
                fallbacks += full - r.copies;
            }
            if (!ok)
                printf("  differs: %zu constraints, %u threads\n", sizes[s].n, threads[t]);
            synth_free(&r);
        }
        synth_free(&ref);
    }
    /* Both paths ran: copies, and labels whose parents repeat a wire. */
    CHECK(copies > 0);
    CHECK(fallbacks > 0);
    parallel_set_threads(1);
}

int main(void)
{
    test_init("cs_block");
    test_distinct();
    test_small_block();
    test_synthetic();
    return test_finish();
}
