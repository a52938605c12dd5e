/* The batch-affine MSM's window sort: a window's digits grouped by bucket (included by
 * cuda_msm.cu inside its anonymous namespace, before msm_batch_affine.cuh, whose device
 * executor calls bucket_sort).
 *
 * What the rounds need: the m digits of a window (key: the bucket, at most nb = 2^(c-1),
 * nb for a zero digit; value: the point) grouped by bucket, and each bucket's run
 * [start, end). The order inside a run is free: the rounds add a run's points in any
 * order, and the sums are the same group elements. CUB's radix sort kept an order nobody
 * used, in 3 passes of 8 bits over the keys' c = 22 bits (~52 bytes a digit with its
 * histogram), and ba_bounds found the runs in a pass of its own. This sort makes two
 * passes, most significant bits first, and finds the runs on the way:
 *   k_bs_digits    makes the window's digits (the caller's body: ba_digits) and counts
 *                  their keys' top bits on the way: segment key >> L, L = c - BS_TOP - 1,
 *                  so that every key (<= nb) lands in one of BS_SEGMENTS = 2^BS_TOP + 1
 *                  segments (the last holds the zero digits alone);
 *   k_bs_plan      one block: the segments' starts, and the segments longer than
 *                  the chunk (pass 2's most digits a block) cut into chunks for
 *                  the k_bs_multi_* kernels;
 *   k_bs_spread    pass 1: a tile of digits to their segments, the tile's places in a
 *                  segment reserved by one atomic a segment, ranks within the tile from
 *                  shared-memory atomics (bs_take), the tile grouped by segment in shared
 *                  memory and written out in runs;
 *   k_bs_solo      pass 2 for a segment of at most a chunk of digits, one block: counts
 *                  the keys' low L bits in shared memory, scans them into the buckets'
 *                  bounds, then scatters the digits within the segment;
 *   k_bs_multi_*   pass 2 for a longer segment (scalars that repeat put a window's digits
 *                  in one bucket) over several blocks: counts, bounds and places through
 *                  global atomics on its buckets.
 * Bytes a digit: 16 (pass 1) + 16 (pass 2: keys read twice, three times for a segment
 * cut into chunks, values once, values written; keys written only for a caller that
 * reads them) against CUB's ~52 and ba_bounds' 4 (bench/NOTES.md, session 31).
 * Scratch: 4 bytes a digit (pass 1's values; its keys go to the caller's spare key
 * buffer) against CUB's 8.
 * Pass 2's chunk: a block takes at most 2^14 digits (G16_GPU_MSM_SORT_CHUNK), so a
 * window's 2^17-digit segments (2^27 digits of 22 bits) go 8 blocks a segment side by
 * side and ~33 segments' 512 KB of scatter targets are open at once, where a block a
 * segment (2^19, sessions 31-33) had 264 open, 135 MB against a 50 MB L2 (run 99).
 * Measured (H100, runs 100-101, G2 dense 2^26's in-line sort of one such window): CUB's
 * path 4.8 ms, ours 6.5 (6.9 at 2^15, 10.0 with a block a segment); a window's kernels at
 * 2^15: digits 1.2, pass 1 1.7, pass 2 ~3.9, which still reads 2.4 GB and writes 1.4 GB
 * where it needs 2.2 and 0.5: its 4-byte scatter leaves partial sectors. Off by default
 * (ba_own_sort_use); bench/NOTES.md, session 34, has the profile and what is left. */

enum {
    BS_TOP = 10,                        /* a segment: the key's bits from L up, at most 2^10 */
    BS_SEGMENTS = (1 << BS_TOP) + 1,    /* segments 0..2^10; 2^10 holds only key nb */
    BS_CHUNK_LOG2 = 14,                 /* default: the most digits one block takes in pass 2 */
    BS_CHUNK_MIN_LOG2 = 12,             /* the range of G16_GPU_MSM_SORT_CHUNK (ba_tuning) */
    BS_CHUNK_MAX_LOG2 = 20,
    BS_THREADS = 512,                   /* every kernel's block but k_bs_plan's */
    BS_ITEMS = 8,                       /* digits a thread loads at once (loads in flight) */
    BS_TILE = BS_THREADS * BS_ITEMS,    /* pass 2's digits a block's loop step */
    BS_MIN_C = BS_TOP + 2,              /* pass 2 sorts at least one bit */
    BS_MAX_C = BS_TOP + 1 + 13,         /* pass 2's counters, 2^13 of them, fit in 32 KB */
};

