/* Backend selection and the CPU backend (the code of src/msm and src/groth16 as it is). */
#include "backend/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msm/msm.h"
#include "util/bytes.h"
#include "util/clock.h"
#include "util/parallel.h"
#include "util/status.h"

static g16_status cpu_msm_g1(backend *be, g1_jac_t *r, const uint8_t *bases, const void *scalars,
                             size_t n, bool montgomery)
{
    return montgomery ? msm_g1_fr(r, bases, scalars, n) : msm_g1(r, bases, scalars, n);
}

static g16_status cpu_msm_g2(backend *be, g2_jac_t *r, const uint8_t *bases, const void *scalars,
                             size_t n, bool montgomery)
{
    return montgomery ? msm_g2_fr(r, bases, scalars, n) : msm_g2(r, bases, scalars, n);
}

static void cpu_close(backend *be)
{
    free(be);
}

static g16_status backend_cpu_open(backend **out)
{
    backend *be = calloc(1, sizeof *be);
    if (!be)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "backend: no memory");
    be->name = "cpu";
    snprintf(be->description, sizeof be->description, "cpu (%u threads)", parallel_threads());
    be->msm_g1 = cpu_msm_g1;
    be->msm_g2 = cpu_msm_g2;
    be->close = cpu_close;
    *out = be;
    return G16_OK;
}

g16_status backend_open(backend **out, const char *kind)
{
    *out = NULL;
    if (!kind || !strcmp(kind, "auto")) {
        if (backend_cuda_open(out, 0) == G16_OK)
            return G16_OK;
        return backend_cpu_open(out);
    }
    if (!strcmp(kind, "cpu"))
        return backend_cpu_open(out);
    if (!strcmp(kind, "cuda"))
        return backend_cuda_open(out, 0);
    return status_fail(G16_ERR_INVALID_ARGUMENT, "unknown backend '%s' (cpu, cuda or auto)", kind);
}

const char *backend_key_placement_name(backend_key_placement p)
{
    return p == BACKEND_KEY_RESIDENT ? "resident" : p == BACKEND_KEY_STREAMED ? "streamed" : "auto";
}

bool backend_key_placement_parse(backend_key_placement *p, const char *name)
{
    static const backend_key_placement all[] = {BACKEND_KEY_AUTO, BACKEND_KEY_RESIDENT,
                                                BACKEND_KEY_STREAMED};
    for (size_t i = 0; name && i < 3; i++)
        if (!strcmp(name, backend_key_placement_name(all[i]))) {
            *p = all[i];
            return true;
        }
    return false;
}

g16_status backend_key_placement_default(backend_key_placement *p)
{
    const char *env = getenv("G16_GPU_KEY");
    *p = BACKEND_KEY_AUTO;
    if (env && !backend_key_placement_parse(p, env))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "G16_GPU_KEY=%s: expected auto, resident or streamed", env);
    return G16_OK;
}

void backend_key_arrays(const groth16_prover_key *pk, const uint8_t *ptr[BACKEND_KEY_ARRAYS],
                        size_t bytes[BACKEND_KEY_ARRAYS])
{
    size_t nv = pk->n_vars, n = pk->domain_size;
    size_t na = pk->density_a ? pk->n_a : nv, nb = pk->density_b ? pk->n_b : nv;
    const uint8_t *p[BACKEND_KEY_ARRAYS] = {pk->a, pk->b1, pk->b2, pk->c, pk->h};
    size_t b[BACKEND_KEY_ARRAYS] = {na * 96, nb * 96, nb * 192, (nv - pk->n_public - 1) * 96,
                                    n * 96};
    for (int k = 0; k < BACKEND_KEY_ARRAYS; k++) {
        ptr[k] = p[k];
        bytes[k] = b[k];
    }
}

