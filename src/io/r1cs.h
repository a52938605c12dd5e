/* circom .r1cs constraint systems (version 1) over the BLS12-381 scalar field.
 *
 * Section 1 (header): u32 fs, the prime (fs bytes), u32 nWires, u32 nPubOut, u32 nPubIn,
 * u32 nPrvIn, u64 nLabels, u32 mConstraints. Section 2: mConstraints constraints, each
 * three linear combinations A, B, C of {u32 nFactors, then nFactors of {u32 wire, fs-byte
 * value in standard form}}. Section 3 (optional): a u64 label per wire. Sections 4 and 5
 * (custom gates, PLONK-only circom features) are G16_ERR_UNSUPPORTED unless empty.
 *
 * r1cs_open checks the header, the prime and the fixed-size sections. Constraints have
 * variable length, so they are checked as they are read: r1cs_iter_next refuses a wire
 * id >= nWires, a value not below r and any read past the section; r1cs_validate walks
 * them all and also refuses bytes left over after the last one.
 */
#ifndef G16_IO_R1CS_H
#define G16_IO_R1CS_H

#include <stdint.h>

#include "field/fr.h"
#include "g16.h"
#include "io/iden3.h"

enum {
    R1CS_SECTION_HEADER = 1,
    R1CS_SECTION_CONSTRAINTS = 2,
    R1CS_SECTION_LABELS = 3,
    R1CS_SECTION_CUSTOM_GATES_LIST = 4,
    R1CS_SECTION_CUSTOM_GATES_USES = 5,
    R1CS_FS = 32,
    R1CS_FACTOR_BYTES = 4 + R1CS_FS,
};

typedef struct {
    iden3_file_t file;
    uint32_t fs;                /* 32 */
    uint32_t n_wires;           /* wire 0 is the constant one */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    const uint8_t *constraints; /* section 2, in the mapping */
    uint64_t constraints_size;
    const uint8_t *labels;      /* n_wires u64 labels; NULL when section 3 is absent */
} r1cs_t;

/* A linear combination: n_factors entries of R1CS_FACTOR_BYTES, read with r1cs_factor. */
typedef struct {
    uint32_t n_factors;
    const uint8_t *factors;
} r1cs_lc_t;

typedef struct {
    r1cs_lc_t a, b, c;  /* a . b = c */
} r1cs_constraint_t;

typedef struct {
    const r1cs_t *r1cs;
    iden3_reader_t rd;
    uint32_t next;  /* the index of the constraint r1cs_iter_next reads */
} r1cs_iter_t;

/* Maps and checks a constraint system. On failure r is left closed. */
g16_status r1cs_open(r1cs_t *r, const char *path);
/* The same over bytes the caller keeps alive until r1cs_close; name is for messages. */
g16_status r1cs_open_memory(r1cs_t *r, const char *name, const uint8_t *data, size_t size);
void r1cs_close(r1cs_t *r);

void r1cs_iter_init(r1cs_iter_t *it, const r1cs_t *r);
/* Reads constraint it->next (< n_constraints) into *c and checks every factor of it;
 * G16_ERR_FORMAT names the constraint, the combination and the factor otherwise. */
g16_status r1cs_iter_next(r1cs_iter_t *it, r1cs_constraint_t *c);
/* After the last constraint: G16_ERR_FORMAT when the section holds more bytes. */
g16_status r1cs_iter_end(const r1cs_iter_t *it);

/* Factor j (< lc->n_factors) of a combination that r1cs_iter_next returned (and so
 * checked): its wire and its value as a field element. */
void r1cs_factor(uint32_t *wire, fr_t *value, const r1cs_lc_t *lc, uint32_t j);

/* Reads every constraint: O(section size). */
g16_status r1cs_validate(const r1cs_t *r);

#endif