/* Pass 1's block shapes (threads x digits a thread; G16_GPU_MSM_SORT_SPREAD, ba_tuning's
 * sort_spread, picks one for the benchmarks; the tests check each): a larger tile writes
 * longer runs, a smaller one needs fewer registers and leaves room for two blocks an SM. */
enum bs_spread_shape { BS_SPREAD_512x16, BS_SPREAD_1024x8, BS_SPREAD_512x8, BS_SPREAD_SHAPES };

/* The segments and pass 2's chunks, on the device. */
struct bs_plan {
    uint32_t count[BS_SEGMENTS];      /* k_bs_digits' digits a segment */
    uint32_t start[BS_SEGMENTS + 1];  /* k_bs_plan's: segment g at [start[g], start[g + 1]) */
    uint32_t cursor[BS_SEGMENTS];     /* pass 1's next free place in each segment */
    uint32_t chunk;                   /* pass 2's most digits a block (k_bs_plan's copy) */
    uint32_t chunks;                  /* chunks of the segments longer than that */
};

/* The low bits that order the digits within a segment. */
__host__ __device__ constexpr unsigned bs_low_bits(unsigned c)
{
    return c - BS_TOP - 1;
}

/* Shared-memory counters: one more digit in bin `bin` of cnt, counted (bs_count) or
 * counted and ranked (bs_take: the digit's place among the bin's digits counted so far).
 * Plain atomics, not a warp's equal bins aggregated first (__match_any_sync, session 31):
 * random keys almost never share a bin within a warp, so the match bought nothing on
 * them, and a warp whose lanes all hit one counter (a window whose digits repeat) costs
 * ~32 replays of one instruction: by estimate ~1-2 ms for a 2^27-digit window whose keys
 * are all one (bench/NOTES.md, session 33; not measured). */
__device__ __forceinline__ void bs_count(uint32_t *cnt, uint32_t bin)
{
    atomicAdd(&cnt[bin], 1u);
}

__device__ __forceinline__ uint32_t bs_take(uint32_t *cnt, uint32_t bin)
{
    return atomicAdd(&cnt[bin], 1u);
}

/* Thread j's digits (body.keys_of(j, k): the entries it writes, their keys in k) for
 * j < n, their segments counted: each block's counts in shared memory, then added to
 * the plan's (zeroed before) once a segment. */
template <class Digits>
__global__ void __launch_bounds__(BS_THREADS) k_bs_digits(bs_plan *plan, Digits body, uint32_t n,
                                                           unsigned L)
{
    __shared__ uint32_t cnt[BS_SEGMENTS];
    for (uint32_t g = threadIdx.x; g < BS_SEGMENTS; g += BS_THREADS)
        cnt[g] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * BS_THREADS;
    for (size_t at = (size_t)blockIdx.x * BS_THREADS; at < n; at += stride) {
        const size_t j = at + threadIdx.x;
        uint32_t k[2] = {0, 0};
        const unsigned made = j < n ? body.keys_of((uint32_t)j, k) : 0;
        if (made > 0)
            bs_count(cnt, k[0] >> L);
        if (made > 1)
            bs_count(cnt, k[1] >> L);
    }
    __syncthreads();
    for (uint32_t g = threadIdx.x; g < BS_SEGMENTS; g += BS_THREADS)
        if (cnt[g])
            atomicAdd(&plan->count[g], cnt[g]);
}

/* The segments' starts (and pass 1's cursors), and the chunks of the long segments:
 * chunk q covers [chunk_begin[q], min(chunk_begin[q] + chunk, the segment's end)) of
 * segment chunk_seg[q]. One block of 1024 threads, two segments a thread. */