uint64_t backend_key_arrays_bytes(const groth16_prover_key *pk, unsigned arrays)
{
    const uint8_t *ptr[BACKEND_KEY_ARRAYS];
    size_t bytes[BACKEND_KEY_ARRAYS];
    backend_key_arrays(pk, ptr, bytes);
    uint64_t sum = 0;
    for (int k = 0; k < BACKEND_KEY_ARRAYS; k++)
        if (arrays & (1u << k))
            sum += bytes[k];
    return sum;
}

uint64_t backend_key_device_bytes(const groth16_prover_key *pk)
{
    return backend_key_arrays_bytes(pk, BACKEND_KEY_ALL_ARRAYS);
}

const char *backend_key_arrays_names(unsigned arrays, char *out, size_t cap)
{
    static const char *const names[BACKEND_KEY_ARRAYS] = {"A", "B1", "B2", "C", "H"};
    size_t len = 0;
    if (cap)
        out[0] = '\0';
    for (int k = 0; k < BACKEND_KEY_ARRAYS; k++)
        if (arrays & (1u << k) && len < cap) {
            int w = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", names[k]);
            len += w > 0 ? (size_t)w : 0;
        }
    if (!len && cap)
        snprintf(out, cap, "none");
    return out;
}

/* Window digits the GPU MSM's batch-affine path holds at once for m scalars (a group of
 * windows, msm_batch_affine.cuh's ba_group: up to 2^25 digits, at least one window, in a
 * context planned for memory as a partition's is; standalone MSMs size their groups by
 * the free memory, cuda_msm.cu's msm_group_points). */
static uint64_t msm_group_digits(uint64_t m)
{
    uint64_t cap = (uint64_t)1 << 25, all = 16 * m;
    return m > cap ? m : all < cap ? all : cap;
}

/* The batch-affine rounds' buffers for h digits (msm_batch_affine.cuh, ba_round_bufs):
 * the two point buffers, 3/4 of an affine point a digit (72 bytes in G1, 144 in G2), and
 * a chunk's running products and pair indices, h / 2 pairs of 56 bytes (G1) or 104 (G2,
 * its norms too), at most `chunk` bytes. */
static uint64_t rounds_bytes(uint64_t h, bool g2, uint64_t chunk)
{
    uint64_t pairs = (g2 ? 52 : 28) * h;
    return (g2 ? 144 : 72) * h + (pairs < chunk ? pairs : chunk);
}

static const uint64_t GIB = (uint64_t)1 << 30;

/* A partition's device bytes with the arrays in `resident` on the device and the others
 * streamed in chunks of stream_chunk (none when it is 0). */
