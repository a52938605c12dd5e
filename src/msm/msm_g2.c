/* The MSM of msm.h for G2 (msm_impl.h instantiated over Fp2). msm.h comes first: it
 * includes both group headers, which define and undefine POINT themselves. */
#include "msm/msm.h"

#define POINT g2
#define POINT_FIELD fp2
#ifdef G16_HAVE_IFMA
#define MSM_BATCH_ADD_X8 msm_g2_batch_add_x8
#define MSM_PAIR_ADD_X8 msm_g2_pair_add_x8
#define MSM_BATCH_INV_X8 fp2_batch_inv_x8
#define MSM_X8_SCRATCH FP2_X8_SCRATCH
#endif
#include "msm_impl.h"

_Static_assert(sizeof(g2_affine_t) == MSM_G2_BASE_BYTES, "packed .zkey G2 layout");
