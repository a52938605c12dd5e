/* Batch-affine bucket accumulation for the GPU MSM (included by cuda_msm.cu inside its
 * anonymous namespace: it uses that file's scalar_d, digit_entry, bounds_entry,
 * load_global and blocks_for).
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
 *            ba_denominators    each thread's running product of its pairs'
 *                               denominators x2 - x1 (K pairs a thread, K from the
 *                               chunk's size; a warp takes 32 K adjacent pairs, so loads
 *                               coalesce; the x's alone are read), and every pair's
 *                               points and destination;
 *            batch_inverse      the inverses of the threads' products: the same trick
 *                               again by levels, the last few hundred values inverted by
 *                               the CPU (a Fermat chain in one GPU thread takes ~0.5 ms);
 *                               G2's in Fp, on the denominators' norms (ba_den);
 *            ba_add             walks back through the thread's pairs: each pair's
 *                               inverse from the running products, then its sum.
 *   finish: when no run is longer than `tail` points, one thread per bucket sums what is
 *          left into an XYZZ bucket (ba_finish), ready for the usual reduction.
 * The rounds themselves (ba_rounds) take any set of runs: ba_accumulate gives them the
 * windows' buckets, ba_sum_list runs of a whole list (the MSM's scalars equal
 * to one, when ba_ones_use says so).
 * Round 0 reads the bases through the sorted (index | sign) list, with GLV (index | phi |
 * sign: phi(P)'s x from the bases' table of beta x); later rounds read the previous
 * round's sums. Special pairs get the denominator affine_add_denominator gives
 * them (1 with a point at infinity or for P + -P; in G1 2 y for equal points, whose
 * tangent then needs no inversion of its own, in G2 1: ba_tangent_batched) and are summed
 * by affine_add_with_inverse's cases.
 * G1's kernels load the next pair's points while they compute on the current one (a
 * round is bound by load latency, not by products); G2's have no registers to spare for
 * that.
 *
 * Each kernel is a thread body (a functor: body(t) is thread t's work) that an executor
 * runs: ba_device_exec as kernels on the context's stream, ba_host_exec thread by thread
 * on the host, so that the tests check this very code against the CPU in any CUDA build
 * (cuda_msm_affine_emulate, cuda_msm_sum_emulate, test_cuda_msm_emu); ba_tuning's knobs
 * let small inputs reach every path there.
 *
 * Memory: two ping-pong point buffers (half and a quarter of the group's points, or of a
 * slice's when a window is cut into slices of buckets (ba_slices, tn.slice_points), plus
 * a point per bucket for odd runs), a field element and 8 bytes per pair of a chunk, the
 * group's sorted lists and bucket bounds. */
#ifndef G16_BACKEND_CUDA_MSM_BATCH_AFFINE_CUH
#define G16_BACKEND_CUDA_MSM_BATCH_AFFINE_CUH

#include <type_traits>

/* The knobs of the rounds, defaults from ba_tuning_default (the host emulation's tests
 * set small values to reach every path with small inputs):
 *   tail              runs left at most this long are summed in XYZZ by the finish;
 *   group_points      windows go through in groups of up to this many digits (at least
 *                     one window a group): fewer groups, fewer rounds, each with its fixed
 *                     costs (two host round trips, ~15 launches; ~0.16 ms at 2^26, run
 *                     72); 2^25 here, a standalone MSM's by its free memory
 *                     (cuda_msm.cu's msm_group_points);
 *   target_threads    pairs per thread from 1 to max_pairs, fewer when a chunk has too
 *                     few pairs to give this many threads work (late rounds, small MSMs);
 *   max_pairs         the most pairs a thread (the batch inversion's first level has a
 *                     value per thread, so more pairs a thread make it smaller); 0: by
 *                     field (ba_max_pairs);
 *   host_inverses     the batch inversion's levels run on the device until at most this
 *                     many values are left, which the CPU inverts (a Fermat chain in one
 *                     GPU thread is ~570 dependent products, ~0.5 ms);
 *   wide_levels_from  levels over at least this many values multiply 16 values a
 *                     thread, smaller (latency-bound) levels 4;
 *   list_run          a list summed by the rounds (ba_sum_list) goes in as runs of this
 *                     many points, each run's rest summed in XYZZ and the runs' sums by a
 *                     tree, so that the rounds stop at log2(list_run / tail) instead of
 *                     log2(n / tail), the late rounds being nearly all fixed cost; 0: the
 *                     whole list as one run;
 *   list_piece        a list goes through the rounds in pieces of at most this many
 *                     points (whole runs), so that its point buffers stay within a
 *                     partition's memory model whatever the count of ones (0: one piece);
 *   arena             the rounds' point buffers and a chunk's running products and pair
 *                     indices (ba_round_bufs) come from the executor's arena (a device's
 *                     contexts take it in turn: cuda_ctx_arena_take) instead of its pool. */
struct ba_tuning {
    uint32_t tail, group_points, target_threads, host_inverses, wide_levels_from, max_pairs;
    unsigned block;     /* threads per block of ba_add; 0: by field (ba_pair_block) */
    unsigned den_block; /* the same for ba_denominators (ba_den_block) */
    int prefetch;       /* G1's ba_add loads the next pair ahead: -1 by field, 0 or 1 */
    int den_prefetch;   /* G1's ba_denominators the same: -1 as ba_add, 0 or 1 */
    int sort_ahead;     /* the next group's digits sorted while this group's rounds run */
    int stored_norms;   /* G2: ba_denominators passes each pair's norm to ba_add */
    int split;          /* the bucket reduction by split sums: -1 by width, 0 or 1 */
    uint32_t slice_points; /* digits a slice of a window holds (0: whole windows; ba_slices);
                            * with multiples, of the shared buckets (0: by memory, msm_mult.cuh) */
    size_t chunk_bytes;    /* a chunk's running products and pair indices (ba_round_bufs) */
    uint32_t chunk_pairs;  /* pairs a chunk holds when not 0, else from chunk_bytes (tests) */
    uint32_t list_run;
    uint32_t list_piece;
    int arena;
    int own_sort; /* windows grouped by bucket_sort (bucket_sort.cuh) from 12-bit windows: 0 or 1 */
    int sort_spread; /* bucket_sort's first-pass block shape (bs_spread_shape) */
    int sort_chunk;  /* log2 of bucket_sort's second-pass chunk (0: BS_CHUNK_LOG2) */
};

enum { BA_MAX_PAIRS_PER_THREAD = 64 };

/* G16_GPU_MSM_TAIL overrides the tail, G16_GPU_MSM_BLOCK the pair kernels' block size,
 * G16_GPU_MSM_PREFETCH=0|1 G1's prefetch, G16_GPU_MSM_DEN_BLOCK and _DEN_PREFETCH the
 * same for ba_denominators alone, G16_GPU_MSM_PAIRS the most pairs a thread (both
 * fields; ba_max_pairs),
 * G16_GPU_MSM_LIST_RUN the points a run of a list sum (0: one run; BA_LIST_RUN),
 * G16_GPU_MSM_CHUNK_MIB the bytes of a chunk's running products and pair indices
 * (default 4096, BA_CHUNK_BYTES), G16_GPU_MSM_GROUP_POINTS the digits a group of
 * windows holds (the tests make small MSMs run in several groups),
 * G16_GPU_MSM_SLICE_POINTS the digits a slice of a window holds (windows with more are
 * cut into slices of buckets; with precomputed multiples, the shared buckets:
 * msm_mult.cuh; a context's setting, cuda_ctx_set_msm_slice_points, comes first),
 * G16_GPU_MSM_SORT_AHEAD=0 every group's sort in line with the rounds,
 * G16_GPU_MSM_NORMS=0 G2's norms squared again in ba_add rather than passed
 * (benchmarks sweep them), G16_GPU_MSM_SPLIT=0|1 the bucket reduction by split sums off
 * or on whatever the width (ba_split_use), G16_GPU_MSM_OWN_SORT=0|1 the windows' digits
 * grouped by CUB's radix sort (the default) or by bucket_sort (ba_own_sort_use),
 * G16_GPU_MSM_SORT_SPREAD=0|1|2 bucket_sort's first-pass block shape (bs_spread_shape),
 * G16_GPU_MSM_SORT_CHUNK=12..20 log2 of the most digits a block of its second pass takes
 * (longer segments are cut into chunks of that many, several blocks a segment).
 * Tail 8: G1 dense 2^26, run 22, tails 1 / 2 / 4 / 8 took 484 /
 * 481 / 477 / 472 ms. The sort ahead: -0.3 to -1.4% (run 49); the norms passed: G2
 * dense 2^26 -1% (run 50). The prefetch stays on for G1: without it ba_add needs 152 registers instead of
 * 196 (12 warps an SM instead of 8) and G1 dense 2^26 takes 593 ms instead of 401 (run
 * 37; bench/NOTES.md). Run 40: G1's ba_denominators without its prefetch, G2's in blocks
 * of 64: within 2% of these defaults; pairs a thread: ba_max_pairs. */
/* A round's pairs go through in chunks whose running products and indices (56 bytes a
 * pair) take at most this much: each chunk pays its batch inversion's levels (latency-
 * bound chains) and a host round trip, ~0.3 ms. 4 GiB: G1 dense 2^26 375.2 -> 368.9 ms,
 * 2^27 704.0 -> 692.7 against 1 GiB (run 63). A context whose MSMs are planned for
 * memory (cuda_ctx_set_msm_slice_points) keeps BA_CHUNK_BYTES_PLANNED, which the
 * partition's model counts (backend_partition_device_bytes): 2 GiB, round 0 of a 2^27
 * GLV slice in 2 chunks instead of 4 (run 71). Run 70 measured a round's chunks halved
 * and alternating two streams (one's levels and host trip beside the other's kernels):
 * 0.3-7% slower everywhere, its host trips doubled (bench/NOTES.md, session 20). */
constexpr size_t BA_CHUNK_BYTES = (size_t)4 << 30, BA_CHUNK_BYTES_PLANNED = (size_t)2 << 30;

/* The point buffers a piece of a list sum takes at most in a context planned for memory
 * (ba_tuning.list_piece; backend_partition_device_bytes counts it): 2^26 G1 points, 2^25
 * G2 ones, so the 2^27 partition's ~6.7e7 ones in A and C go through in one piece. */
constexpr size_t BA_LIST_PIECE_BYTES = (size_t)72 << 26;

/* Points a run of a list summed by the rounds (ba_tuning.list_run): 2^10 stops them
 * after 7 rounds (tail 8), whose last has n / 128 pairs, where one run went on for
 * log2(n / 8) rounds (23 for the 2^27 partition's 6.7e7 ones), the last ~15 of them
 * with too few pairs to fill the GPU; the n / 2^10 runs' sums then take a tree of
 * XYZZ additions 4 at a time (~log4(n / 2^10) steps of 4 dependent additions). */
enum { BA_LIST_RUN = 1 << 10 };

/* A 0|1 knob: *v from the variable when it is exactly "0" or "1", else left alone. */
void ba_env_bit(const char *name, int *v)
{
    const char *env = getenv(name);
    if (env && (env[0] == '0' || env[0] == '1') && env[1] == 0)
        *v = env[0] - '0';
}

