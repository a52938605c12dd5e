/* Multi-scalar multiplication on the GPU, G1 and G2 from one template.
 *
 * 1. classify: each scalar is 0 (skipped), 1 (its base goes to the parallel sum of step
 *    2) or other (Pippenger, its canonical value kept: converted from Montgomery form when
 *    asked); the ones' and the others' index lists by one three-way partition (CUB).
 *    Witnesses of real circuits are mostly 0 and 1, and a one in Pippenger would land
 *    every such base in a single bucket of window 0.
 * 2. ones: the bases with scalar 1 are summed by a tree of chunked sums (each thread adds
 *    a chunk of points, then the partial sums are summed the same way), or when there are
 *    many (ba_ones_use) by the batch-affine rounds of step 4, the list cut into runs of
 *    2^10 points as buckets, whose sums a tree adds.
 * 3. Pippenger over the others with signed c-bit digits (|d| <= 2^(c-1), so 2^(c-1)
 *    buckets per window and W = floor(255 / c) + 1 windows): per window, a digit kernel
 *    writes (bucket, point index | sign) pairs, CUB's radix sort orders them by bucket,
 *    and a boundary kernel records where each bucket's run starts and ends (below 2^20
 *    others all windows in one sort, the window in the keys' top bits). Above 2^23
 *    others, given the bases' GLV table, each scalar is first split into two 128-bit
 *    halves over P and phi(P) (glv.cuh): 2 m digits a window, W = floor(128 / c) + 1.
 * 4. accumulate: below 2^20 others, one thread per bucket of every window adds its run of
 *    affine points into an XYZZ sum (mixed additions, madd-2008-s); a long run is cut into
 *    pieces summed by threads of their own, then added into its bucket (see k_longest).
 *    From 2^20 others, batch-affine rounds instead (msm_batch_affine.cuh: adjacent points
 *    of a bucket added in affine coordinates with one shared inversion, ~6 products an
 *    addition instead of ~10), steps 3 and 4 by groups of windows.
 * 5. reduce: per window, segments of buckets are reduced by running sums (sum of
 *    (k+1) B_k = running sum of running sums, plus lo * sum of B_k for a segment starting
 *    at bucket lo), then the segment results are summed by the tree of step 2.
 * The W window sums and the ones' sum go back to the host, which joins the windows with
 *    c doublings each (backend_cuda.c): a few hundred point operations.
 *
 * Cost: m others -> m W additions in step 4 (the floor in DESIGN.md), plus about
 * 2 * 2^(c-1) W additions in step 5. Memory: the sorted pairs of every window (4 W m bytes;
 * of a group of windows on the batch-affine path, plus its point buffers) and the buckets
 * (W 2^(c-1) XYZZ points). Buffers come from the context's pool
 * (cuda_ctx.cuh): allocated by the first call of each size, reused after. */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>

#include "cuda_ctx.cuh"
#include "curve.cuh"
#include "glv.cuh"

#include <new>
#include <stdlib.h>
#include <string.h>

namespace {

struct scalar_d {
    uint32_t v[8];
};

/* true iff s >= r (not a canonical scalar: its top window would overflow). */
G16_HD bool scalar_too_large(const scalar_d &s)
{
    for (int k = 7; k >= 0; k--) {
        uint32_t r = fr_d::p(k);
        if (s.v[k] != r)
            return s.v[k] > r;
    }
    return true;
}

/* Scalar i's kind (0 zero, 1 one, 2 other) into kind[i], and an other's canonical value
 * into canon[i]: only the others' entries are written, as only they are read (by index,
 * idx_other). Montgomery input is classified in its own form (0 and R mod r), so that
 * only the others pay the conversion's product: a witness of 0s and 1s is then read once
 * and hardly written. A canonical scalar >= r sets first_bad (and counts as zero). */
__global__ void k_classify(scalar_d *canon, uint8_t *kind, uint32_t *first_bad,
                           const scalar_d *in, uint32_t n, bool montgomery)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    scalar_d s = in[i];
    uint32_t high = 0, not_one = 0;
    const fr_d mont_one = fr_d::one();
#pragma unroll
    for (int k = 1; k < 8; k++)
        high |= s.v[k];
#pragma unroll
    for (int k = 0; k < 8; k++)
        not_one |= s.v[k] ^ (montgomery ? mont_one.v[k] : k == 0);
    const bool zero = (high | s.v[0]) == 0, unit = not_one == 0;
    if (!zero && !unit) {
        if (montgomery) {
            fr_d f;
#pragma unroll
            for (int k = 0; k < 8; k++)
                f.v[k] = s.v[k];
            f = from_montgomery(f);
#pragma unroll
            for (int k = 0; k < 8; k++)
                s.v[k] = f.v[k];
        } else if (scalar_too_large(s)) {
            atomicMin(first_bad, i);
            kind[i] = 0;
            return;
        }
        canon[i] = s;
    }
    kind[i] = zero ? 0 : unit ? 1 : 2;
}

/* The partition's predicate: index i's scalar is of kind k. */
struct kind_is {
    const uint8_t *kind;
    uint8_t k;
    __host__ __device__ bool operator()(uint32_t i) const { return kind[i] == k; }
};

/* out[t] = sum of bases[idx[j]] for j in chunk t. */
template <class F>
__global__ void k_sum_indexed(xyzz_d<F> *out, const affine_d<F> *bases, const uint32_t *idx,
                              uint32_t m, uint32_t chunk, uint32_t out_n)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= out_n)
        return;
    xyzz_d<F> acc = xyzz_d<F>::infinity();
    uint32_t end = min(m, (t + 1) * chunk);
    for (uint32_t j = t * chunk; j < end; j++)
        acc = xyzz_add_affine(acc, bases[idx[j]]);
    out[t] = acc;
}

/* Per group g of m points: out[g * m_out + k] = sum of in[g * m + k * chunk ...]. */
template <class F>
__global__ void k_sum_groups(xyzz_d<F> *out, const xyzz_d<F> *in, uint32_t groups, uint32_t m,
                             uint32_t chunk, uint32_t m_out)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= groups * m_out)
        return;
    uint32_t g = t / m_out, k = t % m_out;
    xyzz_d<F> acc = xyzz_d<F>::infinity();
    uint32_t end = min(m, (k + 1) * chunk);
    for (uint32_t j = k * chunk; j < end; j++)
        acc = xyzz_add(acc, in[(size_t)g * m + j]);
    out[t] = acc;
}

/* Word i of a scalar (0 from 8 on). On the device a chain of selects over the eight
 * words, each passed through an empty asm so that the compiler cannot fold the chain
 * back into s.v[i]: an indexed word puts the whole scalar in local memory. It did so in
 * k_bs_digits<ba_digits> (a 64-byte stack frame, the same body's k_run had none): run
 * 99 counted 7x the L2 write sectors of CUB's path's k_run<ba_digits>, 1.9 GB of DRAM
 * writes a 2^27-digit window against its 1.06, and 2.6 ms against 1.1. */
G16_HD uint32_t scalar_word(const scalar_d &s, unsigned i)
{
#ifdef __CUDA_ARCH__
    uint32_t r = 0;
#pragma unroll
    for (unsigned q = 0; q < 8; q++) {
        uint32_t v;
        asm("mov.b32 %0, %1;" : "=r"(v) : "r"(s.v[q]));
        r = q == i ? v : r;
    }
    return r;
#else
    return i < 8 ? s.v[i] : 0;
#endif
}

/* Bits [bit, bit + c) of a 256-bit scalar (zero past the top). */
G16_HD uint32_t scalar_bits(const scalar_d &s, unsigned bit, unsigned c)
{
    unsigned word = bit / 32, off = bit % 32;
    if (word >= 8)
        return 0;
    uint64_t v = scalar_word(s, word) >> off;
    if (off + c > 32)
        v |= (uint64_t)scalar_word(s, word + 1) << (32 - off);
    return (uint32_t)v & ((1u << c) - 1);
}

/* Window w's signed digit of scalar s: c-bit windows from bit 0, a window above half of
 * 2^c taken as d - 2^c with a carry into the next. */
G16_HD int window_digit(const scalar_d &s, unsigned c, unsigned w)
{
    int carry = 0, d = 0;
    const int half = 1 << (c - 1);
    for (unsigned k = 0; k <= w; k++) {
        d = (int)scalar_bits(s, k * c, c) + carry;
        carry = d > half;
        if (carry)
            d -= 1 << c;
    }
    return d;
}

/* Entry j of the digits: key = bucket (|d| - 1), or nb when d = 0 (sorted past every
 * bucket and ignored); value = point, bit 30 = phi(P) (hi), top bit = d < 0. */
G16_HD uint32_t digit_store(uint32_t *keys, uint32_t *vals, uint32_t j, int d, uint32_t point,
                            uint32_t hi, unsigned c)
{
    const uint32_t nb = 1u << (c - 1), key = d == 0 ? nb : (uint32_t)(d < 0 ? -d : d) - 1;
    keys[j] = key;
    vals[j] = point | (hi << 30) | (d < 0 ? 0x80000000u : 0);
    return key;
}

/* Window w's signed digit of "other" scalar j (digit_store), as thread j's work (the
 * batch-affine path also runs it on the host, msm_batch_affine.cuh).
 * With GLV (glv_m = the others' count, their scalars split by glv_split): entry j < glv_m
 * is the low half of scalar j's, entry glv_m + j its high half, whose point is phi(P);
 * thread j < glv_m writes both from one read of the scalar (threads from glv_m write
 * nothing: launch glv_m). Two threads reading the halves apart fetched each scalar's
 * 32-byte sector twice: ba_digits was bound by those bytes (run 74: 9.9 ms of a G1 dense
 * 2^26 MSM). With precomputed multiples (stride = the bases' count, ba_accumulate_mult)
 * window w's point is 2^(c w) P, the (w stride + i)-th of bases and multiples.
 * Returns the number of entries written (0 to 2), their keys in written[] when given. */