__global__ void __launch_bounds__(1024) k_bs_plan(bs_plan *plan, uint32_t *chunk_seg,
                                                   uint32_t *chunk_begin, uint32_t chunk)
{
    typedef cub::BlockScan<uint32_t, 1024> scan;
    __shared__ typename scan::TempStorage tmp;
    const uint32_t g0 = 2 * threadIdx.x, g1 = g0 + 1;
    const uint32_t n0 = g0 < BS_SEGMENTS ? plan->count[g0] : 0;
    const uint32_t n1 = g1 < BS_SEGMENTS ? plan->count[g1] : 0;
    uint32_t at, total;
    scan(tmp).ExclusiveSum(n0 + n1, at, total);
    if (g0 < BS_SEGMENTS)
        plan->start[g0] = plan->cursor[g0] = at;
    if (g1 < BS_SEGMENTS)
        plan->start[g1] = plan->cursor[g1] = at + n0;
    if (threadIdx.x == 0)
        plan->start[BS_SEGMENTS] = total;
    const uint32_t c0 = n0 > chunk ? (n0 + chunk - 1) / chunk : 0;
    const uint32_t c1 = n1 > chunk ? (n1 + chunk - 1) / chunk : 0;
    uint32_t q, chunks;
    __syncthreads(); /* tmp again */
    scan(tmp).ExclusiveSum(c0 + c1, q, chunks);
    for (uint32_t k = 0; k < c0; k++, q++) {
        chunk_seg[q] = g0;
        chunk_begin[q] = at + k * chunk;
    }
    for (uint32_t k = 0; k < c1; k++, q++) {
        chunk_seg[q] = g1;
        chunk_begin[q] = at + n0 + k * chunk;
    }
    if (threadIdx.x == 0) {
        plan->chunk = chunk;
        plan->chunks = chunks;
    }
}

/* Pass 1: tile blockIdx.x's digits to their segments (keys_out, vals_out), in no
 * particular order within a segment. The tile is grouped by segment in shared memory
 * first and then written in that order, so that a warp's 32 stores go to a few runs of
 * consecutive places (~TILE / BS_SEGMENTS digits a segment and tile)
 * rather than to 32 places in 32 segments, as session 31's pass 1 did (run 97 timed that
 * sort at three times CUB's, whose passes write runs this way; run 98 this one at 2.4x). */
