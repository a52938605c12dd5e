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
    G16_ERR_CANCELLED,         /* the work was cancelled before it finished */
} g16_status;

/* A short fixed description of a status ("bad encoding", ...). Never NULL. */
const char *g16_status_message(g16_status status);

/* The detail of the last failure on the calling thread (for example "zkey section 2 is
 * 660 bytes: BN254 keys are not supported yet"), or "" if none. */
const char *g16_last_error(void);

/* The library version, G16_VERSION. */
const char *g16_version(void);

/* --- threads ------------------------------------------------------------------------- */

/* Threads used by proving, setup and verification (default: G16_THREADS from the
 * environment, else every online CPU). Returns the count in effect. */
unsigned g16_set_threads(unsigned threads);

/* --- Groth16 with snarkjs files (BLS12-381) ----------------------------------------------- */

typedef struct g16_key g16_key;         /* a proving key (.zkey), memory-mapped */
typedef struct g16_witness g16_witness; /* a witness (.wtns), memory-mapped */
typedef struct g16_vkey g16_vkey;       /* a verifying key (verification_key.json) */

/* A proof: snarkjs's proof.json content in binary form (affine points, standard-form
 * big-endian coordinates). */
typedef struct {
    unsigned char a[96];  /* G1: x || y */
    unsigned char b[192]; /* G2: x.c1 || x.c0 || y.c1 || y.c0 (zcash order) */
    unsigned char c[96];
} g16_proof;

/* Maps a .zkey (no copy of its points) and checks its header and section sizes. */
g16_status g16_key_load(g16_key **key, const char *zkey_path);
void g16_key_free(g16_key *key);
/* Number of public signals (outputs + inputs) the key expects. */
unsigned g16_key_public_count(const g16_key *key);

/* Maps a .wtns and checks its header. */
g16_status g16_witness_load(g16_witness **witness, const char *wtns_path);
void g16_witness_free(g16_witness *witness);

/* Proves, then checks the proof against the key's verifying key. public_out (may be
 * NULL) receives g16_key_public_count() 32-byte big-endian public signals. */
g16_status g16_prove(g16_proof *proof, unsigned char *public_out, const g16_key *key,
                     const g16_witness *witness);

/* Writes snarkjs's proof.json and public.json. */
g16_status g16_proof_write_json(const char *proof_path, const char *public_path,
                                const g16_proof *proof, const unsigned char *public_signals,
                                unsigned n_public);

g16_status g16_vkey_load(g16_vkey **vk, const char *json_path);
void g16_vkey_free(g16_vkey *vk);

/* G16_OK when the proof verifies, G16_ERR_VERIFY_FAILED when it does not. */
g16_status g16_verify(const g16_vkey *vk, const unsigned char *public_signals,
                      unsigned n_public, const g16_proof *proof);

#ifdef __cplusplus
}
#endif

#endif
