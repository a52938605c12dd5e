/* The NTT and the snarkjs H computation against ffjavascript 0.3.1, the field library
 * snarkjs proves with (tools/ffjs/gen_ntt.mjs): roots of unity, Fr.fft, Fr.ifft and the
 * prover's odd-point H must equal ours byte for byte, in the Montgomery little-endian
 * layout that .zkey and .wtns files use. */
#include <stdlib.h>
#include <string.h>

#include "groth16/h_poly.h"
#include "harness.h"
#include "ntt/ntt.h"

/* Decodes a hex vector of n Montgomery-form elements; false (and a failed check) when the
 * length or an element is wrong. */
static bool parse_vec(fr_t *out, size_t n, const char *hex, uint8_t *buf)
{
    long len = test_hex_decode(buf, n * 32, hex);
    if (!CHECK(len == (long)(n * 32)))
        return false;
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        ok &= fr_from_mont_bytes_le(&out[i], buf + 32 * i);
    return CHECK(ok);
}

/* Byte comparison of got against the expected hex vector; on a difference, shows the
 * first differing element rather than the whole vector. */
static void expect_vec(const fr_t *got, size_t n, const char *hex, uint8_t *buf,
                       const char *what, unsigned log2n)
{
    if (!CHECK(test_hex_decode(buf, n * 32, hex) == (long)(n * 32)))
        return;
    for (size_t i = 0; i < n; i++) {
        uint8_t g[32];
        fr_to_mont_bytes_le(g, &got[i]);
        if (memcmp(g, buf + 32 * i, 32) != 0) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s at 2^%u, element %zu", what, log2n, i);
            CHECK_BYTES(g, buf + 32 * i, 32, msg);
            return;
        }
    }
    CHECK(true);
}

int main(void)
{
    test_init("test_ffjs_ntt");
    size_t count = test_count(2);
    FILE *f = test_js_open("ffjs", "gen_ntt.mjs", count);
    if (!f)
        return test_finish();
    enum { MAX = 1 << 12 };
    fr_t *a = malloc(MAX * sizeof *a), *b = malloc(MAX * sizeof *b), *c = malloc(MAX * sizeof *c);
    fr_t *out = malloc(MAX * sizeof *out);
    uint8_t *buf = malloc(MAX * 32);
    char *line = NULL;
    size_t cap = 0, roots = 0, transforms = 0, hs = 0;
    while (a && b && c && out && buf && getline(&line, &cap, f) > 0) {
        char *t[6];
        size_t nt = test_split(line, t, 6);
        if (nt < 3)
            continue;
        unsigned L = (unsigned)atoi(t[1]);
        if (!strcmp(t[0], "root")) {
            fr_t w;
            if (L > FR_TWO_ADICITY || !CHECK(fr_root_of_unity(&w, L)))
                continue;
            uint8_t want[32], got[32];
            CHECK(test_hex_decode(want, 32, t[2]) == 32);
            fr_to_mont_bytes_le(got, &w);
            CHECK_BYTES(got, want, 32, "fr_root_of_unity = ffjavascript Fr.w[k]");
            roots++;
            continue;
        }
        size_t n = (size_t)1 << L;
        if (!CHECK(L <= 12))
            continue;
        const ntt_domain *d;
        if (!CHECK(ntt_domain_get(&d, L) == G16_OK))
            continue;
        if ((!strcmp(t[0], "fft") || !strcmp(t[0], "ifft")) && nt == 4) {
            if (!parse_vec(a, n, t[2], buf))
                continue;
            bool fwd = t[0][0] == 'f';
            CHECK((fwd ? ntt_forward(d, out, a) : ntt_inverse(d, out, a)) == G16_OK);
            expect_vec(out, n, t[3], buf, fwd ? "ntt_forward = Fr.fft" : "ntt_inverse = Fr.ifft",
                       L);
            transforms++;
        } else if (!strcmp(t[0], "h") && nt == 6) {
            if (!parse_vec(a, n, t[2], buf) || !parse_vec(b, n, t[3], buf) ||
                !parse_vec(c, n, t[4], buf))
                continue;
            CHECK(h_poly_compute(out, a, b, c, L, H_POLY_SNARKJS) == G16_OK);
            expect_vec(out, n, t[5], buf, "h_poly_compute = snarkjs prover H", L);
            hs++;
        } else
            CHECK(!"known ffjs case");
    }
    free(line);
    test_js_close(f);
    printf("ffjavascript cases: %zu roots, %zu transforms, %zu h\n", roots, transforms, hs);
    CHECK(roots == 33 && transforms == 24 * count && hs == 10 * count);
    free(a), free(b), free(c), free(out), free(buf);
    return test_finish();
}
