/* Precomputed multiples of the bases for the GPU MSM (included by cuda_msm.cu after
 * msm_batch_affine.cuh, whose rounds, sort and split sums it reuses).
 *
 * Why: a key's bases are the same for every proof, so 2^(c w) P can be made once (the
 * issue allows precomputed multiples) and window w's digit of a scalar then multiplies
 * 2^(c w) P: every window's digits land in one shared set of 2^(c-1) buckets. The digits
 * are as many as with W windows of their own, but there is one set of buckets to reduce
 * instead of W, which is what kept windows at 20 bits. With GLV's 128-bit halves and
 * c = 26, W = 5: 10 digits a scalar (14 at c = 20 with GLV, 13 without), the 2^25
 * buckets reduced once by split sums (~2 pairs a bucket). G1 dense 2^26: ~6.7e8 + ~0.7e8
 * pairs against ~9.4e8. The cost is memory: W - 1 more copies of the bases (51.5 GB for
 * 2^27 G1 points at c = 26), and phi(P)'s x is computed in the rounds (ba_source), a
 * table of it would not fit beside them.
 *
 * The table (ba_mult_table): mult[(w - 1) n + i] = 2^(c w) P_i for 1 <= w < W, affine in
 * the bases' layout; per window and chunk, c doublings a point (XYZZ) from the window
 * before and one batch inversion (batch_inverse) back to affine.
 *
 * The accumulation (ba_accumulate_mult): the digits of all W windows of the 2 m GLV
 * halves (value (w n + i) | phi | sign, ba_source reads bases and multiples as one array)
 * in one sort by bucket (CUB's double-buffer sort); the sorted list cut into slices of
 * whole buckets, about equal in points (ba_mult_slices: one body picks the cuts), so that
 * the rounds' buffers hold a slice; each slice's rounds run down to one affine point a
 * bucket (tail 1); then one reduction by split sums
 * (ba_split_reduce) over all the buckets: the MSM's other scalars come back as one sum. */
#ifndef G16_BACKEND_CUDA_MSM_MULT_CUH
#define G16_BACKEND_CUDA_MSM_MULT_CUH

/* Windows of c bits that cover a GLV half (128 bits, signed digits: W c >= 129). */
G16_HD unsigned ba_mult_windows(unsigned c)
{
    return 128 / c + 1;
}

/* A window of the split sums' shape functions that is never the top one: the shared
 * buckets take every window's digits, so all 2^(c-1) of them are in use. */
constexpr unsigned BA_FULL_WINDOWS = ~0u;

/* --- the table -------------------------------------------------------------------------- */

/* acc[t] = 2^c src[t] (XYZZ). */
template <class F>
struct mult_double {
    xyzz_d<F> *acc;
    const affine_d<F> *src;
    unsigned c;
    G16_HD void operator()(uint32_t t) const
    {
        affine_d<F> a = src[t];
        if (a.is_infinity()) {
            acc[t] = xyzz_d<F>::infinity();
            return;
        }
        xyzz_d<F> r = xyzz_dbl_affine(a);
        for (unsigned k = 1; k < c; k++)
            r = xyzz_dbl(r);
        acc[t] = r;
    }
};

/* v[t] = zz zzz of acc[t] (1 for infinity), to be inverted. */
template <class F>
struct mult_denominator {
    F *v;
    const xyzz_d<F> *acc;
    G16_HD void operator()(uint32_t t) const
    {
        const xyzz_d<F> &a = acc[t];
        v[t] = a.is_infinity() ? F::one() : a.zz * a.zzz;
    }
};

/* out[t] = acc[t] in affine form from inv[t] = 1 / (zz zzz): x = X / ZZ, y = Y / ZZZ. */
template <class F>
struct mult_to_affine {
    affine_d<F> *out;
    const xyzz_d<F> *acc;
    const F *inv;
    G16_HD void operator()(uint32_t t) const
    {
        const xyzz_d<F> &a = acc[t];
        affine_d<F> o{F::zero(), F::zero()};
        if (!a.is_infinity()) {
            o.x = a.x * (inv[t] * a.zzz);
            o.y = a.y * (inv[t] * a.zz);
        }
        out[t] = o;
    }
};

