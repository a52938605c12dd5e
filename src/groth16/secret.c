#include "secret.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "util/status.h"

g16_status secret_scalar(fr_t *r)
{
    uint64_t v[4];
    do {
        size_t got = 0;
        while (got < sizeof v) {
            ssize_t n = getrandom((uint8_t *)v + got, sizeof v - got, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return status_fail(G16_ERR_INTERNAL, "getrandom failed: %s", strerror(errno));
            got += (size_t)n;
        }
        v[3] &= (1ull << 63) - 1; /* r < 2^255: keeps the rejection rate below one half */
    } while (!fr_from_limbs(r, v) || fr_is_zero(r));
    explicit_bzero(v, sizeof v);
    return G16_OK;
}
