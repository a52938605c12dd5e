/* Batch-affine bucket accumulation for the GPU MSM (included by cuda_msm.cu inside its
 * anonymous namespace: it uses that file's scalar_d, k_digits, k_bounds, load_affine and
 * blocks_for).
 *
 * Why: the XYZZ accumulation (k_accumulate) pays a mixed addition per point, 8 products
 * and 2 squarings plus ~7 additions; an affine addition P + Q = (l^2 - x1 - x2,
 * l (x1 - x3) - y1) with l = (y2 - y1) / (x2 - x1) costs 3 products once the inverse of
 * x2 - x1 is known, and Montgomery's trick turns n inversions into 3 (n - 1) products and
 * one inversion. So ~6 products an addition instead of ~10.
 *
 * How: the windows go through in groups (all of them for small MSMs, one at a time for
 * the largest: ba_group), each group's digits sorted just before its rounds, its windows'
 * buckets numbered one after the other as one set of buckets.
 *   round: every bucket's run of points is cut into adjacent pairs; each pair's sum goes
 *          to the next round's run of that bucket (an odd run's last point is copied
 *          along), so every round halves the runs. Pairs are numbered across buckets by a
 *          prefix sum of the run lengths; a thread finds its first pair's bucket by a
 *          search, its next ones by stepping forward (ba_bucket).
 *          Per chunk of pairs:
 *            k_ba_denominators  each thread's running product of its pairs'
 *                               denominators x2 - x1 (K pairs a thread, K from the
 *                               chunk's size; a warp takes 32 K adjacent pairs, so loads
 *                               coalesce), and every pair's points and destination;
 *            batch_inverse      the inverses of the threads' products: the same trick
 *                               again by levels, the last few hundred values inverted by
 *                               the CPU (a Fermat chain in one GPU thread takes ~0.5 ms);
 *            k_ba_add           walks back through the thread's pairs: each pair's
 *                               inverse from the running products, then its sum.
 *   finish: when no run is longer than `tail` points, one thread per bucket sums what is
 *          left into an XYZZ bucket (k_ba_finish), ready for the usual reduction.
 * Round 0 reads the bases through the sorted (index | sign) list; later rounds read the
 * previous round's sums. Special pairs (a point at infinity, equal x) get denominator 1 and
 * are summed by affine_add_with_inverse's own cases. G1's kernels load the next pair's
 * points while they compute on the current one (a round is bound by load latency, not
 * by products); G2's have no registers to spare for that.
 *
 * Memory: two ping-pong point buffers (half and a quarter of the group's points, plus a
 * point per bucket for odd runs), a field element and 8 bytes per pair of a chunk, the
 * group's sorted lists and bucket bounds. */
#ifndef G16_BACKEND_CUDA_MSM_BATCH_AFFINE_CUH
#define G16_BACKEND_CUDA_MSM_BATCH_AFFINE_CUH

/* Pairs per thread: at most BA_MAX_PAIRS_PER_THREAD, fewer when a chunk has too few
 * pairs to give BA_TARGET_THREADS threads work (late rounds, small MSMs). The batch
 * inversion's levels multiply BA_LEVEL_GROUP values a thread (4 below 2^16 values, whose
 * levels are latency-bound) until at most BA_HOST_INVERSES are left for the CPU. */
enum {
    BA_MAX_PAIRS_PER_THREAD = 16,
    BA_TARGET_THREADS = 1 << 19,
    BA_LEVEL_GROUP = 16,
    BA_HOST_INVERSES = 256,
};

/* Whether a field's round kernels load the next pair ahead (G1: registers to spare). */
template <class F>
struct ba_prefetch {
    static constexpr bool value = sizeof(F) <= 48;
};

/* Where a round's points come from: the bases through a window's sorted list (round 0) or
 * the previous round's sums. */
template <class F>
struct ba_source {
    const affine_d<F> *bases;
    const uint32_t *refs; /* index | sign bit; null after round 0 */
    const affine_d<F> *pts;

    __device__ __forceinline__ affine_d<F> load(uint32_t p) const
    {
        if (!refs)
            return load_affine(&pts[p]);
        uint32_t v = refs[p];
        affine_d<F> a = load_affine(&bases[v & 0x7fffffffu]);
        return v >> 31 ? affine_neg(a) : a;
    }
};

