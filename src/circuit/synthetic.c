/* The synthetic Filecoin-like circuit (synthetic.h). */
#include "synthetic.h"

#include <stdlib.h>
#include <string.h>

#include "cs_block.h"
#include "groth16/density.h"
#include "sha256.h"
#include "util/parallel.h"

/* Plays the part of Filecoin's PoRep id: fixes the parent graph for every partition. */
#define GRAPH_SEED 0x6731365f67726170ull

/* Planning bounds. A round with every operand a wire costs 296 (two XOR3 words 128, CH 32,
 * MAJ 64, two 5- and 6-operand additions 36 each); a full compression 26416. The bounds
 * only decide whether another piece fits; the budget is re-read after each one, so the
 * total never passes it even if a gadget's cost changes. */
#define ROUND_BOUND 300
#define FULL_BOUND 26600
#define GLUE_COST 3 /* two packs and one accumulator step per label */
#define TAIL_ROUNDS 16 /* rounds without a message schedule use the block words directly */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t mix(uint64_t seed, uint64_t tag, uint64_t i)
{
    uint64_t s = seed ^ splitmix(&tag) ^ (i * 0xd6e8feb86659fd93ull);
    return splitmix(&s);
}

uint64_t synthetic_challenge(uint64_t seed, size_t i)
{
    return mix(seed, 0x6368616c, i);
}

typedef struct {
    cs_word w[8];
} node;

/* SETUP mode: a full compression recorded once (cs_block.h) on 768 distinct wires, the
 * state's bits then the block's, word by word, least significant bit first. Its rows for
 * a label whose 768 input bits are distinct wires are the gadgets' rows relocated; a
 * label whose parents repeat a wire (a parent drawn twice, a parent that is the previous
 * label, a base node holding a word twice) runs the gadgets. */
enum { COMPRESS_INPUTS = 768 };

typedef struct {
    cs_block block;
    cs_var out[256]; /* the recording's wires of the new label's bits, in input order */
} compress_block;

/* A label left to write: its span in the cs and its inputs as node indices (the nodes
 * array moves as it grows; indices do not). */
typedef struct {
    cs_block_span span;
    size_t prev, par[2];
} compress_copy;

typedef struct {
    cs_t *cs;
    size_t budget; /* constraints the circuit may use */
    node *nodes;   /* base nodes, then labels in order */
    size_t n_nodes, cap, n_labels;
    uint64_t graph; /* parent picker state: structure only, never the partition seed */
    cs_var acc;
    bool have_acc;
    compress_block *rec; /* SETUP: the recorded compression, NULL when not replaying */
    compress_copy *copies;
    size_t n_copies, copies_cap;
} synth;

static size_t remaining(const synth *s)
{
    size_t n = cs_num_constraints(s->cs);
    return n >= s->budget ? 0 : s->budget - n;
}

static size_t parent(synth *s)
{
    return splitmix(&s->graph) % s->n_nodes;
}

/* Packs a label into two 128-bit field elements and adds them to the running sum: the
 * linear glue around Filecoin's hashes, and what keeps every label's bits live in A. */
static void glue(synth *s, const node *label)
{
    cs_t *cs = s->cs;
    cs_push(cs, "glue %zu", s->n_labels);
    cs_var half[2];
    for (unsigned h = 0; h < 2; h++) {
        cs_bit bits[128];
        for (unsigned i = 0; i < 4; i++)
            memcpy(bits + 32 * i, label->w[4 * h + i].b, sizeof label->w[0].b);
        half[h] = cs_bits_pack(cs, bits, 128);
    }
    CS_LC(la, cs, 3);
    CS_LC(lb, cs, 1);
    CS_LC(lc, cs, 1);
    fr_t v, t;
    fr_mul(&t, cs_value(cs, half[1]), cs_pow2(cs, 128));
    fr_add(&v, cs_value(cs, half[0]), &t);
    if (s->have_acc) {
        cs_lc_add_var(&la, s->acc);
        fr_add(&v, &v, cs_value(cs, s->acc));
    }
    cs_lc_add_var(&la, half[0]);
    cs_lc_add(&la, half[1], cs_pow2(cs, 128));
    cs_lc_add_var(&lb, CS_ONE);
    s->acc = cs_alloc(cs, &v);
    s->have_acc = true;
    cs_lc_add_var(&lc, s->acc);
    cs_enforce(cs, &la, &lb, &lc, "accumulate");
    cs_pop(cs);
}