ba_tuning ba_tuning_default(void)
{
    ba_tuning t = {8, 1u << 25, 1u << 19, 256, 1u << 16, 0, 0, 0, -1, -1, 1, 1, -1, 0, BA_CHUNK_BYTES, 0,
                   BA_LIST_RUN, 0, 0, 0, 0, 0};
    const char *env = getenv("G16_GPU_MSM_TAIL");
    if (env && atoi(env) >= 1 && atoi(env) <= 4096)
        t.tail = (uint32_t)atoi(env);
    env = getenv("G16_GPU_MSM_BLOCK");
    if (env && (atoi(env) == 32 || atoi(env) == 64 || atoi(env) == 128 || atoi(env) == 256))
        t.block = (unsigned)atoi(env);
    env = getenv("G16_GPU_MSM_DEN_BLOCK");
    if (env && (atoi(env) == 32 || atoi(env) == 64 || atoi(env) == 128 || atoi(env) == 256))
        t.den_block = (unsigned)atoi(env);
    ba_env_bit("G16_GPU_MSM_PREFETCH", &t.prefetch);
    ba_env_bit("G16_GPU_MSM_DEN_PREFETCH", &t.den_prefetch);
    env = getenv("G16_GPU_MSM_GROUP_POINTS");
    if (env && atol(env) >= 1 && atol(env) <= (1l << 30))
        t.group_points = (uint32_t)atol(env);
    ba_env_bit("G16_GPU_MSM_SORT_AHEAD", &t.sort_ahead);
    ba_env_bit("G16_GPU_MSM_NORMS", &t.stored_norms);
    ba_env_bit("G16_GPU_MSM_SPLIT", &t.split);
    ba_env_bit("G16_GPU_MSM_OWN_SORT", &t.own_sort);
    env = getenv("G16_GPU_MSM_SORT_SPREAD");
    if (env && env[0] >= '0' && env[0] < '0' + BS_SPREAD_SHAPES && env[1] == 0)
        t.sort_spread = env[0] - '0';
    env = getenv("G16_GPU_MSM_SORT_CHUNK");
    if (env && atoi(env) >= BS_CHUNK_MIN_LOG2 && atoi(env) <= BS_CHUNK_MAX_LOG2)
        t.sort_chunk = atoi(env);
    env = getenv("G16_GPU_MSM_SLICE_POINTS");
    if (env && atol(env) >= 1 && atol(env) <= (1l << 30))
        t.slice_points = (uint32_t)atol(env);
    env = getenv("G16_GPU_MSM_CHUNK_MIB");
    if (env && atol(env) >= 1 && atol(env) <= 65536)
        t.chunk_bytes = (size_t)atol(env) << 20;
    env = getenv("G16_GPU_MSM_LIST_RUN");
    if (env && atol(env) >= 0 && atol(env) <= (1l << 30))
        t.list_run = (uint32_t)atol(env);
    env = getenv("G16_GPU_MSM_PAIRS");
    if (env && atoi(env) >= 1 && atoi(env) <= BA_MAX_PAIRS_PER_THREAD)
        t.max_pairs = (uint32_t)atoi(env);
    return t;
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

/* Whether the n bases with scalar one are summed by the rounds (ba_sum_list) rather than
 * by the tree of XYZZ sums: G16_GPU_MSM_AFFINE forces it as for the others (the GPU tests'
 * batch-affine passes), else from BA_MIN_ONES up. The rounds pay ~6 products an addition
 * against the tree's ~10, and two host round trips a round (log2(n / tail) rounds), so
 * they win on long lists: measured on the H200 (session 10, run 31) 40 M ones 27.9 ->
 * 17.7 ms, 20 M 14.5 -> 10.4 ms; near 2^23 points the two are estimated even (the tree
 * sums ~1.5e9 points/s, the rounds' pairs ~2.3e9/s plus ~0.1 ms a round). */
enum { BA_MIN_ONES = 1 << 23 };
bool ba_ones_use(uint32_t n)
{
    const char *env = getenv("G16_GPU_MSM_AFFINE");
    if (env && (env[0] == '0' || env[0] == '1') && env[1] == 0)
        return env[0] == '1' && n > 0;
    return n >= BA_MIN_ONES;
}

/* Whether a field's round kernels may load the next pair ahead (G1: registers to spare),
 * the default (ba_tuning.prefetch chooses for G1). */
template <class F>
struct ba_prefetch {
    static constexpr bool value = sizeof(F) <= 48;
};

/* Whether a field's rounds invert a doubling's denominator 2 y with the batch (G1) or
 * give it denominator 1 and invert it in ba_add_special_ref (G2; see there). */
template <class F>
struct ba_tangent_batched {
    static constexpr bool value = sizeof(F) <= 48;
};

/* Where a round's points come from: the bases through a window's sorted list (round 0) or
 * the previous round's sums. With precomputed multiples (mult: ba_accumulate_mult) an
 * index i >= n0 names mult[i - n0], and phi(P)'s x is beta x computed here: the multiples
 * have no table of beta x (at 2^27 bases it would not fit beside them). */
template <class F>
struct ba_source {
    const affine_d<F> *bases;
    const uint32_t *refs; /* index | sign bit (31) | phi bit (30, with GLV); null after round 0 */
    const affine_d<F> *pts;
    const F *phi_x;       /* GLV (glv.cuh): beta x of each base, or null */
    const affine_d<F> *mult;
    uint32_t n0;

    G16_HD bool glv() const { return phi_x || mult; }
    G16_HD uint32_t index(uint32_t v) const { return v & (glv() ? 0x3fffffffu : 0x7fffffffu); }
    G16_HD bool phi(uint32_t v) const { return glv() && (v & 0x40000000u); }
    G16_HD const affine_d<F> *point(uint32_t i) const
    {
        return mult && i >= n0 ? &mult[i - n0] : &bases[i];
    }
    G16_HD F phi_of(uint32_t i, const affine_d<F> *q) const
    {
        return mult ? glv_phi_x(load_global(&q->x)) : load_global(&phi_x[i]);
    }
    G16_HD affine_d<F> load(uint32_t p) const
    {
        if (!refs)
            return load_global(&pts[p]);
        uint32_t v = refs[p], i = index(v);
        const affine_d<F> *q = point(i);
        affine_d<F> a;
        if (phi(v)) {
            a.x = phi_of(i, q);
            a.y = load_global(&q->y);
        } else {
            a = load_global(q);
        }
        return v >> 31 ? affine_neg(a) : a;
    }
    /* Point p's x alone (a sign changes only y). */
    G16_HD F load_x(uint32_t p) const
    {
        if (!refs)
            return load_global(&pts[p].x);
        uint32_t v = refs[p], i = index(v);
        const affine_d<F> *q = point(i);
        return phi(v) ? phi_of(i, q) : load_global(&q->x);
    }
    /* The sources the rounds make: a round's sums, a list over the bases. */
    G16_HD static ba_source sums(const affine_d<F> *pts)
    {
        return ba_source{nullptr, nullptr, pts, nullptr, nullptr, 0};
    }
    G16_HD static ba_source list(const affine_d<F> *bases, const uint32_t *refs, const F *phi_x)
    {
        return ba_source{bases, refs, nullptr, phi_x, nullptr, 0};
    }
};

/* --- the kernels' thread bodies: body(t) is thread t's work, t < the launch's count ---- */

G16_HD void ba_max(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
    atomicMax(p, v);
#else
    if (v > *p)
        *p = v;
#endif
}

/* The group's digits of window w (k_digits' work; with GLV, glv_m threads each writing
 * both halves' digits: digit_entry) and where each bucket's run starts and ends
 * (k_bounds'), as bodies. */
struct ba_digits {
    uint32_t *keys, *vals;
    const scalar_d *canon;
    const uint32_t *idx;
    unsigned c, w;
    uint32_t glv_m, stride;
    G16_HD void operator()(uint32_t j) const
    {
        digit_entry(keys, vals, canon, idx, c, w, j, glv_m, stride);
    }
    /* The same, the keys written into k (0 to 2 of them: the count returned). */
    G16_HD unsigned keys_of(uint32_t j, uint32_t *k) const
    {
        return digit_entry(keys, vals, canon, idx, c, w, j, glv_m, stride, k);
    }
};

struct ba_bounds {
    uint32_t *start, *end;
    const uint32_t *keys;
    uint32_t m, nb, base;
    G16_HD void operator()(uint32_t p) const { bounds_entry(start, end, keys, m, nb, base, p); }
};

/* A run of len points: its pairs (low 32 bits) and whether one point is left over (high
 * 32 bits), so that one exclusive prefix sum gives both the first pair of a bucket and
 * (low + high) its first point in the next round; the longest run kept in *longest. */
G16_HD void ba_count_run(unsigned long long *count, uint32_t *longest, uint32_t b, uint32_t len)
{
    count[b] = ((unsigned long long)(len & 1) << 32) | (len >> 1);
    if (len > 1)
        ba_max(longest, len);
}

/* Round 0's counts of each bucket's run [s, e) (later rounds' come from ba_carry). */
struct ba_count {
    unsigned long long *count;
    uint32_t *longest;
    const uint32_t *s, *e;
    G16_HD void operator()(uint32_t b) const { ba_count_run(count, longest, b, e[b] - s[b]); }
};

/* The next round's run of each bucket, its leftover point copied to the run's end, and
 * the next round's counts (as ba_count's: count is free again once the round's prefix
 * sum, first, is made; one launch a round fewer). */
template <class F>
struct ba_carry {
    affine_d<F> *out;
    uint32_t *s_next, *e_next;
    unsigned long long *count;
    uint32_t *longest;
    const unsigned long long *first;
    const uint32_t *s, *e;
    ba_source<F> src;
    G16_HD void operator()(uint32_t b) const
    {
        uint32_t len = e[b] - s[b], half = len >> 1, next = half + (len & 1);
        unsigned long long f = first[b];
        uint32_t at = (uint32_t)f + (uint32_t)(f >> 32);
        if (len & 1)
            out[at + half] = src.load(e[b] - 1);
        s_next[b] = at;
        e_next[b] = at + next;
        ba_count_run(count, longest, b, next);
    }
};

/* The bucket holding pair q of the round: the b with (uint32_t)first[b] <= q <
 * (uint32_t)first[b + 1] (first[] has nb + 1 entries, first[nb]'s low half the number of
 * pairs; buckets without pairs have first[b] = first[b + 1] and are passed over), found
 * from a bucket lo at or before it: a few steps forward (the next pair of a thread is
 * usually in the same bucket or the next), then steps doubling in length until past it,
 * then a binary search between the last two. A thread's next pair is 32 pairs on, which
 * in a late round of short runs is dozens of buckets on: a binary search over all the
 * buckets from there would be ~log2(nb) dependent loads a pair (run 53: wide windows,
 * whose runs are short, lost more than their fewer pairs saved). */
G16_HD uint32_t ba_bucket(uint32_t q, const unsigned long long *first, uint32_t lo, uint32_t nb)
{
    for (int step = 0; step < 4; step++) {
        if ((uint32_t)first[lo + 1] > q)
            return lo;
        lo++;
    }
    uint32_t hi; /* (uint32_t)first[lo] <= q < (uint32_t)first[hi] */
    for (uint32_t step = 4;; step *= 2) {
        if (step >= nb - lo) {
            hi = nb;
            break;
        }
        hi = lo + step;
        if ((uint32_t)first[hi] > q)
            break;
        lo = hi;
    }
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
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
G16_HD uint32_t ba_first_pair(uint32_t t, uint32_t K)
{
    return (t >> 5) * (32u * K) + (t & 31);
}

/* Pair q's first point (the second follows) and where its sum goes; b: its bucket, found
 * from the previous pair's. */
G16_HD uint2 ba_locate(uint32_t q, const unsigned long long *first, const uint32_t *s,
                       uint32_t nb, uint32_t &b)
{
    b = ba_bucket(q, first, b, nb);
    unsigned long long f = first[b];
    uint32_t k = q - (uint32_t)f;
    return make_uint2(s[b] + 2 * k, (uint32_t)f + (uint32_t)(f >> 32) + k);
}

/* Pair (a, c)'s denominator (affine_add_denominator's; 1 for a G2 doubling, see
 * ba_tangent_batched) from the x's alone where it can be: only infinity (x = y = 0), a
 * point with x = 0 or equal x's need the y's, so the round's first pass reads half of
 * each point (ba_denominators is bound by memory). */
template <class F>
G16_HD F ba_denominator(const ba_source<F> &src, uint32_t p, const F &ax, const F &cx)
{
    F d = cx - ax;
    if (!(ax.is_zero() || cx.is_zero() || d.is_zero()))
        return d;
    affine_d<F> a = src.load(p), c = src.load(p + 1);
    if (ba_tangent_batched<F>::value)
        return affine_add_denominator(a, c);
    return affine_add_is_chord(a, c, &d) ? d : F::one();
}

/* The field the rounds' denominators are inverted in: F itself for G1; Fp for G2, whose
 * Fp2 denominator d = a + b u is inverted through its norm, 1 / d = (a - b u) / (a^2 +
 * b^2) (a^2 + b^2 is zero only for d = 0: -1 is not a square mod p). So G2's running
 * products, their batch inversion and the walk back are Fp products (1 where an Fp2
 * product takes 3) and half the bytes, for 2 squarings a pair to form the norm (twice:
 * ba_denominators and ba_add each) and 2 products to turn the norm's inverse into d's. */
template <class F>
struct ba_den {
    typedef F type;
    static constexpr bool has_norm = false;
    G16_HD static const F &norm(const F &d) { return d; }
    G16_HD static const F &inverse(const F &, const F &inv_norm) { return inv_norm; }
};
template <>
struct ba_den<fp2_d> {
    typedef fp_d type;
    static constexpr bool has_norm = true;
    G16_HD static fp_d norm(const fp2_d &d) { return sqr(d.c0) + sqr(d.c1); }
    G16_HD static fp2_d inverse(const fp2_d &d, const fp_d &inv_norm)
    {
        return fp2_d{d.c0 * inv_norm, neg(d.c1 * inv_norm)};
    }
};

/* How many of the chunk's qn pairs the thread whose first pair is j0 has (K at most). */
G16_HD uint32_t ba_thread_pairs(uint32_t j0, uint32_t qn, uint32_t K)
{
    if (j0 >= qn)
        return 0;
    uint32_t n = (qn - 1 - j0) / 32 + 1;
    return n < K ? n : K;
}

/* Thread t's pairs: pre[j] = the product of its denominators (their norms, ba_den) up to
 * pair j (chunk-local), loosely reduced (loose_mul: below 8/7 p), prod[t] = all of them
 * (canonical), io[j] = pair j's first point and
 * destination (ba_locate). PF: the next pair's x's are loaded while the current one is
 * multiplied in. SN (G2): nrm[j] = pair j's norm as well, so that ba_add reads it rather
 * than squaring twice again. */
template <class F, bool PF, bool SN = false>
struct ba_denominators {
    typedef typename ba_den<F>::type D;
    D *pre, *prod;
    uint2 *io;
    ba_source<F> src;
    const unsigned long long *first;
    const uint32_t *s;
    uint32_t nb, q0, qn, K;
    D *nrm;
    G16_HD void operator()(uint32_t t) const
    {
        D acc = D::one();
        uint32_t j = ba_first_pair(t, K), b = 0;
        if (j < qn) {
            uint2 p = ba_locate(q0 + j, first, s, nb, b);
            F a = src.load_x(p.x), c = src.load_x(p.x + 1);
            for (uint32_t i = 0;; i++) {
                uint32_t jn = j + 32;
                bool more = i + 1 < K && jn < qn;
                uint2 pn;
                F an, cn;
                if (PF && more) {
                    pn = ba_locate(q0 + jn, first, s, nb, b);
                    an = src.load_x(pn.x);
                    cn = src.load_x(pn.x + 1);
                }
                io[j] = p;
                D nj = ba_den<F>::norm(ba_denominator(src, p.x, a, c));
                if constexpr (SN)
                    nrm[j] = nj;
                acc = loose_mul(acc, nj);
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
                    a = src.load_x(p.x);
                    c = src.load_x(p.x + 1);
                }
            }
        }
        prod[t] = lazy_canon(acc); /* the batch inversion's levels and the CPU take it */
    }
};

/* A pair that is not a chord (a point at infinity, equal x), summed by a call that keeps
 * the rare case's code out of the loop's registers.
 * G1 (ba_tangent_batched): its denominator (2 y for a doubling) was inverted with the
 * others; the call is given the pair's place rather than its points, so that its
 * arguments fit in registers (with the points by reference the loop stored both points
 * and the inverse to a stack frame on every pair, run 34; without those stores G1's dense
 * MSM is 3% faster, run 35).
 * G2: denominator 1, points by reference, the doubling's inverse computed in the call (a
 * Fermat chain: equal partial sums are rare), as before run 35: inverting doublings with
 * the batch takes G2's ba_add from 228 to 244-255 registers and G2's MSM 69% longer. */
template <class F>
__host__ __device__ __noinline__ void ba_add_special(affine_d<F> *dst, const ba_source<F> src,
                                                     uint32_t p, const F inv_d)
{
    *dst = affine_add_with_inverse(src.load(p), src.load(p + 1), inv_d);
}

template <class F>
G16_POINT_FN affine_d<F> ba_add_special_ref(const affine_d<F> &a, const affine_d<F> &c)
{
    F den = affine_add_denominator(a, c);
    return affine_add_with_inverse(a, c, den == F::one() ? den : inv(den));
}

/* The walk back: inv = 1 / (product of the thread's denominators); for its pairs from the
 * last: 1 / d_j = inv * pre[j - 32], then inv *= d_j (d_j recomputed from the points,
 * which the sum loads anyway, or with SN its norm read from nrm[j], loaded before the
 * sum), both products loosely reduced (loose_mul) and G1's slope too (chord_slope); the
 * pair's sum goes out. PF as in ba_denominators. */
template <class F, bool PF, bool SN = false>
struct ba_add {
    typedef typename ba_den<F>::type D;
    affine_d<F> *out;
    const D *pre, *prod_inv;
    const uint2 *io;
    ba_source<F> src;
    uint32_t qn, K;
    const D *nrm;
    G16_HD void operator()(uint32_t t) const
    {
        uint32_t j0 = ba_first_pair(t, K), n = ba_thread_pairs(j0, qn, K);
        if (n == 0)
            return;
        D inv = prod_inv[t];
        uint32_t j = j0 + 32 * (n - 1);
        uint2 p = io[j];
        affine_d<F> a = src.load(p.x), c = src.load(p.x + 1);
        for (;;) {
            bool more = j > j0;
            uint2 pn;
            affine_d<F> an, cn;
            D inv_j = inv, nj;
            if (more) {
                if constexpr (SN)
                    nj = load_global(&nrm[j]);
                inv_j = loose_mul(inv, pre[j - 32]);
                if (PF) {
                    pn = io[j - 32];
                    an = src.load(pn.x);
                    cn = src.load(pn.x + 1);
                }
            }
            /* The chord inline; the rare pairs (a point at infinity, equal x) by a call. */
            F d;
            if (affine_add_is_chord(a, c, &d)) {
                out[p.y] = affine_add_chord(a, c, ba_den<F>::inverse(d, inv_j));
            } else if constexpr (ba_tangent_batched<F>::value) {
                d = affine_add_denominator(a, c);
                ba_add_special<F>(out + p.y, src, p.x, inv_j);
            } else {
                d = F::one();
                out[p.y] = ba_add_special_ref(a, c);
            }
            if (!more)
                break;
            if constexpr (SN)
                inv = loose_mul(inv, nj);
            else
                inv = loose_mul(inv, ba_den<F>::norm(d));
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
};

/* One level of batch_inverse: thread t < G multiplies v[t], v[t + G], ... into pre[] and
 * prod[t]; ba_inv_down turns v[] into inverses given prod[]'s. */
template <class F>
struct ba_inv_up {
    const F *v;
    F *pre, *prod;
    uint32_t n, G;
    G16_HD void operator()(uint32_t t) const
    {
        F acc = F::one();
        for (uint32_t j = t; j < n; j += G) {
            acc = acc * v[j];
            pre[j] = acc;
        }
        prod[t] = acc;
    }
};

template <class F>
struct ba_inv_down {
    F *v;
    const F *pre, *prod_inv;
    uint32_t n, G;
    G16_HD void operator()(uint32_t t) const
    {
        if (t >= n)
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
};

/* One thread per bucket: the XYZZ sum of what the rounds left of its run. */
template <class F>
struct ba_finish {
    xyzz_d<F> *buckets;
    ba_source<F> src;
    const uint32_t *s, *e;
    G16_HD void operator()(uint32_t b) const
    {
        xyzz_d<F> acc = xyzz_d<F>::infinity();
        for (uint32_t p = s[b]; p < e[b]; p++)
            acc = xyzz_add_affine(acc, src.load(p));
        buckets[b] = acc;
    }
};

/* --- the bucket reduction by split sums (wide windows) ------------------------------- */

/* A window's sum over its buckets, sum over k of (k + 1) B_k, is what the windows join
 * by. Run as a chain of XYZZ additions (k_segments: a running sum, ~2 additions of ~14
 * products a bucket) it costs as much as ~5 pairs of the rounds a bucket, which is what
 * kept windows at 20 bits: a bit wider saves a few percent of the pairs and doubles the
 * buckets. Split sums make a bucket cost ~2 pairs: write k = lo + hl hi (lo < hl, hi
 * < hu, hl hu = the window's buckets), so that (k + 1) = (lo + 1) + hl hi and
 *   sum_k (k + 1) B_k = sum_lo (lo + 1) L_lo + hl sum_hi hi U_hi,
 *   L_lo = sum_hi B_(lo + hl hi),   U_hi = sum_lo B_(lo + hl hi):
 * hl + hu plain sums of hu and hl buckets each, which the rounds do as pairs (every
 * bucket goes into one L and one U), then two weighted sums of only hl and hu points
 * (k_segments' running sums, in short segments). The window's buckets must then be
 * affine points: its rounds go on to runs of one (tail 1) and ba_finish_affine writes
 * each bucket's point. Measured (runs 53-54, bench/NOTES.md): the split sums cost about
 * what the running sums did at c = 20, but the rounds of 22- and 24-bit windows cost
 * more a pair than 20-bit ones, so the default width stays 20 and only a forced wider
 * window (G16_GPU_MSM_WINDOW) takes this path. */

/* A window's buckets and their split: nb = 2^bits buckets (the top window's digits have
 * only 255 - c (W - 1) bits, so it uses fewer), hl = 2^ceil(bits / 2) L sums of hu =
 * 2^floor(bits / 2) buckets each, and hu U sums of hl buckets each. */
struct ba_split_shape {
    uint32_t nb, hl, hu;
};

G16_HD ba_split_shape ba_split_of(unsigned c, unsigned W, unsigned w)
{
    unsigned bits = c - 1;
    if (w == W - 1 && 255 - c * (W - 1) < bits)
        bits = 255 - c * (W - 1);
    ba_split_shape s;
    s.nb = 1u << bits;
    s.hl = 1u << ((bits + 1) / 2);
    s.hu = s.nb / s.hl;
    return s;
}

/* Each run of the rounds left at most one point (tail 1): bucket b's point, or infinity
 * (x = y = 0) for an empty bucket. */
template <class F>
struct ba_finish_affine {
    affine_d<F> *out;
    ba_source<F> src;
    const uint32_t *s, *e;
    G16_HD void operator()(uint32_t b) const
    {
        out[b] = e[b] > s[b] ? src.load(s[b]) : affine_d<F>{F::zero(), F::zero()};
    }
};

/* The lists the split sums read, 2 nb entries a window (nb: a full window's buckets),
 * indices into the windows' affine buckets (window g's at g nb): first the L lists (L_lo
 * at lo hu: buckets lo, lo + hl, lo + 2 hl, ...), then the U lists (U_hi at nb + hi hl:
 * buckets hi hl .. hi hl + hl - 1). Entries past a window's own buckets are in no run. */
struct ba_split_refs {
    uint32_t *refs;
    unsigned c, W, w0;
    uint32_t nb;
    G16_HD void operator()(uint32_t t) const
    {
        uint32_t g = t / (2 * nb), p = t % (2 * nb), base = g * nb;
        ba_split_shape sh = ba_split_of(c, W, w0 + g);
        if (p < nb)
            refs[t] = p < sh.nb ? base + p / sh.hu + sh.hl * (p % sh.hu) : base;
        else
            refs[t] = p - nb < sh.nb ? base + (p - nb) : base;
    }
};

/* The runs of the split sums: window g's L_lo is run g S + lo, its U_hi run g S + hl_max
 * + hi (S = hl_max + hu_max, a full window's counts); runs a smaller window lacks are
 * empty. */
struct ba_split_bounds {
    uint32_t *s, *e;
    unsigned c, W, w0;
    uint32_t nb, hl_max, S;
    G16_HD void operator()(uint32_t t) const
    {
        uint32_t g = t / S, k = t % S, at = 0, len = 0;
        ba_split_shape sh = ba_split_of(c, W, w0 + g);
        if (k < hl_max) {
            if (k < sh.hl) {
                at = g * 2 * nb + k * sh.hu;
                len = sh.hu;
            }
        } else if (k - hl_max < sh.hu) {
            at = g * 2 * nb + nb + (k - hl_max) * sh.hl;
            len = sh.hl;
        }
        s[t] = at;
        e[t] = at + len;
    }
};

/* The weighted sums of window g's L and U sums (XYZZ, from the rounds' ba_finish) in
 * segments of len: segment k < PL covers L_lo for lo in [k len, (k + 1) len) with weights
 * lo + 1; segment PL + k covers U_hi for hi in [1 + k len, 1 + (k + 1) len) with weights
 * hi, times hl (U_0 has weight 0). A running sum gives sum (j - lo + 1) x_j, and
 * (lo - 1 or lo) times the segment's plain sum the rest. */
template <class F>
struct ba_split_segments {
    xyzz_d<F> *out;
    const xyzz_d<F> *sub;
    unsigned c, W, w0;
    uint32_t hl_max, S, len, PL, P;
    G16_HD void operator()(uint32_t t) const
    {
        typedef xyzz_d<F> X;
        uint32_t g = t / P, k = t % P;
        ba_split_shape sh = ba_split_of(c, W, w0 + g);
        const X *x = sub + (size_t)g * S;
        const bool upper = k >= PL;
        uint32_t lo, end, off;
        if (!upper) {
            lo = k * len;
            end = lo + len < sh.hl ? lo + len : sh.hl;
            off = lo;
        } else {
            x += hl_max;
            lo = 1 + (k - PL) * len;
            end = lo + len < sh.hu ? lo + len : sh.hu;
            off = lo - 1;
        }
        X run = X::infinity(), sum = X::infinity();
        for (uint32_t j = end; j > lo; j--) {
            run = xyzz_add(run, x[j - 1]);
            sum = xyzz_add(sum, run);
        }
        if (lo < end && off)
            sum = xyzz_add(sum, xyzz_mul_small(run, off));
        if (lo < end && upper)
            sum = xyzz_mul_small(sum, sh.hl);
        out[t] = sum;
    }
};

/* Per group g of m points: out[g m_out + k] = the sum of in[g m + k chunk ..] (chunk of
 * them), as k_sum_groups. */
template <class F>
struct ba_sum_chunks {
    xyzz_d<F> *out;
    const xyzz_d<F> *in;
    uint32_t m, chunk, m_out;
    G16_HD void operator()(uint32_t t) const
    {
        uint32_t g = t / m_out, k = t % m_out, end = (k + 1) * chunk < m ? (k + 1) * chunk : m;
        xyzz_d<F> acc = xyzz_d<F>::infinity();
        for (uint32_t j = k * chunk; j < end; j++)
            acc = xyzz_add(acc, in[(size_t)g * m + j]);
        out[t] = acc;
    }
};

template <class F>
struct ba_copy_points {
    xyzz_d<F> *out;
    const xyzz_d<F> *in;
    G16_HD void operator()(uint32_t t) const { out[t] = in[t]; }
};

/* --- executors: the same steps on the device or, for the tests, on the host ------------ */

template <class Body>
__global__ void __launch_bounds__(256) k_run(Body body, uint32_t n)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        body(t);
}

/* The device: bodies as kernels on the context's stream, CUB's sort and scan, buffers
 * from the context's pool. */
struct ba_device_exec {
    template <class T>
    using buf = dev_buf<T>;
    cuda_ctx *ctx = nullptr;
    dev_buf<uint8_t> sort_temp, scan_temp;
    size_t sort_bytes = 0, scan_bytes = 0;
    bs_bufs bs;       /* bucket_sort's scratch, when prepare asked for it */
    bool own = false; /* windows grouped by bucket_sort rather than CUB's sort */
    /* The side stream of fork / join (created on first use) and the stream that run,
     * zero, sort and scan queue on: the context's, or the side one between fork and join. */
    cudaStream_t side = nullptr, cur = nullptr;
    cudaEvent_t fork_ev = nullptr, ready[2] = {nullptr, nullptr};

    ba_device_exec() = default;
    ba_device_exec(const ba_device_exec &) = delete;
    ~ba_device_exec()
    {
        arena_give();
        /* Pending work keeps them alive until it completes. */
        for (cudaEvent_t e : {fork_ev, ready[0], ready[1]})
            if (e)
                cudaEventDestroy(e);
        if (side)
            cudaStreamDestroy(side);
    }
    cudaStream_t stream() const { return cur ? cur : ctx->stream; }
    /* From here until join, work goes to the side stream, after everything queued on the
     * context's stream so far. */
    g16_status fork()
    {
        if (!side) {
            CUDA_TRY(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), G16_ERR_INTERNAL);
            for (cudaEvent_t *e : {&fork_ev, &ready[0], &ready[1]})
                CUDA_TRY(cudaEventCreateWithFlags(e, cudaEventDisableTiming), G16_ERR_INTERNAL);
        }
        CUDA_TRY(cudaEventRecord(fork_ev, ctx->stream), G16_ERR_INTERNAL);
        CUDA_TRY(cudaStreamWaitEvent(side, fork_ev, 0), G16_ERR_INTERNAL);
        cur = side;
        return G16_OK;
    }
    /* Back to the context's stream; event `slot` marks the side work queued so far. */
    g16_status join(int slot)
    {
        cur = nullptr;
        CUDA_TRY(cudaEventRecord(ready[slot], side), G16_ERR_INTERNAL);
        return G16_OK;
    }
    /* The context's stream waits for the side work that join(slot) marked. */
    g16_status await(int slot)
    {
        CUDA_TRY(cudaStreamWaitEvent(ctx->stream, ready[slot], 0), G16_ERR_INTERNAL);
        return G16_OK;
    }
    /* The context's stream waits for all side work (before buffers it used go back to the
     * pool, whose blocks are reused in the context's stream order). */
    g16_status settle()
    {
        cur = nullptr;
        if (!side)
            return G16_OK;
        CUDA_TRY(cudaEventRecord(fork_ev, side), G16_ERR_INTERNAL);
        CUDA_TRY(cudaStreamWaitEvent(ctx->stream, fork_ev, 0), G16_ERR_INTERNAL);
        return G16_OK;
    }

    template <class T>
    g16_status alloc(buf<T> &b, size_t n, const char *what) { return b.alloc(ctx, n, what); }
    /* The device's MSM arena, at least `bytes` of it, held until arena_give (or this
     * executor's end): the caller's buffers borrow from *base. */
    g16_status arena(size_t bytes, void **base)
    {
        return cuda_ctx_arena_take(ctx, bytes, "the MSM arena (the rounds' point buffers and pairs)",
                                   base);
    }
    /* After the context's stream has drained, the next context may take the arena. */
    void arena_give() { cuda_ctx_arena_give(ctx); }
    /* The scratch for sorts of m keys of c bits (bucket_sort's when own_sort, else CUB's)
     * and CUB's for scans of up to n + 1 counts. */
    g16_status prepare(uint32_t m, unsigned c, size_t n, bool own_sort = false, unsigned spread = 0,
                       unsigned chunk_log2 = 0)
    {
        own = own_sort;
        if (!own)
            CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, (uint32_t *)nullptr,
                                                     (uint32_t *)nullptr, (uint32_t *)nullptr,
                                                     (uint32_t *)nullptr, m, 0, (int)c, ctx->stream),
                     G16_ERR_INTERNAL);
        CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (unsigned long long *)nullptr,
                                               (unsigned long long *)nullptr, n + 1, ctx->stream),
                 G16_ERR_INTERNAL);
        g16_status s;
        if ((own ? (s = bs.alloc(ctx, m, c, spread, chunk_log2)) : (s = sort_temp.alloc(ctx, sort_bytes, "CUB sort scratch"))) ||
            (s = scan_temp.alloc(ctx, scan_bytes, "CUB scan scratch")))
            return s;
        return G16_OK;
    }
    template <class Body>
    g16_status run(size_t n, unsigned threads, const Body &body)
    {
        if (n == 0)
            return G16_OK;
        k_run<Body><<<blocks_for(n, threads), threads, 0, stream()>>>(body, (uint32_t)n);
        CUDA_TRY(cudaGetLastError(), G16_ERR_INTERNAL);
        return G16_OK;
    }
    g16_status zero(void *p, size_t bytes)
    {
        CUDA_TRY(cudaMemsetAsync(p, 0, bytes, stream()), G16_ERR_INTERNAL);
        return G16_OK;
    }
    /* vals_out = vals_in ordered by the keys' low c bits (stable), keys_out the keys. */
    g16_status sort(const uint32_t *keys_in, uint32_t *keys_out, const uint32_t *vals_in,
                    uint32_t *vals_out, uint32_t m, unsigned c)
    {
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(sort_temp.p, sort_bytes, keys_in, keys_out, vals_in,
                                                 vals_out, m, 0, (int)c, stream()),
                 G16_ERR_INTERNAL);
        return G16_OK;
    }
    /* Window digits grouped by bucket with their runs' bounds, when prepare asked for
     * bucket_sort (bucket_sort.cuh's contract; keys_mid: scratch; the keys made by
     * digits() just before). */
    g16_status bucket_sort(const uint32_t *keys_in, const uint32_t *vals_in, uint32_t *keys_mid,
                           uint32_t *keys_out, uint32_t *vals_out, uint32_t *start, uint32_t *end,
                           uint32_t m, unsigned c, uint32_t base)
    {
        return ::bucket_sort(stream(), bs, keys_in, vals_in, keys_mid, keys_out, vals_out, start,
                             end, m, c, base);
    }
    /* A window's digits, n threads of body; for bucket_sort, their segments counted on
     * the way (bucket_digits). */
    g16_status digits(const ba_digits &body, uint32_t n)
    {
        if (!own)
            return run(n, 256, body);
        return bucket_digits(stream(), bs, body, n);
    }
    /* The same in place between two buffers each (CUB's double-buffer sort: no copies of
     * the keys and values in its scratch, which for 1.34e9 keys is 10.7 GB): the sorted
     * keys and values end in keys[*at], vals[*at]. */
    g16_status sort_in_place(uint32_t *keys[2], uint32_t *vals[2], uint32_t m, unsigned c, int *at)
    {
        cub::DoubleBuffer<uint32_t> dk(keys[0], keys[1]), dv(vals[0], vals[1]);
        size_t bytes = 0;
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dv, m, 0, (int)c, stream()),
                 G16_ERR_INTERNAL);
        g16_status s;
        if (bytes > sort_temp.count && (s = sort_temp.alloc(ctx, bytes, "CUB sort scratch")))
            return s;
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(sort_temp.p, bytes, dk, dv, m, 0, (int)c, stream()),
                 G16_ERR_INTERNAL);
        *at = dk.selector;
        return G16_OK;
    }
    /* out[i] = in[0] + ... + in[i - 1] for i <= n (in[n] included in out's last). */
    g16_status scan(const unsigned long long *in, unsigned long long *out, size_t n)
    {
        CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp.p, scan_bytes, in, out, n, stream()),
                 G16_ERR_INTERNAL);
        return G16_OK;
    }
    /* Copies ordered on the stream: to the host (there after wait()), to the device (from
     * pageable memory: staged before the call returns, so the source may be reused). */
    g16_status fetch(void *dst, const void *src, size_t bytes)
    {
        CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, ctx->stream), G16_ERR_INTERNAL);
        return G16_OK;
    }
    g16_status wait(void)
    {
        CUDA_TRY(cudaStreamSynchronize(ctx->stream), G16_ERR_INTERNAL);
        return G16_OK;
    }
    g16_status to_device(void *dst, const void *src, size_t bytes)
    {
        CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, ctx->stream), G16_ERR_INTERNAL);
        return G16_OK;
    }
    /* Time marks around the sorts (0 before, 1 after) and their span after a wait. */
    g16_status mark(int which)
    {
        CUDA_TRY(cudaEventRecord(ctx->ev[6 + which], ctx->stream), G16_ERR_INTERNAL);
        return G16_OK;
    }
    double marked_ms(void) { return cuda_elapsed_ms(ctx->ev[6], ctx->ev[7]); }
};