/* A bucket's run [s, e): its pairs (low 32 bits) and whether one point is left over
 * (high 32 bits), so that one exclusive prefix sum gives both the first pair of a bucket
 * and (low + high) its first point in the next round. */
__global__ void k_ba_count(unsigned long long *count, uint32_t *longest, const uint32_t *s,
                           const uint32_t *e, uint32_t nb)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nb)
        return;
    uint32_t len = e[b] - s[b];
    count[b] = ((unsigned long long)(len & 1) << 32) | (len >> 1);
    if (len > 1)
        atomicMax(longest, len);
}

/* The next round's run of each bucket, and its leftover point copied to the run's end. */
template <class F>
__global__ void k_ba_carry(affine_d<F> *out, uint32_t *s_next, uint32_t *e_next,
                           const unsigned long long *first, const uint32_t *s,
                           const uint32_t *e, ba_source<F> src, uint32_t nb)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nb)
        return;
    uint32_t len = e[b] - s[b], half = len >> 1;
    unsigned long long f = first[b];
    uint32_t at = (uint32_t)f + (uint32_t)(f >> 32);
    if (len & 1)
        out[at + half] = src.load(e[b] - 1);
    s_next[b] = at;
    e_next[b] = at + half + (len & 1);
}

/* The bucket holding pair q of the round: the b with (uint32_t)first[b] <= q <
 * (uint32_t)first[b + 1] (first[] has nb + 1 entries, first[nb]'s low half the number of
 * pairs; buckets without pairs have first[b] = first[b + 1] and are passed over), found
 * from a bucket lo at or before it: a few steps forward (the next pair of a thread is
 * usually in the same bucket or the next), else a binary search. */
__device__ __forceinline__ uint32_t ba_bucket(uint32_t q, const unsigned long long *first,
                                              uint32_t lo, uint32_t nb)
{
    for (int step = 0; step < 8; step++) {
        if ((uint32_t)first[lo + 1] > q)
            return lo;
        lo++;
    }
    uint32_t hi = nb; /* (uint32_t)first[lo] <= q < (uint32_t)first[hi] */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if ((uint32_t)first[mid] <= q)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Pairs to threads: warp w takes the chunk's pairs [32 K w, 32 K (w + 1)), lane l of it
 * the pairs j = 32 K w + 32 i + l (i < K), so that a warp's loads of adjacent pairs are
 * adjacent and a thread's next pair is 32 further on. */
__device__ __forceinline__ uint32_t ba_first_pair(uint32_t t, uint32_t K)
{
    return (t >> 5) * (32u * K) + (t & 31);
}

/* Pair q's first point (the second follows) and where its sum goes; b: its bucket, found
 * from the previous pair's. */
__device__ __forceinline__ uint2 ba_locate(uint32_t q, const unsigned long long *first,
                                           const uint32_t *s, uint32_t nb, uint32_t &b)
{
    b = ba_bucket(q, first, b, nb);
    unsigned long long f = first[b];
    uint32_t k = q - (uint32_t)f;
    return make_uint2(s[b] + 2 * k, (uint32_t)f + (uint32_t)(f >> 32) + k);
}

/* Thread t's pairs: pre[j] = the product of its denominators up to pair j (chunk-local),
 * prod[t] = all of them, io[j] = pair j's first point and destination (ba_locate). */
template <class F>
__global__ void __launch_bounds__(128)
    k_ba_denominators(F *pre, F *prod, uint2 *io, ba_source<F> src,
                      const unsigned long long *first, const uint32_t *s, uint32_t nb,
                      uint32_t q0, uint32_t qn, uint32_t T, uint32_t K)
{
    constexpr bool PF = ba_prefetch<F>::value;
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T)
        return;
    F acc = F::one();
    uint32_t j = ba_first_pair(t, K), b = 0;
    if (j < qn) {
        uint2 p = ba_locate(q0 + j, first, s, nb, b);
        affine_d<F> a = src.load(p.x), c = src.load(p.x + 1);
        for (uint32_t i = 0;; i++) {
            uint32_t jn = j + 32;
            bool more = i + 1 < K && jn < qn;
            uint2 pn;
            affine_d<F> an, cn;
            if (PF && more) {
                pn = ba_locate(q0 + jn, first, s, nb, b);
                an = src.load(pn.x);
                cn = src.load(pn.x + 1);
            }
            io[j] = p;
            acc = acc * affine_add_denominator(a, c);
            pre[j] = acc;
            if (!more)
                break;
            j = jn;
            if (PF) {
                p = pn;
                a = an;
                c = cn;
            } else {
                p = ba_locate(q0 + j, first, s, nb, b);
                a = src.load(p.x);
                c = src.load(p.x + 1);
            }
        }
    }
    prod[t] = acc;
}