static bool push_label(synth *s, const node *label)
{
    if (s->n_nodes == s->cap) {
        size_t cap = s->cap * 2;
        node *p = realloc(s->nodes, cap * sizeof *p);
        if (!p) {
            cs_fail(s->cs, G16_ERR_OUT_OF_MEMORY, "synthetic: %zu labels", cap);
            return false;
        }
        s->nodes = p;
        s->cap = cap;
    }
    s->nodes[s->n_nodes++] = *label;
    glue(s, label);
    s->n_labels++;
    return true;
}

static cs_word big_sigma(cs_t *cs, const cs_word *x, unsigned r1, unsigned r2, unsigned r3)
{
    cs_word a = cs_word_rotr(x, r1), b = cs_word_rotr(x, r2), c = cs_word_rotr(x, r3);
    return cs_word_xor3(cs, &a, &b, &c);
}

static cs_word small_sigma(cs_t *cs, const cs_word *x, unsigned r1, unsigned r2, unsigned s)
{
    cs_word a = cs_word_rotr(x, r1), b = cs_word_rotr(x, r2), c = cs_word_shr(x, s);
    return cs_word_xor3(cs, &a, &b, &c);
}

/* maj(a, b, c) = (a xor b) ? c : a, two constraints a bit like the gadget's AND-and-product
 * form, but both new wires are used in A afterwards (the XOR as CH's selector, the result
 * in an addition). The gadget's AND wire appears only in B and C, which caps a compression
 * at ~92% A-aux and lifts B-aux to ~34%; this form gives the ~100% / ~25% of PoRep. */
static cs_word maj_via_ch(cs_t *cs, const cs_word *a, const cs_word *b, const cs_word *c)
{
    cs_word x = cs_word_xor(cs, a, b);
    return cs_word_ch(cs, &x, c, a);
}

/* One SHA-256 round on v with message word w, T1 + T2 and d + T1 each one addition. */
static void sha_round(cs_t *cs, cs_word v[8], const cs_word *w, unsigned t)
{
    cs_push(cs, "round %u", t);
    cs_push(cs, "S1");
    cs_word S1 = big_sigma(cs, &v[4], 6, 11, 25);
    cs_pop(cs);
    cs_word ch = cs_word_ch(cs, &v[4], &v[5], &v[6]);
    cs_push(cs, "S0");
    cs_word S0 = big_sigma(cs, &v[0], 2, 13, 22);
    cs_pop(cs);
    cs_push(cs, "maj");
    cs_word maj = maj_via_ch(cs, &v[0], &v[1], &v[2]);
    cs_pop(cs);
    cs_push(cs, "e");
    const cs_word *e_ops[5] = {&v[3], &v[7], &S1, &ch, w};
    cs_word e = cs_word_add(cs, e_ops, 5, SHA256_K[t]);
    cs_pop(cs);
    cs_push(cs, "a");
    const cs_word *a_ops[6] = {&v[7], &S1, &ch, w, &S0, &maj};
    cs_word a = cs_word_add(cs, a_ops, 6, SHA256_K[t]);
    cs_pop(cs);
    memmove(v + 1, v, 7 * sizeof *v);
    v[4] = e;
    v[0] = a;
    cs_pop(cs);
}

void synthetic_sha256_compress(cs_t *cs, cs_word out[8], const cs_word state[8],
                               const cs_word block[16])
{
    cs_word w[64], v[8];
    memcpy(w, block, 16 * sizeof *w);
    for (unsigned t = 16; t < 64; t++) {
        cs_push(cs, "schedule/w %u", t);
        cs_word s0 = small_sigma(cs, &w[t - 15], 7, 18, 3);
        cs_word s1 = small_sigma(cs, &w[t - 2], 17, 19, 10);
        const cs_word *ops[4] = {&s1, &w[t - 7], &s0, &w[t - 16]};
        w[t] = cs_word_add(cs, ops, 4, 0);
        cs_pop(cs);
    }
    memcpy(v, state, sizeof v);
    for (unsigned t = 0; t < 64; t++)
        sha_round(cs, v, &w[t], t);
    for (unsigned i = 0; i < 8; i++) {
        cs_push(cs, "final %u", i);
        const cs_word *ops[2] = {&state[i], &v[i]};
        out[i] = cs_word_add(cs, ops, 2, 0);
        cs_pop(cs);
    }
}

/* --- SETUP: full compressions replayed ------------------------------------------------------ */

/* The 768 input wires of a compression of state `state` and block (par0, par1), in the
 * recording's order; false when a bit is not a plain wire (a constant or a negation), for
 * which the recording's rows would not hold. */
