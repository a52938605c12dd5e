#include "r1cs.h"

#include <string.h>

#include "util/status.h"

static const char *const SECTION_NAMES[] = {
    [R1CS_SECTION_HEADER] = "header",
    [R1CS_SECTION_CONSTRAINTS] = "constraints",
    [R1CS_SECTION_LABELS] = "wire labels",
    [R1CS_SECTION_CUSTOM_GATES_LIST] = "custom gates",
    [R1CS_SECTION_CUSTOM_GATES_USES] = "custom gate uses",
};

static const iden3_format_t R1CS_FORMAT = {
    .magic = {'r', '1', 'c', 's'},
    .min_version = 1,
    .max_version = 1,
    .section_names = SECTION_NAMES,
    .n_section_names = sizeof SECTION_NAMES / sizeof SECTION_NAMES[0],
};

static g16_status read_header(r1cs_t *r)
{
    const iden3_file_t *f = &r->file;
    const iden3_section_t *s;
    g16_status st = iden3_require(&s, f, R1CS_SECTION_HEADER);
    if (st != G16_OK)
        return st;
    iden3_reader_t rd;
    iden3_reader_init(&rd, s);
    if ((st = iden3_read_scalar_prime(&rd, &r->fs, f, s, "fs")) != G16_OK)
        return st;
    if (!iden3_read_u32(&rd, &r->n_wires) || !iden3_read_u32(&rd, &r->n_pub_out) ||
        !iden3_read_u32(&rd, &r->n_pub_in) || !iden3_read_u32(&rd, &r->n_prv_in) ||
        !iden3_read_u64(&rd, &r->n_labels) || !iden3_read_u32(&rd, &r->n_constraints) ||
        rd.left != 0)
        return iden3_fail(f, s->id, G16_ERR_FORMAT, "is %llu bytes, expected %d",
                          (unsigned long long)s->size, R1CS_FS + 32);
    /* Wire 0 is the constant one; the inputs and outputs follow it. */
    uint64_t io = 1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in;
    if (io > r->n_wires)
        return iden3_fail(f, s->id, G16_ERR_FORMAT,
                          ": nWires = %u cannot hold the constant one, %u outputs, %u public "
                          "and %u private inputs",
                          r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in);
    return G16_OK;
}

/* Custom gates change what a constraint means; a Groth16 prover cannot ignore them. */
static g16_status check_no_custom_gates(const r1cs_t *r, uint32_t id)
{
    const iden3_section_t *s = iden3_find(&r->file, id);
    if (!s || s->size == 0 || (s->size == 4 && iden3_le32(s->data) == 0))
        return G16_OK;
    return iden3_fail(&r->file, id, G16_ERR_UNSUPPORTED,
                      "is present (%llu bytes): circuits with custom gates are not supported",
                      (unsigned long long)s->size);
}

static g16_status parse(r1cs_t *r)
{
    const iden3_file_t *f = &r->file;
    g16_status st;
    if ((st = read_header(r)) != G16_OK ||
        (st = check_no_custom_gates(r, R1CS_SECTION_CUSTOM_GATES_LIST)) != G16_OK ||
        (st = check_no_custom_gates(r, R1CS_SECTION_CUSTOM_GATES_USES)) != G16_OK)
        return st;
    const iden3_section_t *s;
    if ((st = iden3_require(&s, f, R1CS_SECTION_CONSTRAINTS)) != G16_OK)
        return st;
    /* Each constraint holds at least its three factor counts: a cheap bound that catches
     * a lying mConstraints before anyone walks the section. */
    if (s->size / 12 < r->n_constraints)
        return iden3_fail(f, s->id, G16_ERR_FORMAT,
                          "is %llu bytes, too short for mConstraints = %u (at least 12 bytes "
                          "each)",
                          (unsigned long long)s->size, r->n_constraints);
    r->constraints = s->data;
    r->constraints_size = s->size;

    s = iden3_find(f, R1CS_SECTION_LABELS);
    if (s) {
        uint64_t want = (uint64_t)r->n_wires * 8;
        if (s->size != want)
            return iden3_fail(f, s->id, G16_ERR_FORMAT,
                              "is %llu bytes, expected %llu for nWires = %u",
                              (unsigned long long)s->size, (unsigned long long)want,
                              r->n_wires);
        r->labels = s->data;
    }
    return G16_OK;
}

