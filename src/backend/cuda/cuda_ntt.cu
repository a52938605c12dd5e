/* NTTs over Fr and the H computation on the GPU: see cuda_ntt.h for the interface.
 *
 * Transforms are radix-2 Cooley-Tukey, in place, grouped into passes over device memory:
 * - Decimation in frequency (DIF, Gentleman-Sande) takes natural order to bit-reversed
 *   order, decimation in time (DIT) takes bit-reversed order to natural. H runs an
 *   inverse DIF and a forward DIT on each of a, b, c, the coset shift s between them: no
 *   permutation at all. snarkjs's s is a 2n-th root of unity, so its forward DIT is the
 *   negacyclic transform (NEG), s in its twiddles, and the inverse's 1/n is a division
 *   by 2^L (field.cuh's div_pow2); the classic s = 7 costs two products an element. Plain
 *   natural-to-natural transforms are a DIF plus one tiled bit-reversal pass (16 x 16
 *   tiles swapped through shared memory, each row a 512-byte run).
 * - A pass handles k <= 10 consecutive index bits [lo, lo + k): it runs those k stages
 *   on tiles of 2^11 elements (64 KiB of shared memory in 8 limb planes, so that a warp's
 *   accesses fall in distinct banks), one tile per block of 256 threads. A tile is
 *   2^(11 - k) groups of 2^k elements (a group: the elements that differ only in the
 *   pass's bits), the groups chosen so that each global access is a run of 4 or more
 *   elements (128 bytes or more). L index bits take ceil(L / 10) passes: 2^20 two,
 *   2^27 and 2^28 three; every pass reads and writes each element once.
 * - Twiddles: the stage of butterfly half-size 2^b multiplies by w^(e 2^(L-1-b)) with
 *   e = i mod 2^b, read from one table tw[e] = w^e, 0 <= e <= n/2, per size, built on
 *   the device once and shared by its contexts (H, snarkjs: the table of 2^(L + 1), read
 *   at even exponents but by the negacyclic DIT). The inverse uses the same table through
 *   w^-e = -w^(n/2 - e), the sign folded into the butterfly. No twiddle products are
 *   computed on the fly: a butterfly costs exactly one Montgomery product (none in the
 *   stage b = 0, where every twiddle is 1, but for the negacyclic DIT's).
 * - Lazy reduction: between a transform's first load and its last store the values stay
 *   below 2p rather than p (field.cuh's lazy_add, lazy_sub, lazy_mul), which saves each
 *   product's final subtraction; the last pass's stores reduce them. G16_GPU_NTT_LAZY=0
 *   keeps them below p (the tests run both).
 * - Whole tiles (every pass from 2^11 points on) run a kernel built for exactly 2^11
 *   slots (FULL: tile_count), so that its shared memory offsets are immediates (-3%,
 *   run 67); G16_GPU_NTT_FULL=0 runs them by the general kernel. Forward transforms'
 *   passes of 8 to 10 stages (all of 2^20 .. 2^28) run kernels built for their shape
 *   (pass_shape: the stage loop unrolled, the bit positions constants; -1.5 to -2.2% for
 *   the plain and coset forward NTTs, -0.8% for H's forward half, runs 68-69; inverse
 *   transforms lost 0.2-0.7% with them); G16_GPU_NTT_SHAPES=0 reads them.
 * - H runs each buffer's inverse and forward transform with the inverse's last pass and
 *   the forward's first as one kernel (k_ntt_fused: both take the index bits [0, k) on
 *   the same tiles; 2^27: 15 passes for H instead of 18; -0.6% on H at 2^27, run 93;
 *   equal to the CPU's H on the GPU, run 94); G16_GPU_NTT_FUSE=0 runs the passes apart
 *   (h_run's other branch, the inverse's and forward's times reported apart). Two other experiments lost
 *   and were removed (bench/NOTES.md, session 27): 320 or 512 threads a block (+5-9%:
 *   the 64-register cap costs more than the extra warps give) and prefetching the top
 *   passes' twiddles into L2 (+0.1-0.5%).
 * - Coset factors c g^j (the shift s^j on the way to a coset, scale s^-j / n on the way
 *   back) ride on the first pass's loads or the last pass's stores: g^j is the product of
 *   two entries of small tables (2^15 entries each at most, built on the device per call),
 *   so a factor costs two products per element. The last pass of H's third forward
 *   transform also computes h = a b - c while c's values are in registers.
 * Costs per transform of 2^L points: (L - 1) n / 2 products, P = ceil(L / 10) passes of
 * 2 n 32 bytes, plus twiddle reads (the whole table once in the first pass, a
 * 2^(L - k0)-entry slice, L2-resident, afterwards).
 *
 * Every kernel's body is a set of __host__ __device__ phase functions (what one thread
 * does between two barriers). The kernels run them on the GPU; cuda_ntt_emulate and
 * cuda_h_poly_emulate run the very same functions on the host, block by block and
 * thread by thread, with any pass plan: that is how CI checks the index arithmetic of
 * every pass shape against the CPU NTT without a GPU. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ctx.cuh"
#include "cuda_ntt.h"
#include "field.cuh"

extern "C" {
#include "groth16/h_poly.h"
}

namespace {

constexpr unsigned TILE_LOG = 11; /* elements per block tile (64 KiB of shared memory) */
constexpr unsigned KMAX = 10;     /* radix-2 stages per pass at most */
constexpr unsigned THREADS = 256; /* threads per block of a pass */
constexpr unsigned BLOCKS_PER_SM = 3; /* 3 x 64 KiB of shared memory, <= 85 registers */
constexpr unsigned POW_LOG = 15;  /* entries of each two-level power table, at most */
constexpr unsigned BR_LOG = 4;    /* bit-reversal tiles of 2^4 x 2^4 elements */
constexpr unsigned BR_PITCH = (1u << BR_LOG) + 1;
constexpr unsigned BR_PLANE = BR_PITCH << BR_LOG; /* words per limb plane of a tile */
/* Twiddle tables up to 2^(28 + 1): H (snarkjs) at 2^L reads the table of 2^(L + 1). */
constexpr unsigned TABLE_MAX_LOG = CUDA_NTT_MAX_LOG2N + 1;

/* Bytes of the table of 2^L: w^e for e <= 2^(L - 1). */
size_t table_bytes(unsigned L)
{
    return L == 0 || L > TABLE_MAX_LOG ? 0 : (((size_t)1 << (L - 1)) + 1) * sizeof(fr_d);
}

/* --- memory helpers (host twins for the emulation) ------------------------------------ */

#ifdef __CUDA_ARCH__
__device__ __forceinline__ fr_d fr_from_words(uint4 x, uint4 y)
{
    fr_d r;
    r.v[0] = x.x, r.v[1] = x.y, r.v[2] = x.z, r.v[3] = x.w;
    r.v[4] = y.x, r.v[5] = y.y, r.v[6] = y.z, r.v[7] = y.w;
    return r;
}
#endif

/* Data that the kernel also writes: plain loads. */
G16_HD fr_d ld_fr(const fr_d *p)
{
#ifdef __CUDA_ARCH__
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    return fr_from_words(q[0], q[1]);
#else
    return *p;
#endif
}

/* Tables (read-only for the kernel's lifetime): the non-coherent cached path. */
G16_HD fr_d ldg_fr(const fr_d *p)
{
#ifdef __CUDA_ARCH__
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    return fr_from_words(__ldg(q), __ldg(q + 1));
#else
    return *p;
#endif
}

G16_HD void st_fr(fr_d *p, const fr_d &v)
{
#ifdef __CUDA_ARCH__
    uint4 *q = reinterpret_cast<uint4 *>(p);
    q[0] = make_uint4(v.v[0], v.v[1], v.v[2], v.v[3]);
    q[1] = make_uint4(v.v[4], v.v[5], v.v[6], v.v[7]);
#else
    *p = v;
#endif
}

/* Shared memory tiles: limb l of slot s at sm[l * count + s]. */
G16_HD fr_d ld_sm(const uint32_t *sm, uint32_t count, uint32_t s)
{
    fr_d r;
#pragma unroll
    for (int l = 0; l < 8; l++)
        r.v[l] = sm[l * count + s];
    return r;
}

G16_HD void st_sm(uint32_t *sm, uint32_t count, uint32_t s, const fr_d &v)
{
#pragma unroll
    for (int l = 0; l < 8; l++)
        sm[l * count + s] = v.v[l];
}

/* The low `bits` bits of x reversed (bits <= 32). */
G16_HD uint32_t bitrev(uint32_t x, unsigned bits)
{
    if (bits == 0)
        return 0;
#ifdef __CUDA_ARCH__
    return __brev(x) >> (32 - bits);
#else
    uint32_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        r |= ((x >> i) & 1u) << (bits - 1 - i);
    return r;
#endif
}

/* --- kernel bodies -------------------------------------------------------------------- */

/* A factor c g^j applied to the element at a position (j = the position, or its bit
 * reversal when the data are in bit-reversed order). mode 0: none; 1: times c (g = 1);
 * 2: times lo[j mod 2^lo_bits] hi[j >> lo_bits] with lo[x] = c g^x, hi[y] = g^(y 2^lo_bits);
 * 3: divided by 2^lo_bits (field.cuh's div_pow2: 1/n at ~1/8 of a product). */
