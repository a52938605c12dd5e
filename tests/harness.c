#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *g_name = "test";
static uint64_t g_seed;
static uint64_t g_state[4];
static size_t g_checks, g_failures;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void test_init(const char *name)
{
    g_name = name;
    const char *s = getenv("G16_TEST_SEED");
    if (s && *s)
        g_seed = strtoull(s, NULL, 0);
    else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        g_seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec;
    }
    uint64_t x = g_seed;
    for (int i = 0; i < 4; i++)
        g_state[i] = splitmix64(&x);
    printf("%s: seed=0x%016llx (replay with G16_TEST_SEED=0x%016llx)\n", name,
           (unsigned long long)g_seed, (unsigned long long)g_seed);
    fflush(stdout);
}

int test_finish(void)
{
    printf("%s: %zu checks, %zu failed (seed=0x%016llx)\n", g_name, g_checks, g_failures,
           (unsigned long long)g_seed);
    return g_failures == 0 && g_checks > 0 ? 0 : 1;
}

void test_skip(const char *reason)
{
    printf("%s: SKIPPED: %s\n", g_name, reason);
    fflush(stdout);
    exit(77);
}

uint64_t test_seed(void) { return g_seed; }

size_t test_count(size_t base)
{
    const char *s = getenv("G16_TEST_SCALE");
    size_t scale = (s && *s) ? strtoull(s, NULL, 10) : 1;
    return base * (scale ? scale : 1);
}

/* xoshiro256** */
uint64_t test_rand64(void)
{
    uint64_t *s = g_state;
    uint64_t result = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s[3] << 45 | s[3] >> 19;
    return result;
}

void test_rand_bytes(uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = test_rand64();
        for (size_t k = 0; k < 8 && i + k < n; k++)
            out[i + k] = (uint8_t)(w >> (8 * k));
    }
}

/* Uniform by rejection; one case in 16 is an edge value (0, 1, m-1) so that random runs
 * also exercise the boundaries. */
void test_random_fp(fp_t *r)
{
    uint64_t v[6];
    switch (test_rand64() % 16) {
    case 0: fp_zero(r); return;
    case 1: fp_one(r); return;
    case 2: fp_one(r); fp_neg(r, r); return;
    default: break;
    }
    do {
        for (int i = 0; i < 6; i++)
            v[i] = test_rand64();
        v[5] &= (1ull << 61) - 1; /* p < 2^381 */
    } while (!fp_from_limbs(r, v));
}

void test_random_fr(fr_t *r)
{
    uint64_t v[4];
    switch (test_rand64() % 16) {
    case 0: fr_zero(r); return;
    case 1: fr_one(r); return;
    case 2: fr_one(r); fr_neg(r, r); return;
    default: break;
    }
    do {
        for (int i = 0; i < 4; i++)
            v[i] = test_rand64();
        v[3] &= (1ull << 63) - 1; /* r < 2^255 */
    } while (!fr_from_limbs(r, v));
}

void test_random_fr_generic(fr_t *r)
{
    fr_t one, minus_one;
    fr_one(&one);
    fr_neg(&minus_one, &one);
    do
        test_random_fr(r);
    while (fr_is_zero(r) || !memcmp(r, &one, sizeof one) || !memcmp(r, &minus_one, sizeof one));
}

bool test_check(bool ok, const char *expr, const char *file, int line)
{
    g_checks++;
    if (!ok) {
        g_failures++;
        if (g_failures <= 20)
            printf("FAIL %s:%d: %s (seed=0x%016llx)\n", file, line, expr,
                   (unsigned long long)g_seed);
    }
    return ok;
}

void test_hex_encode(char *out, const uint8_t *in, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = 0;
}

