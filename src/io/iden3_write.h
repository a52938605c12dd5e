/* Writing iden3-container files (.zkey, g16k native keys): a buffered little-endian
 * writer whose first failure sticks, so callers write everything and check once. The
 * file is replaced whole by iden3_writer_commit (util/atomic_file.h): a failed or
 * interrupted write never leaves a partial file under PATH. */
#ifndef G16_IO_IDEN3_WRITE_H
#define G16_IO_IDEN3_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"
#include "util/atomic_file.h"

typedef struct iden3_writer iden3_writer;

/* Starts the file (a temporary beside PATH). */
g16_status iden3_writer_open(iden3_writer **w, const char *path);
/* Flushes, syncs and renames the temporary to PATH; on any failure removes it and
 * returns G16_ERR_IO naming the file. Frees w in every case. */
g16_status iden3_writer_commit(iden3_writer *w);
/* Its first half: the file written whole and synced under its temporary, which *staged
 * now holds for the caller to commit or discard (atomic_file_finish), PATH untouched.
 * Frees w in every case; on failure nothing is left behind. */
g16_status iden3_writer_finish(iden3_writer *w, atomic_file *staged);

/* Room for n (<= 64 KiB) more bytes; returns where they go. */
uint8_t *iden3_reserve(iden3_writer *w, size_t n);
void iden3_put_bytes(iden3_writer *w, const void *data, size_t n);
void iden3_put_u32(iden3_writer *w, uint32_t v);
void iden3_put_u64(iden3_writer *w, uint64_t v);
/* The container's file header: magic, version, number of sections. */
void iden3_put_file_header(iden3_writer *w, const char magic[4], uint32_t version,
                           uint32_t n_sections);
/* A section's header: id and size in bytes of what follows. */
void iden3_put_section(iden3_writer *w, uint32_t id, uint64_t size);
/* Points in the snarkjs layout (Montgomery little-endian, infinity all zero), through
 * the encoder so that files do not depend on the host's byte order. */
void iden3_put_g1s(iden3_writer *w, const g1_affine_t *p, size_t n);
void iden3_put_g2s(iden3_writer *w, const g2_affine_t *p, size_t n);

#endif
