/* Variable-time modular division by the Bernstein-Yang "safegcd" algorithm, generic over
 * the limb count. The field layer (field_impl.h: fp_inv_vartime, fr_inv_vartime) builds
 * its inversions on it; nothing here knows about Montgomery form.
 *
 * Time depends on the values: use it only on public data or data that is already handled
 * in variable time (the MSM's bucket sums). inv_vartime.c describes the algorithm.
 */
#ifndef G16_FIELD_INV_VARTIME_H
#define G16_FIELD_INV_VARTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* r = b / a mod m, all little-endian n-limb integers (n <= MONT_MAX_LIMBS), m odd,
 * a, b < m. r may alias a or b. Returns false, leaving r untouched, when there is no
 * result: gcd(a, m) != 1 (a = 0 included), or the divsteps did not converge within the
 * cap of inv_vartime.c (not expected for any input; callers with a prime m then fall back
 * to a constant-time inversion). */
bool mod_div_vartime(uint64_t *r, const uint64_t *b, const uint64_t *a, const uint64_t *m,
                     size_t n);

#endif