/* The multiples of n bases for c-bit windows into mult ((W - 1) n points). */
template <class F, class Exec>
g16_status ba_mult_table(Exec &ex, affine_d<F> *mult, const affine_d<F> *bases, uint32_t n,
                         unsigned c, const ba_tuning &tn)
{
    const unsigned W = ba_mult_windows(c);
    const uint32_t chunk = n < (1u << 22) ? n : (1u << 22);
    if (n == 0)
        return G16_OK;
    typename Exec::template buf<xyzz_d<F>> acc;
    typename Exec::template buf<F> v, scratch;
    host_buf<F> host;
    g16_status s;
    if ((s = ex.alloc(acc, chunk, "MSM multiples' sums")) ||
        (s = ex.alloc(v, chunk, "MSM multiples' denominators")) ||
        (s = ex.alloc(scratch, ba_inverse_scratch(chunk), "MSM batch inversion")))
        return s;
    if (!(host.p = (F *)malloc((tn.host_inverses ? tn.host_inverses : 1) * sizeof(F))))
        return status_fail(G16_ERR_OUT_OF_MEMORY, "GPU MSM: host inversion buffer");
    for (unsigned w = 1; w < W; w++) {
        const affine_d<F> *from = w == 1 ? bases : mult + (size_t)(w - 2) * n;
        affine_d<F> *to = mult + (size_t)(w - 1) * n;
        for (uint32_t at = 0; at < n; at += chunk) {
            uint32_t k = n - at < chunk ? n - at : chunk;
            if ((s = ex.run(k, 128, mult_double<F>{acc.p, from + at, c})) ||
                (s = ex.run(k, 256, mult_denominator<F>{v.p, acc.p})) ||
                (s = batch_inverse<F>(ex, v.p, k, scratch.p, host.p, tn)) ||
                (s = ex.run(k, 256, mult_to_affine<F>{to + at, acc.p, v.p})))
                return s;
        }
    }
    return ex.wait();
}

/* --- the accumulation ------------------------------------------------------------------- */

/* Digits a slice holds: tn.slice_points, else what keeps the rounds' two point buffers
 * (3/4 of a slice's points) near 12 GiB. */
template <class F>
uint32_t ba_slice_points(const ba_tuning &tn)
{
    return tn.slice_points ? tn.slice_points : (uint32_t)(((size_t)1 << 34) / sizeof(affine_d<F>));
}

/* The slices of all the windows' T sorted keys (ba_slices), about per_slice digits each. */
template <class Exec>
g16_status ba_mult_slices(Exec &ex, ba_slices *sl, const uint32_t *keys, uint32_t T, uint32_t nb,
                          uint32_t per_slice)
{
    typename Exec::template buf<uint32_t> cut_dev;
    unsigned S = ba_slice_count(T, per_slice);
    g16_status s;
    if ((s = ex.alloc(cut_dev, 2 * (S + 1), "MSM slices")) ||
        (s = ex.run(S + 1, 32, ba_slice_cut{cut_dev.p, keys, T, S, nb})))
        return s;
    return ba_slices_read(ex, sl, cut_dev.p, S);
}

/* Steps 3 to 5 of msm_windows (cuda_msm.cu) with precomputed multiples: *sum = the sum
 * over the m others of k_j P_j, their canonical scalars split by GLV (glv_split_entry)
 * in canon[idx_other[j]], from the n bases and their multiples for c-bit windows
 * (ba_mult_table). *ms_sort gets the digits and sort's time, *rounds the rounds run (the
 * slices' and the split sums'). */
