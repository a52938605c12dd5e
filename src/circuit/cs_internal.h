/* The constraint system's state, shared by its two implementation files: cs.c (the three
 * modes) and cs_block.c (recorded blocks replayed in SETUP mode, which write the matrices
 * directly). Nothing outside src/circuit/cs*.c includes this. */
#ifndef G16_CIRCUIT_CS_INTERNAL_H
#define G16_CIRCUIT_CS_INTERNAL_H

#include "cs.h"

enum { CS_PATH_MAX = 512, CS_DEPTH_MAX = 64 };

struct cs {
    cs_mode mode;
    g16_status err;
    size_t n_public, n_public_alloc, n_aux, n_constraints;

    /* z: the caller's buffer in PROVE mode, owned and grown otherwise. */
    fr_t *z;
    size_t z_cap;
    fr_t *a, *b, *c;
    size_t abc_cap;

    /* SETUP: rows and terms of A, B, C, grown geometrically; densities over aux. */
    size_t *row_start[3];
    size_t rows_cap;
    lc_term *terms[3];
    size_t n_terms[3], terms_cap[3];
    /* Bytes of z, row_start[k] and terms[k] known to be faulted in (prefault below). */
    size_t z_touched, rows_touched[3], terms_touched[3];
    uint64_t *density[2];
    size_t density_words;

    /* Namespace path "a/b/c" (not kept in PROVE mode, where names are never shown). */
    char path[CS_PATH_MAX];
    size_t path_len;
    unsigned depth;
    size_t marks[CS_DEPTH_MAX];

    /* CHECK */
    bool failed;
    size_t fail_index;
    char fail_name[CS_PATH_MAX + 128];
    bool planted;
    cs_var plant_wire;
    fr_t plant_value;

    /* Every constraint's name, when kept (SETUP and CHECK, for tests and debugging). */
    bool keep_names;
    /* SETUP: circuits may replay recorded blocks (cs_block.h) instead of running their
     * gadgets; tests turn it off to compare the two. */
    bool no_replay;
    size_t n_block_copies; /* reserved by cs_block_reserve */
    char *names;
    size_t names_len, names_cap;
    size_t *name_off;
    size_t name_off_cap;

    fr_t pow2[256], neg_pow2[256];
};


/* SETUP mode: appends n_rows constraints, n_wires private wires and n_terms[k] terms of
 * matrix k without writing them, growing every array, and returns where they start (row,
 * first wire, first term of each matrix). Their row_start entries, terms, densities and
 * values are the caller's to write (cs_block_fill), before cs_take_matrices and never while
 * another call adds to the cs (growing may move the arrays).
 * Returns false (the cs failed, sticky) when out of memory or past 2^32 wires. */
bool cs_setup_reserve(cs_t *cs, size_t n_rows, size_t n_wires, const size_t n_terms[3],
                      size_t *row, size_t *wire, size_t term[3]);

#endif
