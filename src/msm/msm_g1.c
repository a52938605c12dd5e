/* The MSM of msm.h for G1 (msm_impl.h instantiated over Fp). msm.h comes first: it
 * includes both group headers, which define and undefine POINT themselves. */
#include "msm/msm.h"

#define POINT g1
#define POINT_FIELD fp
#include "msm_impl.h"

_Static_assert(sizeof(g1_affine_t) == MSM_G1_BASE_BYTES, "packed .zkey G1 layout");
