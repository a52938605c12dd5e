/* The MSM (msm/msm.h) against the plain definition, sum of [k_i] P_i one point at a time:
 * sizes 0 to ~2^12 (odd ones, powers of two, 2^k +- 1), scalar mixes (dense random, all
 * zero, all one, 55% zero / 30% one / 15% random, r - 1, small values, long runs of equal
 * bits), bases with infinities, repeated bases (P + P inside a batch and in a bucket) and
 * P next to -P; both accumulation methods, several point splits, thread counts 1 to 4,
 * every window width, misaligned buffers, the fr_t entry, the prepared scalars shared by
 * G1 and G2, and the error paths.
 *
 * Everything is written once for both groups: this file includes itself with
 * MSM_TEST_GROUP defined, once per group (the idea of curve/point_impl.h); the driver is
 * at the bottom. G16_TEST_SCALE=k runs k rounds of the random cases. */
#ifdef MSM_TEST_GROUP

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define PT(name) CAT(MSM_TEST_GROUP, name)
#define TST(name) CAT(CAT(t, MSM_TEST_GROUP), name)
#define MSMG(name) CAT(CAT(msm, MSM_TEST_GROUP), name)
#define MSM1 CAT(msm, MSM_TEST_GROUP)
#define AFF CAT(MSM_TEST_GROUP, affine_t)
#define JAC CAT(MSM_TEST_GROUP, jac_t)

enum { TST(POOL) = MSM_TEST_POOL };

/* Random subgroup points [k]G in affine form: 64 of them from random scalars, the rest
 * sums of two earlier ones (also [k]G for a random-looking k, at one addition each). */
static AFF *TST(pool);

static void TST(make_pool)(void)
{
    JAC *jac = malloc(TST(POOL) * sizeof *jac);
    TST(pool) = malloc(TST(POOL) * sizeof *TST(pool));
    JAC g;
    PT(generator)(&g);
    for (size_t i = 0; i < TST(POOL); i++) {
        if (i < 64) {
            fr_t k;
            do
                test_random_fr(&k);
            while (fr_is_zero(&k));
            PT(mul_vartime)(&jac[i], &g, &k);
        } else {
            PT(add)(&jac[i], &jac[i - 64], &jac[i - 63 + test_rand64() % 62]);
        }
    }
    PT(batch_to_affine)(TST(pool), jac, TST(POOL));
    free(jac);
}

/* n packed bases at byte offset `off` in *block (free *block). Base kinds: 0 distinct
 * random, 1 with ~10% infinities, 2 drawn from three points (repeats), 3 pairs P, -P,
 * 4 everything: repeats, negations and infinities mixed. */
static uint8_t *TST(make_bases)(void **block, size_t n, size_t off, int kind)
{
    uint8_t *mem = malloc(n * sizeof(AFF) + off + 1);
    *block = mem;
    uint8_t *b = mem + off;
    size_t start = test_rand64() % TST(POOL);
    for (size_t i = 0; i < n; i++) {
        AFF p = TST(pool)[(start + i) % TST(POOL)];
        uint64_t u = test_rand64() % 100;
        switch (kind) {
        case 1:
            if (u < 10)
                PT(affine_set_infinity)(&p);
            break;
        case 2:
            p = TST(pool)[u % 3];
            break;
        case 3:
            if (i & 1) {
                AFF prev;
                memcpy(&prev, b + (i - 1) * sizeof p, sizeof p);
                PT(affine_neg)(&p, &prev);
            }
            break;
        case 4:
            if (u < 30)
                p = TST(pool)[u % 2];
            else if (u < 40)
                PT(affine_set_infinity)(&p);
            if (u % 3 == 0)
                PT(affine_neg)(&p, &p);
            break;
        default:
            break;
        }
        memcpy(b + i * sizeof p, &p, sizeof p);
    }
    return b;
}

typedef struct {
    const uint8_t *bases, *scalars;
    size_t n, per;
    JAC *part;
} TST(ref_ctx);

