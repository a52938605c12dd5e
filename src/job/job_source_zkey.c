/* Jobs whose partitions are .wtns files for a snarkjs key (job_source_zkey.h). */
#include "job_source_zkey.h"

#include <stdio.h>

#include "groth16/zkey_evals.h"
#include "util/status.h"

g16_status job_zkey_check_config(const job_config *cfg)
{
    const zkey_t *k = cfg->zkey;
    if (!k)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "job: a zkey source without a zkey");
    if (!cfg->wtns_paths && !cfg->wtns)
        return status_fail(G16_ERR_INVALID_ARGUMENT, "job: a zkey source without witnesses");
    for (size_t p = 0; p < cfg->n_partitions; p++)
        if (cfg->wtns_paths ? !cfg->wtns_paths[p] : !cfg->wtns[p])
            return status_fail(G16_ERR_INVALID_ARGUMENT, "job: partition %zu has no witness",
                               p);
    const groth16_prover_key *pk = cfg->pk;
    if (pk && (pk->n_vars != k->n_vars || pk->n_public != k->n_public ||
               pk->domain_size != k->domain_size))
        return status_fail(G16_ERR_INVALID_ARGUMENT,
                           "job: the prover key has %zu wires, %zu public inputs and a domain "
                           "of %zu, %s has %u, %u and %u", pk->n_vars, pk->n_public,
                           pk->domain_size, k->file.name, k->n_vars, k->n_public,
                           k->domain_size);
    return cfg->zkey_coefs_checked ? G16_OK : zkey_validate_coefs(k);
}

g16_status job_zkey_synthesize(const job_config *cfg, size_t p, const job_buffers *bufs)
{
    wtns_t own = {0};
    const wtns_t *w = cfg->wtns_paths ? &own : cfg->wtns[p];
    g16_status st = G16_OK;
    if (cfg->wtns_paths)
        st = wtns_open(&own, cfg->wtns_paths[p]);
    if (!st)
        st = groth16_zkey_witness_check(cfg->zkey, w);
    /* On this thread alone: under a pipeline the thread pool is the provers'. */
    if (!st)
        st = groth16_zkey_evals(bufs->z, bufs->a, bufs->b, bufs->c, cfg->zkey, w, false);
    wtns_close(&own);
    if (st) {
        char why[512];
        snprintf(why, sizeof why, "%s", g16_last_error());
        st = status_fail(st, "partition %zu: %s", p, why);
    }
    return st;
}