template <class T>
struct host_buf {
    T *p = nullptr;
    bool borrowed = false; /* p lies in the executor's arena: not freed here */
    host_buf() = default;
    host_buf(const host_buf &) = delete;
    host_buf &operator=(const host_buf &) = delete;
    ~host_buf() { release(); }
    void release()
    {
        if (!borrowed)
            free(p);
        p = nullptr;
        borrowed = false;
    }
    void borrow(T *q, size_t)
    {
        release();
        p = q;
        borrowed = true;
    }
};

/* The host: every body's threads in order (a launch's threads are independent), a
 * counting sort and a plain prefix sum, buffers from malloc. */
struct ba_host_exec {
    template <class T>
    using buf = host_buf<T>;

    template <class T>
    g16_status alloc(buf<T> &b, size_t n, const char *what)
    {
        b.release();
        b.p = (T *)calloc(n ? n : 1, sizeof(T));
        return b.p ? G16_OK : status_fail(G16_ERR_OUT_OF_MEMORY, "emulated MSM: %s", what);
    }
    /* One region that grows, as the device's arena does (its old contents dropped). */
    host_buf<uint8_t> arena_mem;
    size_t arena_bytes = 0;
    g16_status arena(size_t bytes, void **base)
    {
        if (bytes > arena_bytes) {
            arena_mem.release();
            arena_bytes = 0;
            if (!(arena_mem.p = (uint8_t *)calloc(bytes, 1)))
                return status_fail(G16_ERR_OUT_OF_MEMORY, "emulated MSM: the arena");
            arena_bytes = bytes;
        }
        *base = arena_mem.p;
        return G16_OK;
    }
    void arena_give() {}
    bool own = false; /* ba_sort_group takes bucket_sort's path (emulated below) */
    g16_status prepare(uint32_t, unsigned, size_t, bool own_sort = false, unsigned = 0, unsigned = 0)
    {
        own = own_sort;
        return G16_OK;
    }
    template <class Body>
    g16_status run(size_t n, unsigned, const Body &body)
    {
        for (size_t t = 0; t < n; t++)
            body((uint32_t)t);
        return G16_OK;
    }
    g16_status zero(void *p, size_t bytes)
    {
        memset(p, 0, bytes);
        return G16_OK;
    }
    g16_status sort(const uint32_t *keys_in, uint32_t *keys_out, const uint32_t *vals_in,
                    uint32_t *vals_out, uint32_t m, unsigned c)
    {
        size_t keys = (size_t)1 << c;
        size_t *at = (size_t *)calloc(keys + 1, sizeof *at);
        if (!at)
            return status_fail(G16_ERR_OUT_OF_MEMORY, "emulated MSM: sort");
        for (uint32_t i = 0; i < m; i++)
            at[(keys_in[i] & (keys - 1)) + 1]++;
        for (size_t k = 0; k < keys; k++)
            at[k + 1] += at[k];
        for (uint32_t i = 0; i < m; i++) {
            size_t to = at[keys_in[i] & (keys - 1)]++;
            keys_out[to] = keys_in[i];
            vals_out[to] = vals_in[i];
        }
        free(at);
        return G16_OK;
    }
    /* bucket_sort's contract (bucket_sort.cuh) by the counting sort: the runs in key
     * order, the keys sorted into keys_mid first. */
    g16_status bucket_sort(const uint32_t *keys_in, const uint32_t *vals_in, uint32_t *keys_mid,
                           uint32_t *keys_out, uint32_t *vals_out, uint32_t *start, uint32_t *end,
                           uint32_t m, unsigned c, uint32_t base)
    {
        g16_status s;
        if ((s = sort(keys_in, keys_mid, vals_in, vals_out, m, c)) ||
            (s = run(m, 256, ba_bounds{start, end, keys_mid, m, 1u << (c - 1), base})))
            return s;
        if (keys_out)
            memmove(keys_out, keys_mid, (size_t)m * sizeof *keys_out);
        return G16_OK;
    }
    g16_status digits(const ba_digits &body, uint32_t n) { return run(n, 256, body); }
    g16_status sort_in_place(uint32_t *keys[2], uint32_t *vals[2], uint32_t m, unsigned c, int *at)
    {
        *at = 1;
        return sort(keys[0], keys[1], vals[0], vals[1], m, c);
    }
    g16_status scan(const unsigned long long *in, unsigned long long *out, size_t n)
    {
        unsigned long long sum = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned long long v = in[i];
            out[i] = sum;
            sum += v;
        }
        return G16_OK;
    }
    g16_status fetch(void *dst, const void *src, size_t bytes)
    {
        memmove(dst, src, bytes);
        return G16_OK;
    }
    g16_status wait(void) { return G16_OK; }
    g16_status to_device(void *dst, const void *src, size_t bytes) { return fetch(dst, src, bytes); }
    g16_status mark(int) { return G16_OK; }
    double marked_ms(void) { return 0; }
    /* One thread of work: the side stream is the same order. */
    g16_status fork() { return G16_OK; }
    g16_status join(int) { return G16_OK; }
    g16_status await(int) { return G16_OK; }
    g16_status settle() { return G16_OK; }
};