static void TST(ref_body)(void *p, size_t begin, size_t end, unsigned worker)
{
    TST(ref_ctx) *c = p;
    for (size_t t = begin; t < end; t++) {
        size_t lo = t * c->per, hi = lo + c->per < c->n ? lo + c->per : c->n;
        MSMG(reference)(&c->part[t], c->bases + lo * sizeof(AFF), c->scalars + 32 * lo,
                        hi - lo);
    }
}

/* The reference over chunks on the thread pool (it is slow), summed in order. */
static void TST(reference)(JAC *r, const uint8_t *bases, const uint8_t *scalars, size_t n)
{
    TST(ref_ctx) c = {.bases = bases, .scalars = scalars, .n = n, .per = 64};
    size_t parts = (n + c.per - 1) / c.per;
    c.part = malloc((parts ? parts : 1) * sizeof *c.part);
    parallel_for(parts, 1, TST(ref_body), &c);
    PT(set_infinity)(r);
    for (size_t t = 0; t < parts; t++)
        PT(add)(r, r, &c.part[t]);
    free(c.part);
}

/* Runs every variant over one input and compares each with want. */
static void TST(check_variants)(const uint8_t *bases, const uint8_t *scalars, size_t n,
                                const JAC *want, bool all_threads)
{
    JAC got;
    CHECK(MSM1(&got, bases, scalars, n) == G16_OK);
    if (!CHECK(PT(equal)(&got, want)))
        printf("  %s one-shot n=%zu\n", STR(MSM_TEST_GROUP), n);

    msm_scalars *s;
    if (!CHECK(msm_scalars_prepare(&s, scalars, n) == G16_OK))
        return;
    const msm_options variants[] = {
        {MSM_ACCUMULATE_XYZZ, 0}, {MSM_ACCUMULATE_BATCH_AFFINE, 0},
        {MSM_ACCUMULATE_BATCH_AFFINE, 3}, {MSM_ACCUMULATE_XYZZ, 2},
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        CHECK(MSMG(run_with)(&got, bases, s, &variants[v]) == G16_OK);
        if (!CHECK(PT(equal)(&got, want)))
            printf("  %s variant %zu n=%zu\n", STR(MSM_TEST_GROUP), v, n);
    }
    if (all_threads) {
        unsigned saved = parallel_threads();
        for (unsigned t = 1; t <= 4; t++) {
            parallel_set_threads(t);
            for (int mode = MSM_ACCUMULATE_AUTO; mode <= MSM_ACCUMULATE_BATCH_AFFINE; mode++) {
                msm_options o = {(msm_accumulate)mode, 0};
                CHECK(MSMG(run_with)(&got, bases, s, &o) == G16_OK);
                if (!CHECK(PT(equal)(&got, want)))
                    printf("  %s threads=%u mode=%d n=%zu\n", STR(MSM_TEST_GROUP), t, mode, n);
            }
        }
        parallel_set_threads(saved);
    }
    msm_scalars_free(s);
}

/* One random case: n points of base kind bkind, scalars of mix smix, the buffers at byte
 * offsets boff and soff from malloc's alignment (OFFSET_RANDOM: 0..7 at random). */
#define OFFSET_RANDOM ((size_t)-1)
static void TST(case_at)(size_t n, int bkind, int smix, bool all_threads, size_t boff,
                         size_t soff)
{
    void *bblock, *sblock;
    if (boff == OFFSET_RANDOM)
        boff = test_rand64() % 8;
    if (soff == OFFSET_RANDOM)
        soff = test_rand64() % 8;
    const uint8_t *bases = TST(make_bases)(&bblock, n, boff, bkind);
    const uint8_t *scalars = make_scalars(&sblock, n, soff, smix);
    JAC want;
    TST(reference)(&want, bases, scalars, n);
    TST(check_variants)(bases, scalars, n, &want, all_threads);
    free(bblock);
    free(sblock);
}

static void TST(case)(size_t n, int bkind, int smix, bool all_threads)
{
    TST(case_at)(n, bkind, smix, all_threads, OFFSET_RANDOM, OFFSET_RANDOM);
}