struct factor_desc {
    int mode;
    int rev;
    unsigned lo_bits;
    fr_d c;
    const fr_d *lo, *hi;
};

G16_HD fr_d apply_factor(const factor_desc &f, const fr_d &v, uint32_t pos, unsigned L)
{
    /* The factor is the product's first operand (below p), so v may be a lazy value
     * (below 2p); the result is below p either way. */
    if (f.mode == 1)
        return f.c * v;
    if (f.mode == 3)
        return lazy_canon(div_pow2(v, f.lo_bits));
    uint32_t j = f.rev ? bitrev(pos, L) : pos;
    fr_d t = ldg_fr(f.lo + (j & ((1u << f.lo_bits) - 1))) * ldg_fr(f.hi + (j >> f.lo_bits));
    return t * v;
}

/* One pass: the stages of index bits [lo, lo + k) of a transform of 2^L elements.
 * Groups (elements differing only in bits [lo, lo + k)) are numbered q = outer 2^lo +
 * inner; block B takes the 2^g groups q = B 2^g + c. Tile slots u are in address order:
 * u = (co, m, ci) with ci the low ilo = min(lo, g) bits of c, m the k pass bits, co the
 * rest of c; so consecutive threads touch consecutive addresses when loading and storing. */
struct ntt_pass {
    fr_d *x;
    const fr_d *tw; /* tw[e] = w^e, 0 <= e <= 2^(tl - 1), w a 2^tl-th root of unity */
    unsigned L, lo, k, g, ilo;
    unsigned tl; /* the table's size: L, or L + 1 for the negacyclic DIT (H, snarkjs) */
    bool last;        /* the transform's last pass: its stores are reduced below p */
    factor_desc pre;  /* applied to the loads (first pass) */
    factor_desc post; /* applied to the stores (last pass) */
    /* Last pass of H: also h = fa * fb - x at every position (x is stored too). */
    const fr_d *fa, *fb;
    fr_d *fh;
};

G16_HD uint32_t tile_pos(const ntt_pass &p, uint32_t q0, uint32_t u)
{
    uint32_t ci = u & ((1u << p.ilo) - 1);
    uint32_t m = (u >> p.ilo) & ((1u << p.k) - 1);
    uint32_t co = u >> (p.ilo + p.k);
    uint32_t q = q0 | (co << p.ilo) | ci;
    uint32_t outer = q >> p.lo, inner = q & ((1u << p.lo) - 1);
    return (outer << (p.lo + p.k)) | (m << p.lo) | inner;
}

/* Slots of the pass's tile. FULL: a whole tile of 2^TILE_LOG (every pass of transforms of
 * 2^11 points or more with the device's plan), as a constant: the 8 limb planes' shared
 * memory offsets become immediates instead of one addition per access, and the stage
 * loop's trip count is known. */
template <bool FULL>
G16_HD uint32_t tile_count(const ntt_pass &p)
{
    return FULL ? 1u << TILE_LOG : 1u << (p.k + p.g);
}

/* Phase 1: slot u of the tile from memory (times the pre factor). */
template <bool FULL>
G16_HD void pass_load(const ntt_pass &p, uint32_t *sm, uint32_t q0, uint32_t u)
{
    const uint32_t count = tile_count<FULL>(p);
    uint32_t pos = tile_pos(p, q0, u);
    fr_d v = ld_fr(p.x + pos);
    if (p.pre.mode)
        v = apply_factor(p.pre, v, pos, p.L);
    st_sm(sm, count, u, v);
}

/* Phase 2 (one per stage st < k): butterfly j < count / 2. DIF butterflies: (a, b) ->
 * (a + b, (a - b) w); DIT: (a, b) -> (a + b w, a - b w), w = w_2h^(i mod h) for the
 * half-size h = 2^b. INV uses w^-1 = the table read backwards with a sign:
 * w^-e = -tw[n/2 - e]. LAZY: the values between the first load and the last store stay
 * below 2p, not p (field.cuh's lazy_add, lazy_sub, lazy_mul: the product's final
 * subtraction saved, ~4% of a butterfly's instructions); the last pass's stores reduce
 * them (pass_store). */
template <bool LAZY>
G16_HD fr_d bfly_add(const fr_d &a, const fr_d &b)
{
    return LAZY ? lazy_add(a, b) : a + b;
}

template <bool LAZY>
G16_HD fr_d bfly_sub(const fr_d &a, const fr_d &b)
{
    return LAZY ? lazy_sub(a, b) : a - b;
}

template <bool LAZY>
G16_HD fr_d bfly_mul(const fr_d &w, const fr_d &x)
{
    return LAZY ? lazy_mul(w, x) : w * x;
}

/* Butterfly j of stage st: its slots s0 and s1 = s0 + 2^sb, and the bits that the stage
 * runs, d in the pass and b in the index (K, ILO as in pass_stage). */
struct stage_pair {
    uint32_t s0, s1;
    unsigned d, b; /* the stage's bit in the pass and in the index */
};

template <bool DIT, unsigned K, int ILO>
G16_HD stage_pair stage_slots(const ntt_pass &p, unsigned st, uint32_t j)
{
    const unsigned k = K ? K : p.k, ilo = ILO >= 0 ? (unsigned)ILO : p.ilo;
    const unsigned d = DIT ? st : k - 1 - st; /* the pass bit of this stage */
    const unsigned sb = d + ilo;              /* its bit in the slot number */
    stage_pair r;
    r.s0 = ((j >> sb) << (sb + 1)) | (j & ((1u << sb) - 1));
    r.s1 = r.s0 | (1u << sb);
    r.d = d;
    r.b = p.lo + d;
    return r;
}

/* The table entry of the twiddle for butterfly sp of its stage (b > 0 or NEG): i mod 2^b
 * from the pass bits below d and the inner bits of the group; INV reads w^-e as
 * -tw[n/2 - e], the sign the butterfly's. */
template <bool INV, unsigned K, int ILO, bool NEG>
G16_HD uint32_t stage_twiddle(const ntt_pass &p, uint32_t q0, const stage_pair &sp)
{
    const unsigned k = K ? K : p.k, ilo = ILO >= 0 ? (unsigned)ILO : p.ilo;
    const unsigned d = sp.d, b = sp.b;
    const uint32_t s0 = sp.s0;
    uint32_t m = (s0 >> ilo) & ((1u << k) - 1);
    uint32_t c = ((s0 >> (ilo + k)) << ilo) | (s0 & ((1u << ilo) - 1));
    uint32_t inner = (q0 | c) & ((1u << p.lo) - 1);
    uint32_t i = ((m & ((1u << d) - 1)) << p.lo) | inner;
    uint32_t e = NEG ? ((i << 1) | 1) << (p.tl - 2 - b) : i << (p.tl - 1 - b);
    return INV ? (1u << (p.tl - 1)) - e : e;
}

/* K, ILO: the pass's k and ilo as constants (K 0, ILO -1: read from p). NEG (forward DIT
 * only): the negacyclic transform, values at s w^i with s a 2n-th root of unity (s^2 = w),
 * from the table of 2^(L + 1): the stage of half-size h = 2^b multiplies by s_4h^(2i' + 1)
 * (i' = i mod h) instead of w_2h^i', since after it each block of 2h holds its sub-
 * polynomial in y = x^(n / 2h) at y = s_4h w_2h^k. So the coset factor s^j costs no
 * product of its own; the stage b = 0 gets products (its twiddle s_4 is not 1): n/2 more
 * a transform, against 2n for the factor's tables (H, snarkjs convention). */
template <bool DIT, bool INV, bool LAZY, bool FULL, unsigned K = 0, int ILO = -1,
          bool NEG = false>
G16_HD void pass_stage(const ntt_pass &p, uint32_t *sm, uint32_t q0, unsigned st, uint32_t j)
{
    static_assert(!NEG || (DIT && !INV), "the negacyclic transform is a forward DIT");
    const uint32_t count = tile_count<FULL>(p);
    const stage_pair sp = stage_slots<DIT, K, ILO>(p, st, j);
    fr_d x0 = ld_sm(sm, count, sp.s0), x1 = ld_sm(sm, count, sp.s1);
    fr_d y0, y1;
    if (sp.b == 0 && !NEG) {
        /* Every twiddle is 1 (w^0, and -tw[n/2] = 1 for the inverse). */
        y0 = bfly_add<LAZY>(x0, x1);
        y1 = bfly_sub<LAZY>(x0, x1);
    } else {
        fr_d w = ldg_fr(p.tw + stage_twiddle<INV, K, ILO, NEG>(p, q0, sp));
        if (DIT) {
            fr_d t = bfly_mul<LAZY>(w, x1);
            y0 = INV ? bfly_sub<LAZY>(x0, t) : bfly_add<LAZY>(x0, t);
            y1 = INV ? bfly_add<LAZY>(x0, t) : bfly_sub<LAZY>(x0, t);
        } else {
            y0 = bfly_add<LAZY>(x0, x1);
            y1 = bfly_mul<LAZY>(w, INV ? bfly_sub<LAZY>(x1, x0) : bfly_sub<LAZY>(x0, x1));
        }
    }
    st_sm(sm, count, sp.s0, y0);
    st_sm(sm, count, sp.s1, y1);
}

/* Phase 3: slot u back to memory (times the post factor; and h = a b - x for H). LAZY:
 * the last pass's values are reduced below p (by the post factor's product, else once). */