/* --- slices: a sorted list of digits cut into runs of whole buckets ------------------- */

/* A window's digits (or, with precomputed multiples, every window's: msm_mult.cuh) go
 * through the rounds slice by slice when the rounds' point buffers could not hold them
 * all: slice k is buckets [b[k], b[k + 1]), its digits sorted[p[k] .. p[k + 1]), cut where
 * the list's key at k T / S is, so that slices hold about T / S digits each (more when one
 * bucket is long: a cut never splits a bucket). The rounds' buffers then hold the largest
 * slice (most_points), not the list. */
constexpr unsigned BA_MAX_SLICES = 64;
struct ba_slices {
    unsigned S;
    uint32_t b[BA_MAX_SLICES + 1], p[BA_MAX_SLICES + 1];
    uint32_t most_points, most_buckets;
};

/* Slices for T digits of at most about per_slice each (1 .. BA_MAX_SLICES). */
unsigned ba_slice_count(uint32_t T, uint32_t per_slice)
{
    uint64_t S = ((uint64_t)T + per_slice - 1) / (per_slice ? per_slice : 1);
    return S < 1 ? 1 : S > BA_MAX_SLICES ? BA_MAX_SLICES : (unsigned)S;
}

/* Cut t of S over the T sorted keys: the bucket at t T / S (0 for the first cut, nb, past
 * the buckets, for the last; the zero digits' key nb is sorted last) into cut[t], and the
 * first place whose key is at least that bucket into cut[S + 1 + t]. Keys are sorted, so
 * the cuts come out in order. */