G16_HD unsigned digit_entry(uint32_t *keys, uint32_t *vals, const scalar_d *canon,
                            const uint32_t *idx, unsigned c, unsigned w, uint32_t j,
                            uint32_t glv_m, uint32_t stride, uint32_t *written = nullptr)
{
    if (glv_m && j >= glv_m)
        return 0;
    const uint32_t i = idx[j], point = i + w * stride;
    const scalar_d s = canon[i];
    if (!glv_m) {
        uint32_t key = digit_store(keys, vals, j, window_digit(s, c, w), point, 0, c);
        if (written)
            written[0] = key;
        return 1;
    }
    for (uint32_t hi = 0; hi < 2; hi++) {
        scalar_d h;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            h.v[k] = s.v[4 * hi + k];
            h.v[4 + k] = 0;
        }
        uint32_t key = digit_store(keys, vals, j + hi * glv_m, window_digit(h, c, w), point, hi, c);
        if (written)
            written[hi] = key;
    }
    return 2;
}

/* Every window's digits at once (the XYZZ accumulation, below 2^20 others): entry w m + j
 * is window w's digit of other j, its key's bits from c holding w, so that one sort of
 * the W m keys (c + log2 W bits) leaves window w's m entries at [w m, (w + 1) m) in
 * bucket order. One CUB sort instead of W: 26 sorts of 1.5e4 keys took 1.0 ms of short
 * launches (the 2^27 partition's A and C others, run 84). */
__global__ void k_digits_windows(uint32_t *keys, uint32_t *vals, const scalar_d *canon,
                                 const uint32_t *idx, uint32_t m, unsigned c, unsigned W)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= W * m)
        return;
    const uint32_t w = t / m, j = t - w * m;
    digit_entry(keys + (size_t)w * m, vals + (size_t)w * m, canon, idx, c, w, j, 0, 0);
    keys[t] |= w << c;
}

/* GLV (glv.cuh): other scalar j's canonical value k -> (k mod lambda, floor(k / lambda)),
 * 128 bits each, in place. */
struct glv_split_entry {
    scalar_d *canon;
    const uint32_t *idx;
    G16_HD void operator()(uint32_t j) const
    {
        scalar_d &s = canon[idx[j]];
        scalar_d k = s;
        glv_split(s.v, k.v);
    }
};

/* phi_x[i] = beta x of bases[i] (the GLV table). */
template <class F>
struct glv_phi_entry {
    F *phi_x;
    const affine_d<F> *bases;
    G16_HD void operator()(uint32_t i) const { phi_x[i] = glv_phi_x(bases[i].x); }
};

/* start[k], end[k]: the run of bucket k in the sorted keys plus base (both 0 when
 * empty); position p's part of it. */
G16_HD void bounds_entry(uint32_t *start, uint32_t *end, const uint32_t *keys, uint32_t m,
                         uint32_t nb, uint32_t base, uint32_t p)
{
    uint32_t k = keys[p];
    if (k >= nb)
        return;
    if (p == 0 || keys[p - 1] != k)
        start[k] = base + p;
    if (p == m - 1 || keys[p + 1] != k)
        end[k] = base + p + 1;
}

/* The bucket bounds of k_digits_windows' sorted keys: bucket k of window w at
 * start[w nb + k], relative to the window's entries at w m. */
__global__ void k_bounds_windows(uint32_t *start, uint32_t *end, const uint32_t *keys,
                                 uint32_t m, unsigned c, uint32_t total)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= total)
        return;
    const uint32_t key = keys[p], w = key >> c, k = key & ((1u << c) - 1), nb = 1u << (c - 1);
    if (k >= nb)
        return;
    if (p == 0 || keys[p - 1] != key)
        start[w * nb + k] = p - w * m;
    if (p == total - 1 || keys[p + 1] != key)
        end[w * nb + k] = p + 1 - w * m;
}

/* A point or a field element from global memory by 16-byte loads (the arrays come from
 * cudaMalloc and points are 96 or 192 bytes, so every point and coordinate is 16-byte
 * aligned); a plain read on the host (the emulation of msm_batch_affine.cuh). */
template <class T>
G16_HD T load_global(const T *p)
{
    static_assert(sizeof(T) % 16 == 0, "points and field elements are whole 16-byte words");
#ifdef __CUDA_ARCH__
    T r;
    const uint4 *src = (const uint4 *)p;
    uint4 *dst = (uint4 *)&r;
#pragma unroll
    for (unsigned k = 0; k < sizeof(T) / 16; k++)
        dst[k] = __ldg(&src[k]);
    return r;
#else
    return *p;
#endif
}

/* Adds the affine points of sorted run [p, e) (point index | sign bit) to acc. The next
 * point is loaded while the current one is added, so the gather's latency hides behind
 * ~10 field products. */
template <class F>
__device__ __forceinline__ void add_run(xyzz_d<F> &acc, const affine_d<F> *bases,
                                        const uint32_t *run, uint32_t p, uint32_t e)
{
    if (p >= e)
        return;
    uint32_t v = run[p];
    affine_d<F> next = load_global(&bases[v & 0x7fffffffu]);
    for (; p < e; p++) {
        affine_d<F> b = next;
        bool negate = v >> 31;
        if (p + 1 < e) {
            v = run[p + 1];
            next = load_global(&bases[v & 0x7fffffffu]);
        }
        if (negate)
            b = affine_neg(b);
        acc = xyzz_add_affine(acc, b);
    }
}

/* Long buckets are cut into pieces of `piece` points so that no thread adds more than
 * that many (one thread per bucket would serialize a bucket that receives a large share
 * of the points: the top window's few buckets, or a witness repeating one value, where
 * a 2^20-point bucket took seconds). Piece 0 of every bucket is summed by k_accumulate
 * straight into the bucket; pieces 1 .. K - 1 of a bucket of K pieces are "extra":
 *   k_longest     the longest run (atomicMax), from which the host picks the piece size;
 *   k_extra_count extra[t] = K_t - 1, then an exclusive prefix sum gives each bucket's
 *                 first extra piece and the total;
 *   k_extra_owner owner[x] = t for each extra piece x of bucket t;
 *   k_accumulate_extra one thread per extra piece, into partial[x];
 *   k_combine     one thread per bucket adds its K_t - 1 partial sums into the bucket.
 * With piece = max(32, sqrt(longest)) (XYZZ_PIECE_LEAST), both the pieces and the
 * combine add at most ~sqrt(longest) points per thread. Buckets of random scalars hold
 * ~m / 2^(c - 1) points (~128 at 2^26), so usually only the top window's buckets are cut. */
__global__ void k_longest(uint32_t *longest, const uint32_t *start, const uint32_t *end,
                          uint32_t count)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count && end[t] - start[t] > 0)
        atomicMax(longest, end[t] - start[t]);
}

__global__ void k_extra_count(uint32_t *extra, const uint32_t *start, const uint32_t *end,
                              uint32_t count, uint32_t piece)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count) {
        uint32_t len = end[t] - start[t];
        extra[t] = len > piece ? (len - 1) / piece : 0;
    }
}

__global__ void k_extra_owner(uint32_t *owner, const uint32_t *first_extra,
                              const uint32_t *extra, uint32_t count)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count)
        return;
    for (uint32_t x = first_extra[t], e = x + extra[t]; x < e; x++)
        owner[x] = t;
}

/* One thread per bucket (piece 0 of it). The top window goes first (the lowest thread
 * indices, so the first blocks to run): its digits have only 255 - c (W - 1) bits, so its
 * few buckets hold more points each than the other windows' buckets. */
template <class F>
__global__ void __launch_bounds__(128)
    k_accumulate(xyzz_d<F> *buckets, const affine_d<F> *bases, const uint32_t *sorted,
                 const uint32_t *start, const uint32_t *end, uint32_t m, uint32_t windows,
                 uint32_t nb, uint32_t piece)
{
    uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
    if (thread >= windows * nb)
        return;
    uint32_t w = windows - 1 - thread / nb, t = w * nb + thread % nb;
    xyzz_d<F> acc = xyzz_d<F>::infinity();
    uint32_t p = start[t], e = end[t];
    add_run(acc, bases, sorted + (size_t)w * m, p, e - p > piece ? p + piece : e);
    buckets[t] = acc;
}

template <class F>
__global__ void __launch_bounds__(128)
    k_accumulate_extra(xyzz_d<F> *partial, const affine_d<F> *bases, const uint32_t *sorted,
                       const uint32_t *start, const uint32_t *end, const uint32_t *owner,
                       const uint32_t *first_extra, uint32_t total, uint32_t m, uint32_t nb,
                       uint32_t piece)
{
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= total)
        return;
    uint32_t t = owner[x], w = t / nb;
    uint32_t p = start[t] + (x - first_extra[t] + 1) * piece, e = min(end[t], p + piece);
    xyzz_d<F> acc = xyzz_d<F>::infinity();
    add_run(acc, bases, sorted + (size_t)w * m, p, e);
    partial[x] = acc;
}

template <class F>
__global__ void k_combine(xyzz_d<F> *buckets, const xyzz_d<F> *partial,
                          const uint32_t *first_extra, const uint32_t *extra, uint32_t count)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count || extra[t] == 0)
        return;
    xyzz_d<F> acc = buckets[t];
    for (uint32_t x = first_extra[t], e = x + extra[t]; x < e; x++)
        acc = xyzz_add(acc, partial[x]);
    buckets[t] = acc;
}

/* Buckets a segment of the reduction (k_segments) of W windows of nb buckets: 64, or
 * G16_GPU_MSM_SEGMENT=8..256 (a power of two) for a sweep. Each segment is one thread's
 * dependent chain of ~2 len + 45 XYZZ operations; shorter segments give more threads and
 * more operations in all, which cost in proportion once the threads fill the GPU (run
 * 52: G2 dense 2^26's reduction 57.5 / 79.5 / 153.1 ms at 64 / 32 / 16). Below
 * SEGMENT_THREADS segments, halved down to 8 buckets: a small MSM's reduction waits on its
 * few chains' latency (the 2^27 partition's A and C others, ~1.5e4 points: c = 10, 26
 * windows of 512 buckets, 208 chains of ~170 operations, 3.3 ms each, run 83). */
