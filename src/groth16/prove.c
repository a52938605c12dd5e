#include "prove.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/encoding.h"
#include "groth16/density.h"
#include "groth16/h_poly.h"
#include "groth16/secret.h"
#include "groth16/zkey_evals.h"
#include "msm/msm.h"
#include "trace/trace.h"
#include "util/big_alloc.h"
#include "util/clock.h"
#include "util/status.h"

g16_status groth16_vk_from_zkey(groth16_vk *vk, const zkey_t *key)
{
    g16_status st = groth16_vk_alloc(vk, key->n_public);
    if (st)
        return st;
    vk->alpha1 = key->alpha1;
    vk->beta2 = key->beta2;
    vk->gamma2 = key->gamma2;
    vk->delta2 = key->delta2;
    for (size_t i = 0; i <= key->n_public; i++) {
        st = g1_decode_snarkjs(&vk->ic[i], key->ic.data + i * ZKEY_G1_BYTES, true);
        if (st) {
            groth16_vk_free(vk);
            return status_fail(st, "zkey IC point %zu: %s", i, g16_last_error());
        }
    }
    return G16_OK;
}

/* --- the proof --------------------------------------------------------------------------- */

/* One MSM as a stage of the timeline (a KERNEL on the CPU). */
static g16_status msm_g1_stage(g1_jac_t *r, const uint8_t *bases, const msm_scalars *s,
                               const char *stage)
{
    uint64_t t = trace_begin();
    g16_status st = msm_g1_run(r, bases, s);
    trace_end(t, TRACE_KERNEL, stage);
    return st;
}

static void add_affine(g1_jac_t *acc, const g1_affine_t *p) { g1_add_mixed(acc, acc, p); }

void groth16_prover_key_from_zkey(groth16_prover_key *pk, const zkey_t *key)
{
    *pk = (groth16_prover_key){
        .n_vars = key->n_vars, .n_public = key->n_public, .domain_size = key->domain_size,
        .log2_domain = key->log2_domain, .alpha1 = key->alpha1, .beta1 = key->beta1,
        .delta1 = key->delta1, .beta2 = key->beta2, .delta2 = key->delta2,
        .n_a = key->n_vars, .n_b = key->n_vars,
        .a = key->a.data, .b1 = key->b1.data, .b2 = key->b2.data, .c = key->c.data,
        .h = key->h.data};
}

void groth16_prover_key_from_setup(groth16_prover_key *pk, const groth16_setup_key *key)
{
    unsigned log2 = 0;
    while (((size_t)1 << log2) < key->domain_size)
        log2++;
    *pk = (groth16_prover_key){
        .n_vars = key->n_vars, .n_public = key->n_public, .domain_size = key->domain_size,
        .log2_domain = log2, .alpha1 = key->alpha1, .beta1 = key->beta1,
        .delta1 = key->delta1, .beta2 = key->beta2, .delta2 = key->delta2,
        .density_a = key->density_a, .density_b = key->density_b, .n_a = key->n_a,
        .n_b = key->n_b, .a = (const uint8_t *)key->a, .b1 = (const uint8_t *)key->b1,
        .b2 = (const uint8_t *)key->b2, .c = (const uint8_t *)key->c,
        .h = (const uint8_t *)key->h};
}

/* The scalars of one query: the whole witness (n_vars entries: no density, or every wire
 * marked), or the count entries of the wires marked in density, gathered. window: the
 * width of the digits, 0 for the G1 choice (msm_window_bits). */
static g16_status query_scalars(msm_scalars **out, const uint64_t *density, size_t count,
                                const fr_t *z, const uint8_t *z_bytes, size_t n_vars,
                                unsigned window)
{
    if (!density || count == n_vars)
        return z_bytes ? msm_scalars_prepare_window(out, z_bytes, n_vars, window)
                       : msm_scalars_prepare_fr_window(out, z, n_vars, window);
    fr_t *g = big_alloc(count * sizeof *g);
    if (!g)
        return status_fail(G16_ERR_OUT_OF_MEMORY, "gathering %zu witness entries", count);
    density_gather(g, z_bytes ? (const void *)z_bytes : (const void *)z, density, n_vars);
    g16_status st = z_bytes ? msm_scalars_prepare_window(out, (const uint8_t *)g, count, window)
                            : msm_scalars_prepare_fr_window(out, g, count, window);
    big_free(g);
    return st;
}