struct ba_slice_cut {
    uint32_t *cut;
    const uint32_t *keys;
    uint32_t T, S, nb;
    G16_HD void operator()(uint32_t t) const
    {
        uint32_t b = t == 0 ? 0 : t == S ? nb : keys[(uint64_t)t * T / S];
        b = b < nb ? b : nb;
        uint32_t lo = 0, hi = T;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (keys[mid] < b)
                lo = mid + 1;
            else
                hi = mid;
        }
        cut[t] = b;
        cut[S + 1 + t] = lo;
    }
};

/* The S slices whose cuts ba_slice_cut wrote at cut_dev, into *sl (one fetch, waited for). */
template <class Exec>
g16_status ba_slices_read(Exec &ex, ba_slices *sl, const uint32_t *cut_dev, unsigned S)
{
    uint32_t cut[2 * (BA_MAX_SLICES + 1)];
    g16_status s;
    if ((s = ex.fetch(cut, cut_dev, 2 * (S + 1) * sizeof(uint32_t))) || (s = ex.wait()))
        return s;
    sl->S = S;
    sl->most_points = sl->most_buckets = 0;
    for (unsigned k = 0; k <= S; k++) {
        sl->b[k] = cut[k];
        sl->p[k] = cut[S + 1 + k];
        if (k == 0)
            continue;
        uint32_t pts = sl->p[k] - sl->p[k - 1], bks = sl->b[k] - sl->b[k - 1];
        sl->most_points = pts > sl->most_points ? pts : sl->most_points;
        sl->most_buckets = bks > sl->most_buckets ? bks : sl->most_buckets;
    }
    return G16_OK;
}

/* --- the batch inversion and the rounds, on either executor ---------------------------- */

/* Values per thread in a level of batch_inverse over n values. */
uint32_t ba_level_group(size_t n, const ba_tuning &tn)
{
    return n >= tn.wide_levels_from ? 16u : 4u;
}

/* Field elements of scratch that batch_inverse needs for any count up to n: a level over
 * k values keeps k running products and G <= k / 4 + 1 partial products, and the next
 * level works on those G: at most n + 2 (n / 4 + 1) + 2 (n / 16 + 1) + ... < 2 n + 64.
 * (The exact sum is not monotonic in n: levels change group size.) */
size_t ba_inverse_scratch(size_t n)
{
    return 2 * n + 64;
}

/* v[i] = 1 / v[i] for i < n (no v[i] is zero), by levels of Montgomery's trick, the last
 * level (at most tn.host_inverses values, host: room for them) by the CPU. */
template <class F, class Exec>
g16_status batch_inverse(Exec &ex, F *v, uint32_t n, F *scratch, F *host, const ba_tuning &tn)
{
    g16_status s;
    if (n <= tn.host_inverses) {
        if ((s = ex.fetch(host, v, n * sizeof(F))) || (s = ex.wait()) ||
            (s = cuda_host_batch_inverse(host, n, sizeof(F) == sizeof(fp_d) ? 1 : 2)))
            return s;
        return ex.to_device(v, host, n * sizeof(F));
    }
    uint32_t g = ba_level_group(n, tn), G = (n + g - 1) / g;
    F *pre = scratch, *prod = scratch + n;
    if ((s = ex.run(G, 128, ba_inv_up<F>{v, pre, prod, n, G})) ||
        (s = batch_inverse<F>(ex, prod, G, scratch + n + G, host, tn)))
        return s;
    return ex.run(G, 128, ba_inv_down<F>{v, pre, prod, n, G});
}

/* Windows per group: up to tn.group_points digits, at least one window. */
unsigned ba_group(uint32_t m, unsigned W, const ba_tuning &tn)
{
    size_t g = m ? tn.group_points / m : W;
    return g < 1 ? 1 : g > W ? W : (unsigned)g;
}

