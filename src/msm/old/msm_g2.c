/* The MSM of msm.h for G2 (msm_impl.h instantiated over Fp2). msm.h comes first: it
 * includes both group headers, which define and undefine POINT themselves. */
#include "msm/msm.h"

#define POINT g2
#define POINT_FIELD fp2
#include "msm_impl.h"

_Static_assert(sizeof(g2_affine_t) == MSM_G2_BASE_BYTES, "packed .zkey G2 layout");