static uint64_t partition_bytes(const groth16_prover_key *pk, uint64_t stream_chunk,
                                unsigned resident, bool glv, uint64_t slice_digits, bool arena)
{
    const bool key_streamed = stream_chunk != 0 && (resident & BACKEND_KEY_ALL_ARRAYS) !=
                                                       BACKEND_KEY_ALL_ARRAYS;
    uint64_t nv = pk->n_vars, n = pk->domain_size;
    /* The A and B scalars are gathered into buffers of their own only when the key
     * leaves wires out (backend_cuda.c: a_whole, b_whole). */
    uint64_t na = pk->density_a && pk->n_a != nv ? pk->n_a : 0;
    uint64_t nb = pk->density_b && pk->n_b != nv ? pk->n_b : 0;
    /* a, b, c, z and the gathered A and B scalars; then the largest MSM's scratch
     * (cuda_msm.cu, msm_batch_affine.cuh) for m scalars, of which a window holds d digits
     * (m; 2 m with GLV): canonical scalars (32 m), their kinds and the two index lists (9
     * m), sort keys and values (12 d) and CUB's sort scratch (8 d: its own copies of them);
     * for a group of windows of g = max(d, min(16 d, 2^25)) digits, two sorted index lists
     * (8 g: the next group's sorted beside this one's rounds); the batch-affine rounds'
     * buffers (rounds_bytes) for h = g digits, or h = slice_digits when a window is cut
     * into slices of about that many, with chunks of 2 GiB (BA_CHUNK_BYTES_PLANNED), unless
     * they lie in the device's arena (backend_msm_arena_bytes); the buckets of every
     * window (above 2^24 scalars 13 windows of 2^19 XYZZ points: 1.25 GiB in G1, 2.5 GiB
     * in G2; ~100 MiB below; split sums' affine buckets for 4 windows of 2^21 take less).
     * H's MSM has n dense G1 scalars, the B2 MSM n_b G2 ones. A list of ones (their
     * classification beside it) goes through the rounds in pieces of at most 2^26 G1
     * points or 2^25 G2 ones (BA_LIST_PIECE_BYTES), never in the arena. (The XYZZ
     * accumulation below 2^20 scalars needs less: 4 W m sorted indices, no point
     * buffers.) b and c go back to the pool before the MSMs (backend_cuda.c), and the
     * canonical scalars, the same size, take one of their blocks: 32 n less. The other
     * block serves smaller requests, whose sizes rarely match, so it is not counted off.
     * The pool rounds each block up to 1/8 of its power of two (cuda_ctx.cuh): 1/16 more
     * on average, counted on the whole (run 63: the model without it was 2.2 GB under
     * the measured pool of a 2^27 partition). */
    uint64_t m2 = pk->density_b ? pk->n_b : nv, m1 = nv > n ? nv : n, mh = n, credit = 32 * n, phi = 0;
    uint64_t chunk = key_streamed ? stream_chunk : 0;
    if (key_streamed) {
        /* Each MSM runs chunk by chunk (backend_cuda.c, msm_streamed_g1/g2), without GLV
         * unless H's chunks make their tables (backend_stream_glv), so its scratch is a
         * chunk's (and, for H by GLV, the chunk's table): at a 2^27 partition
         * 38.9 GiB by the whole MSMs' scratch against 26.5 GiB measured (run 107), which
         * cost an 80 GB card its second worker. The chunks' buffers may take b's and c's
         * blocks in the pool; they are counted apart, and the canonical scalars get no
         * block of b's, to stay on the safe side. An array kept resident (a split key)
         * has its whole MSM's scratch, without GLV (backend_cuda.c: H's table only with
         * the whole key resident). */
        uint64_t c1 = chunk / 96, c2 = chunk / 192;
        if (!(resident & BACKEND_KEY_BIT_H))
            mh = mh < c1 ? mh : c1;
        if (!(resident & (BACKEND_KEY_BIT_A | BACKEND_KEY_BIT_B1 | BACKEND_KEY_BIT_C)))
            m1 = m1 < c1 ? m1 : c1;
        if (!(resident & BACKEND_KEY_BIT_B2))
            m2 = m2 < c2 ? m2 : c2;
        glv = !(resident & BACKEND_KEY_BIT_H) && backend_stream_glv(); /* H's chunks' own tables */
        credit = 0;
        phi = glv ? 48 * mh : 0;
    }
    uint64_t hd = glv ? 2 * mh : mh, g1 = msm_group_digits(hd), g2 = msm_group_digits(m2);
    uint64_t h1 = slice_digits && slice_digits < g1 ? slice_digits : g1;
    uint64_t h2 = slice_digits && slice_digits < g2 ? slice_digits : g2;
    const uint64_t planned = 2 * GIB; /* BA_CHUNK_BYTES_PLANNED */
    uint64_t g1_msm = (32 + 9) * mh + (12 + 8) * hd + 8 * g1 + (arena ? 0 : rounds_bytes(h1, false, planned)) +
                      ((uint64_t)(mh > (1u << 24) ? 5 : 1) << 28) + phi - credit;
    uint64_t g2_msm = (32 + 9 + 12 + 8) * m2 + 8 * g2 + (arena ? 0 : rounds_bytes(h2, true, planned)) +
                      ((uint64_t)(m2 > (1u << 24) ? 5 : 1) << 29);
    uint64_t p1 = (uint64_t)1 << 26, p2 = (uint64_t)1 << 25; /* BA_LIST_PIECE_BYTES */
    uint64_t ones1 = (32 + 9) * m1 - credit + rounds_bytes(m1 < p1 ? m1 : p1, false, 4 * GIB);
    uint64_t ones2 = (32 + 9 + 12 + 8) * m2 + rounds_bytes(m2 < p2 ? m2 : p2, true, 4 * GIB);
    uint64_t msm = g1_msm > g2_msm ? g1_msm : g2_msm;
    msm = ones1 > msm ? ones1 : msm;
    msm = ones2 > msm ? ones2 : msm;
    uint64_t bytes = (3 * n + nv + na + nb) * 32 + msm;
    bytes += bytes / 16;
    return bytes + 2 * chunk;
}

