/* Inside the NTT: butterfly kernels and memory passes (ntt_kernels.c), driven by ntt.c.
 *
 * Stage tables: the twiddles of level l (combining halves of size 2^(l-1) into 2^l) are
 * tab[2^(l-1) - 1 + j] for j < 2^(l-1), so one array holds levels 1..L in 2^L - 1 entries
 * and any prefix of it is a valid table for fewer levels. Entry j of level l is
 * sigma_l * omega_l^j, where omega_l is a primitive 2^l-th root (or its inverse, for the
 * inverse direction) and sigma_l the coset shift raised to n / 2^l (1 without a coset).
 */
#ifndef G16_NTT_NTT_INTERNAL_H
#define G16_NTT_NTT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "field/fr.h"
#include "field/mont.h"
#include "ntt/ntt.h"
#include "util/parallel.h"

/* The default plan: column tiles of at most 2^NTT_TILE_LOG_MAX rows by
 * 2^NTT_TILE_COLS_LOG columns (2^12 points, 128 KiB with their twiddles: L2), in-cache
 * blocks of at most 2^NTT_LEAF_LOG_MAX points (256 KiB). ntt_domain_create_with_plan
 * accepts limits up to the _LIMIT values, for tuning. */
#define NTT_TILE_LOG_MAX 9
#define NTT_TILE_COLS_LOG 3
#define NTT_LEAF_LOG_MAX 13
#define NTT_TILE_LOG_LIMIT 12
#define NTT_LEAF_LOG_LIMIT 16
/* Below this many points a pass runs on the caller's thread: waking workers costs more. */
#define NTT_SERIAL_BELOW ((size_t)1 << 12)

/* Addition and subtraction, inline: they are half the operations of a butterfly. The
 * generic mont_add/mont_sub compile (GCC 12) to ~80 instructions with spills for 4 limbs;
 * the add/adc + cmov chains below are ~16 and stay constant time (a compiler given the C
 * select turns it into a branch). Inputs reduced, outputs reduced; r < 2^255 so a + b
 * never carries out of 4 limbs. Multiplication goes through fr_mul (assembly or C, as the
 * CPU allows). */
#ifdef G16_HAVE_X86_ASM
static inline void ntt_add(fr_t *r, const fr_t *a, const fr_t *b)
{
    uint64_t t0 = a->l[0], t1 = a->l[1], t2 = a->l[2], t3 = a->l[3], u0, u1, u2, u3;
    __asm__("add %[b0], %[t0]\n\t"
            "adc %[b1], %[t1]\n\t"
            "adc %[b2], %[t2]\n\t"
            "adc %[b3], %[t3]\n\t"
            "mov %[t0], %[u0]\n\t"
            "mov %[t1], %[u1]\n\t"
            "mov %[t2], %[u2]\n\t"
            "mov %[t3], %[u3]\n\t"
            "sub %[m0], %[u0]\n\t"
            "sbb %[m1], %[u1]\n\t"
            "sbb %[m2], %[u2]\n\t"
            "sbb %[m3], %[u3]\n\t"
            "cmovc %[t0], %[u0]\n\t"
            "cmovc %[t1], %[u1]\n\t"
            "cmovc %[t2], %[u2]\n\t"
            "cmovc %[t3], %[u3]"
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3),
              [u0] "=&r"(u0), [u1] "=&r"(u1), [u2] "=&r"(u2), [u3] "=&r"(u3)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]),
              [m0] "m"(FR_MODULUS[0]), [m1] "m"(FR_MODULUS[1]), [m2] "m"(FR_MODULUS[2]),
              [m3] "m"(FR_MODULUS[3])
            : "cc");
    r->l[0] = u0, r->l[1] = u1, r->l[2] = u2, r->l[3] = u3;
}

static inline void ntt_sub(fr_t *r, const fr_t *a, const fr_t *b)
{
    uint64_t t0 = a->l[0], t1 = a->l[1], t2 = a->l[2], t3 = a->l[3], u0, u1, u2, u3;
    __asm__("xor %k[u0], %k[u0]\n\t"
            "xor %k[u1], %k[u1]\n\t"
            "xor %k[u2], %k[u2]\n\t"
            "xor %k[u3], %k[u3]\n\t"
            "sub %[b0], %[t0]\n\t"
            "sbb %[b1], %[t1]\n\t"
            "sbb %[b2], %[t2]\n\t"
            "sbb %[b3], %[t3]\n\t"
            "cmovc %[m0], %[u0]\n\t"
            "cmovc %[m1], %[u1]\n\t"
            "cmovc %[m2], %[u2]\n\t"
            "cmovc %[m3], %[u3]\n\t"
            "add %[u0], %[t0]\n\t"
            "adc %[u1], %[t1]\n\t"
            "adc %[u2], %[t2]\n\t"
            "adc %[u3], %[t3]"
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3),
              [u0] "=&r"(u0), [u1] "=&r"(u1), [u2] "=&r"(u2), [u3] "=&r"(u3)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]),
              [m0] "m"(FR_MODULUS[0]), [m1] "m"(FR_MODULUS[1]), [m2] "m"(FR_MODULUS[2]),
              [m3] "m"(FR_MODULUS[3])
            : "cc");
    r->l[0] = t0, r->l[1] = t1, r->l[2] = t2, r->l[3] = t3;
}
#else
static inline void ntt_add(fr_t *r, const fr_t *a, const fr_t *b)
{
    mont_add(r->l, a->l, b->l, FR_MODULUS, 4);
}