template <bool LAZY, bool FULL>
G16_HD void pass_store(const ntt_pass &p, const uint32_t *sm, uint32_t q0, uint32_t u)
{
    const uint32_t count = tile_count<FULL>(p);
    uint32_t pos = tile_pos(p, q0, u);
    fr_d v = ld_sm(sm, count, u);
    if (p.post.mode)
        v = apply_factor(p.post, v, pos, p.L);
    else if (LAZY && p.last)
        v = lazy_canon(v);
    if (p.fh) {
        /* Read a and b before either store: h may be a, b or x itself. */
        fr_d ab = ld_fr(p.fa + pos) * ld_fr(p.fb + pos);
        st_fr(p.x + pos, v);
        st_fr(p.fh + pos, ab - v);
    } else {
        st_fr(p.x + pos, v);
    }
}

/* Between the two halves of a fused pass (k_ntt_fused): slot u as the inverse's last pass
 * would have stored it (times its post factor, or reduced below p), for the forward's
 * first stage to read. */
template <bool LAZY, bool FULL>
G16_HD void pass_turn(const ntt_pass &p, uint32_t *sm, uint32_t q0, uint32_t u)
{
    const uint32_t count = tile_count<FULL>(p);
    fr_d v = ld_sm(sm, count, u);
    if (p.post.mode)
        v = apply_factor(p.post, v, tile_pos(p, q0, u), p.L);
    else if (LAZY)
        v = lazy_canon(v);
    st_sm(sm, count, u, v);
}

/* The k stages of a pass on the tile in shared memory, a barrier after each. K, ILO (FULL
 * kernels of a fixed shape, pass_shape): the stage loop unrolled, each stage's bit
 * positions constants. */
template <bool DIT, bool INV, bool LAZY, bool FULL, unsigned K, int ILO, bool NEG>
__device__ __forceinline__ void pass_stages(const ntt_pass &p, uint32_t *sm, uint32_t q0)
{
    const uint32_t count = tile_count<FULL>(p);
    if constexpr (K != 0) {
#pragma unroll
        for (unsigned st = 0; st < K; st++) {
            for (uint32_t j = threadIdx.x; j < count / 2; j += THREADS)
                pass_stage<DIT, INV, LAZY, FULL, K, ILO, NEG>(p, sm, q0, st, j);
            __syncthreads();
        }
    } else {
        for (unsigned st = 0; st < p.k; st++) {
            for (uint32_t j = threadIdx.x; j < count / 2; j += THREADS)
                pass_stage<DIT, INV, LAZY, FULL, 0, -1, NEG>(p, sm, q0, st, j);
            __syncthreads();
        }
    }
}

/* One pass: load the tile, its stages, store it. */
template <bool DIT, bool INV, bool LAZY, bool FULL, unsigned K = 0, int ILO = -1,
          bool NEG = false>
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM) k_ntt_pass(const ntt_pass p)
{
    extern __shared__ uint32_t sm[];
    const uint32_t count = tile_count<FULL>(p);
    const uint32_t q0 = blockIdx.x << p.g;
    for (uint32_t u = threadIdx.x; u < count; u += THREADS)
        pass_load<FULL>(p, sm, q0, u);
    __syncthreads();
    pass_stages<DIT, INV, LAZY, FULL, K, ILO, NEG>(p, sm, q0);
    for (uint32_t u = threadIdx.x; u < count; u += THREADS)
        pass_store<LAZY, FULL>(p, sm, q0, u);
}

/* H's inverse transform's last pass and the forward transform's first pass as one kernel
 * (G16_GPU_NTT_FUSE=1, h_pair_fused): both take the index bits [0, k) on the same tiles,
 * so the values go through device memory once instead of twice between them. pi: the
 * inverse's (DIF, its post factor applied by pass_turn), pf: the forward's (DIT; NEG as
 * in pass_stage); K: pf's stages as constants (pass_shape's, ILO = 0: lo is 0). */
template <bool LAZY, bool FULL, unsigned K, bool NEG>
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
    k_ntt_fused(const ntt_pass pi, const ntt_pass pf)
{
    extern __shared__ uint32_t sm[];
    const uint32_t count = tile_count<FULL>(pi);
    const uint32_t q0 = blockIdx.x << pi.g;
    for (uint32_t u = threadIdx.x; u < count; u += THREADS)
        pass_load<FULL>(pi, sm, q0, u);
    __syncthreads();
    pass_stages<false, true, LAZY, FULL, 0, -1, false>(pi, sm, q0);
    for (uint32_t u = threadIdx.x; u < count; u += THREADS)
        pass_turn<LAZY, FULL>(pi, sm, q0, u);
    __syncthreads();
    pass_stages<true, false, LAZY, FULL, K, K ? 0 : -1, NEG>(pf, sm, q0);
    for (uint32_t u = threadIdx.x; u < count; u += THREADS)
        pass_store<LAZY, FULL>(pf, sm, q0, u);
}

/* x[i] <-> x[bitrev(i)] for L >= 2 BR_LOG: index = (h: top BR_LOG bits, mid, l: low
 * BR_LOG bits); block `mid` (when mid <= rev(mid)) swaps its 16 x 16 tile with the tile
 * of rev(mid), transposed and bit-reversed through shared memory (ta, tb: 8 limb planes
 * of BR_PLANE words, rows padded to BR_PITCH against bank conflicts). Thread t handles
 * (h, l) = (t >> BR_LOG, t mod 2^BR_LOG). */
G16_HD bool bitrev_tile_active(uint32_t mid, unsigned L)
{
    return mid <= bitrev(mid, L - 2 * BR_LOG);
}

G16_HD void bitrev_tile_load(fr_d *x, unsigned L, uint32_t mid, uint32_t t, uint32_t *ta,
                             uint32_t *tb)
{
    const uint32_t rmid = bitrev(mid, L - 2 * BR_LOG);
    const uint32_t h = t >> BR_LOG, l = t & ((1u << BR_LOG) - 1);
    const uint32_t pa = (h << (L - BR_LOG)) | (mid << BR_LOG) | l;
    const uint32_t pb = (h << (L - BR_LOG)) | (rmid << BR_LOG) | l;
    fr_d v = ld_fr(x + pa);
#pragma unroll
    for (int i = 0; i < 8; i++)
        ta[i * BR_PLANE + h * BR_PITCH + l] = v.v[i];
    if (mid != rmid) {
        v = ld_fr(x + pb);
#pragma unroll
        for (int i = 0; i < 8; i++)
            tb[i * BR_PLANE + h * BR_PITCH + l] = v.v[i];
    }
}

/* new x[(h, mid, l)] = old x[(rev l, rev mid, rev h)], and the same for rev(mid). */
G16_HD void bitrev_tile_store(fr_d *x, unsigned L, uint32_t mid, uint32_t t,
                              const uint32_t *ta, const uint32_t *tb)
{
    const uint32_t rmid = bitrev(mid, L - 2 * BR_LOG);
    const uint32_t h = t >> BR_LOG, l = t & ((1u << BR_LOG) - 1);
    const uint32_t pa = (h << (L - BR_LOG)) | (mid << BR_LOG) | l;
    const uint32_t pb = (h << (L - BR_LOG)) | (rmid << BR_LOG) | l;
    const uint32_t s = bitrev(l, BR_LOG) * BR_PITCH + bitrev(h, BR_LOG);
    fr_d r;
#pragma unroll
    for (int i = 0; i < 8; i++)
        r.v[i] = ta[i * BR_PLANE + s];
    if (mid == rmid) {
        st_fr(x + pa, r);
        return;
    }
    st_fr(x + pb, r);
#pragma unroll
    for (int i = 0; i < 8; i++)
        r.v[i] = tb[i * BR_PLANE + s];
    st_fr(x + pa, r);
}

__global__ void __launch_bounds__(1u << (2 * BR_LOG)) k_bitrev_tiles(fr_d *x, unsigned L)
{
    __shared__ uint32_t ta[8 * BR_PLANE], tb[8 * BR_PLANE];
    if (!bitrev_tile_active(blockIdx.x, L))
        return;
    bitrev_tile_load(x, L, blockIdx.x, threadIdx.x, ta, tb);
    __syncthreads();
    bitrev_tile_store(x, L, blockIdx.x, threadIdx.x, ta, tb);
}

/* The same for L < 2 BR_LOG (n <= 128): one thread per index. */
G16_HD void bitrev_small(fr_d *x, unsigned L, uint32_t i)
{
    uint32_t r = bitrev(i, L);
    if (i < r) {
        fr_d a = ld_fr(x + i), b = ld_fr(x + r);
        st_fr(x + i, b);
        st_fr(x + r, a);
    }
}

__global__ void k_bitrev_small(fr_d *x, unsigned L)
{
    if (threadIdx.x < (1u << L))
        bitrev_small(x, L, threadIdx.x);
}

/* out[x] = c base^x (square and multiply: at most 2 POW_LOG products). */
G16_HD void pow_entry(fr_d *out, uint32_t x, const fr_d &c, const fr_d &base)
{
    fr_d r = c, b = base;
    for (uint32_t e = x; e; e >>= 1) {
        if (e & 1)
            r = r * b;
        b = sqr(b);
    }
    st_fr(out + x, r);
}

__global__ void k_pow_table(fr_d *out, uint32_t count, fr_d c, fr_d base)
{
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < count)
        pow_entry(out, x, c, base);
}

