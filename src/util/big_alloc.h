/* Working buffers of a megabyte or more (the prover's polynomials, the MSM's prepared
 * scalars and bucket scratch) on transparent huge pages where the kernel offers them.
 *
 * Why: a fresh buffer faults once per 4 KiB page on first touch. On the 2-core VMs g16 is
 * measured on, a fault costs microseconds (the hypervisor's interrupt path), and a 2^17
 * proof's first touches were ~15% of its CPU time (perf, 2026-12-01). With Debian's THP
 * setting ("madvise") a region marked MADV_HUGEPAGE faults once per 2 MiB instead.
 *
 * Buffers under a megabyte come from malloc; larger ones are mappings of their own
 * (2 MiB aligned, so every huge page of them can be used). Both are 64-byte aligned and
 * both go back through big_free, which keeps a few freed mappings of up to 64 MiB (128 MiB
 * in all) for the next big_alloc: a proof allocates the same buffers once per MSM, and a
 * fresh huge page costs the kernel 2 MiB of zeroing. A request that no kept mapping fits
 * grows the largest smaller one (mremap moves its pages; only the growth is fresh).
 * Thread-safe. */
#ifndef G16_UTIL_BIG_ALLOC_H
#define G16_UTIL_BIG_ALLOC_H

#include <stddef.h>

/* Uninitialised, 64-byte aligned; NULL when memory runs out (bytes == 0 is allowed). */
void *big_alloc(size_t bytes);

/* Zeroed (a fresh mapping already is: no memset on that path). */
void *big_calloc(size_t count, size_t size);

/* NULL is allowed. */
void big_free(void *p);

#endif