constexpr uint64_t SEGMENT_THREADS = 8192;

uint32_t segment_buckets(uint32_t windows, uint32_t nb)
{
    const char *env = getenv("G16_GPU_MSM_SEGMENT");
    long v = env ? atol(env) : 0;
    if (v >= 8 && v <= 256 && (v & (v - 1)) == 0)
        return (uint32_t)v;
    uint32_t len = 64;
    while (len > 8 && (uint64_t)windows * (nb / len) < SEGMENT_THREADS)
        len /= 2;
    return len;
}

/* Segment s of window w (buckets [lo, lo + len)): sum of (k + 1) B_k over the segment. */
template <class F>
__global__ void k_segments(xyzz_d<F> *out, const xyzz_d<F> *buckets, uint32_t windows,
                           uint32_t nb, uint32_t len)
{
    uint32_t per_window = nb / len;
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= windows * per_window)
        return;
    uint32_t w = t / per_window, lo = (t % per_window) * len;
    const xyzz_d<F> *b = buckets + (size_t)w * nb;
    xyzz_d<F> run = xyzz_d<F>::infinity(), sum = xyzz_d<F>::infinity();
    for (uint32_t k = lo + len; k-- > lo;) {
        run = xyzz_add(run, b[k]);
        sum = xyzz_add(sum, run);
    }
    out[t] = xyzz_add(sum, xyzz_mul_small(run, lo));
}

unsigned blocks_for(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

/* The window width for m scalars going through Pippenger. Wide windows pay twice: fewer
 * windows (m W additions) and more buckets, hence more threads to hide latency with;
 * the bucket reduction (about 2^c W additions) bounds c from above. G16_GPU_MSM_WINDOW
 * overrides it (benchmarks sweep it). */
unsigned gpu_window_bits(uint32_t m)
{
    const char *env = getenv("G16_GPU_MSM_WINDOW");
    if (env && atoi(env) >= 4 && atoi(env) <= 24)
        return (unsigned)atoi(env);
    unsigned lg = 0;
    while (lg < 32 && (1ull << lg) < m)
        lg++;
    /* Above 2^24 points, 20-bit windows: 13 windows instead of 16, so 19% fewer bucket
     * additions for ~25 ms more reduction (H200: dense G1 2^26 1394 -> 1166 ms, 2^27
     * 2760 -> 2262 ms; bench/NOTES.md). Only widths whose top window keeps enough of the
     * scalar's 255 bits (8: 7 bits, 10: 5, 13: 8, 16 and 20: 15): a narrow top window
     * (c = 11, 12, 14 or 18: 2 to 4 bits) puts an eighth or more of all points into each
     * of a few buckets, and one thread per bucket then serializes them (c = 18 at 2^26
     * took minutes). */
    return lg <= 10 ? 8 : lg <= 14 ? 10 : lg <= 17 ? 13 : lg <= 24 ? 16 : 20;
}

#include "bucket_sort.cuh"
#include "msm_batch_affine.cuh"
#include "msm_mult.cuh"

/* Whether m others go through GLV (glv.cuh): G16_GPU_MSM_GLV=0|1 forces it (1 makes the
 * table of beta x itself when the caller has none), else when the caller gives the table
 * and there are more than 2^23 others. Run 58 had found GLV 12% slower for the 55/30/15
 * mix at 2^26 (1e7 others) with 16-bit windows, 9 of them for the halves' ~128.4 bits,
 * the top one of ~0.4 bits; with 7 windows of 19 bits (glv_window_bits) run 80 measured
 * it faster: that mix 83.1 -> 79.4 ms, G1 dense 2^24 111.5 -> 105.2, G2 dense 2^24 323.9
 * -> 295.3 (90% one repeated value at 2^24: 56.0 -> 58.4). */
bool glv_use(uint32_t m, bool have_table)
{
    int v = -1;
    ba_env_bit("G16_GPU_MSM_GLV", &v);
    return v >= 0 ? v != 0 : have_table && m > (1u << 23);
}

/* Whether m others go through the bases' precomputed multiples when the caller has them
 * (msm_mult.cuh): G16_GPU_MSM_MULT=0|1 forces either way, else above 2^24. */
bool mult_use(uint32_t m)
{
    int v = -1;
    ba_env_bit("G16_GPU_MSM_MULT", &v);
    return v >= 0 ? v != 0 : m > (1u << 24);
}

/* GLV windows: 22 bits from 2^25 others (6 windows of 2 m digits: 12 m pairs against 13 m
 * at 20 bits without GLV, with half the buckets of 22-bit windows without it; G1 dense
 * 2^27 -7%, run 57), 19 bits above 2^23 (7 windows: 14 m pairs over fewer buckets, whose
 * reduction and tails cost more than the pairs at 2e7 others), else the plain rule's
 * width (forced GLV only); G16_GPU_MSM_WINDOW overrides as for gpu_window_bits.
 * Each is the narrowest width that gives its window count: the halves are below
 * 2^127.43 and the signed digits need one bit more, so W windows of c bits leave the top
 * window ~128.43 - (W - 1) c bits, i.e. 2^18.4 of its buckets in use at c = 22 but only
 * ~2^7.4 at c = 20 (W = 7): there every bucket of the top window held ~2.3e5 of the 2^27
 * mix's 4e7 digits, and the rounds went on to 15 for it where the other windows stop at
 * ~8. At 19 bits (~2^13.4 buckets in use) the 55/30/15 mix at 2^27 took 143.5 ms
 * against 158.1 (run 78). */
unsigned glv_window_bits(uint32_t m)
{
    const char *env = getenv("G16_GPU_MSM_WINDOW");
    if (env && atoi(env) >= 4 && atoi(env) <= 24)
        return (unsigned)atoi(env);
    return m >= (1u << 25) ? 22 : m > (1u << 23) ? 19 : gpu_window_bits(m);
}

/* Sums groups of points until one is left per group; the result lands in *result
 * (groups points). a and b are scratch of at least groups * m points each. */
template <class F>
g16_status reduce_groups(cuda_ctx *ctx, xyzz_d<F> **result, xyzz_d<F> *a, xyzz_d<F> *b,
                         uint32_t groups, uint32_t m)
{
    const uint32_t chunk = 16;
    xyzz_d<F> *in = a, *out = b;
    while (m > 1) {
        uint32_t m_out = (m + chunk - 1) / chunk;
        k_sum_groups<F><<<blocks_for((size_t)groups * m_out, 64), 64, 0, ctx->stream>>>(
            out, in, groups, m, chunk, m_out);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        xyzz_d<F> *t = in;
        in = out;
        out = t;
        m = m_out;
    }
    *result = in;
    return G16_OK;
}

/* Buckets longer than this go in pieces of about the square root of the longest (at
 * least this long), each piece one thread's chain, then the pieces' sums by the bucket's
 * thread (k_combine): chains of ~2 sqrt(longest) instead of longest. 32, not 256: a small
 * MSM's top window (5 of the scalar's bits at c = 10) puts its ~1.5e4 points into ~16
 * buckets, whose chains of 256 took 2.2 ms (the 2^27 partition's A and C, run 83).
 * G16_GPU_MSM_PIECE=16..4096 (a power of two) sets it for a sweep. */
constexpr uint32_t XYZZ_PIECE_LEAST = 32;

uint32_t piece_least(void)
{
    const char *env = getenv("G16_GPU_MSM_PIECE");
    long v = env ? atol(env) : 0;
    return v >= 16 && v <= 4096 && (v & (v - 1)) == 0 ? (uint32_t)v : XYZZ_PIECE_LEAST;
}

/* Steps 3 and 4 of msm_windows with XYZZ buckets: every window's digits sorted, then one
 * thread per bucket (long buckets in pieces, see k_longest) into buckets[] (W nb points).
 * Records ev[3] after the sorts and ev[4] after the sums. */
template <class F>
g16_status xyzz_accumulate(cuda_ctx *ctx, cuda_msm_info *info, xyzz_d<F> *buckets,
                           const affine_d<F> *bases, const scalar_d *canon,
                           const uint32_t *idx_other, uint32_t m, unsigned c, unsigned W)
{
    typedef xyzz_d<F> X;
    cudaStream_t st = ctx->stream;
    uint32_t nb = 1u << (c - 1);
    g16_status s;
    /* 3. digits and one sort of every window's (k_digits_windows). */
    const uint32_t total = W * m;
    unsigned key_bits = c;
    while ((1u << (key_bits - c)) < W)
        key_bits++;
    dev_buf<uint32_t> keys_in, keys_out, vals_in, sorted, start, end;
    if ((s = keys_in.alloc(ctx, total, "MSM sort keys")) || (s = keys_out.alloc(ctx, total, "MSM sort keys")) ||
        (s = vals_in.alloc(ctx, total, "MSM sort values")) ||
        (s = sorted.alloc(ctx, total, "MSM sorted point indices")) ||
        (s = start.alloc(ctx, (size_t)W * nb, "MSM bucket bounds")) ||
        (s = end.alloc(ctx, (size_t)W * nb, "MSM bucket bounds")))
        return s;
    CUDA_TRY(cudaMemsetAsync(start.p, 0, (size_t)W * nb * sizeof(uint32_t), st), G16_ERR_INTERNAL);
    CUDA_TRY(cudaMemsetAsync(end.p, 0, (size_t)W * nb * sizeof(uint32_t), st), G16_ERR_INTERNAL);
    size_t sort_bytes = 0;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_in.p, keys_out.p, vals_in.p,
                                             sorted.p, total, 0, (int)key_bits, st),
             G16_ERR_INTERNAL);
    dev_buf<uint8_t> sort_temp;
    if ((s = sort_temp.alloc(ctx, sort_bytes, "CUB sort scratch")))
        return s;
    if (total) {
        k_digits_windows<<<blocks_for(total, 256), 256, 0, st>>>(keys_in.p, vals_in.p, canon,
                                                                 idx_other, m, c, W);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(sort_temp.p, sort_bytes, keys_in.p, keys_out.p,
                                                 vals_in.p, sorted.p, total, 0, (int)key_bits, st),
                 G16_ERR_INTERNAL);
        k_bounds_windows<<<blocks_for(total, 256), 256, 0, st>>>(start.p, end.p, keys_out.p, m, c,
                                                                 total);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    }
    CUDA_TRY(cudaEventRecord(ctx->ev[3], st), G16_ERR_INTERNAL);

    /* 4. bucket sums, long buckets in pieces (see k_longest). */
    uint32_t count = W * nb, longest = 0;
    dev_buf<uint32_t> extra, first_extra, owner;
    if ((s = extra.alloc(ctx, (size_t)count + 1, "MSM bucket pieces")) ||
        (s = first_extra.alloc(ctx, (size_t)count + 1, "MSM bucket pieces")))
        return s;
    CUDA_TRY(cudaMemsetAsync(extra.p, 0, sizeof(uint32_t), st), G16_ERR_INTERNAL);
    k_longest<<<blocks_for(count, 256), 256, 0, st>>>(extra.p, start.p, end.p, count);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    CUDA_TRY(cuda_copy(ctx, &longest, extra.p, sizeof longest, cudaMemcpyDeviceToHost), G16_ERR_INTERNAL);
    uint32_t piece = piece_least();
    while ((uint64_t)piece * piece < longest)
        piece *= 2;
    uint32_t total_extra = 0;
    if (longest > piece) {
        k_extra_count<<<blocks_for(count, 256), 256, 0, st>>>(extra.p, start.p, end.p, count, piece);
        CUDA_TRY(cudaMemsetAsync(extra.p + count, 0, sizeof(uint32_t), st), G16_ERR_INTERNAL);
        size_t scan_bytes = 0;
        CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, extra.p, first_extra.p, count + 1, st),
                 G16_ERR_INTERNAL);
        dev_buf<uint8_t> scan_temp;
        if ((s = scan_temp.alloc(ctx, scan_bytes, "CUB scan scratch")))
            return s;
        CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp.p, scan_bytes, extra.p, first_extra.p,
                                               count + 1, st),
                 G16_ERR_INTERNAL);
        CUDA_TRY(cuda_copy(ctx, &total_extra, first_extra.p + count, sizeof total_extra,
                           cudaMemcpyDeviceToHost),
                 G16_ERR_INTERNAL);
        if ((s = owner.alloc(ctx, total_extra, "MSM bucket pieces")))
            return s;
        k_extra_owner<<<blocks_for(count, 256), 256, 0, st>>>(owner.p, first_extra.p, extra.p, count);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    }
    info->pieces = total_extra;
    dev_buf<X> partial;
    if ((s = partial.alloc(ctx, total_extra, "MSM bucket pieces")))
        return s;
    if (total_extra)
        k_accumulate_extra<F><<<blocks_for(total_extra, 128), 128, 0, st>>>(
            partial.p, bases, sorted.p, start.p, end.p, owner.p, first_extra.p, total_extra, m, nb,
            piece);
    k_accumulate<F><<<blocks_for((size_t)W * nb, 128), 128, 0, st>>>(buckets, bases, sorted.p, start.p,
                                                                     end.p, m, W, nb, piece);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    if (total_extra) {
        k_combine<F><<<blocks_for(count, 128), 128, 0, st>>>(buckets, partial.p, first_extra.p,
                                                            extra.p, count);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    }
    CUDA_TRY(cudaEventRecord(ctx->ev[4], st), G16_ERR_INTERNAL);

    return G16_OK;
}