uint64_t backend_partition_device_bytes(const groth16_prover_key *pk, uint64_t stream_chunk,
                                        bool glv, uint64_t slice_digits, bool arena)
{
    return partition_bytes(pk, stream_chunk, stream_chunk ? 0 : BACKEND_KEY_ALL_ARRAYS, glv,
                           slice_digits, arena);
}

uint64_t backend_partition_device_bytes_split(const groth16_prover_key *pk, uint64_t stream_chunk,
                                              unsigned resident)
{
    return partition_bytes(pk, stream_chunk, resident, false, 0, false);
}

bool backend_stream_glv(void)
{
    const char *env = getenv("G16_GPU_STREAM_GLV");
    return !env || strcmp(env, "0");
}

bool backend_stage_next(void)
{
    const char *env = getenv("G16_GPU_STAGE_NEXT");
    return !env || strcmp(env, "0");
}

uint64_t backend_stream_chunk_bytes(void)
{
    const char *env = getenv("G16_GPU_STREAM_CHUNK");
    uint64_t v = 0;
    return env && bytes_parse(&v, env) && v >= 192 ? v : BACKEND_STREAM_CHUNK_BYTES;
}

uint64_t backend_msm_arena_bytes(const groth16_prover_key *pk, bool glv)
{
    /* The largest group of windows' rounds with the default 4 GiB chunks (BA_CHUNK_BYTES):
     * H's (2 n digits a window by GLV) or another G1 MSM's over every wire, or B2's; a
     * group's bucket places and the buffers' alignment in the 1/16 added. */
    uint64_t nv = pk->n_vars, n = pk->domain_size, m2 = pk->density_b ? pk->n_b : nv;
    uint64_t hd = glv ? 2 * n : n, d1 = hd > nv ? hd : nv;
    uint64_t r1 = rounds_bytes(msm_group_digits(d1), false, 4 * GIB);
    uint64_t r2 = rounds_bytes(msm_group_digits(m2), true, 4 * GIB);
    uint64_t bytes = r1 > r2 ? r1 : r2;
    return bytes + bytes / 16;
}

uint64_t backend_glv_slice_digits(const groth16_prover_key *pk, unsigned slices)
{
    uint64_t d = 2 * (uint64_t)pk->domain_size;
    return slices <= 1 ? 0 : (d + slices - 1) / slices;
}

uint64_t backend_glv_table_bytes(const groth16_prover_key *pk)
{
    return (uint64_t)pk->domain_size * 48; /* beta x of each H point */
}

void backend_close(backend *be)
{
    if (be)
        be->close(be);
}

g16_status backend_prepare_key(backend *be, const groth16_prover_key *pk, double *ms)
{
    double t0 = clock_ms();
    g16_status st = be->prepare_key ? be->prepare_key(be, pk) : G16_OK;
    if (ms)
        *ms = clock_ms() - t0;
    return st;
}

void backend_setup_accel(backend *be, groth16_setup_accel *accel)
{
    *accel = be->setup;
}

void backend_prove_options(backend *be, groth16_prove_options *opts)
{
    opts->partition = be->partition;
    opts->partition_ctx = be;
}