/* Every misalignment of both buffers, 1..7 bytes. */
static void TST(misaligned)(size_t n)
{
    for (size_t off = 1; off < 8; off++)
        TST(case_at)(n, (int)(off % 5), (int)(off % MIXES), false, off, 8 - off);
}

static void TST(window_sweep)(size_t n, unsigned max_bits)
{
    void *bblock, *sblock;
    const uint8_t *bases = TST(make_bases)(&bblock, n, 3, 4);
    const uint8_t *scalars = make_scalars(&sblock, n, 5, MIX_DENSE);
    JAC want, got;
    TST(reference)(&want, bases, scalars, n);
    for (unsigned c = MSM_MIN_WINDOW_BITS; c <= max_bits; c++) {
        msm_scalars *s;
        if (!CHECK(msm_scalars_prepare_window(&s, scalars, n, c) == G16_OK))
            continue;
        CHECK(msm_scalars_window_bits(s) == c);
        CHECK(msm_scalars_windows(s) * c >= 256);
        for (int mode = MSM_ACCUMULATE_XYZZ; mode <= MSM_ACCUMULATE_BATCH_AFFINE; mode++) {
            msm_options o = {(msm_accumulate)mode, 0};
            CHECK(MSMG(run_with)(&got, bases, s, &o) == G16_OK);
            if (!CHECK(PT(equal)(&got, &want)))
                printf("  %s window %u mode %d\n", STR(MSM_TEST_GROUP), c, mode);
        }
        msm_scalars_free(s);
    }
    free(bblock);
    free(sblock);
}

/* The fr_t entry converts from Montgomery form. */
static void TST(fr_entry)(size_t n)
{
    void *bblock;
    const uint8_t *bases = TST(make_bases)(&bblock, n, 1, 1);
    fr_t *k = malloc((n ? n : 1) * sizeof *k);
    uint8_t *bytes = malloc((n ? n : 1) * 32);
    for (size_t i = 0; i < n; i++) {
        test_random_fr(&k[i]);
        fr_to_bytes_le(bytes + 32 * i, &k[i]);
    }
    JAC a, b;
    CHECK(MSMG(fr)(&a, bases, k, n) == G16_OK);
    CHECK(MSM1(&b, bases, bytes, n) == G16_OK);
    CHECK(PT(equal)(&a, &b));
    free(k);
    free(bytes);
    free(bblock);
}

#undef OFFSET_RANDOM
#undef JAC
#undef AFF
#undef MSMG
#undef MSM1
#undef TST
#undef PT
#undef CAT
#undef CAT2

#else /* the driver ------------------------------------------------------------------ */

#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "harness.h"
#include "msm/msm.h"
#include "util/parallel.h"

#define STR2(x) #x
#define STR(x) STR2(x)

enum { MIX_DENSE, MIX_ZERO, MIX_ONE, MIX_SPARSE, MIX_MINUS_ONE, MIX_SMALL, MIX_RUNS, MIXES };

static void random_scalar_bytes(uint8_t out[32])
{
    fr_t k;
    test_random_fr(&k);
    fr_to_bytes_le(out, &k);
}

/* A scalar below r made of long runs of equal bits: it hits the digit boundaries
 * (windows of all ones, all zeros, carries through many windows). */
static void runs_scalar_bytes(uint8_t out[32])
{
    uint64_t v[4] = {0};
    unsigned bit = 0, value = test_rand64() & 1;
    while (bit < 255) {
        unsigned len = 1 + (unsigned)(test_rand64() % 40);
        for (unsigned b = bit; b < bit + len && b < 255; b++)
            if (value)
                v[b / 64] |= (uint64_t)1 << (b % 64);
        bit += len;
        value ^= 1;
    }
    fr_t k;
    while (!fr_from_limbs(&k, v))
        v[3] >>= 1;
    fr_to_bytes_le(out, &k);
}