/* The rounds' knobs for an MSM on ctx: the defaults, with the context's slices (and then
 * the pairs' chunks the partition's memory model counts), or its arena (whose chunks are
 * the default's: backend_msm_arena_bytes counts them). */
ba_tuning msm_tuning(const cuda_ctx *ctx)
{
    ba_tuning tn = ba_tuning_default();
    if (ctx->msm_slice_points) {
        tn.slice_points = ctx->msm_slice_points;
        if (!ctx->msm_arena)
            tn.chunk_bytes = tn.chunk_bytes < BA_CHUNK_BYTES_PLANNED ? tn.chunk_bytes : BA_CHUNK_BYTES_PLANNED;
    }
    tn.arena = ctx->msm_arena;
    return tn;
}

/* The knobs of a list of ones summed by the rounds: the defaults (their 4 GiB chunks hold
 * the 2^27 partition's ~3.3e7 pairs a round in one), in pieces of BA_LIST_PIECE_BYTES
 * when the context is planned for memory (G16_GPU_MSM_LIST_PIECE: that many points, for
 * the tests); never the arena (a list's rounds are short: holding the arena would make
 * the device's other worker wait for them). */
template <class F>
ba_tuning list_tuning(const cuda_ctx *ctx)
{
    ba_tuning tn = ba_tuning_default();
    const char *env = getenv("G16_GPU_MSM_LIST_PIECE");
    if (ctx->msm_slice_points)
        tn.list_piece = env && atol(env) >= 1 && atol(env) <= (1l << 30)
                            ? (uint32_t)atol(env)
                            : (uint32_t)(BA_LIST_PIECE_BYTES / (sizeof(affine_d<F>) * 3 / 4));
    return tn;
}

/* Digits a group of windows holds (ba_group) when the context is not planned for memory:
 * larger groups run fewer rounds, each with its fixed cost (run 72, H200: groups of 2^29
 * digits against 2^25, G1 dense 2^26 368.5 -> 362.8 ms in 29 rounds instead of 57, the
 * 55/30/15 mix at 2^26 91.4 -> 84.1, G2 dense 2^26 1020.5 -> 1011.3; 2^27 within 0.1%).
 * Their buffers (3/4 of an affine point and two sorted indices a digit) take at most half
 * of what the device has free now, the pool's unused blocks counted as free, and at most
 * BA_GROUP_POINTS_MOST digits; never fewer than tn's (one window at the largest sizes). A
 * planned context (a partition, whose memory model counts groups of 2^25 digits:
 * backend.c's msm_group_digits) and G16_GPU_MSM_GROUP_POINTS keep tn's. */
constexpr size_t BA_GROUP_POINTS_MOST = (size_t)1 << 29;

template <class F>
uint32_t msm_group_points(cuda_ctx *ctx, const ba_tuning &tn)
{
    if (ctx->msm_slice_points || getenv("G16_GPU_MSM_GROUP_POINTS"))
        return tn.group_points;
    cuda_memory_info mi;
    cuda_ctx_sample_memory(ctx, &mi); /* all zero when the device cannot say */
    const size_t free_b = mi.device_total - mi.device_used + mi.pool_free_bytes;
    const size_t per_digit = sizeof(affine_d<F>) * 3 / 4 + 2 * sizeof(uint32_t);
    size_t g = free_b / 2 / per_digit;
    g = g < BA_GROUP_POINTS_MOST ? g : BA_GROUP_POINTS_MOST;
    return g > tn.group_points ? (uint32_t)g : tn.group_points;
}

/* A standalone MSM (its context not planned for memory) whose batch-affine rounds ran out
 * of device memory goes again in `parts` parts (2, then 4, up to BA_OOM_PARTS_MOST), each
 * holding ~1/parts of the rounds' point buffers: what a device already holding other
 * arrays may need (run 96: on an 80 GB H100, G1 dense 2^27 and G2 dense 2^26 stopped at
 * CUB's sort scratch, which ba_accumulate allocates after the rounds' point buffers; runs
 * 102 and 104 did not see it again; test_cuda_msm's check_real_oom makes one, run 106).
 * The windows go in slices of whole buckets (slice_on_oom: ba_slices, as a partition's
 * do), the ones' list in pieces of whole runs (piece_on_oom: ba_sum_list's list_piece).
 * No try is left for a planned context (a partition: its memory model is the plan, and
 * an error there says the plan is wrong), for parts that would hold fewer than
 * BA_OOM_PART_LEAST points or no fewer than the last try's, or after the most parts. */
constexpr unsigned BA_OOM_PARTS_MOST = 16;
constexpr uint32_t BA_OOM_PART_LEAST = 1u << 12; /* points: smaller parts save nothing */

/* The points a part holds on the next try (0: none is left); `now`: this try's (0: whole). */
uint32_t oom_part_points(const cuda_ctx *ctx, const ba_tuning &tn, uint32_t points,
                         unsigned parts, uint32_t now)
{
    if (ctx->msm_slice_points || tn.arena || parts > BA_OOM_PARTS_MOST)
        return 0;
    uint32_t per = (uint32_t)(((uint64_t)points + parts - 1) / parts);
    return per < BA_OOM_PART_LEAST || (now && per >= now) ? 0 : per;
}

/* Sets tn's slices for the next try of a window of window_digits; false when none is left. */
bool slice_on_oom(const cuda_ctx *ctx, ba_tuning &tn, uint32_t window_digits, unsigned slices)
{
    uint32_t per = oom_part_points(ctx, tn, window_digits, slices, tn.slice_points);
    if (per)
        tn.slice_points = per;
    return per != 0;
}

/* Sets tn's pieces for the next try of a list of `ones`, whole runs a piece (rounded up,
 * so no more than `pieces` of them); false when none is left. */
bool piece_on_oom(const cuda_ctx *ctx, ba_tuning &tn, uint32_t ones, unsigned pieces)
{
    uint32_t per = oom_part_points(ctx, tn, ones, pieces, tn.list_piece ? ba_list_piece(ones, tn) : 0);
    if (!per)
        return false;
    uint32_t L = ba_list_run(ones, tn);
    tn.list_piece = (uint32_t)(((uint64_t)per + L - 1) / L * L);
    return true;
}

} /* namespace */