/* tw[e] = lo[e mod 2^bits] hi[e >> bits]. */
G16_HD void twiddle_entry(fr_d *tw, uint32_t e, const fr_d *lo, const fr_d *hi, unsigned bits)
{
    st_fr(tw + e, ldg_fr(lo + (e & ((1u << bits) - 1))) * ldg_fr(hi + (e >> bits)));
}

__global__ void k_twiddles(fr_d *tw, uint32_t count, const fr_d *lo, const fr_d *hi,
                           unsigned bits)
{
    uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < count)
        twiddle_entry(tw, e, lo, hi, bits);
}

/* --- execution: on a device, or emulated on the host ---------------------------------- */

/* Scratch for the power tables (two halves of 2^POW_LOG entries), reused by every call:
 * the stream orders its uses; and an emulation's twiddle tables per size (a device's are
 * shared by its contexts: twiddles_get). On a device the cache lives in the context; an
 * emulation has its own, in host memory. */
struct ntt_cache {
    bool host;
    fr_d *tw[TABLE_MAX_LOG + 1];
    fr_d *scratch;
};

void cache_release_buffer(const ntt_cache *c, void *p)
{
    if (!p)
        return;
    if (c->host)
        free(p);
    else
        cuda_free_bytes(p);
}

void ntt_cache_release(void *p)
{
    ntt_cache *c = (ntt_cache *)p;
    if (!c)
        return;
    for (unsigned i = 0; i <= TABLE_MAX_LOG; i++)
        cache_release_buffer(c, c->tw[i]);
    cache_release_buffer(c, c->scratch);
    free(c);
}

/* Where the kernels run: ctx set = on its device and stream; ctx NULL = on the host. */
struct exec {
    cuda_ctx *ctx;
    ntt_cache *cache;
    unsigned kmax, tile_log; /* the pass plan */
    unsigned launches;
    bool lazy;       /* butterflies on values below 2p (pass_stage); G16_GPU_NTT_LAZY=0: below p */
    bool full;       /* whole tiles by the FULL kernels (tile_count); G16_GPU_NTT_FULL=0: not */
    bool shapes;     /* those of 8-10 stages by kernels of that shape (pass_shape);
                        G16_GPU_NTT_SHAPES=0: not */
    bool negacyclic; /* H (snarkjs) by the negacyclic forward (h_run);
                        G16_GPU_NTT_NEGACYCLIC=0: by the coset factor's tables */
    bool fuse;       /* H's inverse last pass and forward first pass as one kernel
                        (h_pair_fused); G16_GPU_NTT_FUSE=0: two kernels */
};

/* The knobs, read at each call (the tests and bench/gpu_run.sh's A/B runs set them):
 * G16_GPU_NTT_LAZY=0 keeps every butterfly's values below p, G16_GPU_NTT_FULL=0 runs
 * whole tiles by the general kernel, G16_GPU_NTT_SHAPES=0 by the FULL kernel with the
 * pass's shape read at run time, G16_GPU_NTT_NEGACYCLIC=0 runs H (snarkjs) with the
 * coset factor's products. G16_GPU_NTT_FUSE=0 runs H's middle passes as two kernels
 * instead of one (h_pair_fused: -0.6% on H at 2^27, run 93; verified on the GPU, run 94). */
void exec_knobs(exec &x)
{
    const char *env = getenv("G16_GPU_NTT_LAZY");
    x.lazy = !(env && strcmp(env, "0") == 0);
    env = getenv("G16_GPU_NTT_FULL");
    x.full = !(env && strcmp(env, "0") == 0);
    env = getenv("G16_GPU_NTT_SHAPES");
    x.shapes = !(env && strcmp(env, "0") == 0);
    env = getenv("G16_GPU_NTT_NEGACYCLIC");
    x.negacyclic = !(env && strcmp(env, "0") == 0);
    env = getenv("G16_GPU_NTT_FUSE");
    x.fuse = !(env && strcmp(env, "0") == 0);
}

g16_status exec_alloc(exec &x, void **p, size_t bytes, const char *what)
{
    if (x.ctx)
        return cuda_alloc_bytes(x.ctx, p, bytes, what);
    *p = malloc(bytes);
    if (!*p)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "emulated NTT: no host memory for %s", what);
    return G16_OK;
}

g16_status exec_cache_init(exec &x, ntt_cache **slot)
{
    if (!*slot) {
        ntt_cache *c = (ntt_cache *)calloc(1, sizeof *c);
        if (!c)
            return status_fail(G16_ERR_OUT_OF_MEMORY, "cuda ntt: no host memory");
        c->host = x.ctx == nullptr;
        g16_status st = exec_alloc(x, (void **)&c->scratch, sizeof(fr_d) << (POW_LOG + 1),
                                   "NTT power tables");
        if (st != G16_OK) {
            free(c);
            return st;
        }
        *slot = c;
    }
    x.cache = *slot;
    return G16_OK;
}

g16_status exec_check(const exec &x)
{
    if (x.ctx)
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    return G16_OK;
}

unsigned blocks_for(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

fr_d to_dev(const fr_t &x)
{
    fr_d r;
    static_assert(sizeof r == sizeof x, "fr_t and fr_d have the same bytes");
    memcpy(&r, &x, sizeof r);
    return r;
}

g16_status run_pow_table(exec &x, fr_d *out, uint32_t count, const fr_t &c, const fr_t &base)
{
    fr_d cd = to_dev(c), bd = to_dev(base);
    if (x.ctx)
        k_pow_table<<<blocks_for(count, 128), 128, 0, x.ctx->stream>>>(out, count, cd, bd);
    else
        for (uint32_t i = 0; i < count; i++)
            pow_entry(out, i, cd, bd);
    x.launches++;
    return exec_check(x);
}

/* Fills tw[e] = w^e, e <= 2^(L - 1), w the 2^L-th root of unity, from two power tables in
 * the scratch. */
g16_status twiddles_fill(exec &x, fr_d *tw, unsigned L)
{
    unsigned bits = (L + 1) / 2; /* lo: 2^bits entries, hi: 2^(L - bits) > (n/2) >> bits */
    fr_t w, wb, one;
    fr_root_of_unity(&w, L);
    fr_one(&one);
    wb = w;
    for (unsigned i = 0; i < bits; i++)
        fr_sqr(&wb, &wb);
    fr_d *lo = x.cache->scratch, *hi = x.cache->scratch + (1u << POW_LOG);
    const uint32_t count = (1u << (L - 1)) + 1;
    g16_status st;
    if ((st = run_pow_table(x, lo, 1u << bits, one, w)) != G16_OK ||
        (st = run_pow_table(x, hi, 1u << (L - bits), one, wb)) != G16_OK)
        return st;
    if (x.ctx)
        k_twiddles<<<blocks_for(count, 128), 128, 0, x.ctx->stream>>>(tw, count, lo, hi, bits);
    else
        for (uint32_t e = 0; e < count; e++)
            twiddle_entry(tw, e, lo, hi, bits);
    x.launches++;
    return exec_check(x);
}

struct twiddles_job {
    exec *x;
    unsigned L;
};

g16_status twiddles_make(cuda_ctx *, void *dev, void *arg)
{
    const twiddles_job *j = (const twiddles_job *)arg;
    return twiddles_fill(*j->x, (fr_d *)dev, j->L);
}

/* The twiddle table for 2^L (L >= 1), built on first use: on a device, one per device
 * that its contexts share (cuda_ctx_shared_table: the partition's two workers hold one
 * table, 4 GiB for H at 2^27); an emulation keeps its own. */
g16_status twiddles_get(exec &x, unsigned L, const fr_d **out)
{
    ntt_cache *cache = x.cache;
    *out = nullptr;
    if (L == 0)
        return G16_OK;
    if (L > TABLE_MAX_LOG)
        return status_fail(G16_ERR_INTERNAL, "cuda ntt: no twiddle table for 2^%u", L);
    char what[96];
    snprintf(what, sizeof what, "the NTT twiddle table for 2^%u", L);
    if (x.ctx) {
        twiddles_job job = {&x, L};
        void *p = nullptr;
        g16_status st =
            cuda_ctx_shared_table(x.ctx, L, table_bytes(L), what, twiddles_make, &job, &p);
        *out = (const fr_d *)p;
        return st;
    }
    if (!cache->tw[L]) {
        void *p = nullptr;
        g16_status st = exec_alloc(x, &p, table_bytes(L), what);
        if (st == G16_OK && (st = twiddles_fill(x, (fr_d *)p, L)) != G16_OK)
            cache_release_buffer(cache, p);
        if (st != G16_OK)
            return st;
        cache->tw[L] = (fr_d *)p;
    }
    *out = cache->tw[L];
    return G16_OK;
}

/* The factor c g^j over 2^L positions: mode 0 when it is 1, mode 1 when g = 1 (or L = 0),
 * else power tables in the scratch (which the previous factor's transforms have finished
 * with by then: one stream). */
g16_status factor_make(exec &x, unsigned L, const fr_t &c, const fr_t &g, bool rev,
                       factor_desc *f)
{
    *f = factor_desc{};
    f->c = to_dev(c);
    if (L == 0 || fr_is_one(&g)) {
        f->mode = fr_is_one(&c) ? 0 : 1;
        return G16_OK;
    }
    unsigned bits = (L + 1) / 2;
    fr_t gb = g, one;
    fr_one(&one);
    for (unsigned i = 0; i < bits; i++)
        fr_sqr(&gb, &gb);
    f->mode = 2;
    f->rev = rev;
    f->lo_bits = bits;
    f->lo = x.cache->scratch;
    f->hi = x.cache->scratch + (1u << POW_LOG);
    g16_status st;
    if ((st = run_pow_table(x, x.cache->scratch, 1u << bits, c, g)) != G16_OK ||
        (st = run_pow_table(x, x.cache->scratch + (1u << POW_LOG), 1u << (L - bits), one,
                            gb)) != G16_OK)
        return st;
    return G16_OK;
}

/* Passes: ceil(L / kmax), balanced (L = 27: 9 + 9 + 9); L = 0 is one empty pass, which
 * still applies the factors and the H epilogue. */
struct ntt_plan {
    unsigned passes;
    unsigned k[CUDA_NTT_MAX_LOG2N + 1];
};

ntt_plan plan_make(unsigned L, unsigned kmax)
{
    ntt_plan pl = {};
    if (L == 0) {
        pl.passes = 1;
        return pl;
    }
    pl.passes = (L + kmax - 1) / kmax;
    for (unsigned i = 0; i < pl.passes; i++)
        pl.k[i] = L / pl.passes + (i < L % pl.passes ? 1 : 0);
    return pl;
}

/* pass_stages on the host: a block's stages, thread by thread. */
template <bool DIT, bool INV, bool LAZY, bool FULL, unsigned K, int ILO, bool NEG>
void emulate_stages(const ntt_pass &p, uint32_t *sm, uint32_t q0)
{
    const uint32_t count = tile_count<FULL>(p);
    for (unsigned st = 0; st < p.k; st++)
        for (uint32_t j = 0; j < count / 2; j++)
            pass_stage<DIT, INV, LAZY, FULL, K, ILO, NEG>(p, sm, q0, st, j);
}

/* k_ntt_pass on the host, block by block and phase by phase. */
template <bool DIT, bool INV, bool LAZY, bool FULL, unsigned K = 0, int ILO = -1,
          bool NEG = false>
void emulate_pass(const ntt_pass &p, uint32_t *sm)
{
    const uint32_t count = tile_count<FULL>(p), blocks = 1u << (p.L - p.k - p.g);
    for (uint32_t blk = 0; blk < blocks; blk++) {
        const uint32_t q0 = blk << p.g;
        for (uint32_t u = 0; u < count; u++)
            pass_load<FULL>(p, sm, q0, u);
        emulate_stages<DIT, INV, LAZY, FULL, K, ILO, NEG>(p, sm, q0);
        for (uint32_t u = 0; u < count; u++)
            pass_store<LAZY, FULL>(p, sm, q0, u);
    }
}

/* k_ntt_fused on the host. */
template <bool LAZY, bool FULL, unsigned K, bool NEG>
void emulate_fused(const ntt_pass &pi, const ntt_pass &pf, uint32_t *sm)
{
    const uint32_t count = tile_count<FULL>(pi), blocks = 1u << (pi.L - pi.k - pi.g);
    for (uint32_t blk = 0; blk < blocks; blk++) {
        const uint32_t q0 = blk << pi.g;
        for (uint32_t u = 0; u < count; u++)
            pass_load<FULL>(pi, sm, q0, u);
        emulate_stages<false, true, LAZY, FULL, 0, -1, false>(pi, sm, q0);
        for (uint32_t u = 0; u < count; u++)
            pass_turn<LAZY, FULL>(pi, sm, q0, u);
        emulate_stages<true, false, LAZY, FULL, K, K ? 0 : -1, NEG>(pf, sm, q0);
        for (uint32_t u = 0; u < count; u++)
            pass_store<LAZY, FULL>(pf, sm, q0, u);
    }
}

/* A pass kernel's shared memory attributes (cheap; they belong to the current device's
 * context), set before each launch. */
template <typename Kernel>
g16_status kernel_attributes(const exec &x, Kernel *kernel)
{
    CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)(sizeof(fr_d) << x.tile_log)),
             G16_ERR_INTERNAL);
    CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  (int)cudaSharedmemCarveoutMaxShared),
             G16_ERR_INTERNAL);
    return G16_OK;
}