/* B2's scalars, given B's prepared with the G1 width (b1): the same object when the G2
 * width the model picks is the same (*own = NULL), else prepared again with it (*own):
 * G2's buckets are twice G1's bytes, so they outgrow the cache a window bit earlier
 * (bench/NOTES.md, "Window widths with the IFMA walk"). */
static g16_status b2_scalars(const msm_scalars **use, msm_scalars **own, const msm_scalars *b1,
                             const groth16_prover_key *pk, const fr_t *z,
                             const uint8_t *z_bytes)
{
    *own = NULL;
    *use = b1;
    size_t others;
    msm_scalars_counts(b1, NULL, NULL, &others);
    unsigned c2 = others ? msm_window_bits_for(others, MSM_G2_BASE_BYTES) : 0;
    if (!c2 || c2 == msm_scalars_window_bits(b1))
        return G16_OK;
    g16_status st = query_scalars(own, pk->density_b, pk->n_b, z, z_bytes, pk->n_vars, c2);
    if (!st)
        *use = *own;
    return st;
}

g16_status groth16_assemble(groth16_proof *proof, const groth16_prover_key *pk,
                            const groth16_msm_results *m, const groth16_prove_options *opts)
{
    fr_t r, s, rs;
    g16_status st;
    if (opts && opts->fixed_r && opts->fixed_s) {
        r = *opts->fixed_r;
        s = *opts->fixed_s;
    } else if ((st = secret_scalar(&r)) || (st = secret_scalar(&s)))
        return st;
    fr_mul(&rs, &r, &s);
    g1_jac_t pa, pb1, pc, tmp, delta1;
    g2_jac_t pb, delta2;
    g1_from_affine(&delta1, &pk->delta1);
    g2_from_affine(&delta2, &pk->delta2);

    pa = m->a; /* alpha1 + A.z + r delta1 */
    add_affine(&pa, &pk->alpha1);
    g1_mul(&tmp, &delta1, &r);
    g1_add(&pa, &pa, &tmp);

    pb = m->b2; /* beta2 + B2.z + s delta2 */
    g2_add_mixed(&pb, &pb, &pk->beta2);
    g2_jac_t tmp2;
    g2_mul(&tmp2, &delta2, &s);
    g2_add(&pb, &pb, &tmp2);

    pb1 = m->b1; /* beta1 + B1.z + s delta1 */
    add_affine(&pb1, &pk->beta1);
    g1_mul(&tmp, &delta1, &s);
    g1_add(&pb1, &pb1, &tmp);

    pc = m->c; /* C.z_aux + H.h + s pi_a + r B1' - r s delta1 */
    g1_add(&pc, &pc, &m->h);
    g1_mul(&tmp, &pa, &s);
    g1_add(&pc, &pc, &tmp);
    g1_mul(&tmp, &pb1, &r);
    g1_add(&pc, &pc, &tmp);
    g1_mul(&tmp, &delta1, &rs);
    g1_sub(&pc, &pc, &tmp);

    g1_to_affine(&proof->a, &pa);
    g2_to_affine(&proof->b, &pb);
    g1_to_affine(&proof->c, &pc);
    explicit_bzero(&r, sizeof r);
    explicit_bzero(&s, sizeof s);
    explicit_bzero(&rs, sizeof rs);
    return G16_OK;
}

/* The B2 MSM on a thread of its own (groth16_prove_options.g2_on_cpu). It reads only the
 * witness, which the rest of the proof does not change. */
typedef struct {
    pthread_t tid;
    bool running;
    const groth16_prover_key *pk;
    const fr_t *z;
    const uint8_t *z_bytes;
    int32_t job, partition; /* the caller's timeline context */
    g2_jac_t b2;
    double ms;
    g16_status st;
    char error[256]; /* g16_last_error() is per thread: the caller gets it from here */
} g2_task;