template <unsigned THREADS, unsigned ITEMS, unsigned MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    k_bs_spread(uint32_t *keys_out, uint32_t *vals_out, bs_plan *plan, const uint32_t *keys,
                const uint32_t *vals, uint32_t m, unsigned L)
{
    typedef cub::BlockScan<uint32_t, THREADS> scan;
    enum { PER = (BS_SEGMENTS + THREADS - 1) / THREADS, /* segments a thread scans */
           TILE = THREADS * ITEMS };
    __shared__ typename scan::TempStorage tmp;
    __shared__ uint32_t cnt[BS_SEGMENTS];   /* the tile's digits a segment, then its first place */
    __shared__ uint32_t shift[BS_SEGMENTS]; /* a segment's place in keys_out minus in stage,
                                             * mod 2^32 (added back to a stage place) */
    __shared__ uint32_t stage[TILE];
    for (uint32_t g = threadIdx.x; g < BS_SEGMENTS; g += THREADS)
        cnt[g] = 0;
    __syncthreads();
    const size_t tile = (size_t)blockIdx.x * TILE;
    const uint32_t n = m - tile < TILE ? (uint32_t)(m - tile) : TILE;
    /* The values are loaded only when they are staged: fewer registers (two blocks an SM). */
    uint32_t key[ITEMS], val[ITEMS], at[ITEMS], to[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const uint32_t i = j * THREADS + threadIdx.x;
        at[j] = to[j] = 0;
        key[j] = i < n ? __ldcs(&keys[tile + i]) : 0;
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        if (j * THREADS + threadIdx.x < n)
            at[j] = bs_take(cnt, key[j] >> L);
    __syncthreads();
    /* Each segment's first place in stage (a scan of the counts) and in the output (one
     * atomic on its cursor a segment the tile holds). */
    uint32_t c[PER], first[PER];
#pragma unroll
    for (int q = 0; q < PER; q++) {
        const uint32_t g = threadIdx.x * PER + q;
        c[q] = g < BS_SEGMENTS ? cnt[g] : 0;
    }
    scan(tmp).ExclusiveSum(c, first);
#pragma unroll
    for (int q = 0; q < PER; q++) {
        const uint32_t g = threadIdx.x * PER + q;
        if (g < BS_SEGMENTS) {
            cnt[g] = first[q];
            shift[g] = c[q] ? atomicAdd(&plan->cursor[g], c[q]) - first[q] : 0;
        }
    }
    __syncthreads();
    /* The keys grouped in stage, then written out run by run; then the values the same
     * way (stage holds one of them at a time: 32 KB). */
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        if (j * THREADS + threadIdx.x < n) {
            at[j] += cnt[key[j] >> L];
            stage[at[j]] = key[j];
        }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const uint32_t i = j * THREADS + threadIdx.x;
        if (i < n) {
            const uint32_t k = stage[i];
            to[j] = i + shift[k >> L]; /* where stage[i] goes */
            keys_out[to[j]] = k;
        }
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const uint32_t i = j * THREADS + threadIdx.x;
        val[j] = i < n ? __ldcs(&vals[tile + i]) : 0;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        if (j * THREADS + threadIdx.x < n)
            stage[at[j]] = val[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const uint32_t i = j * THREADS + threadIdx.x;
        if (i < n)
            vals_out[to[j]] = stage[i];
    }
}

/* k_bs_spread over m digits, a block a tile of THREADS x ITEMS. */
template <unsigned THREADS, unsigned ITEMS, unsigned MIN_BLOCKS>
void bs_spread_launch(cudaStream_t st, uint32_t *keys_out, uint32_t *vals_out, bs_plan *plan,
                      const uint32_t *keys, const uint32_t *vals, uint32_t m, unsigned L)
{
    k_bs_spread<THREADS, ITEMS, MIN_BLOCKS>
        <<<blocks_for(m, THREADS * ITEMS), THREADS, 0, st>>>(keys_out, vals_out, plan, keys, vals, m, L);
}

/* Counts the low L bits of keys [b, e) into cnt (shared, 2^L bins, zeroed by the caller),
 * the loop the same for every thread of the block. */
__device__ void bs_count_range(uint32_t *cnt, const uint32_t *keys, uint32_t b, uint32_t e,
                               uint32_t mask)
{
    for (uint32_t p = b; p < e; p += BS_TILE) {
        uint32_t key[BS_ITEMS];
#pragma unroll
        for (int j = 0; j < BS_ITEMS; j++) {
            uint32_t i = p + j * BS_THREADS + threadIdx.x;
            key[j] = i < e ? __ldcs(&keys[i]) : 0;
        }
#pragma unroll
        for (int j = 0; j < BS_ITEMS; j++)
            if (p + j * BS_THREADS + threadIdx.x < e)
                bs_count(cnt, key[j] & mask);
    }
}

/* Digits [b, e) of pass 1's output to their places: a digit of low bits k goes to
 * cnt[k], which then moves on (cnt: shared, each bin's next place). */
__device__ void bs_scatter_range(uint32_t *vals_out, uint32_t *keys_out, uint32_t *cnt,
                                 const uint32_t *keys, const uint32_t *vals, uint32_t b,
                                 uint32_t e, uint32_t mask)
{
    for (uint32_t p = b; p < e; p += BS_TILE) {
        uint32_t key[BS_ITEMS], val[BS_ITEMS];
#pragma unroll
        for (int j = 0; j < BS_ITEMS; j++) {
            uint32_t i = p + j * BS_THREADS + threadIdx.x;
            key[j] = i < e ? __ldcs(&keys[i]) : 0;
            val[j] = i < e ? __ldcs(&vals[i]) : 0;
        }
#pragma unroll
        for (int j = 0; j < BS_ITEMS; j++) {
            if (p + j * BS_THREADS + threadIdx.x < e) {
                uint32_t at = bs_take(cnt, key[j] & mask);
                vals_out[at] = val[j];
                if (keys_out)
                    keys_out[at] = key[j];
            }
        }
    }
}

/* Segment g's buckets from their counts: an exclusive scan of the 2^L counts (read by
 * count(k)), each non-empty bucket's bounds written (start[key] = base + its first place,
 * end[key] past its last; keys from nb on are the zero digits, which have none), and
 * each bin's first place (seg_b + its offset) handed to put(k, place). */
template <class Count, class Put>
__device__ void bs_bounds(uint32_t *start, uint32_t *end, uint32_t g, uint32_t seg_b,
                          unsigned L, uint32_t nb, uint32_t base, Count count, Put put)
{
    typedef cub::BlockScan<uint32_t, BS_THREADS> scan;
    __shared__ typename scan::TempStorage tmp;
    const uint32_t bins = 1u << L, per = (bins + BS_THREADS - 1) / BS_THREADS;
    const uint32_t k0 = threadIdx.x * per < bins ? threadIdx.x * per : bins;
    const uint32_t k1 = k0 + per < bins ? k0 + per : bins;
    uint32_t mine = 0, off;
    for (uint32_t k = k0; k < k1; k++)
        mine += count(k);
    scan(tmp).ExclusiveSum(mine, off);
    for (uint32_t k = k0; k < k1; k++) {
        uint32_t n = count(k), key = (g << L) | k;
        if (n && key < nb) {
            start[key] = base + seg_b + off;
            end[key] = base + seg_b + off + n;
        }
        put(k, seg_b + off);
        off += n;
    }
}

/* Pass 2 for the segments of at most plan->chunk digits, a block each (blockIdx.x = the
 * segment; the others' blocks leave at once). The zero digits' segment is passed over
 * when the caller reads no keys: its values are never read. */
__global__ void __launch_bounds__(BS_THREADS, 2)
    k_bs_solo(uint32_t *vals_out, uint32_t *keys_out, uint32_t *start, uint32_t *end,
              const bs_plan *plan, const uint32_t *keys, const uint32_t *vals, unsigned L,
              uint32_t nb, uint32_t base)
{
    extern __shared__ uint32_t cnt[];
    const uint32_t g = blockIdx.x, b = plan->start[g], e = plan->start[g + 1];
    if (e == b || e - b > plan->chunk || (g == BS_SEGMENTS - 1 && !keys_out))
        return;
    const uint32_t bins = 1u << L, mask = bins - 1;
    for (uint32_t k = threadIdx.x; k < bins; k += BS_THREADS)
        cnt[k] = 0;
    __syncthreads();
    bs_count_range(cnt, keys, b, e, mask);
    __syncthreads();
    bs_bounds(start, end, g, b, L, nb, base, [&](uint32_t k) { return cnt[k]; },
              [&](uint32_t k, uint32_t at) { cnt[k] = at; });
    __syncthreads();
    bs_scatter_range(vals_out, keys_out, cnt, keys, vals, b, e, mask);
}

/* Pass 2 for the longer segments, steps 1 and 3: chunk blockIdx.x's digits [*b, *e)
 * counted by their low bits into cnt (shared) and the counts added to its segment's
 * buckets' counters (gcnt: a counter a key); with reserve (step 3, the counters then
 * each bucket's next free place), cnt[k] keeps the place reserved for the chunk's
 * digits of bucket k. False, for the whole block, for a chunk past the plan's or in the
 * zero digits' segment when no keys are wanted. */
__device__ bool bs_chunk_counts(uint32_t *cnt, uint32_t *gcnt, uint32_t *b, uint32_t *e,
                                const bs_plan *plan, const uint32_t *chunk_seg,
                                const uint32_t *chunk_begin, const uint32_t *keys, unsigned L,
                                bool keys_wanted, bool reserve)
{
    const uint32_t q = blockIdx.x;
    if (q >= plan->chunks)
        return false;
    const uint32_t g = chunk_seg[q], se = plan->start[g + 1];
    if (g == BS_SEGMENTS - 1 && !keys_wanted)
        return false;
    *b = chunk_begin[q];
    *e = se - *b > plan->chunk ? *b + plan->chunk : se;
    const uint32_t bins = 1u << L;
    for (uint32_t k = threadIdx.x; k < bins; k += BS_THREADS)
        cnt[k] = 0;
    __syncthreads();
    bs_count_range(cnt, keys, *b, *e, bins - 1);
    __syncthreads();
    for (uint32_t k = threadIdx.x; k < bins; k += BS_THREADS)
        if (cnt[k]) {
            uint32_t was = atomicAdd(&gcnt[(g << L) | k], cnt[k]);
            if (reserve)
                cnt[k] = was;
        }
    return true;
}

/* Step 1: the long segments' bucket counts (gcnt zeroed before). */
__global__ void __launch_bounds__(BS_THREADS, 2)
    k_bs_multi_count(uint32_t *gcnt, const bs_plan *plan, const uint32_t *chunk_seg,
                     const uint32_t *chunk_begin, const uint32_t *keys, unsigned L,
                     uint32_t keys_wanted)
{
    extern __shared__ uint32_t cnt[];
    uint32_t b, e;
    bs_chunk_counts(cnt, gcnt, &b, &e, plan, chunk_seg, chunk_begin, keys, L, keys_wanted, false);
}

/* Step 2: segment blockIdx.x's buckets' bounds from their counters, if it is long; each
 * counter becomes its bucket's next free place. */
__global__ void __launch_bounds__(BS_THREADS)
    k_bs_multi_bounds(uint32_t *gcnt, uint32_t *start, uint32_t *end, const bs_plan *plan,
                      unsigned L, uint32_t nb, uint32_t base, uint32_t keys_wanted)
{
    const uint32_t g = blockIdx.x, b = plan->start[g], e = plan->start[g + 1];
    if (e - b <= plan->chunk || (g == BS_SEGMENTS - 1 && !keys_wanted))
        return;
    uint32_t *c = gcnt + ((size_t)g << L);
    bs_bounds(start, end, g, b, L, nb, base, [&](uint32_t k) { return c[k]; },
              [&](uint32_t k, uint32_t at) { c[k] = at; });
}

/* Step 3: chunk blockIdx.x counted again, its places in each bucket reserved by one
 * atomic a bucket, then its digits scattered. */
__global__ void __launch_bounds__(BS_THREADS, 2)
    k_bs_multi_scatter(uint32_t *vals_out, uint32_t *keys_out, uint32_t *gcnt,
                       const bs_plan *plan, const uint32_t *chunk_seg,
                       const uint32_t *chunk_begin, const uint32_t *keys, const uint32_t *vals,
                       unsigned L)
{
    extern __shared__ uint32_t cnt[];
    uint32_t b, e;
    if (!bs_chunk_counts(cnt, gcnt, &b, &e, plan, chunk_seg, chunk_begin, keys, L,
                         keys_out != nullptr, true))
        return;
    __syncthreads();
    bs_scatter_range(vals_out, keys_out, cnt, keys, vals, b, e, (1u << L) - 1);
}

/* The sort's scratch for windows of up to m digits of c bits. */
struct bs_bufs {
    dev_buf<uint32_t> vals;            /* pass 1's values */
    dev_buf<uint32_t> gcnt;            /* the long segments' bucket counters */
    dev_buf<uint32_t> chunk_seg, chunk_begin;
    dev_buf<bs_plan> plan;
    uint32_t max_chunks = 0;
    unsigned c = 0;
    unsigned spread = BS_SPREAD_512x16; /* pass 1's shape */
    uint32_t chunk = 1u << BS_CHUNK_LOG2; /* pass 2's most digits a block */

    /* chunk_log2: pass 2's chunk, BS_CHUNK_MIN_LOG2 to BS_CHUNK_MAX_LOG2 (anything else,
     * 0 among them, the default). */
    g16_status alloc(cuda_ctx *ctx, uint32_t m, unsigned c_, unsigned spread_ = BS_SPREAD_512x16,
                     unsigned chunk_log2 = BS_CHUNK_LOG2)
    {
        c = c_;
        spread = spread_;
        if (chunk_log2 < BS_CHUNK_MIN_LOG2 || chunk_log2 > BS_CHUNK_MAX_LOG2)
            chunk_log2 = BS_CHUNK_LOG2;
        chunk = 1u << chunk_log2;
        /* Long segments hold more than a chunk of digits each, so ceil(n / chunk) <
         * 2 n / chunk chunks a segment. */
        max_chunks = (uint32_t)(2 * (size_t)m / chunk + 1);
        g16_status s;
        if ((s = vals.alloc(ctx, m, "MSM sort values (pass 1)")) ||
            (s = gcnt.alloc(ctx, (size_t)BS_SEGMENTS << bs_low_bits(c), "MSM sort bucket counters")) ||
            (s = chunk_seg.alloc(ctx, max_chunks, "MSM sort chunks")) ||
            (s = chunk_begin.alloc(ctx, max_chunks, "MSM sort chunks")) ||
            (s = plan.alloc(ctx, 1, "MSM sort plan")))
            return s;
        return G16_OK;
    }
};

/* Window digits (keys_in, vals_in: m of them, keys of c bits, BS_MIN_C <= c <= BS_MAX_C,
 * the scratch made for at least m digits of c bits) grouped by bucket into vals_out, the
 * keys too into keys_out when not null (it may be keys_in); each non-empty bucket k < nb's
 * run at [start[k], end[k]) of vals_out plus base (the others left as they were).
 * keys_mid: m keys of scratch (pass 1's). The keys were made, and their segments
 * counted, by bucket_digits. */
g16_status bucket_sort(cudaStream_t st, bs_bufs &bs, const uint32_t *keys_in, const uint32_t *vals_in,
                       uint32_t *keys_mid, uint32_t *keys_out, uint32_t *vals_out, uint32_t *start,
                       uint32_t *end, uint32_t m, unsigned c, uint32_t base)
{
    if (m == 0)
        return G16_OK;
    if (c != bs.c || m > bs.vals.count || c < BS_MIN_C || c > BS_MAX_C)
        return status_fail(G16_ERR_INTERNAL, "GPU MSM: bucket sort of %u digits of %u bits "
                                             "with scratch for %zu of %u", m, c, bs.vals.count, bs.c);
    const unsigned L = bs_low_bits(c);
    const uint32_t nb = 1u << (c - 1), wanted = keys_out != nullptr;
    const size_t smem = sizeof(uint32_t) << L;
    CUDA_TRY(cudaMemsetAsync(bs.gcnt.p, 0, bs.gcnt.count * sizeof(uint32_t), st), G16_ERR_INTERNAL);
    k_bs_plan<<<1, 1024, 0, st>>>(bs.plan.p, bs.chunk_seg.p, bs.chunk_begin.p, bs.chunk);
    switch (bs.spread) {
    case BS_SPREAD_1024x8:
        bs_spread_launch<1024, 8, 1>(st, keys_mid, bs.vals.p, bs.plan.p, keys_in, vals_in, m, L);
        break;
    case BS_SPREAD_512x8:
        bs_spread_launch<512, 8, 2>(st, keys_mid, bs.vals.p, bs.plan.p, keys_in, vals_in, m, L);
        break;
    default:
        bs_spread_launch<512, 16, 1>(st, keys_mid, bs.vals.p, bs.plan.p, keys_in, vals_in, m, L);
        break;
    }
    k_bs_solo<<<BS_SEGMENTS, BS_THREADS, smem, st>>>(vals_out, keys_out, start, end, bs.plan.p,
                                                     keys_mid, bs.vals.p, L, nb, base);
    k_bs_multi_count<<<bs.max_chunks, BS_THREADS, smem, st>>>(bs.gcnt.p, bs.plan.p, bs.chunk_seg.p,
                                                              bs.chunk_begin.p, keys_mid, L, wanted);
    k_bs_multi_bounds<<<BS_SEGMENTS, BS_THREADS, 0, st>>>(bs.gcnt.p, start, end, bs.plan.p, L, nb,
                                                          base, wanted);
    k_bs_multi_scatter<<<bs.max_chunks, BS_THREADS, smem, st>>>(vals_out, keys_out, bs.gcnt.p,
                                                                bs.plan.p, bs.chunk_seg.p,
                                                                bs.chunk_begin.p, keys_mid,
                                                                bs.vals.p, L);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    return G16_OK;
}

/* Threads j < n of body (Digits: keys_of(j, k) writes thread j's digits and returns how
 * many, their keys in k), the scratch's plan zeroed and their segments counted for the
 * bucket_sort of those keys (the keys are not read again to count). */
template <class Digits>
g16_status bucket_digits(cudaStream_t st, bs_bufs &bs, const Digits &body, uint32_t n)
{
    CUDA_TRY(cudaMemsetAsync(bs.plan.p, 0, sizeof(bs_plan), st), G16_ERR_INTERNAL);
    if (n == 0)
        return G16_OK;
    const unsigned blocks = blocks_for(n, BS_THREADS) < 1024 ? blocks_for(n, BS_THREADS) : 1024;
    k_bs_digits<Digits><<<blocks, BS_THREADS, 0, st>>>(bs.plan.p, body, n, bs_low_bits(bs.c));
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    return G16_OK;
}
