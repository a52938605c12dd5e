/* libFuzzer target: the readers behind `g16 verify`, on arbitrary bytes: a proof (snarkjs
 * proof.json or the 192-byte binary form), public.json and verification_key.json. The
 * input's first byte picks the reader, the rest is the file. Whatever a reader accepts
 * must come back equal through g16's own writer and the same reader (a binary proof also
 * re-encodes to exactly its bytes: one encoding a proof); a rejection must say why.
 * The readers take paths, so each input goes through a file in TMPDIR (one, reused). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_files.h"
#include "g16.h"
#include "io/proof_bin.h"
#include "io/snarkjs_json.h"
#include "util/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
    if (!ok)
        __builtin_trap();
}

/* Two scratch files: the input, and what the writer made of the parsed value. */
static char in_path[256], out_path[256];

static void scratch_paths(void)
{
    if (in_path[0])
        return;
    char tmpl[200];
    fuzz_scratch_dir(tmpl, sizeof tmpl, "json");
    snprintf(in_path, sizeof in_path, "%s/in", tmpl);
    snprintf(out_path, sizeof out_path, "%s/out", tmpl);
}

static bool proofs_equal(const groth16_proof *x, const groth16_proof *y)
{
    return g1_affine_equal(&x->a, &y->a) && g2_affine_equal(&x->b, &y->b) &&
           g1_affine_equal(&x->c, &y->c);
}

static void check_proof(const uint8_t *file, size_t size)
{
    groth16_proof p, q;
    g16_status st = proof_read_any(&p, in_path);
    if (st != G16_OK) {
        require(g16_last_error()[0] != '\0');
        return;
    }
    require(json_write_proof(out_path, &p) == G16_OK);
    require(json_read_proof(&q, out_path) == G16_OK && proofs_equal(&p, &q));
    if (size == PROOF_BIN_BYTES && file[0] != '{' && file[0] != ' ' && file[0] != '\n') {
        uint8_t again[PROOF_BIN_BYTES];
        proof_bin_encode(again, &p);
        require(memcmp(again, file, PROOF_BIN_BYTES) == 0);
    }
}

static void check_public(void)
{
    fr_t *v = NULL, *w = NULL;
    size_t n = 0, m = 0;
    if (json_read_public(&v, &n, in_path) != G16_OK) {
        require(v == NULL && n == 0 && g16_last_error()[0] != '\0');
        return;
    }
    require(json_write_public(out_path, v, n) == G16_OK);
    require(json_read_public(&w, &m, out_path) == G16_OK && m == n);
    for (size_t i = 0; i < n; i++)
        require(fr_equal(&v[i], &w[i]));
    free(v);
    free(w);
}

static void check_vk(void)
{
    groth16_vk v, w;
    if (json_read_vk(&v, in_path) != G16_OK) {
        require(v.ic == NULL && g16_last_error()[0] != '\0');
        return;
    }
    require(json_write_vk(out_path, &v) == G16_OK);
    require(json_read_vk(&w, out_path) == G16_OK && w.n_public == v.n_public);
    require(g1_affine_equal(&v.alpha1, &w.alpha1) && g2_affine_equal(&v.beta2, &w.beta2) &&
            g2_affine_equal(&v.gamma2, &w.gamma2) && g2_affine_equal(&v.delta2, &w.delta2));
    for (size_t i = 0; i <= v.n_public; i++)
        require(g1_affine_equal(&v.ic[i], &w.ic[i]));
    groth16_vk_free(&v);
    groth16_vk_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    scratch_paths();
    const uint8_t *file = data + 1;
    size_t file_size = size - 1;
    fuzz_put(in_path, file, file_size);
    status_clear(); /* a rejection must set its own message */
    switch (data[0] % 3) {
    case 0:
        check_proof(file, file_size);
        break;
    case 1:
        check_public();
        break;
    default:
        check_vk();
        break;
    }
    return 0;
}