/* Step 1's result (cuda_backend.h's cuda_msm_scalars): the others' canonical values by
 * index and the ones' and the others' ascending index lists, for one MSM (msm_windows
 * makes it) or several over the same scalars, or a tail of them (cuda_msm_scalars_from:
 * the view then starts past the dropped entries, canon at the first kept scalar). */
struct cuda_msm_scalars {
    cuda_ctx *ctx;
    dev_buf<scalar_d> canon;
    dev_buf<uint32_t> idx_one, idx_other;
    uint32_t n, ones, others;            /* the view's scalars and its lists' lengths */
    uint32_t one0, other0, first;        /* where the view starts in the lists and canon */
    bool shared;                         /* made for several MSMs: canon is never split */
};

namespace {

const scalar_d *view_canon(const cuda_msm_scalars &sc) { return sc.canon.p + sc.first; }
const uint32_t *view_ones(const cuda_msm_scalars &sc) { return sc.idx_one.p + sc.one0; }
uint32_t *view_others(cuda_msm_scalars &sc) { return sc.idx_other.p + sc.other0; }

/* 1. classify and compact n scalars into sc: the kinds, then the ones' and the others'
 * indices in ascending order by one three-way partition (CUB), the zeros' dropped; the
 * two counts and the first bad scalar come back in one copy (so this waits for the
 * stream). */
g16_status msm_classify(cuda_ctx *ctx, cuda_msm_scalars &sc, const void *scalars_dev, uint32_t n,
                        bool montgomery)
{
    cudaStream_t st = ctx->stream;
    g16_status s;
    dev_buf<uint8_t> kind, temp;
    dev_buf<uint32_t> counts_dev;
    sc.ctx = ctx;
    sc.n = n;
    sc.ones = sc.others = sc.one0 = sc.other0 = sc.first = 0;
    if (n == 0)
        return G16_OK;
    /* n + 1 entries, not the counts: the pool then hands out the same blocks to every
     * partition whatever its scalar mix. */
    if ((s = sc.canon.alloc(ctx, n, "MSM scalars")) || (s = kind.alloc(ctx, n, "MSM scalar kinds")) ||
        (s = counts_dev.alloc(ctx, 3, "MSM counts")) ||
        (s = sc.idx_one.alloc(ctx, n + 1, "MSM index lists")) ||
        (s = sc.idx_other.alloc(ctx, n + 1, "MSM index lists")))
        return s;
    scalar_d *canon_p = sc.canon.p;
    uint32_t *one_p = sc.idx_one.p, *other_p = sc.idx_other.p;
    CUDA_TRY(cudaMemsetAsync(counts_dev.p, 0xff, 3 * sizeof(uint32_t), st), G16_ERR_INTERNAL);
    k_classify<<<blocks_for(n, 256), 256, 0, st>>>(canon_p, kind.p, counts_dev.p + 2,
                                                   (const scalar_d *)scalars_dev, n, montgomery);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    const thrust::counting_iterator<uint32_t> index(0);
    const kind_is is_one{kind.p, 1}, is_other{kind.p, 2};
    size_t temp_bytes = 0;
    CUDA_TRY(cub::DevicePartition::If(nullptr, temp_bytes, index, one_p, other_p,
                                      thrust::make_discard_iterator(), counts_dev.p, (int)n, is_one,
                                      is_other, st),
             G16_ERR_INTERNAL);
    if ((s = temp.alloc(ctx, temp_bytes, "CUB partition scratch")))
        return s;
    CUDA_TRY(cub::DevicePartition::If(temp.p, temp_bytes, index, one_p, other_p,
                                      thrust::make_discard_iterator(), counts_dev.p, (int)n, is_one,
                                      is_other, st),
             G16_ERR_INTERNAL);
    uint32_t counts[3];
    CUDA_TRY(cuda_copy(ctx, counts, counts_dev.p, sizeof counts, cudaMemcpyDeviceToHost), G16_ERR_INTERNAL);
    if (counts[2] != 0xffffffffu)
        return status_fail(G16_ERR_BAD_ENCODING, "GPU MSM: scalar %u is not below r", counts[2]);
    /* The kinds and CUB's scratch served the compaction alone: back to the pool on
     * return, before the sort and rounds. */
    sc.ones = counts[0];
    sc.others = counts[1];
    return G16_OK;
}

/* In both lists, how many of the first `from` entries are below `from` (the lists
 * ascend, so these are all the entries below it). */
__global__ void k_count_below(uint32_t *below, const uint32_t *ones, uint32_t n_ones,
                              const uint32_t *others, uint32_t n_others, uint32_t from)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < from && i < n_ones && ones[i] < from)
        atomicAdd(&below[0], 1u);
    if (i < from && i < n_others && others[i] < from)
        atomicAdd(&below[1], 1u);
}

__global__ void k_sub_index(uint32_t *idx, uint32_t n, uint32_t from)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        idx[i] -= from;
}

/* Steps 2 to 5 over a classification's view: the ones' sum and the others' windows. */
template <class F>
g16_status msm_windows_of(cuda_ctx *ctx, void *out_host, unsigned *windows_out,
                          unsigned *window_bits_out, cuda_msm_info *info, const void *bases_dev,
                          const void *phi_dev, const cuda_msm_mult *mult, cuda_msm_scalars &sc);

template <class F>
g16_status msm_windows(cuda_ctx *ctx, void *out_host, unsigned *windows_out,
                       unsigned *window_bits_out, cuda_msm_info *info, const void *bases_dev,
                       const void *phi_dev, const cuda_msm_mult *mult, const void *scalars_dev,
                       size_t n_size, bool montgomery)
{
    cuda_msm_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    *windows_out = 0;
    *window_bits_out = 0;
    ((xyzz_d<F> *)out_host)[0] = xyzz_d<F>::infinity();
    if (n_size >= 0x80000000u)
        return status_fail(G16_ERR_UNSUPPORTED, "GPU MSM: %zu points (at most 2^31 - 1)", n_size);
    uint32_t n = (uint32_t)n_size;
    if (n == 0)
        return G16_OK;
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventRecord(ctx->ev[0], ctx->stream), G16_ERR_INTERNAL);
    cuda_msm_scalars sc;
    sc.shared = false;
    g16_status s = msm_classify(ctx, sc, scalars_dev, n, montgomery);
    if (s)
        return s;
    return msm_windows_of<F>(ctx, out_host, windows_out, window_bits_out, info, bases_dev, phi_dev,
                             mult, sc);
}

/* ev[0] was recorded before the classification (msm_windows) or before this call (a
 * shared one's view: its classify column is then this call's own start, ~0). */