/* One pass kernel on the device. */
template <bool DIT, bool INV, bool LAZY, bool FULL, unsigned K = 0, int ILO = -1,
          bool NEG = false>
g16_status launch_pass_as(exec &x, const ntt_pass &p, unsigned tile)
{
    auto *kernel = k_ntt_pass<DIT, INV, LAZY, FULL, K, ILO, NEG>;
    g16_status st = kernel_attributes(x, kernel);
    if (st == G16_OK)
        kernel<<<1u << (p.L - tile), THREADS, sizeof(fr_d) << tile, x.ctx->stream>>>(p);
    return st;
}

/* A FULL pass of K stages (8 to 10: every pass of 2^20 to 2^28) by the kernel built for
 * its shape; false when there is none. ilo = min(lo, TILE_LOG - K) is 0 for the pass of
 * the lowest index bits and TILE_LOG - K for any other (whose lo spans another pass's 8
 * or more stages, above TILE_LOG - K <= 3). */
template <bool DIT, bool INV, bool NEG, unsigned K>
bool pass_shape_k(exec &x, const ntt_pass &p, unsigned tile, uint32_t *sm, g16_status *st)
{
    constexpr int G = (int)(TILE_LOG - K);
    if (p.ilo != 0 && p.ilo != (unsigned)G)
        return false;
    if (x.ctx)
        *st = p.ilo == 0 ? launch_pass_as<DIT, INV, true, true, K, 0, NEG>(x, p, tile)
                         : launch_pass_as<DIT, INV, true, true, K, G, NEG>(x, p, tile);
    else if (p.ilo == 0)
        emulate_pass<DIT, INV, true, true, K, 0, NEG>(p, sm);
    else
        emulate_pass<DIT, INV, true, true, K, G, NEG>(p, sm);
    return true;
}

template <bool DIT, bool INV, bool NEG>
bool pass_shape(exec &x, const ntt_pass &p, unsigned tile, uint32_t *sm, g16_status *st)
{
    switch (p.k) {
    case 8: return pass_shape_k<DIT, INV, NEG, 8>(x, p, tile, sm, st);
    case 9: return pass_shape_k<DIT, INV, NEG, 9>(x, p, tile, sm, st);
    case 10: return pass_shape_k<DIT, INV, NEG, 10>(x, p, tile, sm, st);
    default: return false;
    }
}

/* A pass of `tile` log2 slots, on the device or emulated (sm: the emulation's tile). FULL
 * kernels (lazy butterflies only) take whole tiles of the device's plan unless x.full is
 * off. */
template <bool DIT, bool INV, bool LAZY, bool NEG>
g16_status launch_pass(exec &x, const ntt_pass &p, unsigned tile, uint32_t *sm)
{
    const bool full = x.full && tile == TILE_LOG && x.tile_log == TILE_LOG;
    if constexpr (LAZY) {
        g16_status st = G16_OK;
        /* Runs 68-69: the shapes gain 1.5-2.2% on forward DIF transforms (plain and coset)
         * and 0.8% on H's forward DIT ones, and lose 0.2-0.7% on inverse ones. */
        if constexpr (!INV) {
            if (full && x.shapes && pass_shape<DIT, INV, NEG>(x, p, tile, sm, &st))
                return st;
        }
        if (full && x.ctx)
            return launch_pass_as<DIT, INV, true, true, 0, -1, NEG>(x, p, tile);
        if (full) {
            emulate_pass<DIT, INV, true, true, 0, -1, NEG>(p, sm);
            return G16_OK;
        }
    }
    if (x.ctx)
        return launch_pass_as<DIT, INV, LAZY, false, 0, -1, NEG>(x, p, tile);
    emulate_pass<DIT, INV, LAZY, false, 0, -1, NEG>(p, sm);
    return G16_OK;
}

/* What one transform of data in place reads and writes: tw is the table of 2^tl (tl = L,
 * or L + 1: the negacyclic NEG's, which the others read at even exponents); pre rides on
 * the first pass's loads; post and the h epilogue (fh not NULL) on the last pass's
 * stores. */
struct transform_io {
    fr_d *data;
    unsigned L;
    const fr_d *tw;
    unsigned tl;
    factor_desc pre, post;
    const fr_d *fa, *fb;
    fr_d *fh;
};

/* Pass i of a transform by plan pl: DIT (bit-reversed -> natural) takes the index bits
 * from the bottom up, DIF (natural -> bit-reversed) from the top down. */
ntt_pass pass_make(bool dit, const exec &x, const ntt_plan &pl, unsigned i,
                   const transform_io &io)
{
    unsigned done = 0;
    for (unsigned j = 0; j < i; j++)
        done += pl.k[j];
    ntt_pass p = {};
    p.x = io.data;
    p.tw = io.tw;
    p.tl = io.tl;
    p.L = io.L;
    p.k = pl.k[i];
    p.lo = dit ? done : io.L - done - p.k;
    p.g = x.tile_log - p.k < io.L - p.k ? x.tile_log - p.k : io.L - p.k;
    p.ilo = p.lo < p.g ? p.lo : p.g;
    if (i == 0)
        p.pre = io.pre;
    if (i + 1 == pl.passes) {
        p.last = true;
        p.post = io.post;
        p.fa = io.fa;
        p.fb = io.fb;
        p.fh = io.fh;
    }
    return p;
}

