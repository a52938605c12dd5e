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
 * How, window by window (each window's digits are sorted just before its rounds, so only
 * one window's sorted run list is held):
 *   round: every bucket's run of points is cut into adjacent pairs; each pair's sum goes
 *          to the next round's run of that bucket (an odd run's last point is copied
 *          along), so every round halves the runs. Pairs are numbered across buckets by a
 *          prefix sum of the run lengths; a thread finds its first pair's bucket by a
 *          search, its next ones by stepping forward (ba_bucket).
 *          Per chunk of pairs:
 *            k_ba_denominators  each thread's running product of its pairs'
 *                               denominators x2 - x1 (K pairs a thread; a warp takes
 *                               32 K adjacent pairs, so loads coalesce), and every
 *                               pair's points and destination;
 *            batch_inverse      the inverses of the threads' products: the same trick
 *                               again by levels of 16, then one Fermat inversion each;
 *            k_ba_add           walks back through the thread's pairs: each pair's
 *                               inverse from the running products, then its sum.
 *   finish: when no run is longer than `tail` points, one thread per bucket sums what is
 *          left into an XYZZ bucket (k_ba_finish), ready for the usual reduction.
 * Round 0 reads the bases through the sorted (index | sign) list; later rounds read the
 * previous round's sums. Special pairs (a point at infinity, equal x) get denominator 1 and
 * are summed by affine_add_with_inverse's own cases.
 *
 * Memory: two ping-pong point buffers (half and a quarter of the window's points, plus a
 * point per bucket for odd runs), a field element and 8 bytes per pair of a chunk, one
 * window's sorted list and bucket bounds. */
#ifndef G16_BACKEND_CUDA_MSM_BATCH_AFFINE_CUH
#define G16_BACKEND_CUDA_MSM_BATCH_AFFINE_CUH

/* Pairs per thread in k_ba_denominators / k_ba_add, and values per thread in each level of
 * batch_inverse: the inversion's ~570 products are shared by K * 16^levels additions. */
enum { BA_PAIRS_PER_THREAD = 16, BA_LEVEL_GROUP = 16, BA_DIRECT_INVERSES = 4096 };

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
__device__ __forceinline__ uint32_t ba_first_pair(uint32_t t)
{
    return (t >> 5) * (32u * BA_PAIRS_PER_THREAD) + (t & 31);
}

/* Thread t's pairs: pre[j] = the product of its denominators up to pair j (chunk-local),
 * prod[t] = all of them, io[j] = pair j's first point (the second follows) and where its
 * sum goes. */
template <class F>
__global__ void __launch_bounds__(128)
    k_ba_denominators(F *pre, F *prod, uint2 *io, ba_source<F> src,
                      const unsigned long long *first, const uint32_t *s, uint32_t nb,
                      uint32_t q0, uint32_t qn, uint32_t T)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T)
        return;
    F acc = F::one();
    uint32_t j = ba_first_pair(t), b = 0;
    for (int i = 0; i < BA_PAIRS_PER_THREAD && j < qn; i++, j += 32) {
        uint32_t q = q0 + j;
        b = ba_bucket(q, first, b, nb);
        unsigned long long f = first[b];
        uint32_t k = q - (uint32_t)f, in = s[b] + 2 * k;
        io[j] = make_uint2(in, (uint32_t)f + (uint32_t)(f >> 32) + k);
        acc = acc * affine_add_denominator(src.load(in), src.load(in + 1));
        pre[j] = acc;
    }
    prod[t] = acc;
}

/* The walk back: inv = 1 / (product of the thread's denominators); for its pairs from the
 * last: 1 / d_j = inv * pre[j - 32], then inv *= d_j (d_j recomputed from the points,
 * which the sum loads anyway); the pair's sum goes out. */
template <class F>
__global__ void __launch_bounds__(128)
    k_ba_add(affine_d<F> *out_pts, const F *pre, const F *prod_inv, const uint2 *io,
             ba_source<F> src, uint32_t qn, uint32_t T)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t j0 = ba_first_pair(t);
    if (t >= T || j0 >= qn)
        return;
    uint32_t last = (qn - 1 - j0) / 32;
    if (last >= BA_PAIRS_PER_THREAD)
        last = BA_PAIRS_PER_THREAD - 1;
    F inv = prod_inv[t];
    for (uint32_t j = j0 + 32 * last;; j -= 32) {
        F inv_j = j > j0 ? inv * pre[j - 32] : inv;
        uint2 p = io[j];
        affine_d<F> a = src.load(p.x), b = src.load(p.x + 1);
        out_pts[p.y] = affine_add_with_inverse(a, b, inv_j);
        if (j == j0)
            break;
        inv = inv * affine_add_denominator(a, b);
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

template <class F>
__global__ void k_inv_each(F *v, uint32_t n)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        v[t] = inv(v[t]);
}