/* B2.z on the CPU from the witness (its B query's scalars prepared here), a timeline
 * stage; *ms receives its duration. */
static g16_status cpu_b2(g2_jac_t *b2, double *ms, const groth16_prover_key *pk,
                         const fr_t *z, const uint8_t *z_bytes)
{
    double t0 = clock_ms();
    uint64_t span = trace_begin();
    msm_scalars *zb = NULL, *z2_own = NULL;
    const msm_scalars *z2;
    g16_status st = query_scalars(&zb, pk->density_b, pk->n_b, z, z_bytes, pk->n_vars, 0);
    if (!st)
        st = b2_scalars(&z2, &z2_own, zb, pk, z, z_bytes);
    if (!st)
        st = msm_g2_run(b2, pk->b2, z2);
    msm_scalars_free(zb);
    msm_scalars_free(z2_own);
    trace_end(span, TRACE_KERNEL, "MSM_B2 (CPU)");
    *ms = clock_ms() - t0;
    return st;
}

static void *g2_task_main(void *arg)
{
    g2_task *t = arg;
    trace_context_set(t->job, t->partition);
    t->st = cpu_b2(&t->b2, &t->ms, t->pk, t->z, t->z_bytes);
    if (t->st)
        snprintf(t->error, sizeof t->error, "%s", g16_last_error());
    return NULL;
}

static g16_status g2_task_start(g2_task *t, const groth16_prover_key *pk, const fr_t *z,
                                const uint8_t *z_bytes)
{
    *t = (g2_task){.pk = pk, .z = z, .z_bytes = z_bytes};
    trace_context_get(&t->job, &t->partition);
    if (pthread_create(&t->tid, NULL, g2_task_main, t) != 0)
        return status_fail(G16_ERR_INTERNAL, "cannot start a thread for the G2 MSM");
    t->running = true;
    return G16_OK;
}

/* Waits for the task (a no-op when none was started) and takes its result. */
static g16_status g2_task_join(g2_task *t, g2_jac_t *b2, groth16_prove_stats *stats)
{
    if (!t->running)
        return G16_OK;
    pthread_join(t->tid, NULL);
    t->running = false;
    if (t->st)
        return status_fail(t->st, "%s", t->error);
    *b2 = t->b2;
    stats->ms_msm_g2 += t->ms;
    return G16_OK;
}

/* Gives a big_alloc'd buffer back and forgets it (a no-op for NULL). */
static void release(fr_t **p)
{
    big_free(*p);
    *p = NULL;
}

/* Steps 2-3 into *res: on the partition hook when there is one, else here on the CPU;
 * B2 only unless skip_b2 (the caller computes it: res->b2 is then left alone). a, b, c are
 * overwritten, the witness is only read. With evals_owned, *a, *b, *c are big_alloc'd
 * buffers handed over: they are freed (and set to NULL) as soon as they are dead, so that
 * the MSMs' scratch reuses their pages. Why: on the 2-core VMs g16 is measured on, the
 * kernel's zeroing of fresh pages ran at ~3 ms per MiB (the hypervisor backs each page on
 * first touch) and was a quarter of a 2^17 proof's CPU time (bench/NOTES.md). */
