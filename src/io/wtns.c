#include "wtns.h"

#include <string.h>

#include "util/status.h"

static const char *const SECTION_NAMES[] = {
    [WTNS_SECTION_HEADER] = "header",
    [WTNS_SECTION_VALUES] = "values",
};

/* Version 1 files predate the sectioned layout snarkjs reads today; only 2 is written. */
static const iden3_format_t WTNS_FORMAT = {
    .magic = {'w', 't', 'n', 's'},
    .min_version = 2,
    .max_version = 2,
    .section_names = SECTION_NAMES,
    .n_section_names = sizeof SECTION_NAMES / sizeof SECTION_NAMES[0],
};

static g16_status parse(wtns_t *w)
{
    const iden3_file_t *f = &w->file;
    const iden3_section_t *s;
    g16_status st = iden3_require(&s, f, WTNS_SECTION_HEADER);
    if (st != G16_OK)
        return st;
    iden3_reader_t r;
    iden3_reader_init(&r, s);
    if ((st = iden3_read_scalar_prime(&r, &w->n8, f, s, "n8")) != G16_OK)
        return st;
    if (!iden3_read_u32(&r, &w->n_witness) || r.left != 0)
        return iden3_fail(f, s->id, G16_ERR_FORMAT, "is %llu bytes, expected %d",
                          (unsigned long long)s->size, 8 + WTNS_N8);

    if ((st = iden3_require(&s, f, WTNS_SECTION_VALUES)) != G16_OK)
        return st;
    uint64_t want = (uint64_t)w->n_witness * WTNS_N8;
    if (s->size != want)
        return iden3_fail(f, s->id, G16_ERR_FORMAT,
                          "is %llu bytes, expected %llu for nWitness = %u",
                          (unsigned long long)s->size, (unsigned long long)want, w->n_witness);
    w->values = s->data;
    return G16_OK;
}

static g16_status finish_open(wtns_t *w, g16_status st)
{
    if (st == G16_OK)
        st = parse(w);
    if (st != G16_OK)
        wtns_close(w);
    return st;
}

g16_status wtns_open(wtns_t *w, const char *path)
{
    memset(w, 0, sizeof *w);
    status_clear();
    return finish_open(w, iden3_open(&w->file, path, &WTNS_FORMAT));
}

g16_status wtns_open_memory(wtns_t *w, const char *name, const uint8_t *data, size_t size)
{
    memset(w, 0, sizeof *w);
    status_clear();
    return finish_open(w, iden3_open_memory(&w->file, name, data, size, &WTNS_FORMAT));
}

void wtns_close(wtns_t *w)
{
    if (!w)
        return;
    iden3_close(&w->file);
    memset(w, 0, sizeof *w);
}

bool wtns_get(fr_t *v, const wtns_t *w, uint32_t i)
{
    if (i >= w->n_witness)
        return false;
    return fr_from_bytes_le(v, w->values + (size_t)i * WTNS_N8);
}

g16_status wtns_validate(const wtns_t *w)
{
    fr_t v;
    /* The range check alone: read as Montgomery limbs (no conversion), the bytes are
     * canonical exactly when wtns_get would accept them. */
    for (uint32_t i = 0; i < w->n_witness; i++)
        if (!fr_from_mont_bytes_le(&v, w->values + (size_t)i * WTNS_N8))
            return iden3_fail(&w->file, WTNS_SECTION_VALUES, G16_ERR_FORMAT,
                              ": value %u is not below r (non-canonical)", i);
    /* Signal 0 is the constant one in every circom witness; anything else means the file
     * is not a witness for a circuit at all, and proofs from it would not verify. */
    if (w->n_witness == 0)
        return iden3_fail(&w->file, WTNS_SECTION_VALUES, G16_ERR_FORMAT,
                          ": the witness is empty (w[0] = 1 is missing)");
    wtns_get(&v, w, 0);
    if (!fr_is_one(&v))
        return iden3_fail(&w->file, WTNS_SECTION_VALUES, G16_ERR_FORMAT,
                          ": w[0] is not 1 (the constant-one signal)");
    return G16_OK;
}

g16_status wtns_check_zkey(const wtns_t *w, const zkey_t *k)
{
    if (w->n_witness != k->n_vars)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "%s holds %u witness values but %s has nVars = %u: the witness is "
                           "for another circuit",
                           w->file.name, w->n_witness, k->file.name, k->n_vars);
    return G16_OK;
}
