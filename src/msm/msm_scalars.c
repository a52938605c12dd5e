/* Scalar preparation, shared by G1 and G2: the zero / one / other split and the signed
 * recoding of msm_internal.h, done once per scalar vector and in parallel. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "field/cpu.h"
#include "msm/msm.h"
#include "msm/msm_internal.h"
#include "util/big_alloc.h"
#include "util/parallel.h"
#include "util/status.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "msm: scalars are read as little-endian limbs with memcpy"
#endif

/* Scalars per classification chunk: big enough that the per-chunk bookkeeping vanishes,
 * small enough that 2 to 16 threads balance. */
enum { CLASSIFY_CHUNK = 16384 };

/* Relative cost of one bucket of the reduction against one accumulated point, fitted to
 * bench_msm sweeps (G1): 3 for the scalar field code; 0.75 with the 8-lane IFMA walk,
 * whose reductions are affine trees. The IFMA fit also charges 12% more per point for
 * each window bit beyond the widest whose affine G1 buckets fit the L2 cache: wider
 * windows lost to their cache misses what the model without this term said they would
 * gain (bench/NOTES.md, "Window widths with the IFMA walk": best c = 14 on the 2-core
 * AMD dev machine, 1 MiB L2, and 16 on the H200 host's 16 Intel cores, 2 MiB L2). */
static const double REDUCE_COST = 3.0, REDUCE_COST_IFMA = 0.75, WIDE_WINDOW_COST_IFMA = 0.12;

/* The widest window whose 2^(c-1) affine buckets of base_bytes each fit the L2 cache
 * (1 MiB assumed when the system does not say). */
static unsigned l2_window_bits(size_t base_bytes)
{
    static _Atomic long cached; /* the L2's bytes, read once */
    long l2 = cached;
    if (!l2) {
        l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (l2 <= 0)
            l2 = 1L << 20;
        cached = l2;
    }
    unsigned c = 2;
    while (c < 24 && ((size_t)1 << c) * base_bytes <= (size_t)l2)
        c++;
    return c;
}

unsigned msm_window_bits(size_t others) { return msm_window_bits_for(others, MSM_G1_BASE_BYTES); }

