#include "iden3_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/encoding.h"
#include "util/atomic_file.h"
#include "util/status.h"

struct iden3_writer {
    atomic_file out;
    bool failed;
    int err;
    size_t n;
    uint8_t buf[1 << 16];
};

static void flush(iden3_writer *w)
{
    if (!w->failed && w->n && fwrite(w->buf, 1, w->n, w->out.f) != w->n) {
        w->failed = true;
        w->err = errno;
    }
    w->n = 0;
}

g16_status iden3_writer_open(iden3_writer **out, const char *path)
{
    *out = NULL;
    iden3_writer *w = calloc(1, sizeof *w);
    if (!w)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "%s: writer", path);
    g16_status st = atomic_file_open(&w->out, path);
    if (st) {
        free(w);
        return st;
    }
    *out = w;
    return G16_OK;
}

g16_status iden3_writer_finish(iden3_writer *w, atomic_file *staged)
{
    flush(w);
    g16_status st = G16_OK;
    if (w->failed) {
        st = status_fail(G16_ERR_IO, "%s: write failed: %s", w->out.path, strerror(w->err));
        atomic_file_discard(&w->out);
    } else if (!(st = atomic_file_finish(&w->out))) {
        *staged = w->out;
    }
    free(w);
    return st;
}

g16_status iden3_writer_commit(iden3_writer *w)
{
    atomic_file staged;
    g16_status st = iden3_writer_finish(w, &staged);
    return st ? st : atomic_file_commit(&staged);
}

uint8_t *iden3_reserve(iden3_writer *w, size_t n)
{
    if (sizeof w->buf - w->n < n)
        flush(w);
    uint8_t *p = w->buf + w->n;
    w->n += n;
    return p;
}

void iden3_put_bytes(iden3_writer *w, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n) {
        size_t k = n < sizeof w->buf ? n : sizeof w->buf;
        memcpy(iden3_reserve(w, k), p, k);
        p += k;
        n -= k;
    }
}

void iden3_put_u32(iden3_writer *w, uint32_t v)
{
    uint8_t *b = iden3_reserve(w, 4);
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

void iden3_put_u64(iden3_writer *w, uint64_t v)
{
    iden3_put_u32(w, (uint32_t)v);
    iden3_put_u32(w, (uint32_t)(v >> 32));
}

void iden3_put_file_header(iden3_writer *w, const char magic[4], uint32_t version,
                           uint32_t n_sections)
{
    iden3_put_bytes(w, magic, 4);
    iden3_put_u32(w, version);
    iden3_put_u32(w, n_sections);
}

void iden3_put_section(iden3_writer *w, uint32_t id, uint64_t size)
{
    iden3_put_u32(w, id);
    iden3_put_u64(w, size);
}

void iden3_put_g1s(iden3_writer *w, const g1_affine_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        g1_encode_snarkjs(iden3_reserve(w, G1_SNARKJS_BYTES), &p[i]);
}

void iden3_put_g2s(iden3_writer *w, const g2_affine_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        g2_encode_snarkjs(iden3_reserve(w, G2_SNARKJS_BYTES), &p[i]);
}