/* Threads per block of the pair kernels (ba_denominators, ba_add): tn.block, else 64 for
 * G1 and 256 for G2. Run 25 (H200, dense MSMs, batch-affine): G1 2^26 with blocks of 64 /
 * 128 / 256 took 440.5 / 441.2 / 465.3 ms, G2 2^26 1441.8 / 1440.4 / 1399.4 ms (2^24: 446 /
 * 449 / 436). Run 35, G1's ba_add at 196 registers (2 warps a scheduler in either block
 * size: registers are allocated per SM quarter, run 36): G1 dense 2^26 402.6 ms in blocks
 * of 64 against 405.8 in blocks of 128 (2^24 124.8 / 127.8). */
template <class F>
unsigned ba_pair_block(const ba_tuning &tn)
{
    return tn.block ? tn.block : sizeof(F) > 48 ? 256u : 64u;
}

/* Threads per block of ba_denominators: tn.den_block, else as ba_add's (run 39: G2's at
 * 147 registers in blocks of 256 runs one block, 2 warps a scheduler, an SM). */
template <class F>
unsigned ba_den_block(const ba_tuning &tn)
{
    return tn.den_block ? tn.den_block : ba_pair_block<F>(tn);
}

/* The most pairs a thread: tn.max_pairs, else 64 for G1 and 16 for G2. Run 90 (H200, one
 * binary, G16_GPU_MSM_PAIRS): G1 dense 2^26 356.3 / 352.4 / 349.7 ms with 16 / 32 / 64, 2^27
 * 674.0 / 663.7 / 663.3: the batch inversion's levels (24 ms of 2^27's kernels at 16,
 * run 90's profile) shrink with the first level, and the walks' extra length costs
 * little. Run 40, before 4 GiB chunks, had found G1 within 1% and G2 +0.3 to +0.5%
 * (G2's walk carries Fp2 points through a longer loop). */
template <class F>
uint32_t ba_max_pairs(const ba_tuning &tn)
{
    return tn.max_pairs ? tn.max_pairs : sizeof(F) <= 48 ? 64u : 16u;
}

/* Pairs per thread for a chunk of qn pairs. */
template <class F>
uint32_t ba_pairs_per_thread(uint32_t qn, const ba_tuning &tn)
{
    uint32_t k = qn / tn.target_threads, most = ba_max_pairs<F>(tn);
    return k < 1 ? 1 : k > most ? most : k;
}

/* Threads for n pairs, K a thread: whole warps of 32 K pairs (ba_first_pair). */
uint32_t ba_threads(uint32_t n, uint32_t K)
{
    uint64_t per_warp = 32ull * K;
    return (uint32_t)(((uint64_t)n + per_warp - 1) / per_warp * 32);
}

/* One chunk of a round's pairs: the denominators, their batch inversion, the sums. G1's
 * ba_add loads the next pair ahead unless tn.prefetch is 0, its ba_denominators unless
 * tn.den_prefetch is 0 (or, when negative, as ba_add); G2's never (no registers to
 * spare), and G2's pass each pair's norm from one to the other in nrm unless
 * tn.stored_norms is 0 (nrm: a chunk's worth, or null for G1). */
template <class F, class Exec, class D = typename ba_den<F>::type>
g16_status ba_pair_chunk(Exec &ex, ba_source<F> src, D *pre, D *prod, uint2 *io, D *nrm,
                         const unsigned long long *first, const uint32_t *s_cur, uint32_t NB,
                         uint32_t q0, uint32_t qn, uint32_t K, uint32_t T, D *scratch, D *host,
                         affine_d<F> *out, const ba_tuning &tn)
{
    auto chunk = [&](auto den_prefetch, auto add_prefetch, auto stored_norms) -> g16_status {
        constexpr bool DPF = decltype(den_prefetch)::value, APF = decltype(add_prefetch)::value,
                       SN = decltype(stored_norms)::value;
        g16_status s;
        if ((s = ex.run(T, ba_den_block<F>(tn),
                        ba_denominators<F, DPF, SN>{pre, prod, io, src, first, s_cur, NB, q0, qn,
                                                    K, nrm})) ||
            (s = batch_inverse<D>(ex, prod, T, scratch, host, tn)))
            return s;
        return ex.run(T, ba_pair_block<F>(tn),
                      ba_add<F, APF, SN>{out, pre, prod, io, src, qn, K, nrm});
    };
    if constexpr (ba_den<F>::has_norm) {
        if (tn.stored_norms)
            return chunk(std::false_type{}, std::false_type{}, std::true_type{});
    }
    if constexpr (ba_prefetch<F>::value) {
        bool add = tn.prefetch != 0, den = tn.den_prefetch < 0 ? add : tn.den_prefetch != 0;
        if (add && den)
            return chunk(std::true_type{}, std::true_type{}, std::false_type{});
        if (add)
            return chunk(std::false_type{}, std::true_type{}, std::false_type{});
        if (den)
            return chunk(std::true_type{}, std::false_type{}, std::false_type{});
    }
    return chunk(std::false_type{}, std::false_type{}, std::false_type{});
}

/* The rounds' buffers for up to gm points in up to gnb buckets: two ping-pong point
 * buffers (half and a quarter of the points, plus a point per bucket for odd runs), the
 * runs' bounds for the next rounds, the pairs' counts, and a chunk's running products,
 * indices and inversion scratch. With tn.arena the point buffers and the chunk's running
 * products, indices (and G2's norms), nearly all of the bytes, lie in the executor's
 * arena (held from alloc until the executor gives it back) rather than in its pool. */
template <class F, class Exec>
struct ba_round_bufs {
    typename Exec::template buf<uint32_t> bounds, longest;
    typename Exec::template buf<unsigned long long> count, first;
    typename Exec::template buf<affine_d<F>> pts[2];
    typedef typename ba_den<F>::type D; /* the denominators' field */
    typename Exec::template buf<D> pre, prod, scratch, nrm; /* nrm: G2's norms (ba_den) */
    typename Exec::template buf<uint2> io;
    host_buf<D> host;
    size_t cap[2];
    uint32_t chunk_pairs;
    bool in_arena = false, norms = false;

    /* The arena's layout: each buffer at a 256-byte boundary. */
    static size_t arena_place(size_t &at, size_t bytes)
    {
        size_t here = at;
        at += (bytes + 255) / 256 * 256;
        return here;
    }
    template <class T>
    static void arena_borrow(typename Exec::template buf<T> &b, uint8_t *base, size_t &at, size_t n)
    {
        b.borrow((T *)(base + arena_place(at, n * sizeof(T))), n);
    }
    /* The arena-held buffers for the current caps, taken (or grown) from the executor. */
    g16_status arena_carve(Exec &ex)
    {
        size_t at = 0;
        for (size_t c : {cap[0] * sizeof(affine_d<F>), cap[1] * sizeof(affine_d<F>),
                         chunk_pairs * sizeof(D), chunk_pairs * sizeof(uint2),
                         norms ? chunk_pairs * sizeof(D) : 0})
            arena_place(at, c);
        void *base = nullptr;
        g16_status s = ex.arena(at, &base);
        if (s)
            return s;
        uint8_t *b = (uint8_t *)base;
        at = 0;
        arena_borrow<affine_d<F>>(pts[0], b, at, cap[0]);
        arena_borrow<affine_d<F>>(pts[1], b, at, cap[1]);
        arena_borrow<D>(pre, b, at, chunk_pairs);
        arena_borrow<uint2>(io, b, at, chunk_pairs);
        if (norms)
            arena_borrow<D>(nrm, b, at, chunk_pairs);
        return G16_OK;
    }

    g16_status alloc(Exec &ex, size_t gm, size_t gnb, const ba_tuning &tn)
    {
        /* Pairs per chunk: their running products and indices stay within tn.chunk_bytes
         * (each chunk pays its batch inversion's levels and a host round trip). */
        size_t chunk = tn.chunk_pairs ? tn.chunk_pairs : tn.chunk_bytes / (sizeof(D) + sizeof(uint2));
        chunk_pairs = (uint32_t)(gm / 2 < chunk ? gm / 2 : chunk);
        if (chunk_pairs == 0)
            chunk_pairs = 1;
        /* ba_pairs_per_thread keeps the threads of any chunk within this: at most 2
         * targets with fewer than max_pairs pairs a thread, the pairs / max_pairs with
         * max_pairs, and never more than the pairs (rounded up to a warp). */
        uint32_t most = 2 * tn.target_threads, by_max = chunk_pairs / ba_max_pairs<F>(tn);
        uint32_t max_threads = (by_max > most ? by_max : most) + 64;
        if (max_threads > chunk_pairs + 32)
            max_threads = chunk_pairs + 32;
        cap[0] = gm / 2 + gnb;
        cap[1] = gm / 4 + gnb;
        in_arena = tn.arena == 1;
        norms = ba_den<F>::has_norm && tn.stored_norms;
        g16_status s;
        if ((s = ex.alloc(bounds, 4 * gnb, "MSM bucket bounds")) ||
            (s = ex.alloc(longest, 1, "MSM counts")) ||
            (s = ex.alloc(count, gnb + 1, "MSM run counts")) ||
            (s = ex.alloc(first, gnb + 1, "MSM run counts")) ||
            (s = ex.alloc(prod, max_threads, "MSM batch-affine denominators")) ||
            (s = ex.alloc(scratch, ba_inverse_scratch(max_threads), "MSM batch inversion")))
            return s;
        if (in_arena) {
            if ((s = arena_carve(ex)))
                return s;
        } else if ((s = ex.alloc(pts[0], cap[0], "MSM batch-affine sums")) ||
                   (s = ex.alloc(pts[1], cap[1], "MSM batch-affine sums")) ||
                   (s = ex.alloc(pre, chunk_pairs, "MSM batch-affine denominators")) ||
                   (norms && (s = ex.alloc(nrm, chunk_pairs, "MSM batch-affine denominators' norms"))) ||
                   (s = ex.alloc(io, chunk_pairs, "MSM batch-affine pair indices"))) {
            return s;
        }
        if (!(host.p = (D *)malloc((tn.host_inverses ? tn.host_inverses : 1) * sizeof(D))))
            return status_fail(G16_ERR_OUT_OF_MEMORY, "GPU MSM: host inversion buffer");
        return G16_OK;
    }
    /* Room for gm points in up to gnb buckets in the point buffers (a slice longer than
     * the buffers were made for: one long bucket), the old buffers given back first. */
    g16_status grow(Exec &ex, size_t gm, size_t gnb)
    {
        if (gm / 2 + gnb <= cap[0] && gm / 4 + gnb <= cap[1])
            return G16_OK;
        cap[0] = gm / 2 + gnb;
        cap[1] = gm / 4 + gnb;
        if (in_arena) /* between slices: nothing in the buffers is kept */
            return arena_carve(ex);
        g16_status s;
        if ((s = ex.alloc(pts[0], cap[0], "MSM batch-affine sums")) ||
            (s = ex.alloc(pts[1], cap[1], "MSM batch-affine sums")))
            return s;
        return G16_OK;
    }
};

/* NB buckets whose runs [s_cur[b], e_cur[b]) index src's points, summed into buckets[b]
 * (XYZZ): pairing rounds until no run is longer than tn.tail, then ba_finish; or, with
 * affine_out (and tn.tail 1), each bucket's point into affine_out[b]. *rounds
 * counts the rounds; ms_sort (if not null) gets the time the executor marked before the
 * rounds (the digits and sorts), read at the first round trip. */