bool test_check_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what,
                      const char *file, int line)
{
    bool ok = memcmp(got, want, n) == 0;
    if (!test_check(ok, what, file, line) && g_failures <= 20) {
        char *h = malloc(2 * n + 1);
        if (h) {
            test_hex_encode(h, got, n);
            printf("  got  %s\n", h);
            test_hex_encode(h, want, n);
            printf("  want %s\n", h);
            free(h);
        }
    }
    return ok;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

long test_hex_decode(uint8_t *out, size_t cap, const char *hex)
{
    size_t len = strlen(hex);
    if (len % 2 || len / 2 > cap)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(len / 2);
}

/* Starts `node tools/<tool_dir>/<script> --seed S --count N`, once probe (a path under
 * tools/<tool_dir>) shows the packages are installed; otherwise skips with missing, or
 * fails when G16_REQUIRE_NOBLE asks for every reference to be present. */
static FILE *js_open(const char *tool_dir, const char *script, size_t count, const char *probe,
                     const char *missing)
{
    const char *src = getenv("G16_SOURCE_DIR");
    const char *require = getenv("G16_REQUIRE_NOBLE");
    bool required = require && *require && strcmp(require, "0") != 0;
    if (!src || !*src) {
        if (required) {
            test_check(false, "G16_SOURCE_DIR is set (run through ctest)", __FILE__, __LINE__);
            return NULL;
        }
        test_skip("G16_SOURCE_DIR not set: run through ctest");
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/tools/%s/%s", src, tool_dir, probe);
    FILE *found = fopen(path, "r");
    if (!found || system("node --version >/dev/null 2>&1") != 0) {
        if (found)
            fclose(found);
        if (required) {
            char what[256];
            snprintf(what, sizeof what, "node and tools/%s/node_modules are installed",
                     tool_dir);
            test_check(false, what, __FILE__, __LINE__);
            return NULL;
        }
        test_skip(missing);
    }
    fclose(found);
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "node '%s/tools/%s/%s' --seed %llu --count %zu", src, tool_dir,
             script, (unsigned long long)g_seed, count);
    printf("%s: running %s\n", g_name, cmd);
    fflush(stdout);
    FILE *f = popen(cmd, "r");
    test_check(f != NULL, "popen(node generator)", __FILE__, __LINE__);
    return f;
}

FILE *test_js_open(const char *tool_dir, const char *script, size_t count)
{
    char missing[256];
    snprintf(missing, sizeof missing,
             "node or tools/%s/node_modules missing: run `make deps` (npm ci in tools/%s)",
             tool_dir, tool_dir);
    return js_open(tool_dir, script, count, "node_modules/.package-lock.json", missing);
}

FILE *test_noble_open(const char *script, size_t count)
{
    return js_open("noble", script, count, "node_modules/@noble/curves/package.json",
                   "node or @noble/curves missing: run `make deps` (npm install in tools/noble)");
}

static void js_close(FILE *f, const char *what)
{
    if (!f)
        return;
    int rc = pclose(f);
    test_check(rc == 0, what, __FILE__, __LINE__);
}

void test_js_close(FILE *f) { js_close(f, "JS generator exited with status 0"); }

void test_noble_close(FILE *f) { js_close(f, "noble generator exited with status 0"); }

size_t test_split(char *line, char **tokens, size_t max)
{
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\n", &save); t && n < max;
         t = strtok_r(NULL, " \t\r\n", &save))
        tokens[n++] = t;
    return n;
}

fr_t *test_fr_vec(size_t n)
{
    fr_t *v = malloc((n ? n : 1) * sizeof(fr_t));
    if (!v) {
        printf("out of memory (%zu elements)\n", n);
        exit(1);
    }
    return v;
}

void test_random_fr_vec(fr_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        test_random_fr(&x[i]);
}

size_t test_fr_edge_values(fr_t e[TEST_FR_EDGES])
{
    size_t n = 0;
    fr_zero(&e[n++]);
    fr_one(&e[n++]);
    fr_one(&e[n]);
    fr_neg(&e[n], &e[n]);
    n++;
    memset(&e[n], 0, sizeof e[n]);
    e[n++].l[0] = 1;                           /* raw 1: 1 / R */
    memcpy(e[n].l, FR_MODULUS, sizeof e[n].l); /* r - 1, r - 2 */
    e[n++].l[0] -= 1;
    memcpy(e[n].l, FR_MODULUS, sizeof e[n].l);
    e[n++].l[0] -= 2;
    /* 2^k - 1 and 2^k at the 52-bit limb boundaries the vector code splits at, the 64-bit
     * ones it joins at, and the top (r > 2^254). */
    static const unsigned bits[] = {52, 64, 104, 128, 156, 192, 208, 254};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        memset(&e[n], 0, sizeof e[n]);
        e[n++].l[bits[i] / 64] = 1ull << (bits[i] % 64);
        memset(&e[n], 0, sizeof e[n]);
        for (unsigned b = 0; b < bits[i]; b++)
            e[n].l[b / 64] |= 1ull << (b % 64);
        n++;
    }
    return n;
}