template <class F>
g16_status msm_windows_of(cuda_ctx *ctx, void *out_host, unsigned *windows_out,
                          unsigned *window_bits_out, cuda_msm_info *info, const void *bases_dev,
                          const void *phi_dev, const cuda_msm_mult *mult, cuda_msm_scalars &sc)
{
    typedef affine_d<F> A;
    typedef xyzz_d<F> X;
    X *out = (X *)out_host;
    out[0] = X::infinity();
    cudaStream_t st = ctx->stream;
    const A *bases = (const A *)bases_dev;
    g16_status s;
    const uint32_t n = sc.n, ones = sc.ones, m = sc.others;
    /* canon is indexed by the view's own indices (canon[idx_other[j]]); only an MSM of
     * its own (not shared) may split it in place: msm_windows_shared passes no phi and no
     * multiples, and GLV forced by G16_GPU_MSM_GLV is refused below. */
    scalar_d *const canon = (scalar_d *)view_canon(sc);
    const uint32_t *const idx_one = view_ones(sc);
    uint32_t *const idx_other = view_others(sc);
    info->ones = ones;
    info->others = m;
    info->zeros = n - ones - m;
    CUDA_TRY(cudaEventRecord(ctx->ev[1], st), G16_ERR_INTERNAL);

    /* 2. the ones: by batch-affine rounds over runs of the list (msm_batch_affine.cuh's
     * ba_sum_list) when they are many, else by the tree of XYZZ sums. */
    {  /* the sums' buffers go back to the pool before Pippenger's are taken */
        const uint32_t chunk = 32;
        dev_buf<X> pa, pb;
        X *ones_sum = nullptr;
        if (ba_ones_use(ones)) {
            ba_tuning tn = list_tuning<F>(ctx);
            size_t rounds;
            if ((s = pa.alloc(ctx, 1, "MSM ones' sum")))
                return s;
            for (unsigned pieces = 2;; pieces *= 2) {
                ba_device_exec ex;
                ex.ctx = ctx;
                s = ba_sum_list<F>(ex, pa.p, bases, idx_one, ones, tn, &rounds);
                if (s != G16_ERR_OUT_OF_MEMORY || !piece_on_oom(ctx, tn, ones, pieces))
                    break;
                /* Once more from the start, in pieces: the sum is written again. */
                status_clear();
                uint32_t P = ba_list_piece(ones, tn);
                info->ones_pieces = (unsigned)(((uint64_t)ones + P - 1) / P);
            }
            if (s)
                return s;
            ones_sum = pa.p;
        } else if (ones) {
            uint32_t parts = (ones + chunk - 1) / chunk;
            if ((s = pa.alloc(ctx, parts, "MSM partial sums")) ||
                (s = pb.alloc(ctx, parts, "MSM partial sums")))
                return s;
            k_sum_indexed<F><<<blocks_for(parts, 64), 64, 0, st>>>(pa.p, bases, idx_one, ones,
                                                                   chunk, parts);
            CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
            if ((s = reduce_groups<F>(ctx, &ones_sum, pa.p, pb.p, 1, parts)))
                return s;
        }
        if (ones_sum) {
            CUDA_TRY(cudaMemcpyAsync(&out[0], ones_sum, sizeof(X), cudaMemcpyDeviceToHost, st),
                     G16_ERR_INTERNAL);
            CUDA_TRY(cudaStreamSynchronize(st), G16_ERR_INTERNAL);
        }
    }
    CUDA_TRY(cudaEventRecord(ctx->ev[2], st), G16_ERR_INTERNAL);
    if (m == 0) {
        CUDA_TRY(cudaEventRecord(ctx->ev[5], st), G16_ERR_INTERNAL);
        info->ms_classify = cuda_elapsed_ms(ctx->ev[0], ctx->ev[1]);
        info->ms_ones = cuda_elapsed_ms(ctx->ev[1], ctx->ev[2]);
        info->ms_total = cuda_elapsed_ms(ctx->ev[0], ctx->ev[5]);
        return G16_OK;
    }

    if (mult && mult->points && ba_use(m) && mult_use(m)) {
        /* 3 to 5 with the precomputed multiples (msm_mult.cuh): one shared window. */
        unsigned c = mult->window_bits;
        const ba_tuning tn = msm_tuning(ctx);
        info->window_bits = c;
        info->windows = ba_mult_windows(c);
        info->glv = info->split = info->mult = true;
        ba_device_exec ex;
        ex.ctx = ctx;
        dev_buf<X> sum;
        CUDA_TRY(cudaEventRecord(ctx->ev[3], st), G16_ERR_INTERNAL);
        if ((s = sum.alloc(ctx, 1, "MSM window sums")) ||
            (s = ex.run(m, 256, glv_split_entry{canon, idx_other})) ||
            (s = ba_accumulate_mult<F>(ex, sum.p, bases, (const A *)mult->points, n, canon,
                                       idx_other, m, c, tn, &info->ms_sort, &info->affine_rounds)))
            return s;
        CUDA_TRY(cudaEventRecord(ctx->ev[4], st), G16_ERR_INTERNAL);
        CUDA_TRY(cudaMemcpyAsync(&out[1], sum.p, sizeof(X), cudaMemcpyDeviceToHost, st), G16_ERR_INTERNAL);
        CUDA_TRY(cudaEventRecord(ctx->ev[5], st), G16_ERR_INTERNAL);
        CUDA_TRY(cudaStreamSynchronize(st), G16_ERR_INTERNAL);
        info->ms_classify = cuda_elapsed_ms(ctx->ev[0], ctx->ev[1]);
        info->ms_ones = cuda_elapsed_ms(ctx->ev[1], ctx->ev[2]);
        info->ms_accumulate = cuda_elapsed_ms(ctx->ev[3], ctx->ev[4]) - info->ms_sort;
        info->ms_reduce = cuda_elapsed_ms(ctx->ev[4], ctx->ev[5]);
        info->ms_total = cuda_elapsed_ms(ctx->ev[0], ctx->ev[5]);
        *windows_out = 1; /* out[1] is the others' whole sum */
        *window_bits_out = c;
        return G16_OK;
    }

    /* GLV (glv.cuh): 2 m scalars of 128 bits over the bases and phi of them, in the same
     * buckets; needs the batch-affine rounds and indices below 2^30 (bit 30 marks phi). */
    const bool affine = ba_use(m), glv = affine && !sc.shared && n < 0x40000000u &&
                                              glv_use(m, phi_dev != nullptr);
    unsigned c = glv ? glv_window_bits(m) : gpu_window_bits(m);
    unsigned W = glv ? 128 / c + 1 : 255 / c + 1;
    uint32_t nb = 1u << (c - 1);
    info->window_bits = c;
    info->windows = W;
    info->glv = glv;
    /* With split sums (wide windows, ba_split_use) the rounds reduce each window too and
     * buckets[] holds the W window sums. */
    ba_tuning tn = msm_tuning(ctx);
    if (affine)
        tn.group_points = msm_group_points<F>(ctx, tn);
    const bool split = affine && ba_split_use(c, tn);
    info->split = split;
    const uint32_t window_digits = glv ? 2 * m : m;
    if (affine && tn.slice_points && window_digits > tn.slice_points) /* as ba_accumulate */
        info->slices = ba_slice_count(window_digits, tn.slice_points);
    const F *phi = (const F *)phi_dev;
    dev_buf<F> phi_own; /* GLV forced without the caller's table (tests): made here */
    if (glv) {
        ba_device_exec ex;
        ex.ctx = ctx;
        if (!phi) {
            if ((s = phi_own.alloc(ctx, n, "MSM GLV table")) ||
                (s = ex.run(n, 256, glv_phi_entry<F>{phi_own.p, bases})))
                return s;
            phi = phi_own.p;
        }
        if ((s = ex.run(m, 256, glv_split_entry{canon, idx_other})))
            return s;
    }
    dev_buf<X> buckets;
    if ((s = buckets.alloc(ctx, split ? W : (size_t)W * nb, split ? "MSM window sums" : "MSM buckets")))
        return s;
    if (affine) {
        /* 3 and 4 by batch-affine rounds (msm_batch_affine.cuh). */
        CUDA_TRY(cudaEventRecord(ctx->ev[3], st), G16_ERR_INTERNAL);
        for (unsigned slices = 2;; slices *= 2) {
            ba_device_exec ex;
            ex.ctx = ctx;
            s = ba_accumulate<F>(ex, split ? nullptr : buckets.p, split ? buckets.p : nullptr,
                                 bases, glv ? phi : nullptr, canon, idx_other, m, c, W, tn,
                                 &info->ms_sort, &info->affine_rounds);
            if (s != G16_ERR_OUT_OF_MEMORY || !slice_on_oom(ctx, tn, window_digits, slices))
                break;
            /* Once more from the start, in slices: every output is written again. */
            status_clear();
            info->slices = ba_slice_count(window_digits, tn.slice_points);
        }
        if (s)
            return s;
        CUDA_TRY(cudaEventRecord(ctx->ev[4], st), G16_ERR_INTERNAL);
    } else if ((s = xyzz_accumulate<F>(ctx, info, buckets.p, bases, canon, idx_other, m, c, W))) {
        return s;
    }

    /* 5. bucket reduction (done with split sums): segments of len buckets, then a tree
     * per window. */
    X *sums = buckets.p;
    dev_buf<X> seg_a, seg_b;
    if (!split) {
        uint32_t seg = segment_buckets(W, nb), len = nb < seg ? nb : seg, per_window = nb / len;
        if ((s = seg_a.alloc(ctx, (size_t)W * per_window, "MSM segments")) ||
            (s = seg_b.alloc(ctx, (size_t)W * per_window, "MSM segments")))
            return s;
        k_segments<F><<<blocks_for((size_t)W * per_window, 64), 64, 0, st>>>(seg_a.p, buckets.p, W,
                                                                            nb, len);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        if ((s = reduce_groups<F>(ctx, &sums, seg_a.p, seg_b.p, W, per_window)))
            return s;
    }
    CUDA_TRY(cudaMemcpyAsync(&out[1], sums, W * sizeof(X), cudaMemcpyDeviceToHost, st), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventRecord(ctx->ev[5], st), G16_ERR_INTERNAL);
    CUDA_TRY(cudaStreamSynchronize(st), G16_ERR_INTERNAL);
    info->ms_classify = cuda_elapsed_ms(ctx->ev[0], ctx->ev[1]);
    info->ms_ones = cuda_elapsed_ms(ctx->ev[1], ctx->ev[2]);
    if (affine) {
        info->ms_accumulate = cuda_elapsed_ms(ctx->ev[3], ctx->ev[4]) - info->ms_sort;
    } else {
        info->ms_sort = cuda_elapsed_ms(ctx->ev[2], ctx->ev[3]);
        info->ms_accumulate = cuda_elapsed_ms(ctx->ev[3], ctx->ev[4]);
    }
    info->ms_reduce = cuda_elapsed_ms(ctx->ev[4], ctx->ev[5]);
    info->ms_total = cuda_elapsed_ms(ctx->ev[0], ctx->ev[5]);
    *windows_out = W;
    *window_bits_out = c;
    return G16_OK;
}

/* The device's round knobs with a test's overrides (0: the default). */
ba_tuning emulation_tuning(const cuda_msm_affine_tuning *tuning)
{
    ba_tuning tn = ba_tuning_default();
    if (tuning) {
        tn.tail = tuning->tail ? tuning->tail : tn.tail;
        tn.group_points = tuning->group_points ? tuning->group_points : tn.group_points;
        tn.target_threads = tuning->target_threads ? tuning->target_threads : tn.target_threads;
        tn.host_inverses = tuning->host_inverses ? tuning->host_inverses : tn.host_inverses;
        tn.wide_levels_from = tuning->wide_levels_from ? tuning->wide_levels_from : tn.wide_levels_from;
        if (tuning->no_prefetch)
            tn.prefetch = 0;
        if (tuning->no_den_prefetch)
            tn.den_prefetch = 0;
        if (tuning->max_pairs >= 1 && tuning->max_pairs <= BA_MAX_PAIRS_PER_THREAD)
            tn.max_pairs = tuning->max_pairs;
        if (tuning->split == 1 || tuning->split == 2)
            tn.split = tuning->split == 1;
        tn.slice_points = tuning->slice_points ? tuning->slice_points : tn.slice_points;
        tn.chunk_pairs = tuning->chunk_pairs;
        tn.list_run = tuning->list_run ? tuning->list_run : tn.list_run;
        tn.list_piece = tuning->list_piece;
        tn.arena = tuning->arena == 1;
    }
    return tn;
}

