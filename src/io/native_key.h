/* g16's native proving key file (".g16k"): the output of the development setup for a
 * native circuit, stored so that loading it is an mmap and its points are used in place.
 *
 * The iden3 container (iden3.h): magic "g16k", version 2, eight sections, all integers
 * little-endian:
 *
 *   1 header      u32 curve (1 = BLS12-381)
 *                 u32 H convention (0 = snarkjs: H points are the odd-coset Lagrange
 *                     basis over delta, the only convention g16 setup produces today)
 *                 u64 n_vars (wire 0, the constant one, included), u64 n_public,
 *                 u64 domain_size (a power of two, <= 2^28), u64 n_constraints (the
 *                     circuit's rows, the n_public + 1 public rows of the setup excluded)
 *                 u32 circuit name length (<= NATIVE_KEY_NAME_MAX), the name's bytes
 *                     (no NUL, e.g. "synthetic")
 *                 u64 circuit parameter N (the constraint target it was built for)
 *                 u64 n_public parameter
 *                 u64 private variables present in A, u64 ... in B (the densities over
 *                     the private wires, as the density section counts them)
 *   2 verifying   alpha1, beta1, delta1 (G1), beta2, gamma2, delta2 (G2),
 *                 IC (n_public + 1 G1)
 *   3 density     u64 n_wires (= n_vars), then two bitmaps of ceil(n_vars / 64) u64 words:
 *                 the wires with an A point, the wires with a B1 and a B2 point
 *                 (groth16/density.h: bit j of word j / 64 is wire j; bits past n_vars
 *                 are zero). Call n_a and n_b their populations.
 *   4 A           G1, n_a (the marked wires' points, in wire order)
 *   5 B1          G1, n_b
 *   6 B2          G2, n_b
 *   7 C           G1, n_vars - n_public - 1 (wires n_public + 1 ..)
 *   8 H           G1, domain_size
 *
 * A point is the bytes of g16's g1_affine_t / g2_affine_t: Montgomery-form little-endian
 * limbs, x then y (c0 then c1 in Fp2), infinity all zero; 96 bytes in G1, 192 in G2, the
 * same bytes as a snarkjs .zkey point. Sections are written in id order.
 *
 * Density compression is bellperson's: a wire absent from A (or B) has an infinity point
 * there, so A, B1 and B2 keep only the marked wires. For a Filecoin-like circuit (A-aux
 * density ~100%, B-aux ~25%) B1 and B2 shrink to a quarter: at 2^20 the key is ~0.39 GB
 * instead of ~0.58 GB (README). Version 1 (B1, B2 dense) is refused with a message asking
 * to make the key again.
 *
 * native_key_open checks what costs O(1) per section, as zkey_open does, plus one pass
 * over the density bitmaps (n_vars / 32 words): the curve and H convention (others
 * G16_ERR_UNSUPPORTED), every header value (G16_ERR_FORMAT), the bitmaps against the
 * header (their wire count, no bit past n_vars, their private populations equal to the
 * header's densities), the exact size of every section (A and B against the bitmaps'
 * populations), and the six header points on their curves (the decoder's status,
 * G16_ERR_NOT_ON_CURVE or G16_ERR_BAD_ENCODING). The big point sections are not decoded:
 * their validity is the key's promise, and a proof made from them is verified anyway.
 */
#ifndef G16_IO_NATIVE_KEY_H
#define G16_IO_NATIVE_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"
#include "groth16/groth16.h"
#include "groth16/prove.h"
#include "groth16/setup.h"
#include "io/iden3.h"

enum {
    NATIVE_KEY_VERSION = 2,
    NATIVE_KEY_CURVE_BLS12_381 = 1,
    NATIVE_KEY_H_SNARKJS = 0,
    NATIVE_KEY_NAME_MAX = 64,
    NATIVE_KEY_G1_BYTES = 96,
    NATIVE_KEY_G2_BYTES = 192,
};

enum {
    NATIVE_KEY_SECTION_HEADER = 1,
    NATIVE_KEY_SECTION_VERIFYING = 2,
    NATIVE_KEY_SECTION_DENSITY = 3,
    NATIVE_KEY_SECTION_A = 4,
    NATIVE_KEY_SECTION_B1 = 5,
    NATIVE_KEY_SECTION_B2 = 6,
    NATIVE_KEY_SECTION_C = 7,
    NATIVE_KEY_SECTION_H = 8,
    NATIVE_KEY_SECTIONS = 8,
};

/* count points in place in the mapping. */
typedef struct {
    const uint8_t *data;
    size_t count;
} native_key_points_t;

typedef struct {
    iden3_file_t file;
    uint32_t curve, h_convention;
    size_t n_vars, n_public, domain_size, n_constraints;
    unsigned log2_domain;
    char circuit[NATIVE_KEY_NAME_MAX + 1];  /* NUL-terminated */
    uint64_t param_n, param_public;
    uint64_t in_a, in_b;                    /* private variables present in A, in B */
    g1_affine_t alpha1, beta1, delta1;      /* checked on the curve (infinity allowed) */
    g2_affine_t beta2, gamma2, delta2;
    native_key_points_t ic;                 /* G1, n_public + 1 */
    uint64_t *density_a, *density_b;        /* copies of the bitmaps (the file's words
                                               need not be 8-byte aligned) */
    size_t n_a, n_b;                        /* their populations */
    native_key_points_t a, b1;              /* G1, n_a and n_b */
    native_key_points_t b2;                 /* G2, n_b */
    native_key_points_t c;                  /* G1, n_vars - n_public - 1 */
    native_key_points_t h;                  /* G1, domain_size */
} native_key_t;

/* Writes key (density-compressed, as groth16_setup makes it) as a native key file for
 * circuit (its name, <= NATIVE_KEY_NAME_MAX bytes) built with parameters param_n and
 * param_public. The file is replaced whole (util/atomic_file.h), so a failed or
 * interrupted write never leaves a partial key at path. */
g16_status native_key_write(const char *path, const groth16_setup_key *key, const char *circuit,
                            uint64_t param_n, uint64_t param_public);

/* Maps and checks a key. On failure k is left closed (native_key_close is harmless).
 * Version 1 files are refused (G16_ERR_UNSUPPORTED): make the key again. */
g16_status native_key_open(native_key_t *k, const char *path);
/* The same over bytes the caller keeps alive until native_key_close; name is for messages. */
g16_status native_key_open_memory(native_key_t *k, const char *name, const uint8_t *data,
                                  size_t size);
void native_key_close(native_key_t *k);

/* The prover's view of an open key: points in place in the mapping, the density bitmaps
 * in k (keep k open while proving). */
void groth16_prover_key_from_native(groth16_prover_key *pk, const native_key_t *k);

/* The verifying key (alpha1, beta2, gamma2, delta2 and the IC points, decoded with the
 * subgroup check); free with groth16_vk_free. */
g16_status groth16_vk_from_native(groth16_vk *vk, const native_key_t *k);

#endif