/* n scalars at byte offset off in *block (free *block). */
static const uint8_t *make_scalars(void **block, size_t n, size_t off, int mix)
{
    uint8_t *mem = calloc(1, n * 32 + off + 1);
    *block = mem;
    uint8_t *s = mem + off;
    for (size_t i = 0; i < n; i++) {
        uint8_t *k = s + 32 * i;
        uint64_t u = test_rand64() % 100;
        switch (mix) {
        case MIX_DENSE:
            random_scalar_bytes(k);
            break;
        case MIX_ZERO:
            break;
        case MIX_ONE:
            k[0] = 1;
            break;
        case MIX_SPARSE:
            if (u >= 55 && u < 85)
                k[0] = 1;
            else if (u >= 85)
                random_scalar_bytes(k);
            break;
        case MIX_MINUS_ONE: {
            fr_t m;
            fr_one(&m);
            fr_neg(&m, &m);
            fr_to_bytes_le(k, &m);
            break;
        }
        case MIX_SMALL: {
            uint64_t v = test_rand64() % (u < 50 ? 8 : 70000);
            for (int b = 0; b < 8; b++)
                k[b] = (uint8_t)(v >> (8 * b));
            break;
        }
        default:
            runs_scalar_bytes(k);
            break;
        }
    }
    return s;
}

#define MSM_TEST_POOL 4160
#define MSM_TEST_GROUP g1
#include "test_msm.c"
#undef MSM_TEST_GROUP
#define MSM_TEST_GROUP g2
#include "test_msm.c"
#undef MSM_TEST_GROUP

/* Counts, the error paths and the prepared scalars shared by both groups. */
static void check_prepared_shared(size_t n)
{
    void *b1block, *b2block, *sblock;
    const uint8_t *b1 = t_g1_make_bases(&b1block, n, 2, 0);
    const uint8_t *b2 = t_g2_make_bases(&b2block, n, 6, 0);
    const uint8_t *sc = make_scalars(&sblock, n, 1, MIX_SPARSE);
    size_t zeros = 0, ones = 0;
    for (size_t i = 0; i < n; i++) {
        bool high = false;
        for (int b = 1; b < 32; b++)
            high |= sc[32 * i + b] != 0;
        zeros += !high && sc[32 * i] == 0;
        ones += !high && sc[32 * i] == 1;
    }
    msm_scalars *s;
    CHECK(msm_scalars_prepare(&s, sc, n) == G16_OK);
    size_t z, o, x;
    msm_scalars_counts(s, &z, &o, &x);
    CHECK(z == zeros && o == ones && x == n - zeros - ones);
    g1_jac_t r1, w1;
    g2_jac_t r2, w2;
    CHECK(msm_g1_run(&r1, b1, s) == G16_OK);
    CHECK(msm_g2_run(&r2, b2, s) == G16_OK);
    CHECK(msm_g1_run(&w1, b1, s) == G16_OK); /* the prepared object is not consumed */
    CHECK(g1_equal(&r1, &w1));
    CHECK(msm_g1(&w1, b1, sc, n) == G16_OK);
    CHECK(msm_g2(&w2, b2, sc, n) == G16_OK);
    CHECK(g1_equal(&r1, &w1));
    CHECK(g2_equal(&r2, &w2));
    t_g1_reference(&w1, b1, sc, n);
    t_g2_reference(&w2, b2, sc, n);
    CHECK(g1_equal(&r1, &w1));
    CHECK(g2_equal(&r2, &w2));
    msm_scalars_free(s);
    free(b1block);
    free(b2block);
    free(sblock);
}