/* The walk back: inv = 1 / (product of the thread's denominators); for its pairs from the
 * last: 1 / d_j = inv * pre[j - 32], then inv *= d_j (d_j recomputed from the points,
 * which the sum loads anyway); the pair's sum goes out. */
template <class F>
__global__ void __launch_bounds__(128)
    k_ba_add(affine_d<F> *out_pts, const F *pre, const F *prod_inv, const uint2 *io,
             ba_source<F> src, uint32_t qn, uint32_t T, uint32_t K)
{
    constexpr bool PF = ba_prefetch<F>::value;
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t j0 = ba_first_pair(t, K);
    if (t >= T || j0 >= qn)
        return;
    uint32_t last = (qn - 1 - j0) / 32;
    if (last >= K)
        last = K - 1;
    F inv = prod_inv[t];
    uint32_t j = j0 + 32 * last;
    uint2 p = io[j];
    affine_d<F> a = src.load(p.x), c = src.load(p.x + 1);
    for (;;) {
        bool more = j > j0;
        uint2 pn;
        affine_d<F> an, cn;
        F inv_j = inv;
        if (more) {
            inv_j = inv * pre[j - 32];
            if (PF) {
                pn = io[j - 32];
                an = src.load(pn.x);
                cn = src.load(pn.x + 1);
            }
        }
        out_pts[p.y] = affine_add_with_inverse(a, c, inv_j);
        if (!more)
            break;
        inv = inv * affine_add_denominator(a, c);
        j -= 32;
        if (PF) {
            p = pn;
            a = an;
            c = cn;
        } else {
            p = io[j];
            a = src.load(p.x);
            c = src.load(p.x + 1);
        }
    }
}

/* One level of batch_inverse: thread t < G multiplies v[t], v[t + G], ... into pre[] and
 * prod[t]; k_inv_down turns v[] into inverses given prod[]'s. */
template <class F>
__global__ void k_inv_up(const F *v, F *pre, F *prod, uint32_t n, uint32_t G)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= G)
        return;
    F acc = F::one();
    for (uint32_t j = t; j < n; j += G) {
        acc = acc * v[j];
        pre[j] = acc;
    }
    prod[t] = acc;
}

template <class F>
__global__ void k_inv_down(F *v, const F *pre, const F *prod_inv, uint32_t n, uint32_t G)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= G || t >= n)
        return;
    F inv = prod_inv[t];
    for (uint32_t j = t + (n - 1 - t) / G * G;; j -= G) {
        F vj = v[j];
        v[j] = j >= G ? inv * pre[j - G] : inv;
        if (j < G)
            break;
        inv = inv * vj;
    }
}

/* Values per thread in a level of batch_inverse over n values. */
uint32_t ba_level_group(size_t n)
{
    uint32_t wide = BA_LEVEL_GROUP, narrow = 4;
    return n >= (1u << 16) ? wide : narrow;
}

/* Field elements of scratch that batch_inverse needs for any count up to n: a level over
 * k values keeps k running products and G <= k / 4 + 1 partial products, and the next
 * level works on those G: at most n + 2 (n / 4 + 1) + 2 (n / 16 + 1) + ... < 2 n + 64.
 * (The exact sum is not monotonic in n: levels change group size at 2^16 values.) */
size_t ba_inverse_scratch(size_t n)
{
    return 2 * n + 64;
}

/* v[i] = 1 / v[i] for i < n (no v[i] is zero), by levels of Montgomery's trick on the
 * device and the last level on the CPU (host: BA_HOST_INVERSES elements). */