static g16_status steps_2_3(groth16_msm_results *res, groth16_prove_stats *stats,
                            const groth16_prover_key *pk, const fr_t *z, const uint8_t *z_bytes,
                            fr_t **a_p, fr_t **b_p, fr_t **c_p, bool evals_owned,
                            const groth16_prove_options *opts, bool skip_b2)
{
    fr_t *a = *a_p, *b = *b_p, *c = *c_p;
    res->b2_elsewhere = skip_b2;
    if (opts && opts->partition) /* it records its own stages (H, uploads, each MSM) */
        return opts->partition(opts->partition_ctx, res, stats, pk, z, z_bytes, a, b, c);

    size_t n = pk->domain_size, nv = pk->n_vars, np = pk->n_public;
    msm_scalars *zs = NULL, *zb_own = NULL, *z_aux = NULL, *hs = NULL, *z2_own = NULL;
    const msm_scalars *zb;
    g16_status st;
    uint64_t trace_stage = trace_begin();

    /* 2. h, in place in a. */
    double t = clock_ms();
    if ((st = h_poly_compute(a, a, b, c, pk->log2_domain, H_POLY_SNARKJS)))
        goto out;
    stats->ms_h += clock_ms() - t;
    trace_end(trace_stage, TRACE_KERNEL, "NTT/H");
    if (evals_owned) {
        release(b_p);
        release(c_p);
    }

    /* 3. MSMs. The witness is classified once for A and once for B1 and B2, or once for
     * all three when both queries cover every wire (a dense key). */
    t = clock_ms();
    trace_stage = trace_begin();
    if ((st = query_scalars(&zs, pk->density_a, pk->n_a, z, z_bytes, nv, 0)))
        goto out;
    zb = zs;
    bool a_whole = !pk->density_a || pk->n_a == nv, b_whole = !pk->density_b || pk->n_b == nv;
    if (!(a_whole && b_whole) &&
        (st = query_scalars(&zb_own, pk->density_b, pk->n_b, z, z_bytes, nv, 0)))
        goto out;
    if (zb_own)
        zb = zb_own;
    if (z_bytes)
        st = msm_scalars_prepare(&z_aux, z_bytes + (np + 1) * 32, nv - np - 1);
    else
        st = msm_scalars_prepare_fr(&z_aux, z + np + 1, nv - np - 1);
    if (st || (st = msm_scalars_prepare_fr(&hs, a, n)))
        goto out;
    if (evals_owned) /* hs holds h's digits now */
        release(a_p);
    msm_scalars_counts(zs, &stats->scalars_zero, &stats->scalars_one, &stats->scalars_other);
    trace_end(trace_stage, TRACE_KERNEL, "scalars");
    if ((st = msm_g1_stage(&res->a, pk->a, zs, "MSM_A")) ||
        (st = msm_g1_stage(&res->b1, pk->b1, zb, "MSM_B1")) ||
        (st = msm_g1_stage(&res->c, pk->c, z_aux, "MSM_C")) ||
        (st = msm_g1_stage(&res->h, pk->h, hs, "MSM_H")))
        goto out;
    stats->ms_msm_g1 += clock_ms() - t;
    if (!skip_b2) {
        t = clock_ms();
        trace_stage = trace_begin();
        const msm_scalars *z2;
        if ((st = b2_scalars(&z2, &z2_own, zb, pk, z, z_bytes)) ||
            (st = msm_g2_run(&res->b2, pk->b2, z2)))
            goto out;
        stats->ms_msm_g2 += clock_ms() - t;
        trace_end(trace_stage, TRACE_KERNEL, "MSM_B2");
    }
out:
    msm_scalars_free(zs);
    msm_scalars_free(zb_own);
    msm_scalars_free(z_aux);
    msm_scalars_free(hs);
    msm_scalars_free(z2_own);
    return st;
}

/* 4. Blinding and assembly, as a stage of the timeline. */
static g16_status assemble_stage(groth16_proof *proof, const groth16_prover_key *pk,
                                 const groth16_msm_results *res,
                                 const groth16_prove_options *opts)
{
    uint64_t span = trace_begin();
    g16_status st = groth16_assemble(proof, pk, res, opts);
    trace_end(span, TRACE_FINALIZE, "assemble");
    return st;
}

