/* Secret scalars (blinding factors r, s; a setup's trapdoor) from the OS CSPRNG. */
#ifndef G16_GROTH16_SECRET_H
#define G16_GROTH16_SECRET_H

#include "field/fr.h"
#include "g16.h"

/* r = a uniform non-zero scalar from getrandom(2) (rejection sampling: no modular bias).
 * Zero is excluded because a zero blinding factor or trapdoor value would leak or break
 * what it protects. */
g16_status secret_scalar(fr_t *r);

#endif