template <class F, class Exec>
g16_status ba_rounds(Exec &ex, ba_round_bufs<F, Exec> &bf, xyzz_d<F> *buckets,
                     affine_d<F> *affine_out, ba_source<F> src,
                     const uint32_t *s_cur, const uint32_t *e_cur, uint32_t NB, const ba_tuning &tn,
                     double *ms_sort, size_t *rounds, uint32_t w0)
{
    typedef affine_d<F> A;
    uint32_t *ss[2] = {bf.bounds.p, bf.bounds.p + 2 * (size_t)NB};
    uint32_t *ee[2] = {bf.bounds.p + (size_t)NB, bf.bounds.p + 3 * (size_t)NB};
    g16_status s;
    if ((s = ex.zero(bf.count.p + NB, sizeof(unsigned long long))) ||
        (s = ex.zero(bf.longest.p, sizeof(uint32_t))) ||
        (s = ex.run(NB, 256, ba_count{bf.count.p, bf.longest.p, s_cur, e_cur})))
        return s;
    for (unsigned r = 0;; r++) {
        unsigned long long total = 0;
        uint32_t top = 0;
        if ((s = ex.scan(bf.count.p, bf.first.p, NB + 1)) ||
            (s = ex.fetch(&top, bf.longest.p, sizeof top)) ||
            (s = ex.fetch(&total, bf.first.p + NB, sizeof total)) || (s = ex.wait()))
            return s;
        if (ms_sort && r == 0)
            *ms_sort += ex.marked_ms();
        if (top <= tn.tail)
            break;
        uint32_t pairs = (uint32_t)total, outs = pairs + (uint32_t)(total >> 32);
        A *out = bf.pts[r & 1].p;
        if (outs > bf.cap[r & 1])
            return status_fail(G16_ERR_INTERNAL,
                               "GPU MSM: round %u of windows %u.. has %u sums for %zu places", r, w0,
                               outs, bf.cap[r & 1]);
        uint32_t *s_next = ss[r & 1], *e_next = ee[r & 1];
        if ((s = ex.zero(bf.longest.p, sizeof(uint32_t))) ||
            (s = ex.run(NB, 128, ba_carry<F>{out, s_next, e_next, bf.count.p, bf.longest.p, bf.first.p,
                                              s_cur, e_cur, src})))
            return s;
        for (uint32_t q0 = 0; q0 < pairs; q0 += bf.chunk_pairs) {
            uint32_t qn = pairs - q0 < bf.chunk_pairs ? pairs - q0 : bf.chunk_pairs;
            uint32_t K = ba_pairs_per_thread<F>(qn, tn), T = ba_threads(qn, K);
            if ((s = ba_pair_chunk<F>(ex, src, bf.pre.p, bf.prod.p, bf.io.p, bf.nrm.p, bf.first.p, s_cur, NB,
                                      q0, qn, K, T, bf.scratch.p, bf.host.p, out, tn)))
                return s;
        }
        src = ba_source<F>::sums(out);
        s_cur = s_next;
        e_cur = e_next;
        ++*rounds;
    }
    if (affine_out)
        return ex.run(NB, 128, ba_finish_affine<F>{affine_out, src, s_cur, e_cur});
    return ex.run(NB, 128, ba_finish<F>{buckets, src, s_cur, e_cur});
}

/* Whether c-bit windows' digits are grouped by bucket_sort (bucket_sort.cuh) rather than
 * CUB's radix sort: when tn.own_sort asks for it and c is in its range. Off by default:
 * exact on the GPU (test_cuda_msm checks the kernels against a counting sort and the
 * MSMs through them) but slower than CUB's there: 6.5 ms against 4.8 for a window of
 * 2^27 digits of 22 bits (run 101; bench/NOTES.md, session 34, has the profile). */
bool ba_own_sort_use(unsigned c, const ba_tuning &tn)
{
    return c >= BS_MIN_C && c <= BS_MAX_C && tn.own_sort == 1;
}

/* The digits of the gw windows from w0, grouped by bucket window by window into sorted
 * (bucket k of window w0 + g is bucket g nb + k of the group, its run at g m + its place)
 * and their runs' bounds (start, end: gw nb each); *keys_sorted (when not null: the last
 * window's keys are wanted) where its keys end in bucket order. By bucket_sort when the
 * executor was prepared for it, else by a radix sort and ba_bounds. */
template <class Exec>
g16_status ba_sort_group(Exec &ex, uint32_t *sorted, uint32_t *start, uint32_t *end,
                         uint32_t *keys_in, uint32_t *keys_out, uint32_t *vals_in,
                         const scalar_d *canon, const uint32_t *idx_other, uint32_t m,
                         uint32_t glv_m, unsigned c, unsigned w0, unsigned gw,
                         const uint32_t **keys_sorted = nullptr)
{
    uint32_t nb = 1u << (c - 1);
    g16_status s;
    if ((s = ex.zero(start, (size_t)gw * nb * sizeof(uint32_t))) ||
        (s = ex.zero(end, (size_t)gw * nb * sizeof(uint32_t))))
        return s;
    for (unsigned g = 0; g < gw; g++) {
        uint32_t *vals_out = sorted + (size_t)g * m, *st = start + (size_t)g * nb, *en = end + (size_t)g * nb;
        if ((s = ex.digits(ba_digits{keys_in, vals_in, canon, idx_other, c, w0 + g, glv_m, 0},
                           glv_m ? glv_m : m)))
            return s;
        if (ex.own) {
            /* The keys, when wanted, back into keys_in (read by then). */
            if ((s = ex.bucket_sort(keys_in, vals_in, keys_out, keys_sorted ? keys_in : nullptr,
                                    vals_out, st, en, m, c, g * m)))
                return s;
            if (keys_sorted)
                *keys_sorted = keys_in;
            continue;
        }
        if ((s = ex.sort(keys_in, keys_out, vals_in, vals_out, m, c)) ||
            (s = ex.run(m, 256, ba_bounds{st, en, keys_out, m, nb, g * m})))
            return s;
        if (keys_sorted)
            *keys_sorted = keys_out;
    }
    return G16_OK;
}

/* The same for one window sliced (ba_slices), its S slices' cuts into cut (2 (S + 1)
 * values, ba_slice_cut) from its sorted keys before another sort reuses them. */
template <class Exec>
g16_status ba_sort_sliced(Exec &ex, uint32_t *sorted, uint32_t *start, uint32_t *end,
                          uint32_t *cut, unsigned S, uint32_t *keys_in, uint32_t *keys_out,
                          uint32_t *vals_in, const scalar_d *canon, const uint32_t *idx_other,
                          uint32_t m, uint32_t glv_m, unsigned c, unsigned w)
{
    g16_status s;
    const uint32_t *keys = nullptr;
    if ((s = ba_sort_group(ex, sorted, start, end, keys_in, keys_out, vals_in, canon, idx_other,
                           m, glv_m, c, w, 1, &keys)))
        return s;
    return ex.run(S + 1, 32, ba_slice_cut{cut, keys, m, S, 1u << (c - 1)});
}

/* Settles the executor's side work on every path out of ba_accumulate: declared after
 * the buffers that side work uses, so it runs before they go back to the pool. */
template <class Exec>
struct ba_settle_guard {
    Exec &ex;
    ~ba_settle_guard() { (void)ex.settle(); }
};

/* Whether c-bit windows are reduced by split sums (ba_split_segments): tn.split when set,
 * else from 16 bits up. Split sums were made for the wide windows (21 bits and more),
 * where the running sums' cost per bucket outweighs what a wider window saves in pairs;
 * run 77 measured them at 16 and 20 bits too: the 55/30/15 mix at 2^26 (16 bits) 84.4 ->
 * 82.6 ms, at 2^27 (GLV, 20 bits) 162.1 -> 160.3. */
bool ba_split_use(unsigned c, const ba_tuning &tn)
{
    return tn.split >= 0 ? tn.split != 0 : c >= 16;
}

/* Windows whose buckets one reduction by split sums takes (their affine buckets wait in
 * between): a multiple of the group's G windows, about 4, so that the split sums' rounds
 * (~7 of them, each with its host round trips) run for several windows at once. */
unsigned ba_split_batch(unsigned G, unsigned W)
{
    unsigned R = G * (4 / G > 1 ? 4 / G : 1);
    return R < W ? R : W;
}

/* The split-sum buffers of one reduction of up to R windows of nb buckets. */
template <class F, class Exec>
struct ba_split_bufs {
    typename Exec::template buf<affine_d<F>> buckets; /* R nb affine buckets */
    typename Exec::template buf<uint32_t> refs, bounds;
    typename Exec::template buf<xyzz_d<F>> sub, seg[2];
    uint32_t nb, hl_max, S, len, PL, P;

    g16_status alloc(Exec &ex, unsigned c, unsigned R)
    {
        ba_split_shape full = ba_split_of(c, ~0u, 0);
        nb = full.nb;
        hl_max = full.hl;
        S = full.hl + full.hu;
        len = 16; /* a segment's dependent chain: ~2 len + 45 XYZZ operations */
        PL = (full.hl + len - 1) / len;
        P = PL + (full.hu - 1 + len - 1) / len;
        g16_status s;
        if ((s = ex.alloc(buckets, (size_t)R * nb, "MSM affine buckets")) ||
            (s = ex.alloc(refs, (size_t)R * 2 * nb, "MSM split sums' lists")) ||
            (s = ex.alloc(bounds, (size_t)R * 2 * S, "MSM split sums' bounds")) ||
            (s = ex.alloc(sub, (size_t)R * S, "MSM split sums")) ||
            (s = ex.alloc(seg[0], (size_t)R * P, "MSM split sums' segments")) ||
            (s = ex.alloc(seg[1], (size_t)R * P, "MSM split sums' segments")))
            return s;
        return G16_OK;
    }
};

/* Sums R groups of m XYZZ points (group g at in[g m ..]) chunk at a time by
 * ba_sum_chunks, a and b alternating as input and output, until one point a group is
 * left: *res is where the R sums ended (a or b; b holds at least R ceil(m / chunk)). */
template <class F, class Exec>
g16_status ba_sum_tree(Exec &ex, xyzz_d<F> *a, xyzz_d<F> *b, uint32_t R, uint32_t m, uint32_t chunk,
                       xyzz_d<F> **res)
{
    while (m > 1) {
        uint32_t m_out = (m + chunk - 1) / chunk;
        g16_status s;
        if ((s = ex.run((size_t)R * m_out, 64, ba_sum_chunks<F>{b, a, m, chunk, m_out})))
            return s;
        xyzz_d<F> *t = a;
        a = b;
        b = t;
        m = m_out;
    }
    *res = a;
    return G16_OK;
}

/* sums[w0 + g] = sum over k of (k + 1) B_k of window w0 + g, for g < R, from the windows'
 * affine buckets in sp.buckets (window g's at g nb): the split sums by the rounds (runs
 * stopped at 32 points, summed by ba_finish), then their weighted sums in segments, then a
 * tree of the segments per window. */
template <class F, class Exec>
g16_status ba_split_reduce(Exec &ex, ba_round_bufs<F, Exec> &bf, ba_split_bufs<F, Exec> &sp,
                           xyzz_d<F> *sums, unsigned c, unsigned W, unsigned w0, unsigned R,
                           const ba_tuning &tn, size_t *rounds)
{
    uint32_t nb = sp.nb, NB = R * sp.S;
    uint32_t *s_sub = sp.bounds.p, *e_sub = sp.bounds.p + NB;
    ba_tuning ts = tn;
    ts.tail = tn.tail > 32 ? tn.tail : 32;
    g16_status s;
    if ((s = ex.run((size_t)R * 2 * nb, 256, ba_split_refs{sp.refs.p, c, W, w0, nb})) ||
        (s = ex.run(NB, 256, ba_split_bounds{s_sub, e_sub, c, W, w0, nb, sp.hl_max, sp.S})) ||
        (s = ba_rounds<F>(ex, bf, sp.sub.p, nullptr,
                          ba_source<F>::list(sp.buckets.p, sp.refs.p, nullptr), s_sub, e_sub, NB, ts,
                          nullptr, rounds, w0)) ||
        (s = ex.run((size_t)R * sp.P, 64,
                    ba_split_segments<F>{sp.seg[0].p, sp.sub.p, c, W, w0, sp.hl_max, sp.S,
                                         sp.len, sp.PL, sp.P})))
        return s;
    xyzz_d<F> *in;
    if ((s = ba_sum_tree<F>(ex, sp.seg[0].p, sp.seg[1].p, R, sp.P, 16, &in)))
        return s;
    return ex.run(R, 64, ba_copy_points<F>{sums + w0, in});
}

