#include "iden3.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "field/fp.h"
#include "field/fr.h"
#include "util/status.h"

static void set_name(iden3_file_t *f, const char *path)
{
    size_t n = strlen(path);
    if (n < sizeof f->name) {
        memcpy(f->name, path, n + 1);
        return;
    }
    /* The tail of a long path is the part that tells files apart. */
    const char *tail = path + n - (sizeof f->name - 4);
    snprintf(f->name, sizeof f->name, "...%s", tail);
}

const char *iden3_section_name(const iden3_file_t *f, uint32_t id)
{
    const iden3_format_t *fmt = f->format;
    if (fmt && id < fmt->n_section_names && fmt->section_names[id])
        return fmt->section_names[id];
    return "unknown";
}

static g16_status vfail(const iden3_file_t *f, bool with_section, uint32_t id,
                        g16_status status, const char *fmt, va_list ap)
{
    char detail[384];
    vsnprintf(detail, sizeof detail, fmt, ap);
    /* A detail that starts with ':' continues the sentence without a space. */
    if (with_section)
        return status_fail(status, "%s: section %u (%s)%s%s", f->name, id,
                           iden3_section_name(f, id), detail[0] == ':' ? "" : " ", detail);
    return status_fail(status, "%s: %s", f->name, detail);
}

g16_status iden3_fail(const iden3_file_t *f, uint32_t id, g16_status status, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    g16_status s = vfail(f, true, id, status, fmt, ap);
    va_end(ap);
    return s;
}

g16_status iden3_fail_file(const iden3_file_t *f, g16_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g16_status s = vfail(f, false, 0, status, fmt, ap);
    va_end(ap);
    return s;
}

uint32_t iden3_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t iden3_le64(const uint8_t *p)
{
    return (uint64_t)iden3_le32(p) | (uint64_t)iden3_le32(p + 4) << 32;
}

static void magic_text(char out[17], const uint8_t *m)
{
    /* Printable as is, anything else escaped: the bytes come from an unknown file. */
    char *o = out;
    for (int i = 0; i < 4; i++) {
        if (m[i] >= 0x20 && m[i] < 0x7f && m[i] != '"' && m[i] != '\\')
            *o++ = (char)m[i];
        else
            o += sprintf(o, "\\x%02x", m[i]);
    }
    *o = 0;
}

/* Reads the header and the section table of f->data[0, f->size). */
static g16_status read_table(iden3_file_t *f)
{
    const iden3_format_t *fmt = f->format;
    const uint8_t *d = f->data;
    if (f->size < IDEN3_HEADER_BYTES)
        return iden3_fail_file(f, G16_ERR_FORMAT,
                               "%llu bytes is too short for a %.4s file (header is %d bytes)",
                               (unsigned long long)f->size, fmt->magic, IDEN3_HEADER_BYTES);
    if (memcmp(d, fmt->magic, 4) != 0) {
        char got[17];
        magic_text(got, d);
        return iden3_fail_file(f, G16_ERR_FORMAT, "wrong magic \"%s\": not a %.4s file", got,
                               fmt->magic);
    }
    f->version = iden3_le32(d + 4);
    if (f->version < fmt->min_version || f->version > fmt->max_version) {
        if (fmt->min_version == fmt->max_version)
            return iden3_fail_file(f, G16_ERR_UNSUPPORTED,
                                   "%.4s version %u is not supported (expected %u)",
                                   fmt->magic, f->version, fmt->min_version);
        return iden3_fail_file(f, G16_ERR_UNSUPPORTED,
                               "%.4s version %u is not supported (expected %u to %u)",
                               fmt->magic, f->version, fmt->min_version, fmt->max_version);
    }
    uint32_t n = iden3_le32(d + 8);
    if (n > IDEN3_MAX_SECTIONS)
        return iden3_fail_file(f, G16_ERR_FORMAT,
                               "declares %u sections; %.4s files have at most %d", n,
                               fmt->magic, IDEN3_MAX_SECTIONS);

    uint64_t pos = IDEN3_HEADER_BYTES;
    for (uint32_t i = 0; i < n; i++) {
        /* pos <= size holds throughout, so size - pos never wraps. */
        if (f->size - pos < IDEN3_SECTION_HEADER_BYTES)
            return iden3_fail_file(f, G16_ERR_FORMAT,
                                   "truncated: the file (%llu bytes) ends before the "
                                   "header of section %u of %u is complete",
                                   (unsigned long long)f->size, i + 1, n);
        iden3_section_t *s = &f->sections[i];
        s->id = iden3_le32(d + pos);
        s->size = iden3_le64(d + pos + 4);
        s->offset = pos + IDEN3_SECTION_HEADER_BYTES;
        if (s->size > f->size - s->offset)
            return iden3_fail(f, s->id, G16_ERR_FORMAT,
                              "runs past the end of the file: %llu bytes at offset %llu in a "
                              "file of %llu bytes (truncated or corrupt)",
                              (unsigned long long)s->size, (unsigned long long)s->offset,
                              (unsigned long long)f->size);
        s->data = d + s->offset;
        for (uint32_t j = 0; j < i; j++)
            if (f->sections[j].id == s->id)
                return iden3_fail(f, s->id, G16_ERR_FORMAT,
                                  "appears twice (a section id may occur only once)");
        pos = s->offset + s->size;
        f->n_sections = i + 1;
    }
    f->trailing = f->size - pos;
    return G16_OK;
}