static void check_errors(void)
{
    uint8_t sc[3 * 32] = {0};
    /* scalar 1 = r: not canonical */
    for (int l = 0; l < 4; l++)
        for (int b = 0; b < 8; b++)
            sc[32 + 8 * l + b] = (uint8_t)(FR_MODULUS[l] >> (8 * b));
    msm_scalars *s = (msm_scalars *)1;
    CHECK(msm_scalars_prepare(&s, sc, 3) == G16_ERR_BAD_ENCODING);
    CHECK(s == NULL);
    CHECK(strstr(g16_last_error(), "scalar 1 ") != NULL);
    memset(sc + 32, 0xff, 32); /* 2^256 - 1 */
    CHECK(msm_scalars_prepare(&s, sc, 3) == G16_ERR_BAD_ENCODING);
    g1_jac_t r;
    void *bblock;
    const uint8_t *b = t_g1_make_bases(&bblock, 3, 0, 0);
    CHECK(msm_g1(&r, b, sc, 3) == G16_ERR_BAD_ENCODING);
    CHECK(g1_is_infinity(&r));
    CHECK(msm_scalars_prepare_window(&s, sc, 0, MSM_MAX_WINDOW_BITS + 1) ==
          G16_ERR_INVALID_ARGUMENT);
    CHECK(msm_scalars_prepare(&s, NULL, 5) == G16_ERR_INVALID_ARGUMENT);
    CHECK(msm_scalars_prepare(&s, NULL, 0) == G16_OK);
    CHECK(msm_g1_run(&r, NULL, s) == G16_OK && g1_is_infinity(&r));
    msm_scalars_free(s);
    free(bblock);
}

int main(void)
{
    test_init("test_msm");
    t_g1_make_pool();
    t_g2_make_pool();

    /* Sizes: tiny, odd, powers of two and their neighbours up to 2^12 + 1; each size
     * gets a scalar mix and a base kind in turn, dense scalars for some big ones.
     * Unoptimised builds (Debug, sanitizers: no NDEBUG) are ~15x slower, so their default
     * plan stops at 2^10 + 1 (G1) and 2^8 + 1 (G2); G16_TEST_SCALE >= 2 runs everything. */
#ifdef NDEBUG
    bool full = true;
#else
    bool full = test_count(1) > 1;
#endif
    size_t g1_cap = full ? 4097 : 1025, g2_cap = full ? 1025 : 257, mid = full ? 300 : 100;
    size_t g1_threads_at[2] = {full ? 2049 : 513, full ? 4097 : 1025};
    size_t g2_threads_at = full ? 1025 : 257;
    static const size_t g1_sizes[] = {0,   1,   2,   3,   4,    5,    7,    8,    9,   15,
                                      16,  17,  31,  33,  63,   64,   65,   100,  127, 128,
                                      129, 255, 256, 257, 511,  512,  513,  1000, 1023,
                                      1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097};
    static const size_t g2_sizes[] = {0, 1, 2, 3, 5, 8, 17, 64, 129, 255, 256, 257, 1023, 1025};
    size_t rounds = test_count(1);
    for (size_t round = 0; round < rounds; round++) {
        for (size_t i = 0; i < sizeof g1_sizes / sizeof g1_sizes[0]; i++) {
            size_t n = g1_sizes[i];
            if (n > g1_cap)
                break;
            bool threads = n == g1_threads_at[0] || n == g1_threads_at[1];
            int mix = threads && (i + round) % 2 ? MIX_DENSE : (int)((i + round) % MIXES);
            t_g1_case(n, (int)((i + 2 * round) % 5), mix, threads);
        }
        for (size_t i = 0; i < sizeof g2_sizes / sizeof g2_sizes[0]; i++) {
            size_t n = g2_sizes[i];
            if (n > g2_cap)
                break;
            int mix = n == g2_threads_at ? MIX_DENSE : (int)((i + round) % MIXES);
            t_g2_case(n, (int)((i + round) % 5), mix, n == g2_threads_at);
        }
        /* Every mix and base kind at one mid size, both groups. */
        for (int mix = 0; mix < MIXES; mix++)
            for (int kind = 0; kind < 5; kind++) {
                t_g1_case(mid + (size_t)mix, kind, mix, false);
                if (kind == mix % 5)
                    t_g2_case(mid * 2 / 3 + (size_t)mix, kind, mix, false);
            }
    }
    t_g1_window_sweep(70, 20);
    t_g2_window_sweep(40, 16);
    t_g1_misaligned(full ? 200 : 60);
    t_g2_misaligned(full ? 70 : 20);
    t_g1_fr_entry(257);
    t_g2_fr_entry(65);
    check_prepared_shared(3000);
    check_errors();
    return test_finish();
}

#endif
