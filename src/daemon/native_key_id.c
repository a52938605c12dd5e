/* The ids of the daemon's native keys (native_key_id.h). */
#include "native_key_id.h"

#include <stdio.h>
#include <string.h>

#include "circuit/synthetic.h"

void native_key_id_format(char *id, size_t cap, size_t n, size_t k)
{
    if (k == NATIVE_KEY_DEFAULT_PUBLIC)
        snprintf(id, cap, "synthetic-%zu", n);
    else
        snprintf(id, cap, "synthetic-%zu-p%zu", n, k);
}

bool native_key_id_parse(size_t *n, size_t *k, const char *id, int64_t max_constraints)
{
    unsigned long long nn, kk = NATIVE_KEY_DEFAULT_PUBLIC;
    int used = 0;
    if (strncmp(id, "synthetic-", 10) != 0)
        return false;
    if (sscanf(id + 10, "%llu%n", &nn, &used) != 1)
        return false;
    const char *rest = id + 10 + used;
    if (*rest && (sscanf(rest, "-p%llu%n", &kk, &used) != 1 || rest[used]))
        return false;
    if (nn < SYNTHETIC_MIN_CONSTRAINTS || max_constraints < 0 ||
        nn > (unsigned long long)max_constraints || kk < 1 || kk > NATIVE_KEY_MAX_PUBLIC)
        return false;
    char canon[80];
    native_key_id_format(canon, sizeof canon, (size_t)nn, (size_t)kk);
    if (strcmp(canon, id) != 0)
        return false;
    *n = (size_t)nn;
    *k = (size_t)kk;
    return true;
}