/* The rounds' sum of a list of bases on the host (cuda_msm_sum_emulate). */
template <class F>
g16_status sum_emulate(void *sum, const void *bases, size_t nbases, const uint32_t *idx, size_t n,
                       const cuda_msm_affine_tuning *tuning, size_t *rounds)
{
    if (!sum || n > ((size_t)1 << 24) || (n && (!bases || !idx)))
        return status_fail(G16_ERR_INVALID_ARGUMENT, "emulated sum: %zu indices (<= 2^24)", n);
    for (size_t j = 0; j < n; j++)
        if (idx[j] >= nbases)
            return status_fail(G16_ERR_INVALID_ARGUMENT,
                               "emulated sum: index %zu is %u, past the %zu bases", j, idx[j],
                               nbases);
    ba_host_exec ex;
    return ba_sum_list<F>(ex, (xyzz_d<F> *)sum, (const affine_d<F> *)bases, idx, (uint32_t)n,
                          emulation_tuning(tuning), rounds);
}

/* The batch-affine accumulation on the host (cuda_msm_affine_emulate). */
template <class F>
g16_status affine_emulate(void *buckets, const void *bases, const void *scalars, size_t m,
                          unsigned c, const cuda_msm_affine_tuning *tuning, size_t *rounds)
{
    if (c < 2 || c > 16 || m > ((size_t)1 << 24) || !buckets || (m && (!bases || !scalars)))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "emulated MSM: %zu points with %u-bit windows (2..16 bits, <= 2^24 points)",
                           m, c);
    ba_tuning tn = emulation_tuning(tuning);
    const scalar_d *canon = (const scalar_d *)scalars;
    for (size_t i = 0; i < m; i++)
        if (scalar_too_large(canon[i]))
            return status_fail(G16_ERR_BAD_ENCODING, "emulated MSM: scalar %zu is not below r", i);
    const bool glv = tuning && tuning->glv;
    unsigned W = glv ? 128 / c + 1 : 255 / c + 1;
    /* Every window a plain MSM of width c has (GLV's fewer: the rest stay infinity). */
    memset(buckets, 0, (size_t)(255 / c + 1) * ((size_t)1 << (c - 1)) * sizeof(xyzz_d<F>));
    if (m == 0) {
        *rounds = 0;
        return G16_OK;
    }
    host_buf<uint32_t> idx;
    host_buf<xyzz_d<F>> sums;
    host_buf<scalar_d> split_k;
    host_buf<F> phi;
    const bool split = ba_split_use(c, tn);
    if (!(idx.p = (uint32_t *)malloc(m * sizeof(uint32_t))) ||
        (split && !(sums.p = (xyzz_d<F> *)malloc(W * sizeof(xyzz_d<F>)))) ||
        (glv && !(split_k.p = (scalar_d *)malloc(m * sizeof(scalar_d)))) ||
        (glv && !(phi.p = (F *)malloc(m * sizeof(F)))))
        return status_fail(G16_ERR_OUT_OF_MEMORY, "emulated MSM: %zu indices", m);
    for (size_t i = 0; i < m; i++)
        idx.p[i] = (uint32_t)i;
    if (glv) {
        /* The device's bodies, thread by thread: the table, then the scalars' halves. */
        memcpy(split_k.p, canon, m * sizeof(scalar_d));
        for (size_t i = 0; i < m; i++) {
            glv_phi_entry<F>{phi.p, (const affine_d<F> *)bases}((uint32_t)i);
            glv_split_entry{split_k.p, idx.p}((uint32_t)i);
        }
        canon = split_k.p;
    }
    ba_host_exec ex;
    double ms_sort;
    g16_status s = ba_accumulate<F>(ex, split ? nullptr : (xyzz_d<F> *)buckets, sums.p,
                                    (const affine_d<F> *)bases, phi.p, canon, idx.p, (uint32_t)m,
                                    c, W, tn, &ms_sort, rounds);
    /* Split sums give each window's sum: bucket 0 (weight 1) holds it, the rest stay
     * infinity. */
    if (s == G16_OK && split)
        for (unsigned w = 0; w < W; w++)
            ((xyzz_d<F> *)buckets)[(size_t)w << (c - 1)] = sums.p[w];
    return s;
}

/* The emulation entries' dispatch: run with a value of G1's field (group 1) or G2's
 * (group 2), whose type picks the template. */
template <class Run>
g16_status emulate_group(int group, const char *what, Run run)
{
    if (group == 1)
        return run(fp_d{});
    if (group == 2)
        return run(fp2_d{});
    return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: group %d (1 or 2)", what, group);
}

/* The accumulation with multiples on the host (cuda_msm_mult_emulate). */
template <class F>
g16_status mult_emulate(void *sum, const void *bases, const void *scalars, size_t m, unsigned c,
                        const cuda_msm_affine_tuning *tuning, size_t *rounds)
{
    xyzz_d<F> *out = (xyzz_d<F> *)sum;
    if (!out || c < 4 || c > 16 || m > ((size_t)1 << 20) || (m && (!bases || !scalars)))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "emulated MSM with multiples: %zu points with %u-bit windows (4..16 "
                           "bits, <= 2^20 points)",
                           m, c);
    *out = xyzz_d<F>::infinity();
    *rounds = 0;
    const scalar_d *canon = (const scalar_d *)scalars;
    for (size_t i = 0; i < m; i++)
        if (scalar_too_large(canon[i]))
            return status_fail(G16_ERR_BAD_ENCODING, "emulated MSM: scalar %zu is not below r", i);
    if (m == 0)
        return G16_OK;
    ba_tuning tn = emulation_tuning(tuning);
    size_t W = ba_mult_windows(c);
    host_buf<uint32_t> idx;
    host_buf<scalar_d> split_k;
    host_buf<affine_d<F>> mult;
    if (!(idx.p = (uint32_t *)malloc(m * sizeof(uint32_t))) ||
        !(split_k.p = (scalar_d *)malloc(m * sizeof(scalar_d))) ||
        !(mult.p = (affine_d<F> *)malloc((W - 1) * m * sizeof(affine_d<F>))))
        return status_fail(G16_ERR_OUT_OF_MEMORY, "emulated MSM with multiples: %zu points", m);
    memcpy(split_k.p, canon, m * sizeof(scalar_d));
    for (size_t i = 0; i < m; i++) {
        idx.p[i] = (uint32_t)i;
        glv_split_entry{split_k.p, idx.p}((uint32_t)i);
    }
    ba_host_exec ex;
    double ms_sort;
    g16_status s;
    if ((s = ba_mult_table<F>(ex, mult.p, (const affine_d<F> *)bases, (uint32_t)m, c, tn)))
        return s;
    return ba_accumulate_mult<F>(ex, out, (const affine_d<F> *)bases, mult.p, (uint32_t)m, split_k.p,
                                 idx.p, (uint32_t)m, c, tn, &ms_sort, rounds);
}

} // namespace

extern "C" g16_status cuda_msm_mult_emulate(int group, void *sum, const void *bases,
                                            const void *scalars, size_t m, unsigned c,
                                            const cuda_msm_affine_tuning *tuning, size_t *rounds)
{
    size_t unused, *r = rounds ? rounds : &unused;
    return emulate_group(group, "emulated MSM", [&](auto f) {
        return mult_emulate<decltype(f)>(sum, bases, scalars, m, c, tuning, r);
    });
}

extern "C" g16_status cuda_msm_affine_emulate(int group, void *buckets, const void *bases,
                                              const void *scalars, size_t m, unsigned c,
                                              const cuda_msm_affine_tuning *tuning, size_t *rounds)
{
    size_t unused, *r = rounds ? rounds : &unused;
    return emulate_group(group, "emulated MSM", [&](auto f) {
        return affine_emulate<decltype(f)>(buckets, bases, scalars, m, c, tuning, r);
    });
}

extern "C" g16_status cuda_msm_sum_emulate(int group, void *sum, const void *bases, size_t nbases,
                                           const uint32_t *idx, size_t n,
                                           const cuda_msm_affine_tuning *tuning, size_t *rounds)
{
    size_t unused, *r = rounds ? rounds : &unused;
    return emulate_group(group, "emulated sum", [&](auto f) {
        return sum_emulate<decltype(f)>(sum, bases, nbases, idx, n, tuning, r);
    });
}

extern "C" g16_status cuda_msm_g1_windows(cuda_ctx *ctx, void *out, unsigned *windows,
                                          unsigned *window_bits, cuda_msm_info *info,
                                          const void *bases_dev, const void *phi_dev,
                                          const cuda_msm_mult *mult, const void *scalars_dev,
                                          size_t n, bool montgomery)
{
    return msm_windows<fp_d>(ctx, out, windows, window_bits, info, bases_dev, phi_dev, mult,
                            scalars_dev, n, montgomery);
}

extern "C" g16_status cuda_msm_g2_windows(cuda_ctx *ctx, void *out, unsigned *windows,
                                          unsigned *window_bits, cuda_msm_info *info,
                                          const void *bases_dev, const void *phi_dev,
                                          const cuda_msm_mult *mult, const void *scalars_dev,
                                          size_t n, bool montgomery)
{
    return msm_windows<fp2_d>(ctx, out, windows, window_bits, info, bases_dev, phi_dev, mult,
                            scalars_dev, n, montgomery);
}

namespace {

/* The windows over a classification's view (cuda_msm_scalars_classify): as
 * msm_windows, without phi or multiples (its canonical values are shared). */
template <class F>
g16_status msm_windows_shared(cuda_ctx *ctx, void *out_host, unsigned *windows_out,
                              unsigned *window_bits_out, cuda_msm_info *info,
                              const void *bases_dev, cuda_msm_scalars *sc)
{
    cuda_msm_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    *windows_out = 0;
    *window_bits_out = 0;
    ((xyzz_d<F> *)out_host)[0] = xyzz_d<F>::infinity();
    if (!sc || sc->ctx != ctx)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "GPU MSM: a classification of another context");
    if (sc->n == 0)
        return G16_OK;
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    CUDA_TRY(cudaEventRecord(ctx->ev[0], ctx->stream), G16_ERR_INTERNAL);
    return msm_windows_of<F>(ctx, out_host, windows_out, window_bits_out, info, bases_dev, nullptr,
                             nullptr, *sc);
}

} // namespace

