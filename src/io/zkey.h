/* snarkjs .zkey proving keys (Groth16 on BLS12-381). Layout in shared/FORMATS.md.
 *
 * zkey_open checks everything that costs O(1) per section: the protocol (Groth16 only),
 * the curve (BLS12-381 only; BN254 and others are G16_ERR_UNSUPPORTED), the whole header
 * with its six points on their curves, the counts (domainSize a power of two, nPublic <
 * nVars) and the exact size of every section against those counts. The big sections stay
 * in the mapping: point sections are exposed as bytes + count, in snarkjs's encoding
 * (G1_SNARKJS_BYTES / G2_SNARKJS_BYTES each, see curve/encoding.h; all-zero is infinity),
 * and are not decoded here. Their curve and subgroup checks belong to whoever loads them
 * (checking 2^27 points costs more than opening the file should).
 *
 * The coefficient section is validated entry by entry by zkey_coef (one entry) or
 * zkey_validate_coefs (all of them, O(nCoefs)): matrix 0 or 1, constraint < domainSize,
 * signal < nVars, value canonical.
 *
 * Header point failures keep the decoder's status (G16_ERR_NOT_ON_CURVE,
 * G16_ERR_BAD_ENCODING for a coordinate not below q); every other content problem is
 * G16_ERR_FORMAT.
 */
#ifndef G16_IO_ZKEY_H
#define G16_IO_ZKEY_H

#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "g16.h"
#include "io/iden3.h"

enum {
    ZKEY_PROTOCOL_GROTH16 = 1,
    ZKEY_PROTOCOL_PLONK = 2,
    ZKEY_PROTOCOL_FFLONK = 10,
};

enum {
    ZKEY_SECTION_PROTOCOL = 1,
    ZKEY_SECTION_HEADER = 2,
    ZKEY_SECTION_IC = 3,
    ZKEY_SECTION_COEFS = 4,
    ZKEY_SECTION_A = 5,
    ZKEY_SECTION_B1 = 6,
    ZKEY_SECTION_B2 = 7,
    ZKEY_SECTION_C = 8,
    ZKEY_SECTION_H = 9,
    ZKEY_SECTION_CONTRIBUTIONS = 10,
};

enum {
    ZKEY_N8Q = 48,                 /* BLS12-381 */
    ZKEY_N8R = 32,
    ZKEY_HEADER_BYTES = 964,       /* section 2 on BLS12-381 */
    ZKEY_COEF_BYTES = 12 + 32,     /* matrix, constraint, signal, value */
    ZKEY_G1_BYTES = 2 * ZKEY_N8Q,
    ZKEY_G2_BYTES = 4 * ZKEY_N8Q,
};

/* count points of ZKEY_G1_BYTES or ZKEY_G2_BYTES each, in place in the mapping. */
typedef struct {
    const uint8_t *data;
    size_t count;
} zkey_points_t;

typedef struct {
    iden3_file_t file;
    uint32_t protocol;          /* ZKEY_PROTOCOL_GROTH16 */
    uint32_t n8q, n8r;          /* 48, 32 */
    uint32_t n_vars;            /* signals, the constant-one signal 0 included */
    uint32_t n_public;          /* public outputs + inputs, signal 0 excluded */
    uint32_t domain_size;       /* a power of two */
    unsigned log2_domain;
    g1_affine_t alpha1, beta1, delta1;  /* checked on the curve (infinity allowed) */
    g2_affine_t beta2, gamma2, delta2;
    zkey_points_t ic;           /* G1, n_public + 1 */
    zkey_points_t a, b1;        /* G1, n_vars */
    zkey_points_t b2;           /* G2, n_vars */
    zkey_points_t c;            /* G1, n_vars - n_public - 1 (signals n_public + 1 ..) */
    zkey_points_t h;            /* G1, domain_size */
    uint32_t n_coefs;
    const uint8_t *coefs;       /* n_coefs entries of ZKEY_COEF_BYTES, unchecked */
    const uint8_t *contributions;    /* section 10 as is; NULL when absent */
    uint64_t contributions_size;
} zkey_t;

/* One entry of the coefficient section: matrix[constraint][signal] += value. */
typedef struct {
    uint32_t matrix;      /* 0 = A, 1 = B */
    uint32_t constraint;  /* < domain_size */
    uint32_t signal;      /* < n_vars */
    fr_t value;           /* the coefficient (the file stores value * 2^512 mod r) */
} zkey_coef_t;

/* Maps and checks a key. On failure k is left closed (zkey_close is harmless). */
g16_status zkey_open(zkey_t *k, const char *path);
/* The same over bytes the caller keeps alive until zkey_close; name is for messages. */
g16_status zkey_open_memory(zkey_t *k, const char *name, const uint8_t *data, size_t size);
void zkey_close(zkey_t *k);

/* *c = coefficient entry i (< k->n_coefs), checked; G16_ERR_FORMAT names the entry and
 * the problem. */
g16_status zkey_coef(zkey_coef_t *c, const zkey_t *k, uint32_t i);
/* Checks every coefficient entry, on every thread of util/parallel.h; the first bad one
 * (the lowest index) is reported. */
g16_status zkey_validate_coefs(const zkey_t *k);
/* The same in tasks of `chunk` entries (zkey_validate_coefs: 2^16), for tests. */
g16_status zkey_validate_coefs_by(const zkey_t *k, uint32_t chunk);

/* The circuit's constraint count m, which the header does not hold: the public rows
 * (matrix 0, constraint m + s, signal s) for s = 0..nPublic come after the m real
 * constraints, so m is the largest constraint index of the entries minus nPublic. One
 * pass over the entries; 0 when there are none. */
uint32_t zkey_num_constraints(const zkey_t *k);

/* "Groth16", "PLONK", "FFLONK" or "unknown". */
const char *zkey_protocol_name(uint32_t protocol);

#endif
