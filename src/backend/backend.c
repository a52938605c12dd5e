/* Backend selection and the CPU backend (the code of src/msm and src/groth16 as it is). */
#include "backend/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msm/msm.h"
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

void backend_close(backend *be)
{
    if (be)
        be->close(be);
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
