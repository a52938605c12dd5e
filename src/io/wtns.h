/* circom/snarkjs .wtns witness files (version 2) over the BLS12-381 scalar field.
 *
 * Section 1: u32 n8, the prime (n8 bytes), u32 nWitness; section 2: nWitness values of
 * n8 bytes, little-endian, standard (not Montgomery) form. wtns_open checks the prime
 * (BLS12-381's r with n8 = 32; BN254 or anything else is G16_ERR_UNSUPPORTED) and the
 * exact section sizes; the values stay in the mapping and are checked by wtns_validate,
 * one pass over them.
 */
#ifndef G16_IO_WTNS_H
#define G16_IO_WTNS_H

#include <stdint.h>

#include "field/fr.h"
#include "g16.h"
#include "io/iden3.h"
#include "io/zkey.h"

enum {
    WTNS_SECTION_HEADER = 1,
    WTNS_SECTION_VALUES = 2,
    WTNS_N8 = 32,
};

typedef struct {
    iden3_file_t file;
    uint32_t n8;            /* 32 */
    uint32_t n_witness;     /* w[0] is the constant one */
    const uint8_t *values;  /* n_witness values of WTNS_N8 bytes, in the mapping */
} wtns_t;

/* Maps and checks a witness file. On failure w is left closed. */
g16_status wtns_open(wtns_t *w, const char *path);
/* The same over bytes the caller keeps alive until wtns_close; name is for messages. */
g16_status wtns_open_memory(wtns_t *w, const char *name, const uint8_t *data, size_t size);
void wtns_close(wtns_t *w);

/* Checks that every value is below r and that w[0] = 1; G16_ERR_FORMAT names the first
 * value that is not. */
g16_status wtns_validate(const wtns_t *w);

/* *v = w[i] as a field element (Montgomery form); false when i is out of range or the
 * value is not below r. */
bool wtns_get(fr_t *v, const wtns_t *w, uint32_t i);

/* Checks that the witness belongs to a circuit of this key: nWitness == nVars.
 * G16_ERR_INVALID_ARGUMENT names both files and both counts otherwise. */
g16_status wtns_check_zkey(const wtns_t *w, const zkey_t *k);

#endif
