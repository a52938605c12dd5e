/* snarkjs's JSON files: proof.json, public.json and verification_key.json (the layouts of
 * FORMATS.md), read and written with jansson. Numbers are decimal strings in standard
 * form; points are affine with a trailing "1" ("0" marks infinity). Readers check every
 * value: canonical field elements, points on the curve and in their subgroup, the
 * protocol and curve names; errors name the file and the field. */
#ifndef G16_IO_SNARKJS_JSON_H
#define G16_IO_SNARKJS_JSON_H

#include <jansson.h>

#include "groth16/groth16.h"
#include "util/atomic_file.h"

g16_status json_read_proof(groth16_proof *proof, const char *path);
g16_status json_write_proof(const char *path, const groth16_proof *proof);

/* *inputs is malloc'd (free it); *n may be 0. */
g16_status json_read_public(fr_t **inputs, size_t *n, const char *path);
g16_status json_write_public(const char *path, const fr_t *inputs, size_t n);

/* vk must be freed with groth16_vk_free on success. */
g16_status json_read_vk(groth16_vk *vk, const char *path);
/* Writes vk_alphabeta_12 = e(alpha1, beta2) too, as snarkjs does. */
g16_status json_write_vk(const char *path, const groth16_vk *vk);

/* The same documents as JSON values (the daemon's results); NULL when out of memory. */
json_t *json_proof_object(const groth16_proof *proof);
json_t *json_public_array(const fr_t *inputs, size_t n);
json_t *json_vk_object(const groth16_vk *vk);
/* Writes any such value as path's new content, indented as snarkjs writes its files; the
 * file is replaced whole (util/atomic_file.h). */
g16_status json_write_file(const char *path, const json_t *root);
/* n such files that belong together (a job's proofs, public inputs and verifying key):
 * every one written and synced under its temporary before any replaces its file, so a
 * failure (a full disk, a NULL root) leaves all n as they were. */
g16_status json_write_files(const char *const *paths, json_t *const *roots, size_t n);
/* The same into a file opened beforehand (so that a command finds a path it cannot write
 * before its work, not after): root is released, af committed, or discarded on failure
 * (root NULL: building it ran out of memory). */
g16_status json_commit(atomic_file *af, json_t *root);
/* json_commit's first half: root written and af finished (atomic_file_finish), the target
 * untouched until the caller commits af; on failure af is discarded. */
g16_status json_finish(atomic_file *af, json_t *root);

#endif