template <class F, class Exec>
g16_status ba_accumulate_mult(Exec &ex, xyzz_d<F> *sum, const affine_d<F> *bases,
                              const affine_d<F> *mult, uint32_t n, const scalar_d *canon,
                              const uint32_t *idx_other, uint32_t others, unsigned c,
                              const ba_tuning &tn, double *ms_sort, size_t *rounds)
{
    const unsigned W = ba_mult_windows(c);
    const uint32_t m = 2 * others, nb = 1u << (c - 1);
    const uint64_t T64 = (uint64_t)W * m;
    if (T64 >= 0x80000000ull || (uint64_t)W * n >= 0x40000000ull)
        return status_fail(G16_ERR_UNSUPPORTED,
                           "GPU MSM with multiples: %u others of %u bases in %u windows (at most "
                           "2^31 digits, 2^30 points)",
                           others, n, W);
    const uint32_t T = (uint32_t)T64;
    g16_status s;
    /* The sort in place between two buffers each (sort_in_place): the values' buffer
     * that ends sorted is kept as sorted, the other three go back to the pool before the
     * rounds' buffers are taken. */
    typename Exec::template buf<uint32_t> sorted, bounds;
    ba_split_bufs<F, Exec> sp;
    if ((s = ex.alloc(sorted, T, "MSM sorted point indices")) ||
        (s = ex.alloc(bounds, 2 * (size_t)nb, "MSM bucket bounds")) || (s = sp.alloc(ex, c, 1)))
        return s;
    uint32_t *start = bounds.p, *end = bounds.p + nb;
    ba_settle_guard<Exec> settle{ex};
    *ms_sort = 0;
    *rounds = 0;
    ba_slices sl;
    {
        typename Exec::template buf<uint32_t> keys_a, keys_b, vals_b;
        if ((s = ex.alloc(keys_a, T, "MSM sort keys")) || (s = ex.alloc(keys_b, T, "MSM sort keys")) ||
            (s = ex.alloc(vals_b, T, "MSM sort values")) ||
            (s = ex.prepare(1, c, nb > sp.S ? nb : sp.S)) || (s = ex.mark(0)) ||
            (s = ex.zero(start, 2 * (size_t)nb * sizeof(uint32_t))))
            return s;
        for (unsigned w = 0; w < W; w++)
            if ((s = ex.run(others, 256, /* a thread both halves' digits (digit_entry) */
                            ba_digits{keys_a.p + (size_t)w * m, sorted.p + (size_t)w * m, canon,
                                      idx_other, c, w, others, n})))
                return s;
        uint32_t *keys[2] = {keys_a.p, keys_b.p}, *vals[2] = {sorted.p, vals_b.p};
        int at = 0;
        if ((s = ex.sort_in_place(keys, vals, T, c, &at)))
            return s;
        if (at) { /* the same size and pool: the buffers trade places */
            uint32_t *t = sorted.p;
            sorted.p = vals_b.p;
            vals_b.p = t;
        }
        if ((s = ex.run(T, 256, ba_bounds{start, end, keys[at], T, nb, 0})) || (s = ex.mark(1)) ||
            (s = ba_mult_slices(ex, &sl, keys[at], T, nb, ba_slice_points<F>(tn))))
            return s;
        *ms_sort = ex.marked_ms();
    }
    /* The rounds' buffers: a slice's points in its buckets, or the split sums' 2 nb
     * points in their runs. */
    size_t points = sl.most_points > 2 * (size_t)nb ? sl.most_points : 2 * (size_t)nb;
    size_t runs = sl.most_buckets > sp.S ? sl.most_buckets : sp.S;
    ba_round_bufs<F, Exec> bf;
    if ((s = bf.alloc(ex, points, runs, tn)))
        return s;
    ba_tuning tm = tn;
    tm.tail = 1; /* every bucket down to one affine point */
    ba_source<F> src{bases, sorted.p, nullptr, nullptr, mult, n};
    for (unsigned k = 0; k < sl.S; k++) {
        uint32_t b0 = sl.b[k], NB = sl.b[k + 1] - b0;
        if (NB && (s = ba_rounds<F>(ex, bf, nullptr, sp.buckets.p + b0, src, start + b0, end + b0,
                                    NB, tm, nullptr, rounds, 0)))
            return s;
    }
    return ba_split_reduce<F>(ex, bf, sp, sum, c, BA_FULL_WINDOWS, 0, 1, tn, rounds);
}

#endif
