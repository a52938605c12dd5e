/* daemon/native_key_id: every id a native job can ask for parses back to its N and K;
 * ids that are not canonical ("0010", "-p16", a sign, trailing text), out of range (N
 * below the synthetic circuit's least or above max_constraints, K from 0 or past
 * NATIVE_KEY_MAX_PUBLIC) or not native are refused. */
#include <stdio.h>
#include <string.h>

#include "circuit/synthetic.h"
#include "daemon/native_key_id.h"
#include "harness.h"

int main(void)
{
    test_init("test_native_key_id");
    const int64_t max = 1 << 20;
    char id[80];
    size_t n, k;
    /* Random N and K in range, and the ends. */
    for (int i = 0; i < 2000; i++) {
        size_t want_n = SYNTHETIC_MIN_CONSTRAINTS +
                        (size_t)(test_rand64() % (uint64_t)(max - SYNTHETIC_MIN_CONSTRAINTS + 1));
        size_t want_k = 1 + (size_t)(test_rand64() % NATIVE_KEY_MAX_PUBLIC);
        if (i == 0)
            want_n = SYNTHETIC_MIN_CONSTRAINTS, want_k = 1;
        if (i == 1)
            want_n = (size_t)max, want_k = NATIVE_KEY_MAX_PUBLIC;
        native_key_id_format(id, sizeof id, want_n, want_k);
        if (!CHECK(native_key_id_parse(&n, &k, id, max) && n == want_n && k == want_k))
            fprintf(stderr, "  %s\n", id);
    }
    native_key_id_format(id, sizeof id, 4096, NATIVE_KEY_DEFAULT_PUBLIC);
    CHECK(!strcmp(id, "synthetic-4096"));
    native_key_id_format(id, sizeof id, 4096, 3);
    CHECK(!strcmp(id, "synthetic-4096-p3"));

    static const char *const BAD[] = {
        "synthetic-04096", "synthetic-4096-p16", "synthetic-4096-p03", "synthetic-+4096",
        "synthetic- 4096", "synthetic-4096 ", "synthetic-4096-p", "synthetic-4096-p3x",
        "synthetic-4096x", "synthetic-", "synthetic", "sha-4096", "", "synthetic-1023",
        "synthetic-1048577", "synthetic-4096-p0", "synthetic-4096-p65",
        "synthetic-4096-p-1", "synthetic-18446744073709551617",
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++)
        if (!CHECK(!native_key_id_parse(&n, &k, BAD[i], max)))
            fprintf(stderr, "  accepted '%s'\n", BAD[i]);
    CHECK(!native_key_id_parse(&n, &k, "synthetic-4096", 4095)); /* past max_constraints */
    return test_finish();
}