/* Steps 3 and 4 of msm_windows (cuda_msm.cu) by batch-affine rounds: W windows of nb
 * buckets each into buckets[] (W nb XYZZ points), from the m others' canonical scalars
 * (canon[idx_other[j]]) and the bases; or, when the reduction is by split sums
 * (ba_split_use), step 5 as well: each window's sum into sums[] (W points) and buckets
 * unused. With tn.sort_ahead and more than one group, the
 * next group's digits are sorted on the executor's side stream while this group's rounds
 * run (the sort is bound by memory, the rounds by products, and the rounds' host round
 * trips leave gaps), into the other of two sorted lists. With tn.slice_points below a
 * window's digits, a group is one window and its rounds run slice by slice (ba_slices):
 * the rounds' point buffers hold a slice, not the window (a 2^27 partition's H MSM with
 * GLV beside two workers: backend_partition_device_bytes), for each slice's own rounds.
 * *ms_sort gets the digits and sorts' time (device) that the rounds wait for: every
 * group's in line, the first group's alone when sorting ahead; *rounds the rounds run,
 * all groups and slices together. */
template <class F, class Exec>
g16_status ba_accumulate(Exec &ex, xyzz_d<F> *buckets, xyzz_d<F> *sums,
                         const affine_d<F> *bases, const F *phi_x, const scalar_d *canon,
                         const uint32_t *idx_other, uint32_t others, unsigned c, unsigned W,
                         const ba_tuning &tn, double *ms_sort, size_t *rounds)
{
    /* With GLV (phi_x given) every other scalar is two digits a window. */
    const uint32_t glv_m = phi_x ? others : 0, m = phi_x ? 2 * others : others;
    uint32_t nb = 1u << (c - 1);
    const bool sliced = tn.slice_points && m > tn.slice_points;
    const unsigned S = sliced ? ba_slice_count(m, tn.slice_points) : 1;
    unsigned G = sliced ? 1 : ba_group(m, W, tn);
    size_t gm = (size_t)G * m, gnb = (size_t)G * nb;
    const bool ahead = tn.sort_ahead && G < W, split = ba_split_use(c, tn);
    const unsigned R = split ? ba_split_batch(G, W) : 0;
    ba_tuning tm = tn;
    if (split)
        tm.tail = 1; /* every bucket down to one affine point */
    g16_status s;
    typename Exec::template buf<uint32_t> keys_in, keys_out, vals_in, sorted[2], bounds[2], cuts[2];
    ba_round_bufs<F, Exec> bf;
    ba_split_bufs<F, Exec> sp;
    /* The rounds' points: a group's, or a slice's (about m / S: a longer one grows them);
     * the split sums' rounds take 2 R nb points in R (hl + hu) runs. */
    size_t bf_points = sliced ? ((size_t)m + S - 1) / S : gm, bf_runs = gnb;
    if (split) {
        if ((s = sp.alloc(ex, c, R)))
            return s;
        bf_points = bf_points > 2 * (size_t)R * nb ? bf_points : 2 * (size_t)R * nb;
        bf_runs = bf_runs > (size_t)R * sp.S ? bf_runs : (size_t)R * sp.S;
    }
    if ((s = ex.alloc(keys_in, m, "MSM sort keys")) || (s = ex.alloc(keys_out, m, "MSM sort keys")) ||
        (s = ex.alloc(vals_in, m, "MSM sort values")) ||
        (s = ex.alloc(sorted[0], gm, "MSM sorted point indices")) ||
        (s = ex.alloc(bounds[0], 2 * gnb, "MSM bucket bounds")) ||
        (sliced && (s = ex.alloc(cuts[0], 2 * (S + 1), "MSM slices"))) ||
        (ahead && (s = ex.alloc(sorted[1], gm, "MSM sorted point indices (next group)"))) ||
        (ahead && (s = ex.alloc(bounds[1], 2 * gnb, "MSM bucket bounds (next group)"))) ||
        (ahead && sliced && (s = ex.alloc(cuts[1], 2 * (S + 1), "MSM slices (next group)"))) ||
        (s = bf.alloc(ex, bf_points, bf_runs, tn)) ||
        (s = ex.prepare(m, c, bf_runs, ba_own_sort_use(c, tn), (unsigned)tn.sort_spread,
                           (unsigned)tn.sort_chunk)))
        return s;
    ba_settle_guard<Exec> settle{ex};
    /* A group's digits sorted by bucket, into slot `slot`'s lists (and cuts when sliced). */
    auto sort_group = [&](int slot, unsigned w0, unsigned gw) -> g16_status {
        uint32_t *st = bounds[slot].p;
        if (sliced)
            return ba_sort_sliced(ex, sorted[slot].p, st, st + gnb, cuts[slot].p, S, keys_in.p,
                                  keys_out.p, vals_in.p, canon, idx_other, m, glv_m, c, w0);
        return ba_sort_group(ex, sorted[slot].p, st, st + gnb, keys_in.p, keys_out.p, vals_in.p,
                             canon, idx_other, m, glv_m, c, w0, gw);
    };
    *ms_sort = 0;
    *rounds = 0;
    unsigned pending = 0; /* windows whose affine buckets wait for the split sums */
    for (unsigned w0 = 0, k = 0; w0 < W; w0 += G, k++) {
        unsigned gw = W - w0 < G ? W - w0 : G;
        int slot = ahead ? (int)(k & 1) : 0;
        uint32_t *start = bounds[slot].p, *end = start + gnb;
        if (!ahead || k == 0) {
            /* In line, between the marks that give ms_sort. */
            if ((s = ex.mark(0)) || (s = sort_group(slot, w0, gw)) || (s = ex.mark(1)))
                return s;
        } else if ((s = ex.await(slot))) {
            return s;
        }
        ba_slices sl;
        sl.S = 1;
        sl.b[0] = 0;
        sl.b[1] = gw * nb;
        if (sliced && ((s = ba_slices_read(ex, &sl, cuts[slot].p, S)) ||
                       (s = bf.grow(ex, sl.most_points, gnb))))
            return s;
        if (ahead && w0 + G < W) {
            /* The next group's sort, after the rounds before this group's (which used
             * the other slot) on the context's stream. */
            unsigned nw = W - (w0 + G) < G ? W - (w0 + G) : G;
            if ((s = ex.fork()) || (s = sort_group(slot ^ 1, w0 + G, nw)) || (s = ex.join(slot ^ 1)))
                return s;
        }
        const ba_source<F> src = ba_source<F>::list(bases, sorted[slot].p, phi_x);
        xyzz_d<F> *xyzz_out = split ? nullptr : buckets + (size_t)w0 * nb;
        affine_d<F> *affine_out = split ? sp.buckets.p + (size_t)pending * nb : nullptr;
        double *ms = !ahead || k == 0 ? ms_sort : nullptr; /* read by the first rounds */
        for (unsigned q = 0; q < sl.S; q++) {
            uint32_t b0 = sl.b[q], NB = sl.b[q + 1] - b0;
            if (!NB)
                continue;
            if ((s = ba_rounds<F>(ex, bf, xyzz_out ? xyzz_out + b0 : nullptr,
                                  affine_out ? affine_out + b0 : nullptr, src, start + b0, end + b0,
                                  NB, tm, ms, rounds, w0)))
                return s;
            ms = nullptr;
        }
        if (split) {
            pending += gw;
            unsigned next = W - (w0 + gw) < G ? W - (w0 + gw) : G;
            if (w0 + gw == W || pending + next > R) {
                if ((s = ba_split_reduce<F>(ex, bf, sp, sums, c, W, w0 + gw - pending, pending, tn,
                                            rounds)))
                    return s;
                pending = 0;
            }
        }
    }
    return G16_OK;
}

/* Runs of at most L points over a list of n: run b is [b L, min((b + 1) L, n)). */
struct ba_list_runs {
    uint32_t *s, *e;
    uint32_t n, L;
    G16_HD void operator()(uint32_t b) const
    {
        uint64_t end = (uint64_t)(b + 1) * L;
        s[b] = b * L;
        e[b] = end < n ? (uint32_t)end : n;
    }
};

/* The points of a run of a list of n (ba_sum_list): tn.list_run, or the whole list. */
inline uint32_t ba_list_run(uint32_t n, const ba_tuning &tn)
{
    return tn.list_run && tn.list_run < n ? tn.list_run : (n ? n : 1);
}

/* The points of a piece of a list of n (ba_sum_list): whole runs, at least one, at most
 * tn.list_piece when that is set; the whole list when it is one run. */
inline uint32_t ba_list_piece(uint32_t n, const ba_tuning &tn)
{
    uint32_t L = ba_list_run(n, tn);
    if (n <= L || !tn.list_piece || tn.list_piece >= n)
        return n ? n : 1;
    return tn.list_piece < L ? L : tn.list_piece / L * L;
}

/* Step 2 of msm_windows by the same rounds: the sum of bases[idx[j]] for j < n (the
 * bases whose scalar is one) into *sum, the list cut into runs of tn.list_run points
 * (one run when 0 or n is smaller), each a bucket of the rounds, then the runs' XYZZ
 * sums added 4 at a time until one is left. The rounds run 2 log2(run / tail) host round
 * trips, so small lists keep the tree of XYZZ sums (ba_ones_use). With tn.list_piece the
 * runs go through the rounds in pieces of at most that many points, each piece its own
 * rounds into its runs' places, so the point buffers hold a piece. */
template <class F, class Exec>
g16_status ba_sum_list(Exec &ex, xyzz_d<F> *sum, const affine_d<F> *bases, const uint32_t *idx,
                       uint32_t n, const ba_tuning &tn, size_t *rounds)
{
    typename Exec::template buf<uint32_t> bounds;
    typename Exec::template buf<xyzz_d<F>> part[2];
    ba_round_bufs<F, Exec> bf;
    const uint32_t L = ba_list_run(n, tn), P = ba_list_piece(n, tn);
    uint32_t NB = n ? (uint32_t)(((uint64_t)n + L - 1) / L) : 1;
    uint32_t NBP = (uint32_t)(((uint64_t)P + L - 1) / L); /* runs a piece holds at most */
    g16_status s;
    if ((s = ex.alloc(bounds, 2 * (size_t)NBP, "MSM bucket bounds")) || (s = bf.alloc(ex, P, NBP, tn)) ||
        (s = ex.prepare(1, 1, NBP)))
        return s;
    *rounds = 0;
    if (NB == 1) {
        ba_source<F> src = ba_source<F>::list(bases, idx, nullptr);
        if ((s = ex.run(1, 128, ba_list_runs{bounds.p, bounds.p + 1, n, L})))
            return s;
        return ba_rounds<F>(ex, bf, sum, nullptr, src, bounds.p, bounds.p + 1, 1, tn, nullptr, rounds, 0);
    }
    if ((s = ex.alloc(part[0], NB, "MSM list runs' sums")) ||
        (s = ex.alloc(part[1], (NB + 3) / 4, "MSM list runs' sums")))
        return s;
    for (uint32_t p0 = 0; p0 < n; p0 += P) {
        uint32_t np = n - p0 < P ? n - p0 : P, nb = (uint32_t)(((uint64_t)np + L - 1) / L);
        ba_source<F> src = ba_source<F>::list(bases, idx + p0, nullptr);
        if ((s = ex.run(nb, 128, ba_list_runs{bounds.p, bounds.p + nb, np, L})) ||
            (s = ba_rounds<F>(ex, bf, part[0].p + p0 / L, nullptr, src, bounds.p, bounds.p + nb, nb,
                              tn, nullptr, rounds, 0)))
            return s;
    }
    xyzz_d<F> *res;
    if ((s = ba_sum_tree<F>(ex, part[0].p, part[1].p, 1, NB, 4, &res)))
        return s;
    return ex.run(1, 64, ba_copy_points<F>{sum, res});
}

#endif
