/* The public API of include/g16.h over the internal layers: thin wrappers that convert
 * between the opaque handles / byte layouts and the internal types. */
#include <stdlib.h>
#include <string.h>

#include "g16.h"
#include "groth16/prove.h"
#include "io/snarkjs_json.h"
#include "util/parallel.h"
#include "util/status.h"

struct g16_key {
    zkey_t zkey;
};

struct g16_witness {
    wtns_t wtns;
};

struct g16_vkey {
    groth16_vk vk;
};

unsigned g16_set_threads(unsigned threads) { return parallel_set_threads(threads); }

g16_status g16_key_load(g16_key **key, const char *zkey_path)
{
    status_clear();
    *key = calloc(1, sizeof **key);
    if (!*key)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "key handle");
    g16_status st = zkey_open(&(*key)->zkey, zkey_path);
    if (st) {
        free(*key);
        *key = NULL;
    }
    return st;
}

void g16_key_free(g16_key *key)
{
    if (!key)
        return;
    zkey_close(&key->zkey);
    free(key);
}

unsigned g16_key_public_count(const g16_key *key) { return key->zkey.n_public; }

g16_status g16_witness_load(g16_witness **witness, const char *wtns_path)
{
    status_clear();
    *witness = calloc(1, sizeof **witness);
    if (!*witness)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "witness handle");
    g16_status st = wtns_open(&(*witness)->wtns, wtns_path);
    if (st) {
        free(*witness);
        *witness = NULL;
    }
    return st;
}

void g16_witness_free(g16_witness *witness)
{
    if (!witness)
        return;
    wtns_close(&witness->wtns);
    free(witness);
}

static void to_public(g16_proof *out, const groth16_proof *p)
{
    fp_to_bytes_be(out->a, &p->a.x);
    fp_to_bytes_be(out->a + 48, &p->a.y);
    fp_to_bytes_be(out->b, &p->b.x.c1);
    fp_to_bytes_be(out->b + 48, &p->b.x.c0);
    fp_to_bytes_be(out->b + 96, &p->b.y.c1);
    fp_to_bytes_be(out->b + 144, &p->b.y.c0);
    fp_to_bytes_be(out->c, &p->c.x);
    fp_to_bytes_be(out->c + 48, &p->c.y);
}

static g16_status from_public(groth16_proof *p, const g16_proof *in)
{
    bool ok = fp_from_bytes_be(&p->a.x, in->a) & fp_from_bytes_be(&p->a.y, in->a + 48) &
              fp_from_bytes_be(&p->b.x.c1, in->b) & fp_from_bytes_be(&p->b.x.c0, in->b + 48) &
              fp_from_bytes_be(&p->b.y.c1, in->b + 96) &
              fp_from_bytes_be(&p->b.y.c0, in->b + 144) & fp_from_bytes_be(&p->c.x, in->c) &
              fp_from_bytes_be(&p->c.y, in->c + 48);
    return ok ? G16_OK : status_fail(G16_ERR_BAD_ENCODING, "proof coordinate not below p");
}

static g16_status inputs_from_bytes(fr_t **out, const unsigned char *bytes, unsigned n)
{
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!*out)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "%u public signals", n);
    for (unsigned i = 0; i < n; i++)
        if (!fr_from_bytes_be(&(*out)[i], bytes + 32 * (size_t)i)) {
            free(*out);
            *out = NULL;
            return status_fail(G16_ERR_BAD_ENCODING, "public signal %u is not below r", i);
        }
    return G16_OK;
}

g16_status g16_prove(g16_proof *proof, unsigned char *public_out, const g16_key *key,
                     const g16_witness *witness)
{
    status_clear();
    groth16_proof p;
    fr_t *inputs = NULL;
    g16_status st = groth16_prove_zkey(&p, &inputs, NULL, &key->zkey, &witness->wtns, NULL);
    if (st)
        return st;
    groth16_vk vk;
    if (!(st = groth16_vk_from_zkey(&vk, &key->zkey))) {
        st = groth16_verify(&vk, inputs, key->zkey.n_public, &p);
        groth16_vk_free(&vk);
        if (st == G16_ERR_VERIFY_FAILED)
            st = status_fail(G16_ERR_INTERNAL, "the proof does not verify against its key");
    }
    if (!st) {
        to_public(proof, &p);
        for (unsigned i = 0; public_out && i < key->zkey.n_public; i++)
            fr_to_bytes_be(public_out + 32 * (size_t)i, &inputs[i]);
    }
    free(inputs);
    return st;
}

g16_status g16_proof_write_json(const char *proof_path, const char *public_path,
                                const g16_proof *proof, const unsigned char *public_signals,
                                unsigned n_public)
{
    status_clear();
    groth16_proof p;
    fr_t *inputs;
    g16_status st = from_public(&p, proof);
    if (st || (st = inputs_from_bytes(&inputs, public_signals, n_public)))
        return st;
    if (!(st = json_write_proof(proof_path, &p)))
        st = json_write_public(public_path, inputs, n_public);
    free(inputs);
    return st;
}

g16_status g16_vkey_load(g16_vkey **vk, const char *json_path)
{
    status_clear();
    *vk = calloc(1, sizeof **vk);
    if (!*vk)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "verifying key handle");
    g16_status st = json_read_vk(&(*vk)->vk, json_path);
    if (st) {
        free(*vk);
        *vk = NULL;
    }
    return st;
}

void g16_vkey_free(g16_vkey *vk)
{
    if (!vk)
        return;
    groth16_vk_free(&vk->vk);
    free(vk);
}

g16_status g16_verify(const g16_vkey *vk, const unsigned char *public_signals,
                      unsigned n_public, const g16_proof *proof)
{
    status_clear();
    groth16_proof p;
    fr_t *inputs;
    g16_status st = from_public(&p, proof);
    if (st || (st = inputs_from_bytes(&inputs, public_signals, n_public)))
        return st;
    /* Decoded points must be on their curves and in their groups: the verifier checks. */
    st = groth16_verify(&vk->vk, inputs, n_public, &p);
    free(inputs);
    return st;
}