unsigned msm_window_bits_for(size_t others, size_t base_bytes)
{
    /* Cost W(c) * (others * a(c) + R * 2^(c-1)) point additions: every window adds every
     * point to a bucket, then reduces 2^(c-1) buckets. */
    bool ifma = cpu_use_ifma;
    double reduce = ifma ? REDUCE_COST_IFMA : REDUCE_COST;
    unsigned fits = ifma ? l2_window_bits(base_bytes) : 0;
    unsigned best = MSM_MIN_WINDOW_BITS;
    double best_cost = 0;
    for (unsigned c = MSM_MIN_WINDOW_BITS; c <= 20; c++) {
        double per_point = ifma && c > fits ? 1.0 + WIDE_WINDOW_COST_IFMA * (c - fits) : 1.0;
        double cost = (double)msm_windows_for(c) *
                      ((double)others * per_point + reduce * (double)((size_t)1 << (c - 1)));
        if (c == MSM_MIN_WINDOW_BITS || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

typedef struct {
    const uint8_t *bytes;        /* one of bytes / fr is set */
    const fr_t *fr;
    size_t n, nchunks;
    size_t (*counts)[3];         /* per chunk: ones, others, first index >= r (or n) */
    size_t (*offsets)[2];        /* per chunk: where its ones / others start */
    uint64_t add[4];             /* the recoding constant C */
    msm_scalars *s;
} classify_ctx;

static void load_scalar(uint64_t k[4], const classify_ctx *x, size_t i)
{
    if (x->bytes)
        memcpy(k, x->bytes + i * MSM_SCALAR_BYTES, MSM_SCALAR_BYTES);
    else
        fr_to_limbs(k, &x->fr[i]);
}

static bool below_r(const uint64_t k[4])
{
    for (int i = 3; i >= 0; i--)
        if (k[i] != FR_MODULUS[i])
            return k[i] < FR_MODULUS[i];
    return false;
}

static void count_body(void *p, size_t begin, size_t end, unsigned worker)
{
    classify_ctx *x = p;
    for (size_t c = begin; c < end; c++) {
        size_t lo = c * CLASSIFY_CHUNK, hi = lo + CLASSIFY_CHUNK < x->n ? lo + CLASSIFY_CHUNK : x->n;
        size_t ones = 0, others = 0, bad = x->n;
        for (size_t i = lo; i < hi; i++) {
            uint64_t k[4];
            load_scalar(k, x, i);
            uint64_t high = k[1] | k[2] | k[3];
            if (high == 0 && k[0] <= 1) {
                ones += k[0];
                continue;
            }
            others++;
            if (bad == x->n && !below_r(k))
                bad = i;
        }
        x->counts[c][0] = ones;
        x->counts[c][1] = others;
        x->counts[c][2] = bad;
    }
}

static void fill_body(void *p, size_t begin, size_t end, unsigned worker)
{
    classify_ctx *x = p;
    msm_scalars *s = x->s;
    for (size_t c = begin; c < end; c++) {
        size_t lo = c * CLASSIFY_CHUNK, hi = lo + CLASSIFY_CHUNK < x->n ? lo + CLASSIFY_CHUNK : x->n;
        size_t o1 = x->offsets[c][0], ok = x->offsets[c][1];
        for (size_t i = lo; i < hi; i++) {
            uint64_t k[4];
            load_scalar(k, x, i);
            uint64_t high = k[1] | k[2] | k[3];
            if (high == 0 && k[0] <= 1) {
                if (k[0])
                    s->one_index[o1++] = (uint32_t)i;
                continue;
            }
            s->other_index[ok] = (uint32_t)i;
            /* k + C < 2^256 (msm_internal.h), so the carry out is zero. */
            uint64_t carry = 0;
            for (int l = 0; l < 4; l++) {
                uint64_t a = k[l] + x->add[l], b = a + carry;
                carry = (uint64_t)(a < k[l]) | (uint64_t)(b < a);
                s->other_k[ok][l] = b;
            }
            ok++;
        }
    }
}

static g16_status prepare(msm_scalars **out, const uint8_t *bytes, const fr_t *fr, size_t n,
                          unsigned window_bits)
{
    *out = NULL;
    if (n > 0 && !bytes && !fr)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "msm: %zu scalars but no array", n);
    if (n > UINT32_MAX)
        return status_fail(G16_ERR_UNSUPPORTED, "msm: %zu scalars, at most 2^32 - 1 supported",
                           n);
    if (window_bits != 0 &&
        (window_bits < MSM_MIN_WINDOW_BITS || window_bits > MSM_MAX_WINDOW_BITS))
        return status_fail(G16_ERR_INVALID_ARGUMENT, "msm: window width %u outside [%d, %d]",
                           window_bits, MSM_MIN_WINDOW_BITS, MSM_MAX_WINDOW_BITS);

    classify_ctx x = {.bytes = bytes, .fr = fr, .n = n};
    x.nchunks = (n + CLASSIFY_CHUNK - 1) / CLASSIFY_CHUNK;
    msm_scalars *s = calloc(1, sizeof *s);
    if (!s)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "msm: %zu bytes for the scalar header",
                           sizeof *s);
    s->n = n;
    if (x.nchunks) {
        x.counts = malloc(x.nchunks * sizeof *x.counts);
        x.offsets = malloc(x.nchunks * sizeof *x.offsets);
        if (!x.counts || !x.offsets) {
            free(x.counts);
            free(x.offsets);
            free(s);
            return status_fail(G16_ERR_OUT_OF_MEMORY,
                               "msm: %zu bytes of classification counts for %zu scalars",
                               x.nchunks * (sizeof *x.counts + sizeof *x.offsets), n);
        }
        parallel_for(x.nchunks, 1, count_body, &x);
    }
    size_t bad = n;
    for (size_t c = 0; c < x.nchunks; c++) {
        x.offsets[c][0] = s->ones;
        x.offsets[c][1] = s->others;
        s->ones += x.counts[c][0];
        s->others += x.counts[c][1];
        if (x.counts[c][2] < bad)
            bad = x.counts[c][2];
    }
    s->zeros = n - s->ones - s->others;
    if (bad < n) {
        free(x.counts);
        free(x.offsets);
        free(s);
        return status_fail(G16_ERR_BAD_ENCODING, "msm: scalar %zu of %zu is not below r", bad,
                           n);
    }

    unsigned c = window_bits ? window_bits : msm_window_bits(s->others);
    s->window_bits = c;
    s->windows = msm_windows_for(c);
    for (unsigned j = 0; j + 1 < s->windows; j++) {
        unsigned bit = j * c + c - 1;
        x.add[bit / 64] |= (uint64_t)1 << (bit % 64);
    }

    size_t one_bytes = s->ones * sizeof(uint32_t);
    size_t idx_bytes = s->others * sizeof(uint32_t);
    size_t k_bytes = s->others * sizeof *s->other_k;
    s->one_index = big_alloc(one_bytes);
    s->other_index = big_alloc(idx_bytes);
    s->other_k = big_alloc(k_bytes);
    if (!s->one_index || !s->other_index || !s->other_k) {
        size_t ones = s->ones, others = s->others;
        free(x.counts);
        free(x.offsets);
        msm_scalars_free(s);
        return status_fail(G16_ERR_OUT_OF_MEMORY,
                           "msm: %zu bytes for %zu prepared scalars (%zu ones, %zu others)",
                           one_bytes + idx_bytes + k_bytes, n, ones, others);
    }
    x.s = s;
    if (x.nchunks)
        parallel_for(x.nchunks, 1, fill_body, &x);
    free(x.counts);
    free(x.offsets);
    *out = s;
    return G16_OK;
}

g16_status msm_scalars_prepare(msm_scalars **out, const uint8_t *scalars, size_t n)
{
    return prepare(out, scalars, NULL, n, 0);
}

g16_status msm_scalars_prepare_window(msm_scalars **out, const uint8_t *scalars, size_t n,
                                      unsigned window_bits)
{
    return prepare(out, scalars, NULL, n, window_bits);
}

g16_status msm_scalars_prepare_fr(msm_scalars **out, const fr_t *scalars, size_t n)
{
    return prepare(out, NULL, scalars, n, 0);
}

g16_status msm_scalars_prepare_fr_window(msm_scalars **out, const fr_t *scalars, size_t n,
                                         unsigned window_bits)
{
    return prepare(out, NULL, scalars, n, window_bits);
}

void msm_scalars_free(msm_scalars *s)
{
    if (!s)
        return;
    big_free(s->one_index);
    big_free(s->other_index);
    big_free(s->other_k);
    free(s);
}

void msm_scalars_counts(const msm_scalars *s, size_t *zeros, size_t *ones, size_t *others)
{
    if (zeros)
        *zeros = s->zeros;
    if (ones)
        *ones = s->ones;
    if (others)
        *others = s->others;
}

unsigned msm_scalars_window_bits(const msm_scalars *s) { return s->window_bits; }

unsigned msm_scalars_windows(const msm_scalars *s) { return s->windows; }