static bool compress_inputs(cs_var in[COMPRESS_INPUTS], const node *state, const node *par0,
                            const node *par1)
{
    const node *src[3] = {state, par0, par1};
    for (unsigned i = 0; i < COMPRESS_INPUTS; i++) {
        cs_bit b = src[i / 256]->w[i / 32 % 8].b[i % 32];
        if (b.kind != CS_BIT_VAR)
            return false;
        in[i] = b.var;
    }
    return true;
}

/* Records one full compression into s->rec, or leaves s->rec NULL when its output is not
 * made of the block's wires (never with these gadgets; then every label runs them). */
static g16_status record_compression(synth *s)
{
    compress_block *rec = calloc(1, sizeof *rec);
    if (!rec)
        return cs_fail(s->cs, G16_ERR_OUT_OF_MEMORY, "synthetic: recording a compression");
    cs_t *cs;
    g16_status st = cs_block_begin(&rec->block, &cs, COMPRESS_INPUTS);
    bool usable = true;
    if (st == G16_OK) {
        cs_word in[24], out[8];
        for (unsigned i = 0; i < COMPRESS_INPUTS; i++)
            in[i / 32].b[i % 32] = (cs_bit){(cs_var)(1 + i), CS_BIT_VAR, 0};
        synthetic_sha256_compress(cs, out, in, in + 8);
        for (unsigned i = 0; i < 256; i++) {
            cs_bit b = out[i / 32].b[i % 32];
            usable = usable && b.kind == CS_BIT_VAR;
            rec->out[i] = b.var;
        }
        st = cs_block_end(&rec->block, cs);
    }
    if (st || !usable) {
        cs_block_free(&rec->block);
        free(rec);
        return st ? cs_fail(s->cs, st, "synthetic: recording a compression") : G16_OK;
    }
    s->rec = rec;
    return G16_OK;
}

/* Appends the compression of prev's label and parents par0, par1 as a copy of the
 * recording when its inputs allow (label := the new label, its values computed here, as
 * a copy computes none); false when the gadgets must run instead, or the cs failed. */
static bool compress_replayed(synth *s, node *label, size_t prev, size_t par0, size_t par1)
{
    const node *state = &s->nodes[prev], *p0 = &s->nodes[par0], *p1 = &s->nodes[par1];
    cs_var in[COMPRESS_INPUTS];
    if (!s->rec || !compress_inputs(in, state, p0, p1) || !cs_vars_distinct(in, COMPRESS_INPUTS))
        return false;
    if (s->n_copies == s->copies_cap) {
        size_t cap = s->copies_cap ? 2 * s->copies_cap : 64;
        compress_copy *c = realloc(s->copies, cap * sizeof *c);
        if (!c) {
            cs_fail(s->cs, G16_ERR_OUT_OF_MEMORY, "synthetic: %zu compressions", cap);
            return false;
        }
        s->copies = c;
        s->copies_cap = cap;
    }
    compress_copy *copy = &s->copies[s->n_copies];
    if (!cs_block_reserve(s->cs, &s->rec->block, &copy->span))
        return false;
    copy->prev = prev;
    copy->par[0] = par0;
    copy->par[1] = par1;
    s->n_copies++;
    uint32_t v[8], block[16];
    for (unsigned i = 0; i < 8; i++) {
        v[i] = cs_word_value(&state->w[i]);
        block[i] = cs_word_value(&p0->w[i]);
        block[8 + i] = cs_word_value(&p1->w[i]);
    }
    sha256_ref_compress(v, block); /* what synthetic_sha256_compress computes */
    for (unsigned i = 0; i < 256; i++) {
        cs_var w = cs_block_wire(&s->rec->block, &copy->span, in, s->rec->out[i]);
        label->w[i / 32].b[i % 32] = (cs_bit){w, CS_BIT_VAR, (uint8_t)(v[i / 32] >> (i % 32) & 1)};
    }
    return true;
}

static void fill_copies(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const synth *s = ctx;
    for (size_t i = begin; i < end; i++) {
        const compress_copy *c = &s->copies[i];
        cs_var in[COMPRESS_INPUTS];
        compress_inputs(in, &s->nodes[c->prev], &s->nodes[c->par[0]], &s->nodes[c->par[1]]);
        cs_block_fill(s->cs, &s->rec->block, &c->span, in);
    }
}

