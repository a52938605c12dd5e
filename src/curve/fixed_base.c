/* Fixed-base multiplication for G1 and G2: one template, two instantiations. */
#include "fixed_base.h"

#define POINT g1
#define FB_FIELD fp
#include "fixed_base_impl.h"
#undef FB_FIELD
#undef POINT

#define POINT g2
#define FB_FIELD fp2
#include "fixed_base_impl.h"
#undef FB_FIELD
#undef POINT