/* An emulation's tile (NULL and G16_OK on a device). */
g16_status emulation_tile(const exec &x, uint32_t **sm)
{
    *sm = nullptr;
    if (!x.ctx && !(*sm = (uint32_t *)malloc(sizeof(fr_d) << x.tile_log)))
        return status_fail(G16_ERR_OUT_OF_MEMORY, "emulated NTT: no host memory");
    return G16_OK;
}

/* Passes [from, to) of a transform by plan pl. */
template <bool DIT, bool INV, bool LAZY, bool NEG>
g16_status passes_as(exec &x, const ntt_plan &pl, unsigned from, unsigned to,
                     const transform_io &io)
{
    uint32_t *sm;
    g16_status st = emulation_tile(x, &sm);
    for (unsigned i = from; i < to && st == G16_OK; i++) {
        ntt_pass p = pass_make(DIT, x, pl, i, io);
        st = launch_pass<DIT, INV, LAZY, NEG>(x, p, p.k + p.g, sm);
        if (st == G16_OK)
            st = exec_check(x);
        x.launches++;
    }
    free(sm);
    return st;
}

/* One whole transform by the device's plan. */
template <bool DIT, bool INV, bool NEG = false>
g16_status transform(exec &x, const transform_io &io)
{
    const ntt_plan pl = plan_make(io.L, x.kmax);
    return x.lazy ? passes_as<DIT, INV, true, NEG>(x, pl, 0, pl.passes, io)
                  : passes_as<DIT, INV, false, NEG>(x, pl, 0, pl.passes, io);
}

/* k_ntt_fused on the device or emulated. */
template <bool LAZY, bool FULL, unsigned K, bool NEG>
g16_status launch_fused_as(exec &x, const ntt_pass &pi, const ntt_pass &pf, unsigned tile,
                           uint32_t *sm)
{
    if (!x.ctx) {
        emulate_fused<LAZY, FULL, K, NEG>(pi, pf, sm);
        return G16_OK;
    }
    auto *kernel = k_ntt_fused<LAZY, FULL, K, NEG>;
    g16_status st = kernel_attributes(x, kernel);
    if (st == G16_OK)
        kernel<<<1u << (pi.L - tile), THREADS, sizeof(fr_d) << tile, x.ctx->stream>>>(pi, pf);
    return st;
}

/* The kernel for a fused pass, chosen as launch_pass chooses: FULL for whole tiles of the
 * device's plan (lazy butterflies only), the forward half's stages as constants when it
 * has 8 to 10 (the inverse half reads them: inverse passes lost with shapes, runs
 * 68-69). */
template <bool LAZY, bool NEG>
g16_status launch_fused(exec &x, const ntt_pass &pi, const ntt_pass &pf, unsigned tile,
                        uint32_t *sm)
{
    const bool full = x.full && tile == TILE_LOG && x.tile_log == TILE_LOG;
    if constexpr (LAZY) {
        if (full && x.shapes) {
            switch (pf.k) {
            case 8: return launch_fused_as<true, true, 8, NEG>(x, pi, pf, tile, sm);
            case 9: return launch_fused_as<true, true, 9, NEG>(x, pi, pf, tile, sm);
            case 10: return launch_fused_as<true, true, 10, NEG>(x, pi, pf, tile, sm);
            default: break;
            }
        }
        if (full)
            return launch_fused_as<true, true, 0, NEG>(x, pi, pf, tile, sm);
    }
    return launch_fused_as<LAZY, false, 0, NEG>(x, pi, pf, tile, sm);
}

/* H's inverse transform of one buffer and then its forward one, the inverse's last pass
 * and the forward's first as one kernel (G16_GPU_NTT_FUSE=1): both take the index bits
 * [0, k) on the same tiles once the forward's plan is the inverse's reversed. Each value
 * then goes through device memory P - 1 + P times for the pair instead of 2P (2^27: 5
 * passes of 4 GiB instead of 6). */
template <bool LAZY, bool NEG>
g16_status h_pair_fused_as(exec &x, const transform_io &inv, const transform_io &fwd)
{
    const ntt_plan pi = plan_make(inv.L, x.kmax);
    ntt_plan pf = pi;
    for (unsigned i = 0; i < pi.passes; i++)
        pf.k[i] = pi.k[pi.passes - 1 - i];
    g16_status st = passes_as<false, true, LAZY, false>(x, pi, 0, pi.passes - 1, inv);
    if (st != G16_OK)
        return st;
    const ntt_pass a = pass_make(false, x, pi, pi.passes - 1, inv);
    const ntt_pass b = pass_make(true, x, pf, 0, fwd);
    if (a.lo != 0 || b.lo != 0 || a.k != b.k || a.g != b.g)
        return status_fail(G16_ERR_INTERNAL, "cuda_h_poly: fused pass of unequal shapes");
    uint32_t *sm;
    if ((st = emulation_tile(x, &sm)) == G16_OK)
        st = launch_fused<LAZY, NEG>(x, a, b, a.k + a.g, sm);
    free(sm);
    if (st == G16_OK)
        st = exec_check(x);
    x.launches++;
    if (st != G16_OK)
        return st;
    return passes_as<true, false, LAZY, NEG>(x, pf, 1, pf.passes, fwd);
}

template <bool NEG>
g16_status h_pair_fused(exec &x, const transform_io &inv, const transform_io &fwd)
{
    return x.lazy ? h_pair_fused_as<true, NEG>(x, inv, fwd)
                  : h_pair_fused_as<false, NEG>(x, inv, fwd);
}

g16_status bit_reverse(exec &x, fr_d *data, unsigned L)
{
    if (L < 2)
        return G16_OK;
    const bool tiles = L >= 2 * BR_LOG;
    if (x.ctx && tiles)
        k_bitrev_tiles<<<1u << (L - 2 * BR_LOG), 1u << (2 * BR_LOG), 0, x.ctx->stream>>>(data,
                                                                                         L);
    else if (x.ctx)
        k_bitrev_small<<<1, 1u << L, 0, x.ctx->stream>>>(data, L);
    else if (tiles) {
        uint32_t ta[8 * BR_PLANE], tb[8 * BR_PLANE];
        for (uint32_t mid = 0; mid < (1u << (L - 2 * BR_LOG)); mid++) {
            if (!bitrev_tile_active(mid, L))
                continue;
            for (uint32_t t = 0; t < (1u << (2 * BR_LOG)); t++)
                bitrev_tile_load(data, L, mid, t, ta, tb);
            for (uint32_t t = 0; t < (1u << (2 * BR_LOG)); t++)
                bitrev_tile_store(data, L, mid, t, ta, tb);
        }
    } else {
        for (uint32_t i = 0; i < (1u << L); i++)
            bitrev_small(data, L, i);
    }
    x.launches++;
    return exec_check(x);
}

/* CUDA events ev[0..4] of the context mark the stages of a call when timing is asked. */
struct stage_marks {
    cuda_ctx *ctx;
    bool on;
    g16_status mark(int i)
    {
        if (on)
            CUDA_TRY(cudaEventRecord(ctx->ev[i], ctx->stream), G16_ERR_INTERNAL);
        return G16_OK;
    }
    double ms(int a, int b) const { return on ? cuda_elapsed_ms(ctx->ev[a], ctx->ev[b]) : 0; }
};

g16_status check_size(unsigned log2n, const char *what)
{
    if (log2n > CUDA_NTT_MAX_LOG2N)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "%s: domain 2^%u is larger than the supported 2^%u", what, log2n,
                           CUDA_NTT_MAX_LOG2N);
    return G16_OK;
}

void fr_inverse_of_n(fr_t *r, unsigned L)
{
    fr_from_u64(r, (uint64_t)1 << L);
    fr_inv(r, r);
}

/* A plain or coset transform, natural order in and out: DIF, then the bit reversal. */
g16_status ntt_run(exec &x, stage_marks &tm, cuda_ntt_kind kind, fr_d *data, unsigned L,
                   const void *shift, const void *scale)
{
    if ((unsigned)kind > CUDA_NTT_COSET_INVERSE)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_ntt: unknown kind %d", (int)kind);
    const bool coset = kind == CUDA_NTT_COSET_FORWARD || kind == CUDA_NTT_COSET_INVERSE;
    const bool inv = kind == CUDA_NTT_INVERSE || kind == CUDA_NTT_COSET_INVERSE;
    fr_t s, sc, one, c, g;
    fr_one(&s);
    fr_one(&sc);
    fr_one(&one);
    if (coset && shift)
        memcpy(&s, shift, sizeof s);
    if (kind == CUDA_NTT_COSET_INVERSE && scale)
        memcpy(&sc, scale, sizeof sc);
    if (fr_is_zero(&s))
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_ntt: coset shift is zero");
    g16_status st;
    const fr_d *tw = nullptr;
    factor_desc pre = {}, post = {};
    if ((st = tm.mark(0)) != G16_OK || (st = twiddles_get(x, L, &tw)) != G16_OK)
        return st;
    if (kind == CUDA_NTT_COSET_FORWARD) {
        st = factor_make(x, L, one, s, false, &pre);
    } else if (inv) {
        /* Coefficient j (at position bitrev(j) after the DIF) times scale s^-j / n. */
        fr_inverse_of_n(&c, L);
        fr_mul(&c, &c, &sc);
        fr_inv(&g, &s);
        st = factor_make(x, L, c, g, true, &post);
    }
    if (st != G16_OK || (st = tm.mark(1)) != G16_OK)
        return st;
    const transform_io io = {data, L, tw, L, pre, post, nullptr, nullptr, nullptr};
    st = inv ? transform<false, true>(x, io) : transform<false, false>(x, io);
    if (st != G16_OK || (st = tm.mark(2)) != G16_OK ||
        (st = bit_reverse(x, data, L)) != G16_OK || (st = tm.mark(3)) != G16_OK)
        return st;
    return G16_OK;
}