static g16_status open_finish(iden3_file_t *f)
{
    g16_status s = read_table(f);
    if (s != G16_OK)
        iden3_close(f);
    return s;
}

g16_status iden3_open_memory(iden3_file_t *f, const char *name, const uint8_t *data,
                             size_t size, const iden3_format_t *format)
{
    memset(f, 0, sizeof *f);
    if (!name || !format || (!data && size))
        return status_fail(G16_ERR_INVALID_ARGUMENT, "iden3_open_memory: null argument");
    set_name(f, name);
    f->format = format;
    f->data = data;
    f->size = size;
    return open_finish(f);
}

g16_status iden3_open(iden3_file_t *f, const char *path, const iden3_format_t *format)
{
    memset(f, 0, sizeof *f);
    if (!path || !format)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "iden3_open: null argument");
    set_name(f, path);
    f->format = format;

    /* O_NONBLOCK: opening a FIFO would otherwise wait for a writer forever. It changes
     * nothing for the regular files that get past the check below. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return iden3_fail_file(f, G16_ERR_IO, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return iden3_fail_file(f, G16_ERR_IO, "cannot stat: %s", strerror(e));
    }
    /* A pipe or a directory cannot be mapped, and its size means nothing. */
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return iden3_fail_file(f, G16_ERR_IO, "not a regular file");
    }
    uint64_t size = (uint64_t)st.st_size;
    if (size > SIZE_MAX) {
        close(fd);
        return iden3_fail_file(f, G16_ERR_UNSUPPORTED,
                               "%llu bytes do not fit this machine's address space",
                               (unsigned long long)size);
    }
    f->size = size;
    if (size < IDEN3_HEADER_BYTES) {
        /* mmap refuses zero bytes, and no file this short is valid: read_table says why
         * from the size alone, without touching data. */
        close(fd);
        return open_finish(f);
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);  /* the mapping keeps the file alive */
    if (map == MAP_FAILED)
        return iden3_fail_file(f, G16_ERR_IO, "cannot map %llu bytes: %s",
                               (unsigned long long)size, strerror(e));
    f->data = map;
    f->mapped = true;
    return open_finish(f);
}

void iden3_close(iden3_file_t *f)
{
    if (!f)
        return;
    if (f->mapped && f->data)
        munmap((void *)(uintptr_t)f->data, (size_t)f->size);
    memset(f, 0, sizeof *f);
}

const iden3_section_t *iden3_find(const iden3_file_t *f, uint32_t id)
{
    for (uint32_t i = 0; i < f->n_sections; i++)
        if (f->sections[i].id == id)
            return &f->sections[i];
    return NULL;
}

g16_status iden3_require(const iden3_section_t **s, const iden3_file_t *f, uint32_t id)
{
    *s = iden3_find(f, id);
    if (!*s)
        return iden3_fail(f, id, G16_ERR_FORMAT, "is missing");
    return G16_OK;
}

/* --- reader --------------------------------------------------------------------------- */