static inline void ntt_sub(fr_t *r, const fr_t *a, const fr_t *b)
{
    mont_sub(r->l, a->l, b->l, FR_MODULUS, 4);
}
#endif

static inline size_t ntt_bitrev(size_t i, unsigned bits)
{
    if (bits == 0)
        return 0;
    uint64_t v = (uint64_t)i;
    v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
    v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
    v = __builtin_bswap64(v);
    return (size_t)(v >> (64 - bits));
}

/* Fills levels 1..levels of a stage table: top level entries sigma * omega^j, omega a
 * primitive 2^levels-th root; each lower level squares the first half of the one above. */
void ntt_table_build(fr_t *tab, unsigned levels, const fr_t *omega, const fr_t *sigma);

/* In-cache transforms of 2^levels rows, each row 2^cols_log contiguous elements treated
 * as independent lanes (cols_log = 0 for a plain contiguous block).
 * dif: natural in, bit-reversed out, levels top-down; dit: the reverse. */
void ntt_dif_block(fr_t *x, unsigned levels, unsigned cols_log, const fr_t *tab);
void ntt_dit_block(fr_t *x, unsigned levels, unsigned cols_log, const fr_t *tab);

/* One column pass over the whole array (log2n points) at level log_m: every sub-problem
 * of 2^log_m points is 2^k rows by 2^(log_m - k) columns; each column gets a k-level DIF
 * (then row r times chain[bitrev(r)]) or, for DIT, the chain first and then the DIT. The
 * chain of column c is scale * beta_c^e, beta_c = sigma_m * omega_m^c, omega_m^c read from
 * the two-level power table of omega_n. */
typedef struct {
    fr_t *x;
    unsigned log_n, log_m, k;
    bool dit;
    const fr_t *dft_tab;              /* plain tables, levels 1..k, the pass's direction */
    const fr_t *pow_lo, *pow_hi;      /* omega_n^j = pow_lo[j & mask] * pow_hi[j >> bits] */
    unsigned pow_bits;
    fr_t sigma_m;                     /* sigma^(n / 2^log_m) */
    bool sigma_is_one;
    fr_t scale;
    bool has_scale;
    ntt_epilogue epilogue;            /* DIT only: outputs are final */
    void *epilogue_ctx;
    fr_t *scratch;                    /* per worker: scratch_stride elements */
    size_t scratch_stride;
} ntt_column_pass;

/* Scratch elements one worker needs for column passes of up to 2^k_max rows. */
size_t ntt_column_scratch(unsigned k_max);
void ntt_column_pass_run(ntt_column_pass *p);
/* A tile's width: 2^NTT_TILE_COLS_LOG columns, fewer when the sub-problem is narrower. */
unsigned ntt_column_cols_log(const ntt_column_pass *p);
/* Item `item` of a column pass (one tile): returns the index of its first element and
 * sets beta[c] = sigma_m * omega_m^(c0 + c) for its 2^cols_log columns c0 + c. */
size_t ntt_column_item(const ntt_column_pass *p, size_t item, fr_t beta[]);

/* The leaf pass: every block of 2^leaf contiguous points gets, in order, a DIF with
 * dif_tab (if not NULL), a multiplication by scale (if has_scale), a DIT with dit_tab (if
 * not NULL) and the epilogue (if not NULL). */
typedef struct {
    fr_t *x;
    unsigned log_n, leaf;
    const fr_t *dif_tab, *dit_tab;
    fr_t scale;
    bool has_scale;
    ntt_epilogue epilogue;
    void *epilogue_ctx;
} ntt_leaf_pass;

void ntt_leaf_pass_run(ntt_leaf_pass *p);

/* Runs body over items [0, items) of a pass over `points` points: on the caller's thread
 * below NTT_SERIAL_BELOW points, else on the pool. */
void ntt_run_items(size_t items, size_t points, parallel_body body, void *ctx);

#ifdef G16_HAVE_IFMA
/* The same two passes with 8-lane AVX-512 IFMA butterflies (ntt_ifma_x86.c), bit for bit
 * the results of the scalar ones; call only while cpu_use_ifma. They return false, having
 * done nothing, for shapes they do not take (tiles narrower than 8 columns, leaf blocks
 * below 64 points) and when the leaf's 52-bit copies cannot be allocated. */
bool ntt_column_pass_run_x8(ntt_column_pass *p);
bool ntt_leaf_pass_run_x8(ntt_leaf_pass *p);
#endif

/* dst = src over n elements, multithreaded. */
void ntt_copy(fr_t *dst, const fr_t *src, size_t n);

#endif