/* H's input i (0: a, 1: b, 2: c) fed from the host (cuda_h_poly_fed): its copy queued on
 * the copy stream (unless the caller staged it there already), the context's stream made
 * to wait for it. */
g16_status h_feed_input(exec &x, const cuda_h_feed *feed, fr_d *dev, int i, unsigned L)
{
    const int slot = CUDA_SLOT_H_A + i;
    g16_status st = feed->staged[i] ? G16_OK
                                    : cuda_ctx_upload_slot(x.ctx, slot, dev, feed->host[i],
                                                           sizeof(fr_d) << L);
    return st != G16_OK ? st : cuda_ctx_wait_slot(x.ctx, slot);
}

/* The marks around input i's fused pair when fed (H_MARK_FED + 2 i before it, after its
 * copy's wait; + 1 after it), so that the pairs' times leave the waits out. */
constexpr int H_MARK_FED = 8;

/* H: per input an inverse DIF and a forward DIT, the last one computing h = a b - c; the
 * classic convention then returns to coefficients with 1 / Z(s) folded into the factor.
 * snarkjs (s a 2n-th root of unity): 1/n on the inverse's stores (div_pow2) and the
 * negacyclic forward (pass_stage's NEG) from the table of 2^(L + 1), so the shift costs
 * n/2 products a transform instead of 2n (run 82's prediction: -4 to -5% of H); classic
 * (s = 7): s^j / n on the bit-reversed coefficients, two products each. feed: a, b and c
 * copied from the host on the copy stream (cuda_h_poly_fed), nullptr when they are on the
 * device already (the host emulation never feeds). */
g16_status h_run(exec &x, stage_marks &tm, fr_d *h, fr_d *a, fr_d *b, fr_d *c, unsigned L,
                 int convention, const cuda_h_feed *feed = nullptr)
{
    if (convention != H_POLY_SNARKJS && convention != H_POLY_CLASSIC)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_h_poly: unknown convention %d",
                           convention);
    fr_t shift, ninv, one;
    h_poly_shift(&shift, L, (h_poly_convention)convention);
    fr_inverse_of_n(&ninv, L);
    fr_one(&one);
    g16_status st;
    const bool neg = convention == H_POLY_SNARKJS && x.negacyclic;
    const unsigned tl = neg ? L + 1 : L;
    const fr_d *tw = nullptr;
    factor_desc none = {}, to_coset = {};
    if (neg && L > 0) {
        to_coset.mode = 3;
        to_coset.lo_bits = L;
    }
    fr_d *bufs[3] = {a, b, c};
    /* Fed but not fused: every input's copy before the first kernel (no overlap, the
     * marks' times the kernels' alone). */
    for (int i = 0; i < 3 && feed && !x.fuse; i++)
        if ((st = h_feed_input(x, feed, bufs[i], i, L)) != G16_OK)
            return st;
    if ((st = tm.mark(0)) != G16_OK || (st = twiddles_get(x, tl, &tw)) != G16_OK ||
        (!neg && (st = factor_make(x, L, ninv, shift, true, &to_coset)) != G16_OK) ||
        (st = tm.mark(1)) != G16_OK)
        return st;
    transform_io inv[3], fwd[3];
    for (int i = 0; i < 3; i++) {
        inv[i] = {bufs[i], L, tw, tl, none, to_coset, nullptr, nullptr, nullptr};
        fwd[i] = {bufs[i], L, tw, tl, none, none, nullptr, nullptr, nullptr};
    }
    fwd[2].fa = a, fwd[2].fb = b, fwd[2].fh = h;
    if (x.fuse) {
        /* Buffer by buffer (c's forward reads a's and b's results): the inverse and
         * forward stages' times are not apart, all of it counts as the forward's. */
        if ((st = tm.mark(2)) != G16_OK)
            return st;
        for (int i = 0; i < 3; i++) {
            if (feed && ((st = h_feed_input(x, feed, bufs[i], i, L)) != G16_OK ||
                         (st = tm.mark(H_MARK_FED + 2 * i)) != G16_OK))
                return st;
            if ((st = neg ? h_pair_fused<true>(x, inv[i], fwd[i])
                          : h_pair_fused<false>(x, inv[i], fwd[i])) != G16_OK)
                return st;
            if (feed && (st = tm.mark(H_MARK_FED + 2 * i + 1)) != G16_OK)
                return st;
        }
    } else {
        for (int i = 0; i < 3; i++)
            if ((st = transform<false, true>(x, inv[i])) != G16_OK)
                return st;
        if ((st = tm.mark(2)) != G16_OK)
            return st;
        for (int i = 0; i < 3; i++)
            if ((st = neg ? transform<true, false, true>(x, fwd[i])
                          : transform<true, false>(x, fwd[i])) != G16_OK)
                return st;
    }
    if ((st = tm.mark(3)) != G16_OK)
        return st;
    if (convention == H_POLY_CLASSIC) {
        /* Coefficient j times s^-j / (n Z(s)), Z(s) = s^n - 1 (nonzero: s = 7 generates
         * Fr^*). */
        fr_t zinv, sinv;
        uint64_t e[1] = {(uint64_t)1 << L};
        fr_pow(&zinv, &shift, e, 1);
        fr_sub(&zinv, &zinv, &one);
        if (!fr_inv(&zinv, &zinv))
            return status_fail(G16_ERR_INTERNAL, "cuda_h_poly: Z(g) = 0 on the coset");
        fr_mul(&zinv, &zinv, &ninv);
        fr_inv(&sinv, &shift);
        factor_desc back;
        if ((st = factor_make(x, L, zinv, sinv, true, &back)) != G16_OK ||
            (st = transform<false, true>(x, {h, L, tw, tl, none, back, nullptr, nullptr,
                                             nullptr})) != G16_OK ||
            (st = bit_reverse(x, h, L)) != G16_OK)
            return st;
    }
    return tm.mark(4);
}

/* A device execution on ctx (its cache created on first use). */
g16_status exec_device(exec &x, cuda_ctx *ctx, unsigned log2n, const char *what)
{
    x = exec{};
    if (!ctx)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: no CUDA context", what);
    g16_status st = check_size(log2n, what);
    if (st != G16_OK)
        return st;
    CUDA_TRY(cudaSetDevice(ctx->device), G16_ERR_INTERNAL);
    x.ctx = ctx;
    x.kmax = KMAX;
    x.tile_log = TILE_LOG;
    exec_knobs(x);
    ntt_cache *cache = (ntt_cache *)ctx->ntt_cache;
    if ((st = exec_cache_init(x, &cache)) != G16_OK)
        return st;
    ctx->ntt_cache = cache;
    ctx->ntt_cache_free = ntt_cache_release;
    return G16_OK;
}

/* A host emulation with its own cache (freed by the caller with ntt_cache_release). */
g16_status exec_host(exec &x, unsigned log2n, unsigned kmax, unsigned tile_log,
                     const char *what)
{
    x = exec{};
    g16_status st = check_size(log2n, what);
    if (st != G16_OK)
        return st;
    x.kmax = kmax ? kmax : KMAX;
    x.tile_log = tile_log ? tile_log : TILE_LOG;
    exec_knobs(x);
    if (x.kmax > x.tile_log || x.tile_log > 16)
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "%s: plan of %u stages per pass on tiles of 2^%u", what, x.kmax,
                           x.tile_log);
    ntt_cache *cache = nullptr;
    return exec_cache_init(x, &cache);
}

/* Waits for the last mark and fills what every call reports (stages: the caller). */
g16_status info_fill(cuda_ntt_info *info, const exec &x, const stage_marks &tm, unsigned L,
                     unsigned tl, int last)
{
    CUDA_TRY(cudaEventSynchronize(x.ctx->ev[last]), G16_ERR_INTERNAL);
    memset(info, 0, sizeof *info);
    info->log2n = L;
    info->passes = plan_make(L, x.kmax).passes;
    info->launches = x.launches;
    info->table_bytes = table_bytes(tl);
    info->ms_setup = tm.ms(0, 1);
    info->ms_total = tm.ms(0, last);
    return G16_OK;
}

/* Host <-> device copy on the context's stream, timed by ev[5], ev[6] when ms is set. */
g16_status copy_timed(cuda_ctx *ctx, void *dst, const void *src, size_t bytes,
                      cudaMemcpyKind dir, double *ms)
{
    if (ms)
        CUDA_TRY(cudaEventRecord(ctx->ev[5], ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, dir, ctx->stream), G16_ERR_INTERNAL);
    if (ms)
        CUDA_TRY(cudaEventRecord(ctx->ev[6], ctx->stream), G16_ERR_INTERNAL);
    CUDA_TRY(cudaStreamSynchronize(ctx->stream), G16_ERR_INTERNAL);
    if (ms)
        *ms += cuda_elapsed_ms(ctx->ev[5], ctx->ev[6]);
    return G16_OK;
}

} /* namespace */