extern "C" g16_status cuda_msm_scalars_classify(cuda_ctx *ctx, cuda_msm_scalars **out,
                                                const void *scalars_dev, size_t n, bool montgomery,
                                                double *ms)
{
    *out = nullptr;
    if (ms)
        *ms = 0;
    if (n >= 0x80000000u)
        return status_fail(G16_ERR_UNSUPPORTED, "GPU MSM: %zu scalars (at most 2^31 - 1)", n);
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    cuda_msm_scalars *sc = new (std::nothrow) cuda_msm_scalars();
    if (!sc)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "GPU MSM: a classification's record");
    sc->shared = true;
    CUDA_TRY(cudaEventRecord(ctx->ev[0], ctx->stream), G16_ERR_INTERNAL);
    g16_status s = msm_classify(ctx, *sc, scalars_dev, (uint32_t)n, montgomery);
    if (!s && ms) { /* msm_classify waited for the stream */
        CUDA_TRY(cudaEventRecord(ctx->ev[1], ctx->stream), G16_ERR_INTERNAL);
        CUDA_TRY(cudaEventSynchronize(ctx->ev[1]), G16_ERR_INTERNAL);
        *ms = cuda_elapsed_ms(ctx->ev[0], ctx->ev[1]);
    }
    if (s) {
        delete sc;
        return s;
    }
    *out = sc;
    return G16_OK;
}

extern "C" g16_status cuda_msm_scalars_from(cuda_msm_scalars *sc, size_t from)
{
    if (from > sc->n)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "GPU MSM: scalars from %zu of a classification of %u", from, sc->n);
    if (from == 0)
        return G16_OK;
    cuda_ctx *ctx = sc->ctx;
    cudaStream_t st = ctx->stream;
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    const uint32_t f = (uint32_t)from;
    uint32_t *ones = sc->idx_one.p + sc->one0, *others = sc->idx_other.p + sc->other0;
    dev_buf<uint32_t> below;
    g16_status s;
    if ((s = below.alloc(ctx, 2, "MSM counts")))
        return s;
    CUDA_TRY(cudaMemsetAsync(below.p, 0, 2 * sizeof(uint32_t), st), G16_ERR_INTERNAL);
    k_count_below<<<blocks_for(f, 256), 256, 0, st>>>(below.p, ones, sc->ones, others, sc->others, f);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    uint32_t b[2];
    CUDA_TRY(cuda_copy(ctx, b, below.p, sizeof b, cudaMemcpyDeviceToHost), G16_ERR_INTERNAL);
    sc->one0 += b[0];
    sc->ones -= b[0];
    sc->other0 += b[1];
    sc->others -= b[1];
    sc->first += f;
    sc->n -= f;
    /* The kept entries renumbered from the view's new start. */
    if (sc->ones) {
        k_sub_index<<<blocks_for(sc->ones, 256), 256, 0, st>>>(ones + b[0], sc->ones, f);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    }
    if (sc->others) {
        k_sub_index<<<blocks_for(sc->others, 256), 256, 0, st>>>(others + b[1], sc->others, f);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    }
    return G16_OK;
}

extern "C" void cuda_msm_scalars_free(cuda_msm_scalars *sc)
{
    delete sc; /* its buffers go back to the context's pool, in stream order */
}

extern "C" g16_status cuda_msm_g1_windows_shared(cuda_ctx *ctx, void *out, unsigned *windows,
                                                 unsigned *window_bits, cuda_msm_info *info,
                                                 const void *bases_dev, cuda_msm_scalars *sc)
{
    return msm_windows_shared<fp_d>(ctx, out, windows, window_bits, info, bases_dev, sc);
}

extern "C" g16_status cuda_msm_g2_windows_shared(cuda_ctx *ctx, void *out, unsigned *windows,
                                                 unsigned *window_bits, cuda_msm_info *info,
                                                 const void *bases_dev, cuda_msm_scalars *sc)
{
    return msm_windows_shared<fp2_d>(ctx, out, windows, window_bits, info, bases_dev, sc);
}

extern "C" g16_status cuda_msm_phi_table(cuda_ctx *ctx, int group, void *phi_dev,
                                         const void *bases_dev, size_t n)
{
    if (group != 1 && group != 2)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "GLV table: group %d (1 or 2)", group);
    if (n == 0)
        return G16_OK;
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    ba_device_exec ex;
    ex.ctx = ctx;
    g16_status s = group == 1 ? ex.run(n, 256, glv_phi_entry<fp_d>{(fp_d *)phi_dev, (const g1_affine_d *)bases_dev})
                              : ex.run(n, 256, glv_phi_entry<fp2_d>{(fp2_d *)phi_dev, (const g2_affine_d *)bases_dev});
    if (s)
        return s;
    CUDA_TRY(cudaStreamSynchronize(ctx->stream), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" size_t cuda_msm_mult_count(size_t n, unsigned window_bits)
{
    return window_bits >= 2 ? (size_t)(ba_mult_windows(window_bits) - 1) * n : 0;
}

extern "C" g16_status cuda_msm_mult_table(cuda_ctx *ctx, int group, void *mult_dev,
                                          const void *bases_dev, size_t n, unsigned window_bits)
{
    if (group != 1 && group != 2)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "MSM multiples: group %d (1 or 2)", group);
    if (window_bits < CUDA_MSM_MULT_MIN_BITS || window_bits > CUDA_MSM_MULT_MAX_BITS ||
        n * ba_mult_windows(window_bits) >= 0x40000000u)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "MSM multiples: %zu bases in %u-bit windows (%d..%d bits, under 2^30 "
                           "points in all)",
                           n, window_bits, CUDA_MSM_MULT_MIN_BITS, CUDA_MSM_MULT_MAX_BITS);
    if (n == 0)
        return G16_OK;
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    ba_device_exec ex;
    ex.ctx = ctx;
    const ba_tuning tn = ba_tuning_default();
    if (group == 1)
        return ba_mult_table<fp_d>(ex, (g1_affine_d *)mult_dev, (const g1_affine_d *)bases_dev,
                                   (uint32_t)n, window_bits, tn);
    return ba_mult_table<fp2_d>(ex, (g2_affine_d *)mult_dev, (const g2_affine_d *)bases_dev,
                                (uint32_t)n, window_bits, tn);
}

namespace {

/* bucket_digits' body over keys already made (the test entry's): thread j's one key. */
struct bs_given_keys {
    const uint32_t *keys;
    __device__ unsigned keys_of(uint32_t j, uint32_t *k) const
    {
        k[0] = keys[j];
        return 1;
    }
};

} // namespace

static_assert((int)BS_SPREAD_SHAPES == (int)CUDA_BUCKET_SORT_SPREADS, "cuda_backend.h's shape count");
static_assert((int)BS_CHUNK_MIN_LOG2 == (int)CUDA_BUCKET_SORT_CHUNK_MIN_LOG2 &&
                  (int)BS_CHUNK_MAX_LOG2 == (int)CUDA_BUCKET_SORT_CHUNK_MAX_LOG2,
              "cuda_backend.h's chunk range");

extern "C" g16_status cuda_bucket_sort_check(cuda_ctx *ctx, const uint32_t *keys, const uint32_t *vals,
                                             size_t m, unsigned c, uint32_t base, unsigned spread,
                                             unsigned chunk_log2,
                                             uint32_t *keys_out, uint32_t *vals_out,
                                             uint32_t *start, uint32_t *end)
{
    if (c < BS_MIN_C || c > BS_MAX_C || m == 0 || m > UINT32_MAX || spread >= BS_SPREAD_SHAPES ||
        (chunk_log2 && (chunk_log2 < BS_CHUNK_MIN_LOG2 || chunk_log2 > BS_CHUNK_MAX_LOG2)))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "bucket sort check: %zu keys of %u bits, shape %u, chunk 2^%u", m, c,
                           spread, chunk_log2);
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    const size_t nb = (size_t)1 << (c - 1);
    dev_buf<uint32_t> k, v, mid, out, bounds;
    bs_bufs bs;
    g16_status s;
    if ((s = k.alloc(ctx, m, "bucket sort check keys")) || (s = v.alloc(ctx, m, "bucket sort check values")) ||
        (s = mid.alloc(ctx, m, "bucket sort check keys")) ||
        (s = out.alloc(ctx, m, "bucket sort check values")) ||
        (s = bounds.alloc(ctx, 2 * nb, "bucket sort check bounds")) ||
        (s = bs.alloc(ctx, (uint32_t)m, c, spread, chunk_log2))) /* 0: the default chunk */
        return s;
    CUDA_TRY(cudaMemcpyAsync(k.p, keys, m * 4, cudaMemcpyHostToDevice, ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cudaMemcpyAsync(v.p, vals, m * 4, cudaMemcpyHostToDevice, ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cudaMemsetAsync(bounds.p, 0, 2 * nb * 4, ctx->stream), G16_ERR_INTERNAL);
    /* The segments counted as ba_digits' keys are (by keys already made), then the keys
     * back into their input, as ba_sort_group asks for them. */
    if ((s = bucket_digits(ctx->stream, bs, bs_given_keys{k.p}, (uint32_t)m)) ||
        (s = bucket_sort(ctx->stream, bs, k.p, v.p, mid.p, k.p, out.p, bounds.p, bounds.p + nb,
                         (uint32_t)m, c, base)))
        return s;
    CUDA_TRY(cudaMemcpyAsync(keys_out, k.p, m * 4, cudaMemcpyDeviceToHost, ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cudaMemcpyAsync(vals_out, out.p, m * 4, cudaMemcpyDeviceToHost, ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cudaMemcpyAsync(start, bounds.p, nb * 4, cudaMemcpyDeviceToHost, ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cudaMemcpyAsync(end, bounds.p + nb, nb * 4, cudaMemcpyDeviceToHost, ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cudaStreamSynchronize(ctx->stream), G16_ERR_INTERNAL);
    return G16_OK;
}