void iden3_reader_init(iden3_reader_t *r, const iden3_section_t *s)
{
    r->p = s->data;
    r->left = s->size;
}

bool iden3_read_u32(iden3_reader_t *r, uint32_t *v)
{
    if (r->left < 4)
        return false;
    *v = iden3_le32(r->p);
    r->p += 4;
    r->left -= 4;
    return true;
}

bool iden3_read_u64(iden3_reader_t *r, uint64_t *v)
{
    if (r->left < 8)
        return false;
    *v = iden3_le64(r->p);
    r->p += 8;
    r->left -= 8;
    return true;
}

bool iden3_read_bytes(iden3_reader_t *r, const uint8_t **p, uint64_t n)
{
    if (r->left < n)
        return false;
    *p = r->p;
    r->p += n;
    r->left -= n;
    return true;
}

/* --- primes --------------------------------------------------------------------------- */

static const uint64_t BN254_Q[4] = {
    0x3c208c16d87cfd47, 0x97816a916871ca8d, 0xb85045b68181585d, 0x30644e72e131a029,
};
static const uint64_t BN254_R[4] = {
    0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029,
};

/* true iff the n-byte little-endian integer p equals the limbs l[0, nl). */
static bool prime_equals(const uint8_t *p, uint32_t n, const uint64_t *l, uint32_t nl)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t want = i / 8 < nl ? (uint8_t)(l[i / 8] >> (8 * (i % 8))) : 0;
        if (p[i] != want)
            return false;
    }
    /* Bytes the file lacks must be zero in the limbs too. */
    for (uint32_t i = n; i < 8 * nl; i++)
        if ((uint8_t)(l[i / 8] >> (8 * (i % 8))) != 0)
            return false;
    return true;
}

iden3_prime_t iden3_identify_prime(const uint8_t *p, uint32_t n)
{
    if (prime_equals(p, n, FR_MODULUS, 4))
        return IDEN3_PRIME_BLS12_381_R;
    if (prime_equals(p, n, FP_MODULUS, 6))
        return IDEN3_PRIME_BLS12_381_Q;
    if (prime_equals(p, n, BN254_R, 4))
        return IDEN3_PRIME_BN254_R;
    if (prime_equals(p, n, BN254_Q, 4))
        return IDEN3_PRIME_BN254_Q;
    return IDEN3_PRIME_UNKNOWN;
}

const char *iden3_prime_name(iden3_prime_t prime)
{
    switch (prime) {
    case IDEN3_PRIME_BLS12_381_R: return "the BLS12-381 scalar field prime r";
    case IDEN3_PRIME_BLS12_381_Q: return "the BLS12-381 base field prime q";
    case IDEN3_PRIME_BN254_R: return "the BN254 scalar field prime r";
    case IDEN3_PRIME_BN254_Q: return "the BN254 base field prime q";
    case IDEN3_PRIME_UNKNOWN: break;
    }
    return "an unknown prime";
}

g16_status iden3_read_scalar_prime(iden3_reader_t *rd, uint32_t *size, const iden3_file_t *f,
                                   const iden3_section_t *s, const char *size_name)
{
    const uint8_t *prime;
    if (!iden3_read_u32(rd, size) || !iden3_read_bytes(rd, &prime, *size))
        return iden3_fail(f, s->id, G16_ERR_FORMAT,
                          "is %llu bytes, too short to hold the prime (truncated)",
                          (unsigned long long)s->size);
    iden3_prime_t p = iden3_identify_prime(prime, *size);
    if (p == IDEN3_PRIME_BN254_R)
        return iden3_fail(f, s->id, G16_ERR_UNSUPPORTED,
                          ": the prime is BN254's r: curve BN254 not supported yet");
    if (p != IDEN3_PRIME_BLS12_381_R)
        return iden3_fail(f, s->id, G16_ERR_UNSUPPORTED,
                          ": the prime (%u bytes) is %s: unsupported curve (g16 expects the "
                          "BLS12-381 scalar field)",
                          *size, iden3_prime_name(p));
    if (*size != 32)
        return iden3_fail(f, s->id, G16_ERR_FORMAT, ": %s is %u, expected 32 for BLS12-381",
                          size_name, *size);
    return G16_OK;
}