template <class F>
g16_status batch_inverse(cuda_ctx *ctx, F *v, uint32_t n, F *scratch, F *host)
{
    cudaStream_t st = ctx->stream;
    if (n <= BA_HOST_INVERSES) {
        CUDA_TRY(cudaMemcpyAsync(host, v, n * sizeof(F), cudaMemcpyDeviceToHost, st), G16_ERR_INTERNAL);
        CUDA_TRY(cudaStreamSynchronize(st), G16_ERR_INTERNAL);
        g16_status s = cuda_host_batch_inverse(host, n, sizeof(F) == sizeof(fp_d) ? 1 : 2);
        if (s)
            return s;
        /* From pageable memory: staged before the call returns, so host may be reused. */
        CUDA_TRY(cudaMemcpyAsync(v, host, n * sizeof(F), cudaMemcpyHostToDevice, st), G16_ERR_INTERNAL);
        return G16_OK;
    }
    uint32_t g = ba_level_group(n), G = (n + g - 1) / g;
    F *pre = scratch, *prod = scratch + n;
    k_inv_up<F><<<blocks_for(G, 128), 128, 0, st>>>(v, pre, prod, n, G);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    g16_status s = batch_inverse<F>(ctx, prod, G, scratch + n + G, host);
    if (s)
        return s;
    k_inv_down<F><<<blocks_for(G, 128), 128, 0, st>>>(v, pre, prod, n, G);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    return G16_OK;
}

/* One thread per bucket: the XYZZ sum of what the rounds left of its run. */
template <class F>
__global__ void k_ba_finish(xyzz_d<F> *buckets, ba_source<F> src, const uint32_t *s,
                            const uint32_t *e, uint32_t nb)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nb)
        return;
    xyzz_d<F> acc = xyzz_d<F>::infinity();
    for (uint32_t p = s[b]; p < e[b]; p++)
        acc = xyzz_add_affine(acc, src.load(p));
    buckets[b] = acc;
}

/* Runs left at most this long are summed in XYZZ by k_ba_finish: the last rounds have
 * few pairs and a round's fixed costs, a thread per bucket adds a few points as fast
 * (G1 dense 2^26, run 22: tail 1 / 2 / 4 / 8 484 / 481 / 477 / 472 ms). G16_GPU_MSM_TAIL
 * overrides it (benchmarks sweep it). */
uint32_t ba_tail(void)
{
    const char *env = getenv("G16_GPU_MSM_TAIL");
    if (env && atoi(env) >= 1 && atoi(env) <= 4096)
        return (uint32_t)atoi(env);
    return 8;
}

/* Whether m others go through the batch-affine rounds: G16_GPU_MSM_AFFINE=0 or 1 forces
 * it (the tests run both paths at every size), else from BA_MIN_OTHERS up. */
enum { BA_MIN_OTHERS = 1 << 20 };
bool ba_use(uint32_t m)
{
    const char *env = getenv("G16_GPU_MSM_AFFINE");
    if (env && (env[0] == '0' || env[0] == '1') && env[1] == 0)
        return env[0] == '1';
    return m >= BA_MIN_OTHERS;
}

/* Windows per group: up to BA_GROUP_POINTS points (window digits) in flight, at least one
 * window. Fewer groups mean fewer rounds, each with its fixed costs (a host round trip
 * for the scan's total and one for the inversion's last level, ~15 launches). */
enum { BA_GROUP_POINTS = 1 << 25 };
unsigned ba_group(uint32_t m, unsigned W)
{
    size_t g = m ? BA_GROUP_POINTS / m : W;
    return g < 1 ? 1 : g > W ? W : (unsigned)g;
}

/* Pairs per thread for a chunk of qn pairs. */
uint32_t ba_pairs_per_thread(uint32_t qn)
{
    uint32_t k = qn / BA_TARGET_THREADS, most = BA_MAX_PAIRS_PER_THREAD;
    return k < 1 ? 1 : k > most ? most : k;
}

/* Threads for n pairs, K a thread: whole warps of 32 K pairs (ba_first_pair). */
uint32_t ba_threads(uint32_t n, uint32_t K)
{
    uint64_t per_warp = 32ull * K;
    return (uint32_t)(((uint64_t)n + per_warp - 1) / per_warp * 32);
}

struct host_scratch {
    void *p = nullptr;
    ~host_scratch() { free(p); }
};

/* Steps 3 and 4 of msm_windows (cuda_msm.cu) by batch-affine rounds: W windows of nb
 * buckets each into buckets[] (W nb XYZZ points). info->ms_sort gets the digits and sorts,
 * info->ms_accumulate the rest; info->affine_rounds the rounds run, all groups together. */