static g16_status finish_open(r1cs_t *r, g16_status st)
{
    if (st == G16_OK)
        st = parse(r);
    if (st != G16_OK)
        r1cs_close(r);
    return st;
}

g16_status r1cs_open(r1cs_t *r, const char *path)
{
    memset(r, 0, sizeof *r);
    status_clear();
    return finish_open(r, iden3_open(&r->file, path, &R1CS_FORMAT));
}

g16_status r1cs_open_memory(r1cs_t *r, const char *name, const uint8_t *data, size_t size)
{
    memset(r, 0, sizeof *r);
    status_clear();
    return finish_open(r, iden3_open_memory(&r->file, name, data, size, &R1CS_FORMAT));
}

void r1cs_close(r1cs_t *r)
{
    if (!r)
        return;
    iden3_close(&r->file);
    memset(r, 0, sizeof *r);
}

void r1cs_iter_init(r1cs_iter_t *it, const r1cs_t *r)
{
    it->r1cs = r;
    it->rd.p = r->constraints;
    it->rd.left = r->constraints_size;
    it->next = 0;
}

static g16_status read_lc(r1cs_iter_t *it, r1cs_lc_t *lc, char which)
{
    const r1cs_t *r = it->r1cs;
    const uint32_t id = R1CS_SECTION_CONSTRAINTS;
    if (!iden3_read_u32(&it->rd, &lc->n_factors))
        return iden3_fail(&r->file, id, G16_ERR_FORMAT,
                          ": constraint %u, %c: the factor count runs past the end of the "
                          "section",
                          it->next, which);
    if (!iden3_read_bytes(&it->rd, &lc->factors, (uint64_t)lc->n_factors * R1CS_FACTOR_BYTES))
        return iden3_fail(&r->file, id, G16_ERR_FORMAT,
                          ": constraint %u, %c: %u factors run past the end of the section",
                          it->next, which, lc->n_factors);
    fr_t v;
    for (uint32_t j = 0; j < lc->n_factors; j++) {
        const uint8_t *e = lc->factors + (size_t)j * R1CS_FACTOR_BYTES;
        uint32_t wire = iden3_le32(e);
        if (wire >= r->n_wires)
            return iden3_fail(&r->file, id, G16_ERR_FORMAT,
                              ": constraint %u, %c, factor %u: wire %u is not below nWires = %u",
                              it->next, which, j, wire, r->n_wires);
        if (!fr_from_bytes_le(&v, e + 4))
            return iden3_fail(&r->file, id, G16_ERR_FORMAT,
                              ": constraint %u, %c, factor %u: value is not below r "
                              "(non-canonical)",
                              it->next, which, j);
    }
    return G16_OK;
}

g16_status r1cs_iter_next(r1cs_iter_t *it, r1cs_constraint_t *c)
{
    const r1cs_t *r = it->r1cs;
    if (it->next >= r->n_constraints)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: all %u constraints were read",
                           r->file.name, r->n_constraints);
    memset(c, 0, sizeof *c);
    g16_status st;
    if ((st = read_lc(it, &c->a, 'A')) != G16_OK || (st = read_lc(it, &c->b, 'B')) != G16_OK ||
        (st = read_lc(it, &c->c, 'C')) != G16_OK)
        return st;
    it->next++;
    return G16_OK;
}

g16_status r1cs_iter_end(const r1cs_iter_t *it)
{
    if (it->rd.left != 0)
        return iden3_fail(&it->r1cs->file, R1CS_SECTION_CONSTRAINTS, G16_ERR_FORMAT,
                          "has %llu bytes left after its %u constraints",
                          (unsigned long long)it->rd.left, it->next);
    return G16_OK;
}

void r1cs_factor(uint32_t *wire, fr_t *value, const r1cs_lc_t *lc, uint32_t j)
{
    const uint8_t *e = lc->factors + (size_t)j * R1CS_FACTOR_BYTES;
    *wire = iden3_le32(e);
    fr_from_bytes_le(value, e + 4);
}

g16_status r1cs_validate(const r1cs_t *r)
{
    r1cs_iter_t it;
    r1cs_constraint_t c;
    r1cs_iter_init(&it, r);
    while (it.next < r->n_constraints) {
        g16_status st = r1cs_iter_next(&it, &c);
        if (st != G16_OK)
            return st;
    }
    return r1cs_iter_end(&it);
}
