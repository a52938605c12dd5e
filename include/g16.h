/* g16: a Groth16 prover for BLS12-381 — the public API.
 *
 * Every function that can fail returns a g16_status; g16_status_message() names the
 * status and g16_last_error() gives the detail of the last failure on this thread.
 * Arguments come in one order: context first, then outputs, then inputs; a length
 * follows its array. Nothing in the library exits or aborts on bad input.
 */
#ifndef G16_H
#define G16_H

#ifdef __cplusplus
extern "C" {
#endif

#define G16_VERSION "0.1.0"

typedef enum {
    G16_OK = 0,
    G16_ERR_INVALID_ARGUMENT,  /* a caller error: null pointer, size out of range */
    G16_ERR_BAD_ENCODING,      /* wrong length, bad flag bits, non-canonical integer */
    G16_ERR_NOT_ON_CURVE,      /* decoded coordinates do not satisfy the curve equation */
    G16_ERR_NOT_IN_SUBGROUP,   /* on the curve but outside the prime-order subgroup */
    G16_ERR_IO,                /* a file could not be opened, read, mapped or written */
    G16_ERR_FORMAT,            /* a file's contents are malformed or truncated */
    G16_ERR_UNSUPPORTED,       /* valid input that g16 does not handle (yet) */
    G16_ERR_OUT_OF_MEMORY,
    G16_ERR_VERIFY_FAILED,     /* a proof that does not verify */
    G16_ERR_INTERNAL,
} g16_status;

/* A short fixed description of a status ("bad encoding", ...). Never NULL. */
const char *g16_status_message(g16_status status);

/* The detail of the last failure on the calling thread (for example "zkey section 2 is
 * 660 bytes: BN254 keys are not supported yet"), or "" if none. */
const char *g16_last_error(void);

/* The library version, G16_VERSION. */
const char *g16_version(void);

#ifdef __cplusplus
}
#endif

#endif
