/* Fp and Fr against @noble/curves (tools/noble/gen_field.mjs): every operation's result
 * must equal noble's byte for byte, on both arithmetic paths. */
#include <stdlib.h>
#include <string.h>

#include "field/cpu.h"
#include "harness.h"

typedef struct {
    size_t bytes;
    bool (*from_be)(void *, const uint8_t *);
    void (*to_be)(uint8_t *, const void *);
} field_io;

/* Parses a canonical big-endian hex element; counts a failed check if it is not one. */
#define PARSE(F, dst, hex)                                                        \
    do {                                                                          \
        uint8_t buf_[48];                                                         \
        CHECK(test_hex_decode(buf_, sizeof buf_, (hex)) == (long)F##_BYTES);      \
        CHECK(F##_from_bytes_be((dst), buf_));                                    \
    } while (0)

#define EXPECT(F, got, hex, what)                                                 \
    do {                                                                          \
        uint8_t g_[48], w_[48];                                                   \
        F##_to_bytes_be(g_, (got));                                               \
        test_hex_decode(w_, sizeof w_, (hex));                                    \
        CHECK_BYTES(g_, w_, F##_BYTES, (what));                                   \
    } while (0)

static size_t run_vectors(size_t count)
{
    FILE *f = test_noble_open("gen_field.mjs", count);
    if (!f)
        return 0;
    char line[1024];
    size_t cases = 0;
    while (fgets(line, sizeof line, f)) {
        char *t[4];
        size_t n = test_split(line, t, 4);
        if (n < 3)
            continue;
        cases++;
        const char *op = t[0];
        if (!strncmp(op, "fp_", 3)) {
            fp_t a, b, r;
            PARSE(fp, &a, t[1]);
            if (!strcmp(op, "fp_sqrt")) {
                bool has = fp_sqrt(&r, &a);
                CHECK(has == (strcmp(t[2], "none") != 0));
                if (has) {
                    fp_t want, neg;
                    PARSE(fp, &want, t[2]);
                    fp_neg(&neg, &want);
                    CHECK(fp_equal(&r, &want) || fp_equal(&r, &neg));
                }
                continue;
            }
            if (n == 3) {
                if (!strcmp(op, "fp_sqr")) fp_sqr(&r, &a);
                else if (!strcmp(op, "fp_neg")) fp_neg(&r, &a);
                else if (!strcmp(op, "fp_inv")) fp_inv(&r, &a);
                else { CHECK(!"known unary fp op"); continue; }
                EXPECT(fp, &r, t[2], op);
                continue;
            }
            PARSE(fp, &b, t[2]);
            if (!strcmp(op, "fp_add")) fp_add(&r, &a, &b);
            else if (!strcmp(op, "fp_sub")) fp_sub(&r, &a, &b);
            else if (!strcmp(op, "fp_mul")) fp_mul(&r, &a, &b);
            else if (!strcmp(op, "fp_pow")) {
                uint64_t e[6];
                fp_to_limbs(e, &b);
                fp_pow(&r, &a, e, 6);
            } else { CHECK(!"known binary fp op"); continue; }
            EXPECT(fp, &r, t[3], op);
        } else if (!strcmp(op, "fr_root")) {
            fr_t w;
            CHECK(fr_root_of_unity(&w, (unsigned)atoi(t[1])));
            EXPECT(fr, &w, t[2], "fr_root_of_unity");
        } else if (!strncmp(op, "fr_", 3)) {
            fr_t a, b, r;
            PARSE(fr, &a, t[1]);
            if (n == 3) {
                if (!strcmp(op, "fr_sqr")) fr_sqr(&r, &a);
                else if (!strcmp(op, "fr_neg")) fr_neg(&r, &a);
                else if (!strcmp(op, "fr_inv")) fr_inv(&r, &a);
                else { CHECK(!"known unary fr op"); continue; }
                EXPECT(fr, &r, t[2], op);
                continue;
            }
            PARSE(fr, &b, t[2]);
            if (!strcmp(op, "fr_add")) fr_add(&r, &a, &b);
            else if (!strcmp(op, "fr_sub")) fr_sub(&r, &a, &b);
            else if (!strcmp(op, "fr_mul")) fr_mul(&r, &a, &b);
            else if (!strcmp(op, "fr_pow")) {
                uint64_t e[4];
                fr_to_limbs(e, &b);
                fr_pow(&r, &a, e, 4);
            } else { CHECK(!"known binary fr op"); continue; }
            EXPECT(fr, &r, t[3], op);
        } else
            CHECK(!"known op");
    }
    test_noble_close(f);
    return cases;
}

int main(void)
{
    test_init("test_noble_field");
    size_t count = test_count(1000);
    cpu_set_asm(false);
    size_t cases = run_vectors(count);
    if (cpu_set_asm(true))
        cases += run_vectors(count);
    printf("%zu noble cases\n", cases);
    CHECK(cases > count);
    return test_finish();
}
