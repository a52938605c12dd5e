/* The MSM of msm.h for G1 (msm_impl.h instantiated over Fp). msm.h comes first: it
 * includes both group headers, which define and undefine POINT themselves. */
#include "msm/msm.h"

#define POINT g1
#define POINT_FIELD fp
#ifdef G16_HAVE_IFMA
#define MSM_BATCH_ADD_X8 msm_g1_batch_add_x8
#define MSM_PAIR_ADD_X8 msm_g1_pair_add_x8
#define MSM_BATCH_INV_X8 fp_batch_inv_x8
#endif
#include "msm_impl.h"

_Static_assert(sizeof(g1_affine_t) == MSM_G1_BASE_BYTES, "packed .zkey G1 layout");
