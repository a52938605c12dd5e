/* The iden3 binary container shared by snarkjs/circom's .zkey, .wtns and .r1cs files.
 *
 * Layout (all integers little-endian): 4-byte magic, u32 version, u32 section count, then
 * that many sections, each a u32 id, a u64 size and size bytes. Sections may come in any
 * order, so the whole table is read and checked before any format looks at one.
 *
 * The file is mapped read-only and never copied: a proving key is tens of gigabytes and
 * its point sections are used in place. Every section is checked to lie inside the file
 * (sizes are u64 and come from the file: the checks are written so that no sum can wrap)
 * and a section id may appear only once. Formats then read their fields through
 * iden3_reader_t, whose reads fail instead of running past the end of a section.
 *
 * Errors: G16_ERR_IO for open/stat/mmap failures (with strerror), G16_ERR_FORMAT for
 * malformed or truncated contents, G16_ERR_UNSUPPORTED for a file g16 could read but does
 * not handle. Every message starts with the file's name and, where one is involved, the
 * section: "circuit.zkey: section 9 (H) is 3145700 bytes, expected 3145728 ...".
 *
 * A mapped file that another process truncates while it is open raises SIGBUS on access;
 * no reader can prevent that short of copying, which is what the mapping avoids.
 */
#ifndef G16_IO_IDEN3_H
#define G16_IO_IDEN3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "g16.h"

enum {
    IDEN3_HEADER_BYTES = 12,          /* magic, version, section count */
    IDEN3_SECTION_HEADER_BYTES = 12,  /* id, size */
    /* Real files have at most ten sections; a fixed table keeps hostile counts harmless
     * and the reader free of allocation. */
    IDEN3_MAX_SECTIONS = 64,
    IDEN3_NAME_BYTES = 256,
};

/* What a format expects of the container. section_names[id] names section id in
 * messages (NULL or beyond n_section_names: unknown to this format, allowed, ignored). */
typedef struct {
    char magic[4];
    uint32_t min_version, max_version;
    const char *const *section_names;
    uint32_t n_section_names;
} iden3_format_t;

typedef struct {
    uint32_t id;
    uint64_t offset;      /* of the contents, from the start of the file */
    uint64_t size;        /* of the contents */
    const uint8_t *data;  /* the contents, inside the mapping */
} iden3_section_t;

typedef struct {
    char name[IDEN3_NAME_BYTES];  /* the path as given (its tail if long), for messages */
    const iden3_format_t *format;
    const uint8_t *data;
    uint64_t size;
    bool mapped;                  /* data is our mapping (iden3_close unmaps it) */
    uint32_t version;
    uint32_t n_sections;
    iden3_section_t sections[IDEN3_MAX_SECTIONS];  /* in file order */
    uint64_t trailing;            /* bytes after the last section (tolerated, reported) */
} iden3_file_t;

/* Maps path and reads its section table. format->magic must match; the version must lie
 * in [min_version, max_version]. On failure f is left closed (closing it is harmless). */
g16_status iden3_open(iden3_file_t *f, const char *path, const iden3_format_t *format);

/* The same over bytes the caller keeps alive until iden3_close (tests, fuzzers). name
 * stands for the file in messages. */
g16_status iden3_open_memory(iden3_file_t *f, const char *name, const uint8_t *data,
                             size_t size, const iden3_format_t *format);

/* Unmaps and clears f. Safe on a zeroed, closed or failed-to-open f. */
void iden3_close(iden3_file_t *f);

/* Section id, or NULL when the file has none. */
const iden3_section_t *iden3_find(const iden3_file_t *f, uint32_t id);

/* *s = section id; G16_ERR_FORMAT "missing section" when absent. */
g16_status iden3_require(const iden3_section_t **s, const iden3_file_t *f, uint32_t id);

/* The format's name for section id, or "unknown". Never NULL. */
const char *iden3_section_name(const iden3_file_t *f, uint32_t id);

/* Records a failure in section id of f: the message becomes "NAME: section ID (SNAME)"
 * followed by a space and fmt, so fmt reads on from there ("is 12 bytes, expected 16"), or
 * by fmt alone when fmt starts with ':' (": entry 3: ..."). Returns status. */
__attribute__((format(printf, 4, 5)))
g16_status iden3_fail(const iden3_file_t *f, uint32_t id, g16_status status, const char *fmt,
                      ...);

/* The same without a section: "NAME: " followed by fmt. */
__attribute__((format(printf, 3, 4)))
g16_status iden3_fail_file(const iden3_file_t *f, g16_status status, const char *fmt, ...);

/* --- reading fields inside a section --------------------------------------------------- */

/* A cursor over bytes [p, p + left). Each read either succeeds and advances or fails
 * (returns false) and leaves the cursor where it was. */
typedef struct {
    const uint8_t *p;
    uint64_t left;
} iden3_reader_t;

void iden3_reader_init(iden3_reader_t *r, const iden3_section_t *s);
bool iden3_read_u32(iden3_reader_t *r, uint32_t *v);
bool iden3_read_u64(iden3_reader_t *r, uint64_t *v);
/* *p = the next n bytes (in place). */
bool iden3_read_bytes(iden3_reader_t *r, const uint8_t **p, uint64_t n);

uint32_t iden3_le32(const uint8_t *p);
uint64_t iden3_le64(const uint8_t *p);

/* --- primes ---------------------------------------------------------------------------- */

/* Files name their field by its prime. Known primes, so that a BN254 file gets "BN254 is
 * not supported yet" rather than "bad prime". */
typedef enum {
    IDEN3_PRIME_UNKNOWN = 0,
    IDEN3_PRIME_BLS12_381_R,  /* the scalar field Fr */
    IDEN3_PRIME_BLS12_381_Q,  /* the base field Fp */
    IDEN3_PRIME_BN254_R,
    IDEN3_PRIME_BN254_Q,
} iden3_prime_t;

/* The prime stored in n little-endian bytes (high zero bytes allowed). */
iden3_prime_t iden3_identify_prime(const uint8_t *p, uint32_t n);
/* "BLS12-381 r", "BN254 q", "an unknown prime" ... */
const char *iden3_prime_name(iden3_prime_t prime);

/* Reads the "u32 size, prime (size bytes)" that opens .wtns and .r1cs headers and
 * requires BLS12-381's r in 32 bytes: BN254 gets "not supported yet", another prime
 * "unsupported curve", a truncated section or another size G16_ERR_FORMAT naming
 * size_name ("n8", "fs"). */
g16_status iden3_read_scalar_prime(iden3_reader_t *rd, uint32_t *size, const iden3_file_t *f,
                                   const iden3_section_t *s, const char *size_name);

#endif