static g16_status run(synth *s, const synthetic_params *p)
{
    cs_t *cs = s->cs;
    size_t n_chal = p->n_public - 1;
    /* Fewer data words on small targets keep their share of booleanity (all of it in B)
     * near what it is at scale. */
    size_t n_data = p->n_constraints >> 9;
    n_data = n_data < 2 ? 2 : n_data > 16 ? 16 : n_data;
    size_t n_base_words = n_data + 2 * n_chal;

    cs_word *base = malloc(n_base_words * sizeof *base);
    if (!base)
        return cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "synthetic: base words");
    for (size_t i = 0; i < n_chal; i++) {
        cs_push(cs, "challenge %zu", i);
        fr_t v;
        fr_from_u64(&v, synthetic_challenge(p->seed, i));
        cs_var x = cs_alloc_public(cs, &v);
        cs_bit bits[64];
        cs_num_to_bits(cs, bits, x, 64);
        memcpy(base[n_data + 2 * i].b, bits, 32 * sizeof *bits);
        memcpy(base[n_data + 2 * i + 1].b, bits + 32, 32 * sizeof *bits);
        cs_pop(cs);
    }
    cs_push(cs, "data");
    for (size_t i = 0; i < n_data; i++) {
        cs_push(cs, "word %zu", i);
        base[i] = cs_word_alloc(cs, (uint32_t)mix(p->seed, 0x64617461, i));
        cs_pop(cs);
    }
    cs_pop(cs);

    /* Base nodes cycle through the base words, so every one of them is some parent's. */
    size_t n_base = (n_base_words + 7) / 8;
    s->cap = n_base + p->n_constraints / 4096 + 16;
    s->nodes = malloc(s->cap * sizeof *s->nodes);
    if (!s->nodes) {
        free(base);
        return cs_fail(cs, G16_ERR_OUT_OF_MEMORY, "synthetic: %zu nodes", s->cap);
    }
    for (size_t i = 0; i < 8 * n_base; i++)
        s->nodes[i / 8].w[i % 8] = base[i % n_base_words];
    s->n_nodes = n_base;
    free(base);

    /* Full compressions: state = the previous label (the first base node to start),
     * block = two parents. The planning estimate becomes the measured cost after one. */
    size_t full_cost = FULL_BOUND;
    if (cs_block_usable(cs) && remaining(s) >= full_cost + GLUE_COST + 1 &&
        record_compression(s) != G16_OK)
        return cs_status(cs);
    while (cs_status(cs) == G16_OK && remaining(s) >= full_cost + GLUE_COST + 1) {
        size_t prev = s->n_nodes - 1, par0 = parent(s), par1 = parent(s);
        node label;
        size_t before = cs_num_constraints(cs);
        if (!compress_replayed(s, &label, prev, par0, par1)) {
            if (cs_status(cs) != G16_OK)
                break;
            cs_word block[16];
            memcpy(block, s->nodes[par0].w, sizeof s->nodes[par0].w);
            memcpy(block + 8, s->nodes[par1].w, sizeof s->nodes[par1].w);
            cs_push(cs, "label %zu", s->n_labels);
            synthetic_sha256_compress(cs, label.w, s->nodes[prev].w, block);
            cs_pop(cs);
        }
        full_cost = cs_num_constraints(cs) - before;
        if (!push_label(s, &label))
            break;
    }
    /* The copies' rows, in parallel, before anything else grows the cs. */
    if (s->n_copies && cs_status(cs) == G16_OK)
        parallel_for(s->n_copies, 1, fill_copies, s);

    /* Truncated compressions: rounds only, while a round, its label's glue and the
     * commitment still fit. */
    size_t n_tail = 0;
    while (cs_status(cs) == G16_OK && remaining(s) >= ROUND_BOUND + GLUE_COST + 1) {
        node v = s->nodes[s->n_nodes - 1], par[2];
        par[0] = s->nodes[parent(s)];
        par[1] = s->nodes[parent(s)];
        cs_push(cs, "tail %zu", n_tail++);
        for (unsigned t = 0; t < TAIL_ROUNDS && remaining(s) >= ROUND_BOUND + GLUE_COST + 1; t++)
            sha_round(cs, v.w, &par[t / 8].w[t % 8], t);
        cs_pop(cs);
        if (!push_label(s, &v))
            break;
    }
    if (cs_status(cs) != G16_OK)
        return cs_status(cs);
    if (s->n_labels == 0)
        return cs_fail(cs, G16_ERR_INVALID_ARGUMENT,
                       "synthetic: %zu constraints leave no room for a label after %zu "
                       "public inputs", p->n_constraints, p->n_public);

    /* The last few hundred constraints: a XOR chain over the last label's bits, one
     * constraint and one new bit each. Its bits appear in A only, which also steers the
     * small circuits' B density down to what the bulk has. */
    const node *last = &s->nodes[s->n_nodes - 1];
    cs_bit x = last->w[0].b[0];
    size_t n_fill = remaining(s) - 1;
    cs_push(cs, "filler");
    for (size_t k = 0; k < n_fill; k++) {
        size_t j = (k + 1) % 256;
        x = cs_bit_xor(cs, x, last->w[j / 32].b[j % 32]);
    }
    cs_pop(cs);

    /* The commitment: the running sum plus the chain's last bit, public. */
    cs_push(cs, "commitment");
    CS_LC(la, cs, 2);
    CS_LC(lb, cs, 1);
    CS_LC(lc, cs, 1);
    cs_lc_add_var(&la, s->acc);
    cs_lc_add_bit(&la, x, cs_pow2(cs, 0));
    cs_lc_add_var(&lb, CS_ONE);
    fr_t c = *cs_value(cs, s->acc);
    if (x.value)
        fr_add(&c, &c, cs_pow2(cs, 0));
    cs_lc_add_var(&lc, cs_alloc_public(cs, &c));
    cs_enforce(cs, &la, &lb, &lc, "sum");
    cs_pop(cs);
    if (p->commitment)
        *p->commitment = c;
    return cs_status(cs);
}