extern "C" size_t cuda_ntt_table_bytes(unsigned log2n)
{
    return table_bytes(log2n);
}

extern "C" g16_status cuda_ntt_prepare(cuda_ctx *ctx, unsigned log2n)
{
    exec x;
    const fr_d *tw;
    g16_status st;
    if ((st = exec_device(x, ctx, log2n, "cuda_ntt_prepare")) != G16_OK ||
        (st = twiddles_get(x, log2n, &tw)) != G16_OK ||
        (st = twiddles_get(x, log2n + 1, &tw)) != G16_OK)
        return st;
    CUDA_TRY(cudaStreamSynchronize(ctx->stream), G16_ERR_INTERNAL);
    return G16_OK;
}

extern "C" g16_status cuda_ntt(cuda_ctx *ctx, cuda_ntt_kind kind, void *data_dev,
                               unsigned log2n, const void *shift, const void *scale,
                               cuda_ntt_info *info)
{
    exec x;
    g16_status st = exec_device(x, ctx, log2n, "cuda_ntt");
    if (st != G16_OK)
        return st;
    if (!data_dev)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_ntt: null data");
    stage_marks tm = {ctx, info != nullptr};
    if ((st = ntt_run(x, tm, kind, (fr_d *)data_dev, log2n, shift, scale)) != G16_OK)
        return st;
    if (info && (st = info_fill(info, x, tm, log2n, log2n, 3)) == G16_OK) {
        info->ms_ntt = tm.ms(1, 2);
        info->ms_bitrev = tm.ms(2, 3);
    }
    return st;
}

extern "C" g16_status cuda_h_poly(cuda_ctx *ctx, void *h_dev, void *a_dev, void *b_dev,
                                  void *c_dev, unsigned log2n, int convention,
                                  cuda_ntt_info *info)
{
    return cuda_h_poly_fed(ctx, h_dev, a_dev, b_dev, c_dev, log2n, convention, nullptr, info);
}

extern "C" g16_status cuda_h_poly_fed(cuda_ctx *ctx, void *h_dev, void *a_dev, void *b_dev,
                                      void *c_dev, unsigned log2n, int convention,
                                      const cuda_h_feed *feed, cuda_ntt_info *info)
{
    exec x;
    g16_status st = exec_device(x, ctx, log2n, feed ? "cuda_h_poly_fed" : "cuda_h_poly");
    if (st != G16_OK)
        return st;
    if (!h_dev || !a_dev || !b_dev || !c_dev ||
        (feed && ((!feed->host[0] && !feed->staged[0]) || (!feed->host[1] && !feed->staged[1]) ||
                  (!feed->host[2] && !feed->staged[2]))))
        return status_fail(G16_ERR_INVALID_ARGUMENT, "%s: null buffer",
                           feed ? "cuda_h_poly_fed" : "cuda_h_poly");
    stage_marks tm = {ctx, info != nullptr};
    if ((st = h_run(x, tm, (fr_d *)h_dev, (fr_d *)a_dev, (fr_d *)b_dev, (fr_d *)c_dev, log2n,
                    convention, feed)) != G16_OK ||
        (feed && feed->then && (st = feed->then(feed->then_arg)) != G16_OK))
        return st;
    const bool neg = convention == H_POLY_SNARKJS && x.negacyclic;
    if (info && (st = info_fill(info, x, tm, log2n, neg ? log2n + 1 : log2n, 4)) == G16_OK) {
        info->h_fused = x.fuse;
        info->ms_h_inverse = tm.ms(1, 2);
        info->ms_h_forward = tm.ms(2, 3);
        info->ms_h_final = tm.ms(3, 4);
        if (feed && x.fuse) { /* the pairs' own times: the waits for the copies left out */
            double pairs = 0;
            for (int i = 0; i < 3; i++)
                pairs += tm.ms(H_MARK_FED + 2 * i, H_MARK_FED + 2 * i + 1);
            info->ms_h_forward = pairs;
            info->ms_total = info->ms_setup + info->ms_h_inverse + pairs + info->ms_h_final;
        }
    }
    return st;
}

extern "C" g16_status cuda_ntt_host(cuda_ctx *ctx, cuda_ntt_kind kind, void *data_host,
                                    unsigned log2n, const void *shift, const void *scale,
                                    cuda_ntt_info *info)
{
    exec x;
    g16_status st = exec_device(x, ctx, log2n, "cuda_ntt_host");
    if (st != G16_OK)
        return st;
    if (!data_host)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_ntt_host: null data");
    const size_t bytes = sizeof(fr_d) << log2n;
    dev_buf<fr_d> d;
    double up = 0, down = 0;
    if ((st = d.alloc(ctx, (size_t)1 << log2n, "NTT data")) != G16_OK ||
        (st = copy_timed(ctx, d.p, data_host, bytes, cudaMemcpyHostToDevice,
                         info ? &up : nullptr)) != G16_OK ||
        (st = cuda_ntt(ctx, kind, d.p, log2n, shift, scale, info)) != G16_OK ||
        (st = copy_timed(ctx, data_host, d.p, bytes, cudaMemcpyDeviceToHost,
                         info ? &down : nullptr)) != G16_OK)
        return st;
    if (info) {
        info->ms_upload = up;
        info->ms_download = down;
    }
    return G16_OK;
}

extern "C" g16_status cuda_h_poly_host(cuda_ctx *ctx, void *h, void *a, void *b, void *c,
                                       unsigned log2n, int convention, cuda_ntt_info *info)
{
    exec x;
    g16_status st = exec_device(x, ctx, log2n, "cuda_h_poly_host");
    if (st != G16_OK)
        return st;
    if (!h || !a || !b || !c)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_h_poly_host: null array");
    const size_t n = (size_t)1 << log2n, bytes = n * sizeof(fr_d);
    dev_buf<fr_d> da, db, dc, dh;
    if ((st = da.alloc(ctx, n, "H input a")) != G16_OK ||
        (st = db.alloc(ctx, n, "H input b")) != G16_OK ||
        (st = dc.alloc(ctx, n, "H input c")) != G16_OK)
        return st;
    fr_d *hp = h == a ? da.p : h == b ? db.p : h == c ? dc.p : nullptr;
    if (!hp) {
        if ((st = dh.alloc(ctx, n, "H output")) != G16_OK)
            return st;
        CUDA_TRY(cudaMemsetAsync(dh.p, 0xa5, bytes, ctx->stream), G16_ERR_INTERNAL);
        hp = dh.p;
    }
    double up = 0, down = 0;
    double *pu = info ? &up : nullptr, *pd = info ? &down : nullptr;
    if ((st = copy_timed(ctx, da.p, a, bytes, cudaMemcpyHostToDevice, pu)) != G16_OK ||
        (st = copy_timed(ctx, db.p, b, bytes, cudaMemcpyHostToDevice, pu)) != G16_OK ||
        (st = copy_timed(ctx, dc.p, c, bytes, cudaMemcpyHostToDevice, pu)) != G16_OK ||
        (st = cuda_h_poly(ctx, hp, da.p, db.p, dc.p, log2n, convention, info)) != G16_OK ||
        (st = copy_timed(ctx, a, da.p, bytes, cudaMemcpyDeviceToHost, pd)) != G16_OK ||
        (st = copy_timed(ctx, b, db.p, bytes, cudaMemcpyDeviceToHost, pd)) != G16_OK ||
        (st = copy_timed(ctx, c, dc.p, bytes, cudaMemcpyDeviceToHost, pd)) != G16_OK)
        return st;
    if (dh.p && (st = copy_timed(ctx, h, dh.p, bytes, cudaMemcpyDeviceToHost, pd)) != G16_OK)
        return st;
    if (info) {
        info->ms_upload = up;
        info->ms_download = down;
    }
    return G16_OK;
}

extern "C" g16_status cuda_ntt_emulate(cuda_ntt_kind kind, void *data, unsigned log2n,
                                       const void *shift, const void *scale, unsigned kmax,
                                       unsigned tile_log)
{
    exec x;
    g16_status st = exec_host(x, log2n, kmax, tile_log, "cuda_ntt_emulate");
    if (st != G16_OK)
        return st;
    stage_marks tm = {nullptr, false};
    st = data ? ntt_run(x, tm, kind, (fr_d *)data, log2n, shift, scale)
              : status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_ntt_emulate: null data");
    ntt_cache_release(x.cache);
    return st;
}

extern "C" g16_status cuda_h_poly_emulate(void *h, void *a, void *b, void *c, unsigned log2n,
                                          int convention, unsigned kmax, unsigned tile_log)
{
    exec x;
    g16_status st = exec_host(x, log2n, kmax, tile_log, "cuda_h_poly_emulate");
    if (st != G16_OK)
        return st;
    stage_marks tm = {nullptr, false};
    st = h && a && b && c ? h_run(x, tm, (fr_d *)h, (fr_d *)a, (fr_d *)b, (fr_d *)c, log2n,
                                  convention)
                          : status_fail(G16_ERR_INVALID_ARGUMENT, "cuda_h_poly_emulate: null array");
    ntt_cache_release(x.cache);
    return st;
}
