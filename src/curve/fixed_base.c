/* Fixed-base multiplication for G1 and G2: one template, two instantiations. */
#include "fixed_base.h"

#define POINT g1
#include "fixed_base_impl.h"
#undef POINT

#define POINT g2
#include "fixed_base_impl.h"
#undef POINT