/* groth16_prove_evals; with evals_owned as in steps_2_3. */
static g16_status prove_evals(groth16_proof *proof, groth16_prove_stats *stats,
                              const groth16_prover_key *pk, const fr_t *z, const uint8_t *z_bytes,
                              fr_t **a, fr_t **b, fr_t **c, bool evals_owned,
                              const groth16_prove_options *opts)
{
    uint64_t span = trace_begin();
    groth16_msm_results res;
    bool g2_apart = opts && opts->g2_on_cpu;
    g2_task g2 = {0};
    g16_status st = g2_apart ? g2_task_start(&g2, pk, z, z_bytes) : G16_OK;
    if (!st) {
        st = steps_2_3(&res, stats, pk, z, z_bytes, a, b, c, evals_owned, opts, g2_apart);
        g16_status st_g2 = g2_task_join(&g2, &res.b2, stats); /* on every path: it reads z */
        if (!st)
            st = st_g2;
    }
    if (!st)
        st = assemble_stage(proof, pk, &res, opts);
    trace_end(span, TRACE_PROVE, "");
    return st;
}

g16_status groth16_prove_evals(groth16_proof *proof, groth16_prove_stats *stats,
                               const groth16_prover_key *pk, const fr_t *z,
                               const uint8_t *z_bytes, fr_t *a, fr_t *b, fr_t *c,
                               const groth16_prove_options *opts)
{
    return prove_evals(proof, stats, pk, z, z_bytes, &a, &b, &c, false, opts);
}

g16_status groth16_prove_evals_deferred(groth16_msm_results *res, groth16_prove_stats *stats,
                                        const groth16_prover_key *pk, const fr_t *z,
                                        const uint8_t *z_bytes, fr_t *a, fr_t *b, fr_t *c,
                                        const groth16_prove_options *opts)
{
    uint64_t span = trace_begin();
    g16_status st = steps_2_3(res, stats, pk, z, z_bytes, &a, &b, &c, false, opts, true);
    trace_end(span, TRACE_PROVE, "without B2");
    return st;
}

g16_status groth16_finish_deferred(groth16_proof *proof, groth16_prove_stats *stats,
                                   const groth16_prover_key *pk, groth16_msm_results *res,
                                   const fr_t *z, const uint8_t *z_bytes,
                                   const groth16_prove_options *opts)
{
    double ms;
    g16_status st = cpu_b2(&res->b2, &ms, pk, z, z_bytes);
    stats->ms_msm_g2 += ms;
    return st ? st : assemble_stage(proof, pk, res, opts);
}

g16_status groth16_prove_zkey(groth16_proof *proof, fr_t **public_inputs,
                              groth16_prove_stats *stats, const zkey_t *key,
                              const wtns_t *witness, const groth16_prove_options *opts)
{
    groth16_prove_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    *public_inputs = NULL;
    double t0 = clock_ms(), t;
    g16_status st;
    if ((st = groth16_zkey_witness_check(key, witness)) || (st = zkey_validate_coefs(key)))
        return st;

    size_t n = key->domain_size, np = key->n_public;
    fr_t *a = big_alloc(n * sizeof *a), *b = big_alloc(n * sizeof *b), *c = big_alloc(n * sizeof *c);
    fr_t *inputs = malloc((np ? np : 1) * sizeof *inputs);
    if (!a || !b || !c || !inputs) {
        st = status_fail(G16_ERR_OUT_OF_MEMORY, "prover buffers for domain %zu", n);
        goto out;
    }
    for (size_t i = 0; i < np; i++)
        wtns_get(&inputs[i], witness, (uint32_t)(i + 1));

    /* 1. a, b from the coefficients (the public rows are coefficients too), c = a*b. */
    t = clock_ms();
    uint64_t trace_synth = trace_begin();
    if ((st = groth16_zkey_evals(NULL, a, b, c, key, witness, true)))
        goto out;
    stats->ms_witness = clock_ms() - t;
    trace_end(trace_synth, TRACE_SYNTH, "witness");

    groth16_prover_key pk;
    groth16_prover_key_from_zkey(&pk, key);
    /* a, b, c go to the prover, which frees each once it is dead. */
    if ((st = prove_evals(proof, stats, &pk, NULL, witness->values, &a, &b, &c, true, opts)))
        goto out;
    *public_inputs = inputs;
    inputs = NULL;
    stats->ms_total = clock_ms() - t0;
out:
    big_free(a);
    big_free(b);
    big_free(c);
    free(inputs);
    return st;
}