g16_status synthetic_circuit(cs_t *cs, const void *params)
{
    const synthetic_params *p = params;
    if (p->n_constraints < SYNTHETIC_MIN_CONSTRAINTS ||
        p->n_constraints > SYNTHETIC_MAX_CONSTRAINTS)
        return cs_fail(cs, G16_ERR_INVALID_ARGUMENT,
                       "synthetic: %zu constraints, outside 2^10 .. 2^27", p->n_constraints);
    if (p->n_public < 1 || p->n_public != cs_num_public(cs))
        return cs_fail(cs, G16_ERR_INVALID_ARGUMENT,
                       "synthetic: %zu public inputs for a cs declaring %zu (at least 1)",
                       p->n_public, cs_num_public(cs));
    /* Each challenge costs 65 constraints; half the budget at most keeps the shape. */
    if (65 * (p->n_public - 1) + p->n_public + 1 > p->n_constraints / 2)
        return cs_fail(cs, G16_ERR_INVALID_ARGUMENT,
                       "synthetic: %zu public inputs are too many for %zu constraints",
                       p->n_public, p->n_constraints);
    synth s = {.cs = cs, .budget = p->n_constraints - p->n_public - 1, .graph = GRAPH_SEED};
    g16_status st = run(&s, p);
    free(s.nodes);
    if (s.rec) {
        cs_block_free(&s.rec->block);
        free(s.rec);
    }
    free(s.copies);
    return st;
}

/* --- statistics ---------------------------------------------------------------------------- */

void synthetic_stats_density(synthetic_stats *s, const cs_t *setup_cs)
{
    s->n_aux = cs_num_aux(setup_cs);
    s->n_constraints = cs_num_constraints(setup_cs);
    s->in_a = density_count(cs_density_a(setup_cs), 0, s->n_aux);
    s->in_b = density_count(cs_density_b(setup_cs), 0, s->n_aux);
    s->density_a = s->n_aux ? (double)s->in_a / (double)s->n_aux : 0;
    s->density_b = s->n_aux ? (double)s->in_b / (double)s->n_aux : 0;
}

void synthetic_stats_witness(synthetic_stats *s, const fr_t *z, size_t n_vars, size_t n_public)
{
    s->zeros = s->ones = s->others = 0;
    for (size_t i = n_public + 1; i < n_vars; i++) {
        if (fr_is_zero(&z[i]))
            s->zeros++;
        else if (fr_is_one(&z[i]))
            s->ones++;
        else
            s->others++;
    }
    size_t n = n_vars > n_public + 1 ? n_vars - n_public - 1 : 0;
    double d = n ? (double)n : 1;
    s->share_0 = (double)s->zeros / d;
    s->share_1 = (double)s->ones / d;
    s->share_other = (double)s->others / d;
}

void synthetic_stats_print(FILE *f, const synthetic_stats *s)
{
    fprintf(f,
            "%zu constraints, %zu aux: A-aux %.1f%% B-aux %.1f%%; witness 0 %.1f%% 1 %.1f%% "
            "other %.2f%%\n",
            s->n_constraints, s->n_aux, 100 * s->density_a, 100 * s->density_b, 100 * s->share_0,
            100 * s->share_1, 100 * s->share_other);
}