/* Field elements of scratch batch_inverse needs for n values. */
size_t ba_inverse_scratch(size_t n)
{
    size_t s = 0;
    while (n > BA_DIRECT_INVERSES) {
        size_t g = (n + BA_LEVEL_GROUP - 1) / BA_LEVEL_GROUP;
        s += n + g;
        n = g;
    }
    return s;
}

/* Threads for n pairs: whole warps of 32 K pairs (ba_first_pair). */
uint32_t ba_threads(uint32_t n)
{
    uint32_t per_warp = 32u * BA_PAIRS_PER_THREAD;
    return (uint32_t)(((uint64_t)n + per_warp - 1) / per_warp * 32);
}

/* v[i] = 1 / v[i] for i < n (no v[i] is zero), by levels of Montgomery's trick. */
template <class F>
g16_status batch_inverse(cuda_ctx *ctx, F *v, uint32_t n, F *scratch)
{
    cudaStream_t st = ctx->stream;
    if (n <= BA_DIRECT_INVERSES) {
        k_inv_each<F><<<blocks_for(n, 64), 64, 0, st>>>(v, n);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        return G16_OK;
    }
    uint32_t G = (n + BA_LEVEL_GROUP - 1) / BA_LEVEL_GROUP;
    F *pre = scratch, *prod = scratch + n;
    k_inv_up<F><<<blocks_for(G, 128), 128, 0, st>>>(v, pre, prod, n, G);
    CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    g16_status s = batch_inverse<F>(ctx, prod, G, scratch + n + G);
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

/* Runs left at most this long are summed in XYZZ by k_ba_finish (G16_GPU_MSM_TAIL
 * overrides it: benchmarks sweep it). */
uint32_t ba_tail(void)
{
    const char *env = getenv("G16_GPU_MSM_TAIL");
    if (env && atoi(env) >= 1 && atoi(env) <= 4096)
        return (uint32_t)atoi(env);
    return 2;
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

/* Steps 3 and 4 of msm_windows (cuda_msm.cu) by batch-affine rounds: W windows of nb
 * buckets each into buckets[] (W nb XYZZ points). info->ms_sort gets the digits and sorts,
 * info->ms_accumulate the rest; info->affine_rounds the rounds run, all windows together. */
template <class F>
g16_status ba_accumulate(cuda_ctx *ctx, cuda_msm_info *info, xyzz_d<F> *buckets,
                         const affine_d<F> *bases, const scalar_d *canon,
                         const uint32_t *idx_other, uint32_t m, unsigned c, unsigned W)
{
    typedef affine_d<F> A;
    cudaStream_t st = ctx->stream;
    uint32_t nb = 1u << (c - 1), tail = ba_tail();
    /* Pairs per chunk: their running products and indices stay within 1 GiB. */
    uint32_t chunk = (uint32_t)(((size_t)1 << 30) / (sizeof(F) + sizeof(uint2)));
    uint32_t max_pairs = m / 2, chunk_pairs = max_pairs < chunk ? max_pairs : chunk;
    if (chunk_pairs == 0)
        chunk_pairs = 1;
    uint32_t max_threads = ba_threads(chunk_pairs);
    size_t cap[2] = {(size_t)m / 2 + nb, (size_t)m / 4 + nb};
    g16_status s;
    dev_buf<uint32_t> keys_in, keys_out, vals_in, sorted, bounds, longest;
    dev_buf<unsigned long long> count, first;
    dev_buf<A> pts[2];
    dev_buf<F> pre, prod, scratch;
    dev_buf<uint2> io;
    if ((s = keys_in.alloc(ctx, m, "MSM sort keys")) || (s = keys_out.alloc(ctx, m, "MSM sort keys")) ||
        (s = vals_in.alloc(ctx, m, "MSM sort values")) ||
        (s = sorted.alloc(ctx, m, "MSM sorted point indices")) ||
        (s = bounds.alloc(ctx, (size_t)6 * nb, "MSM bucket bounds")) ||
        (s = longest.alloc(ctx, 1, "MSM counts")) ||
        (s = count.alloc(ctx, (size_t)nb + 1, "MSM run counts")) ||
        (s = first.alloc(ctx, (size_t)nb + 1, "MSM run counts")) ||
        (s = pts[0].alloc(ctx, cap[0], "MSM batch-affine sums")) ||
        (s = pts[1].alloc(ctx, cap[1], "MSM batch-affine sums")) ||
        (s = pre.alloc(ctx, chunk_pairs, "MSM batch-affine denominators")) ||
        (s = io.alloc(ctx, chunk_pairs, "MSM batch-affine pair indices")) ||
        (s = prod.alloc(ctx, max_threads, "MSM batch-affine denominators")) ||
        (s = scratch.alloc(ctx, ba_inverse_scratch(max_threads), "MSM batch inversion")))
        return s;
    size_t sort_bytes = 0, scan_bytes = 0;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_in.p, keys_out.p, vals_in.p,
                                             sorted.p, m, 0, (int)c, st),
             G16_ERR_INTERNAL);
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, count.p, first.p, nb + 1, st),
             G16_ERR_INTERNAL);
    dev_buf<uint8_t> sort_temp, scan_temp;
    if ((s = sort_temp.alloc(ctx, sort_bytes, "CUB sort scratch")) ||
        (s = scan_temp.alloc(ctx, scan_bytes, "CUB scan scratch")))
        return s;
    CUDA_TRY(cudaMemsetAsync(count.p + nb, 0, sizeof(unsigned long long), st), G16_ERR_INTERNAL);
    uint32_t *start = bounds.p, *end = bounds.p + nb;
    uint32_t *ss[2] = {bounds.p + 2 * (size_t)nb, bounds.p + 4 * (size_t)nb};
    uint32_t *ee[2] = {bounds.p + 3 * (size_t)nb, bounds.p + 5 * (size_t)nb};
    double ms_sort = 0;
    size_t rounds = 0;
    for (unsigned w = 0; w < W; w++) {
        /* The window's digits, sorted by bucket. */
        CUDA_TRY(cudaEventRecord(ctx->ev[6], st), G16_ERR_INTERNAL);
        CUDA_TRY(cudaMemsetAsync(start, 0, 2 * (size_t)nb * sizeof(uint32_t), st), G16_ERR_INTERNAL);
        k_digits<<<blocks_for(m, 256), 256, 0, st>>>(keys_in.p, vals_in.p, canon, idx_other, m, c, w);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(sort_temp.p, sort_bytes, keys_in.p, keys_out.p,
                                                 vals_in.p, sorted.p, m, 0, (int)c, st),
                 G16_ERR_INTERNAL);
        k_bounds<<<blocks_for(m, 256), 256, 0, st>>>(start, end, keys_out.p, m, nb);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        CUDA_TRY(cudaEventRecord(ctx->ev[7], st), G16_ERR_INTERNAL);
        bool timed = false;

        ba_source<F> src = {bases, sorted.p, nullptr};
        const uint32_t *s_cur = start, *e_cur = end;
        for (unsigned r = 0;; r++) {
            CUDA_TRY(cudaMemsetAsync(longest.p, 0, sizeof(uint32_t), st), G16_ERR_INTERNAL);
            k_ba_count<<<blocks_for(nb, 256), 256, 0, st>>>(count.p, longest.p, s_cur, e_cur, nb);
            CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
            CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp.p, scan_bytes, count.p, first.p, nb + 1, st),
                     G16_ERR_INTERNAL);
            unsigned long long total = 0;
            uint32_t top = 0;
            CUDA_TRY(cudaMemcpyAsync(&total, first.p + nb, sizeof total, cudaMemcpyDeviceToHost, st),
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
                return status_fail(G16_ERR_INTERNAL, "GPU MSM: round %u of window %u has %u sums for %zu places",
                                   r, w, outs, cap[r & 1]);
            uint32_t *s_next = ss[r & 1], *e_next = ee[r & 1];
            k_ba_carry<F><<<blocks_for(nb, 128), 128, 0, st>>>(out, s_next, e_next, first.p, s_cur,
                                                              e_cur, src, nb);
            CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
            for (uint32_t q0 = 0; q0 < pairs; q0 += chunk_pairs) {
                uint32_t qn = pairs - q0 < chunk_pairs ? pairs - q0 : chunk_pairs;
                uint32_t T = ba_threads(qn);
                k_ba_denominators<F><<<blocks_for(T, 128), 128, 0, st>>>(pre.p, prod.p, io.p, src, first.p,
                                                                        s_cur, nb, q0, qn, T);
                CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
                if ((s = batch_inverse<F>(ctx, prod.p, T, scratch.p)))
                    return s;
                k_ba_add<F><<<blocks_for(T, 128), 128, 0, st>>>(out, pre.p, prod.p, io.p, src, qn, T);
                CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
            }
            src = ba_source<F>{nullptr, nullptr, out};
            s_cur = s_next;
            e_cur = e_next;
            rounds++;
        }
        k_ba_finish<F><<<blocks_for(nb, 128), 128, 0, st>>>(buckets + (size_t)w * nb, src, s_cur, e_cur, nb);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
    }
    info->ms_sort = ms_sort;
    info->affine_rounds = rounds;
    return G16_OK;
}

#endif
