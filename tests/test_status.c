/* util/status: status_fail keeps the detail for g16_last_error(), and an out-of-memory
 * detail reads on its own ("out of memory: ...") without saying it twice. */
#include <string.h>

#include "harness.h"
#include "util/status.h"

int main(void)
{
    test_init("status");
    CHECK(status_fail(G16_ERR_FORMAT, "r1cs: wire %u", 7u) == G16_ERR_FORMAT);
    CHECK(strcmp(g16_last_error(), "r1cs: wire 7") == 0);

    CHECK(status_fail(G16_ERR_OUT_OF_MEMORY, "setup for %zu wires", (size_t)4026531840u) ==
          G16_ERR_OUT_OF_MEMORY);
    CHECK(strcmp(g16_last_error(), "out of memory: setup for 4026531840 wires") == 0);
    /* Details that already say so keep their own words. */
    status_fail(G16_ERR_OUT_OF_MEMORY, "GPU 0: out of device memory allocating %s", "z");
    CHECK(strcmp(g16_last_error(), "GPU 0: out of device memory allocating z") == 0);
    status_fail(G16_ERR_OUT_OF_MEMORY, "sqlite store x: out of memory");
    CHECK(strcmp(g16_last_error(), "sqlite store x: out of memory") == 0);

    /* A detail wrapping the last one (g16_last_error() passed back in): no overlap. */
    status_fail(G16_ERR_BAD_ENCODING, "x %d", 5);
    status_fail(G16_ERR_BAD_ENCODING, "proof A: %s", g16_last_error());
    CHECK(strcmp(g16_last_error(), "proof A: x 5") == 0);
    status_fail(G16_ERR_OUT_OF_MEMORY, "buffers");
    status_fail(G16_ERR_OUT_OF_MEMORY, "key: %s", g16_last_error());
    CHECK(strcmp(g16_last_error(), "key: out of memory: buffers") == 0);

    /* A detail longer than the buffer: the prefix fits, the middle is cut, the end kept. */
    char longest[1024];
    memset(longest, 'x', sizeof longest - 1);
    longest[sizeof longest - 1] = 0;
    status_fail(G16_ERR_OUT_OF_MEMORY, "%s", longest);
    const char *e = g16_last_error();
    size_t n = strlen(e);
    CHECK(strncmp(e, "out of memory: xxx", 18) == 0);
    CHECK(n > 400 && n < sizeof longest);
    const char *cut = strstr(e, " [...] ");
    CHECK(cut && strspn(e + 15, "x") == (size_t)(cut - e) - 15 && strspn(cut + 7, "x") ==
                                                                     strlen(cut + 7));
    /* A path of thousands of characters (past the 2 KiB first try): the reason survives. */
    static char path[5000];
    memset(path, 'p', sizeof path - 1);
    status_fail(G16_ERR_IO, "%s: %s", path, "File name too long");
    e = g16_last_error();
    CHECK(strncmp(e, "ppp", 3) == 0 && strstr(e, " [...] ") != NULL);
    n = strlen(e);
    CHECK(n > 400 && n >= 18 && strcmp(e + n - 18, "File name too long") == 0);

    /* status_text_fit, for messages kept in fixed buffers: whole when it fits, exactly at
     * the limit too; else beginning and end around " [...] ", filling the buffer; a
     * buffer too small to cut well keeps the beginning. */
    char small[40];
    status_text_fit(small, sizeof small, "short");
    CHECK(strcmp(small, "short") == 0);
    char exact[40];
    memset(exact, 'e', 39);
    exact[39] = 0;
    status_text_fit(small, sizeof small, exact);
    CHECK(strcmp(small, exact) == 0);
    status_text_fit(small, sizeof small, e); /* the long path's message */
    CHECK(strlen(small) == sizeof small - 1 && strncmp(small, "ppp", 3) == 0 &&
          strstr(small, " [...] ") != NULL);
    CHECK(strcmp(small + strlen(small) - 18, "File name too long") == 0);
    char tiny[8] = "unset";
    status_text_fit(tiny, sizeof tiny, "a message longer than eight");
    CHECK(strcmp(tiny, "a messa") == 0);
    status_text_fit(tiny, 0, "nothing written"); /* no room: dst untouched */
    CHECK(strcmp(tiny, "a messa") == 0);

    status_clear();
    CHECK(g16_last_error()[0] == 0);
    return test_finish();
}