template <class F>
g16_status ba_accumulate(cuda_ctx *ctx, cuda_msm_info *info, xyzz_d<F> *buckets,
                         const affine_d<F> *bases, const scalar_d *canon,
                         const uint32_t *idx_other, uint32_t m, unsigned c, unsigned W)
{
    typedef affine_d<F> A;
    cudaStream_t st = ctx->stream;
    uint32_t nb = 1u << (c - 1), tail = ba_tail();
    unsigned G = ba_group(m, W);
    size_t gm = (size_t)G * m, gnb = (size_t)G * nb;
    /* Pairs per chunk: their running products and indices stay within 1 GiB. */
    size_t chunk = ((size_t)1 << 30) / (sizeof(F) + sizeof(uint2));
    uint32_t chunk_pairs = (uint32_t)(gm / 2 < chunk ? gm / 2 : chunk);
    if (chunk_pairs == 0)
        chunk_pairs = 1;
    /* ba_pairs_per_thread keeps the threads of any chunk within this: at most 2^20 with
     * fewer than 16 pairs a thread, a sixteenth of the pairs with 16, and never more than
     * the pairs (rounded up to a warp). */
    uint32_t max_threads = (chunk_pairs / BA_MAX_PAIRS_PER_THREAD > 2u * BA_TARGET_THREADS
                                ? chunk_pairs / BA_MAX_PAIRS_PER_THREAD
                                : 2u * BA_TARGET_THREADS) + 64;
    if (max_threads > chunk_pairs + 32)
        max_threads = chunk_pairs + 32;
    size_t cap[2] = {gm / 2 + gnb, gm / 4 + gnb};
    g16_status s;
    dev_buf<uint32_t> keys_in, keys_out, vals_in, sorted, bounds, longest;
    dev_buf<unsigned long long> count, first;
    dev_buf<A> pts[2];
    dev_buf<F> pre, prod, scratch;
    dev_buf<uint2> io;
    host_scratch host;
    if ((s = keys_in.alloc(ctx, m, "MSM sort keys")) || (s = keys_out.alloc(ctx, m, "MSM sort keys")) ||
        (s = vals_in.alloc(ctx, m, "MSM sort values")) ||
        (s = sorted.alloc(ctx, gm, "MSM sorted point indices")) ||
        (s = bounds.alloc(ctx, 6 * gnb, "MSM bucket bounds")) ||
        (s = longest.alloc(ctx, 1, "MSM counts")) ||
        (s = count.alloc(ctx, gnb + 1, "MSM run counts")) ||
        (s = first.alloc(ctx, gnb + 1, "MSM run counts")) ||
        (s = pts[0].alloc(ctx, cap[0], "MSM batch-affine sums")) ||
        (s = pts[1].alloc(ctx, cap[1], "MSM batch-affine sums")) ||
        (s = pre.alloc(ctx, chunk_pairs, "MSM batch-affine denominators")) ||
        (s = io.alloc(ctx, chunk_pairs, "MSM batch-affine pair indices")) ||
        (s = prod.alloc(ctx, max_threads, "MSM batch-affine denominators")) ||
        (s = scratch.alloc(ctx, ba_inverse_scratch(max_threads), "MSM batch inversion")))
        return s;
    if (!(host.p = malloc(BA_HOST_INVERSES * sizeof(F))))
        return status_fail(G16_ERR_OUT_OF_MEMORY, "GPU MSM: host inversion buffer");
    size_t sort_bytes = 0, scan_bytes = 0;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_in.p, keys_out.p, vals_in.p,
                                             sorted.p, m, 0, (int)c, st),
             G16_ERR_INTERNAL);
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, count.p, first.p, gnb + 1, st),
             G16_ERR_INTERNAL);
    dev_buf<uint8_t> sort_temp, scan_temp;
    if ((s = sort_temp.alloc(ctx, sort_bytes, "CUB sort scratch")) ||
        (s = scan_temp.alloc(ctx, scan_bytes, "CUB scan scratch")))
        return s;
    uint32_t *start = bounds.p, *end = bounds.p + gnb;
    uint32_t *ss[2] = {bounds.p + 2 * gnb, bounds.p + 4 * gnb};
    uint32_t *ee[2] = {bounds.p + 3 * gnb, bounds.p + 5 * gnb};
    double ms_sort = 0;
    size_t rounds = 0;
    for (unsigned w0 = 0; w0 < W; w0 += G) {
        unsigned gw = W - w0 < G ? W - w0 : G;
        uint32_t NB = gw * nb;
        /* The group's digits, sorted by bucket window by window; bucket k of window
         * w0 + g is bucket g nb + k of the group, its run at g m + its place. */
        CUDA_TRY(cudaEventRecord(ctx->ev[6], st), G16_ERR_INTERNAL);
        CUDA_TRY(cudaMemsetAsync(start, 0, 2 * gnb * sizeof(uint32_t), st), G16_ERR_INTERNAL);
        CUDA_TRY(cudaMemsetAsync(count.p + NB, 0, sizeof(unsigned long long), st), G16_ERR_INTERNAL);
        for (unsigned g = 0; g < gw; g++) {
            k_digits<<<blocks_for(m, 256), 256, 0, st>>>(keys_in.p, vals_in.p, canon, idx_other, m, c,
                                                         w0 + g);
            CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
            CUDA_TRY(cub::DeviceRadixSort::SortPairs(sort_temp.p, sort_bytes, keys_in.p, keys_out.p,
                                                     vals_in.p, sorted.p + (size_t)g * m, m, 0, (int)c,
                                                     st),
                     G16_ERR_INTERNAL);
            k_bounds<<<blocks_for(m, 256), 256, 0, st>>>(start + (size_t)g * nb, end + (size_t)g * nb,
                                                         keys_out.p, m, nb, g * m);
            CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        }
        CUDA_TRY(cudaEventRecord(ctx->ev[7], st), G16_ERR_INTERNAL);
        bool timed = false;

        ba_source<F> src = {bases, sorted.p, nullptr};
        const uint32_t *s_cur = start, *e_cur = end;
        for (unsigned r = 0;; r++) {
            CUDA_TRY(cudaMemsetAsync(longest.p, 0, sizeof(uint32_t), st), G16_ERR_INTERNAL);
            k_ba_count<<<blocks_for(NB, 256), 256, 0, st>>>(count.p, longest.p, s_cur, e_cur, NB);
            CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
            CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp.p, scan_bytes, count.p, first.p, NB + 1, st),
                     G16_ERR_INTERNAL);
            unsigned long long total = 0;
            uint32_t top = 0;
            CUDA_TRY(cudaMemcpyAsync(&total, first.p + NB, sizeof total, cudaMemcpyDeviceToHost, st),
                     G16_ERR_INTERNAL);
            CUDA_TRY(cudaMemcpyAsync(&top, longest.p, sizeof top, cudaMemcpyDeviceToHost, st),
                     G16_ERR_INTERNAL);
            CUDA_TRY(cudaStreamSynchronize(st), G16_ERR_INTERNAL);
            if (!timed) {
                ms_sort += cuda_elapsed_ms(ctx->ev[6], ctx->ev[7]);
                timed = true;
            }
            if (top <= tail)
                break;
            uint32_t pairs = (uint32_t)total, outs = pairs + (uint32_t)(total >> 32);
            A *out = pts[r & 1].p;
            if (outs > cap[r & 1])
                return status_fail(G16_ERR_INTERNAL,
                                   "GPU MSM: round %u of windows %u.. has %u sums for %zu places", r,
                                   w0, outs, cap[r & 1]);
            uint32_t *s_next = ss[r & 1], *e_next = ee[r & 1];
            k_ba_carry<F><<<blocks_for(NB, 128), 128, 0, st>>>(out, s_next, e_next, first.p, s_cur, e_cur,
                                                              src, NB);
            CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
            for (uint32_t q0 = 0; q0 < pairs; q0 += chunk_pairs) {
                uint32_t qn = pairs - q0 < chunk_pairs ? pairs - q0 : chunk_pairs;
                uint32_t K = ba_pairs_per_thread(qn), T = ba_threads(qn, K);
                k_ba_denominators<F><<<blocks_for(T, 128), 128, 0, st>>>(pre.p, prod.p, io.p, src, first.p,
                                                                        s_cur, NB, q0, qn, T, K);
                CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
                if ((s = batch_inverse<F>(ctx, prod.p, T, scratch.p, (F *)host.p)))
                    return s;
                k_ba_add<F><<<blocks_for(T, 128), 128, 0, st>>>(out, pre.p, prod.p, io.p, src, qn, T, K);
                CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
            }
            src = ba_source<F>{nullptr, nullptr, out};
            s_cur = s_next;
            e_cur = e_next;
            rounds++;
        }
        k_ba_finish<F><<<blocks_for(NB, 128), 128, 0, st>>>(buckets + (size_t)w0 * nb, src, s_cur, e_cur,
                                                            NB);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    }
    info->ms_sort = ms_sort;
    info->affine_rounds = rounds;
    return G16_OK;
}

#endif
