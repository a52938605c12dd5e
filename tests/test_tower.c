/* Fp6 and Fp12: field laws, the sparse and cyclotomic shortcuts against the plain
 * operations, Frobenius maps against exponentiation by powers of p, and differential
 * vectors from @noble/curves (tools/noble/gen_tower.mjs), byte for byte, on both
 * arithmetic paths. */
#include <stdlib.h>
#include <string.h>

#include "field/cpu.h"
#include "field/fp12.h"
#include "harness.h"

static void random_fp2(fp2_t *r)
{
    test_random_fp(&r->c0);
    test_random_fp(&r->c1);
}

static void random_fp6(fp6_t *r)
{
    random_fp2(&r->c0);
    random_fp2(&r->c1);
    random_fp2(&r->c2);
}

static void random_fp12(fp12_t *r)
{
    random_fp6(&r->c0);
    random_fp6(&r->c1);
}

/* A random element of the cyclotomic subgroup: a^((p^6 - 1)(p^2 + 1)). */
static void random_cyclotomic(fp12_t *r)
{
    fp12_t a, t;
    do
        random_fp12(&a);
    while (fp12_is_zero(&a));
    fp12_inv(&t, &a);
    fp12_conj(r, &a);
    fp12_mul(r, r, &t);
    fp12_frobenius(&t, r, 2);
    fp12_mul(r, r, &t);
}

/* out = a * b for little-endian limb integers; out has na + nb limbs. */
static void big_mul(uint64_t *out, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    memset(out, 0, (na + nb) * sizeof *out);
    for (size_t i = 0; i < na; i++) {
        unsigned __int128 carry = 0;
        for (size_t j = 0; j < nb; j++) {
            unsigned __int128 t = (unsigned __int128)a[i] * b[j] + out[i + j] + carry;
            out[i + j] = (uint64_t)t;
            carry = t >> 64;
        }
        out[i + nb] = (uint64_t)carry;
    }
}

static void test_fp6_laws(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fp6_t a, b, c, x, y, t;
        random_fp6(&a);
        random_fp6(&b);
        random_fp6(&c);

        fp6_mul(&x, &a, &b);
        fp6_mul(&x, &x, &c);
        fp6_mul(&y, &b, &c);
        fp6_mul(&y, &a, &y);
        CHECK(fp6_equal(&x, &y));

        fp6_mul(&x, &a, &b);
        fp6_mul(&y, &b, &a);
        CHECK(fp6_equal(&x, &y));

        fp6_add(&t, &b, &c);
        fp6_mul(&x, &a, &t);
        fp6_mul(&y, &a, &b);
        fp6_mul(&t, &a, &c);
        fp6_add(&y, &y, &t);
        CHECK(fp6_equal(&x, &y));

        fp6_sqr(&x, &a);
        fp6_mul(&y, &a, &a);
        CHECK(fp6_equal(&x, &y));

        fp6_sub(&x, &a, &b);
        fp6_add(&x, &x, &b);
        CHECK(fp6_equal(&x, &a));
        fp6_neg(&x, &a);
        fp6_add(&x, &x, &a);
        CHECK(fp6_is_zero(&x));
        fp6_dbl(&x, &a);
        fp6_add(&y, &a, &a);
        CHECK(fp6_equal(&x, &y));

        bool ok = fp6_inv(&x, &a);
        CHECK(ok == !fp6_is_zero(&a));
        if (ok) {
            fp6_mul(&y, &x, &a);
            CHECK(fp6_is_one(&y));
        }

        /* The sparse products and the multiplication by v against fp6_mul. */
        fp6_t v = {0}, s;
        fp2_one(&v.c1);
        fp6_mul_by_nonresidue(&x, &a);
        fp6_mul(&y, &a, &v);
        CHECK(fp6_equal(&x, &y));

        s = b;
        fp2_zero(&s.c2);
        fp6_mul_by_01(&x, &a, &b.c0, &b.c1);
        fp6_mul(&y, &a, &s);
        CHECK(fp6_equal(&x, &y));
        fp2_zero(&s.c0);
        fp6_mul_by_1(&x, &a, &b.c1);
        fp6_mul(&y, &a, &s);
        CHECK(fp6_equal(&x, &y));
        fp6_zero(&s);
        s.c0 = b.c0;
        fp6_mul_by_fp2(&x, &a, &b.c0);
        fp6_mul(&y, &a, &s);
        CHECK(fp6_equal(&x, &y));

        /* Frobenius: a ring map of order 6 with frob_j o frob_k = frob_(j+k). */
        fp6_frobenius(&x, &a, 6);
        CHECK(fp6_equal(&x, &a));
        x = a;
        for (unsigned k = 1; k <= 6; k++) {
            fp6_frobenius(&x, &x, 1);
            fp6_frobenius(&y, &a, k);
            CHECK(fp6_equal(&x, &y));
        }
        fp6_mul(&t, &a, &b);
        fp6_frobenius(&x, &t, 1);
        fp6_frobenius(&y, &a, 1);
        fp6_frobenius(&t, &b, 1);
        fp6_mul(&y, &y, &t);
        CHECK(fp6_equal(&x, &y));

        uint8_t bytes[FP6_BYTES];
        fp6_to_bytes(bytes, &a);
        CHECK(fp6_from_bytes(&x, bytes) && fp6_equal(&x, &a));
    }
    fp6_t z, r;
    fp6_zero(&z);
    CHECK(!fp6_inv(&r, &z) && fp6_is_zero(&r));
}

static void test_fp12_laws(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fp12_t a, b, c, x, y, t;
        random_fp12(&a);
        random_fp12(&b);
        random_fp12(&c);

        fp12_mul(&x, &a, &b);
        fp12_mul(&x, &x, &c);
        fp12_mul(&y, &b, &c);
        fp12_mul(&y, &a, &y);
        CHECK(fp12_equal(&x, &y));

        fp12_mul(&x, &a, &b);
        fp12_mul(&y, &b, &a);
        CHECK(fp12_equal(&x, &y));

        fp12_add(&t, &b, &c);
        fp12_mul(&x, &a, &t);
        fp12_mul(&y, &a, &b);
        fp12_mul(&t, &a, &c);
        fp12_add(&y, &y, &t);
        CHECK(fp12_equal(&x, &y));

        fp12_sqr(&x, &a);
        fp12_mul(&y, &a, &a);
        CHECK(fp12_equal(&x, &y));

        fp12_sub(&x, &a, &b);
        fp12_add(&x, &x, &b);
        CHECK(fp12_equal(&x, &a));
        fp12_neg(&x, &a);
        fp12_add(&x, &x, &a);
        CHECK(fp12_is_zero(&x));

        bool ok = fp12_inv(&x, &a);
        CHECK(ok == !fp12_is_zero(&a));
        if (ok) {
            fp12_mul(&y, &x, &a);
            CHECK(fp12_is_one(&y));
        }

        /* The line shape of the Miller loop. */
        fp12_t line;
        fp12_zero(&line);
        line.c0.c0 = b.c0.c0;
        line.c0.c1 = b.c0.c1;
        line.c1.c1 = b.c1.c1;
        fp12_mul_by_014(&x, &a, &b.c0.c0, &b.c0.c1, &b.c1.c1);
        fp12_mul(&y, &a, &line);
        CHECK(fp12_equal(&x, &y));

        /* Frobenius: order 12, composition, a ring map, p^6 is conjugation. */
        x = a;
        for (unsigned k = 1; k <= 12; k++) {
            fp12_frobenius(&x, &x, 1);
            fp12_frobenius(&y, &a, k);
            CHECK(fp12_equal(&x, &y));
        }
        CHECK(fp12_equal(&x, &a));
        fp12_frobenius(&x, &a, 6);
        fp12_conj(&y, &a);
        CHECK(fp12_equal(&x, &y));
        fp12_frobenius(&x, &a, 5);
        fp12_frobenius(&x, &x, 4);
        fp12_frobenius(&y, &a, 9);
        CHECK(fp12_equal(&x, &y));
        fp12_mul(&t, &a, &b);
        fp12_frobenius(&x, &t, 3);
        fp12_frobenius(&y, &a, 3);
        fp12_frobenius(&t, &b, 3);
        fp12_mul(&y, &y, &t);
        CHECK(fp12_equal(&x, &y));

        /* pow edge cases. */
        uint64_t e = 0;
        fp12_pow(&x, &a, &e, 1);
        CHECK(fp12_is_one(&x));
        e = 1;
        fp12_pow(&x, &a, &e, 1);
        CHECK(fp12_equal(&x, &a));
        e = 5;
        fp12_pow(&x, &a, &e, 1);
        fp12_sqr(&y, &a);
        fp12_sqr(&y, &y);
        fp12_mul(&y, &y, &a);
        CHECK(fp12_equal(&x, &y));

        uint8_t bytes[FP12_BYTES];
        fp12_to_bytes(bytes, &a);
        CHECK(fp12_from_bytes(&x, bytes) && fp12_equal(&x, &a));
        /* Every 48-byte coordinate must be canonical: put p itself in one slot. */
        size_t slot = (size_t)(test_rand64() % 12);
        for (size_t k = 0; k < 6; k++)
            for (size_t byte = 0; byte < 8; byte++)
                bytes[48 * slot + 47 - 8 * k - byte] = (uint8_t)(FP_MODULUS[k] >> (8 * byte));
        CHECK(!fp12_from_bytes(&x, bytes));
    }
    fp12_t z, r;
    fp12_zero(&z);
    CHECK(!fp12_inv(&r, &z) && fp12_is_zero(&r));
}

/* frob_k(a) = a^(p^k), with fp12_pow on the integer p^k: k = 1, 2, 3. Also the Fp6 maps,
 * through the embedding Fp6 -> Fp12 (c1 = 0). */
static void test_frobenius_is_power(size_t count)
{
    uint64_t pk[3][18];
    memcpy(pk[0], FP_MODULUS, sizeof FP_MODULUS);
    big_mul(pk[1], FP_MODULUS, 6, FP_MODULUS, 6);
    big_mul(pk[2], pk[1], 12, FP_MODULUS, 6);
    for (size_t i = 0; i < count; i++) {
        fp12_t a, x, y;
        random_fp12(&a);
        for (unsigned k = 1; k <= 3; k++) {
            fp12_frobenius(&x, &a, k);
            fp12_pow(&y, &a, pk[k - 1], 6 * k);
            CHECK(fp12_equal(&x, &y));
        }
        fp12_t e;
        fp12_zero(&e);
        random_fp6(&e.c0);
        fp12_pow(&y, &e, pk[0], 6);
        fp6_frobenius(&x.c0, &e.c0, 1);
        CHECK(fp6_equal(&x.c0, &y.c0) && fp6_is_zero(&y.c1));
    }
}

static void test_cyclotomic(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fp12_t g, x, y;
        random_cyclotomic(&g);
        /* Unitary: g * conj(g) = 1. */
        fp12_conj(&x, &g);
        fp12_mul(&x, &x, &g);
        CHECK(fp12_is_one(&x));
        /* and of order dividing p^4 - p^2 + 1: g^(p^4) g = g^(p^2). */
        fp12_frobenius(&x, &g, 4);
        fp12_mul(&x, &x, &g);
        fp12_frobenius(&y, &g, 2);
        CHECK(fp12_equal(&x, &y));

        fp12_cyclotomic_sqr(&x, &g);
        fp12_sqr(&y, &g);
        CHECK(fp12_equal(&x, &y));

        uint64_t e[4];
        for (size_t k = 0; k < 4; k++)
            e[k] = test_rand64();
        switch (i % 4) {
        case 0: e[3] = e[2] = 0; break;                       /* short exponents */
        case 1: e[0] |= 0xf; e[3] |= 1ull << 63; break;       /* windows at both ends */
        default: break;
        }
        fp12_cyclotomic_pow(&x, &g, e, 4);
        fp12_pow(&y, &g, e, 4);
        CHECK(fp12_equal(&x, &y));
    }
    fp12_t g, x;
    random_cyclotomic(&g);
    uint64_t zero = 0, one = 1;
    fp12_cyclotomic_pow(&x, &g, &zero, 1);
    CHECK(fp12_is_one(&x));
    fp12_cyclotomic_pow(&x, &g, &one, 1);
    CHECK(fp12_equal(&x, &g));
}

/* --- noble vectors ------------------------------------------------------------------- */

static bool parse_hex(uint8_t *out, size_t n, const char *hex)
{
    return CHECK(test_hex_decode(out, n, hex) == (long)n);
}

static bool parse_fp2(fp2_t *r, const char *hex)
{
    uint8_t b[2 * fp_BYTES];
    return parse_hex(b, sizeof b, hex) && CHECK(fp_from_bytes_be(&r->c0, b)) &&
           CHECK(fp_from_bytes_be(&r->c1, b + fp_BYTES));
}

static bool parse_fp6(fp6_t *r, const char *hex)
{
    uint8_t b[FP6_BYTES];
    return parse_hex(b, sizeof b, hex) && CHECK(fp6_from_bytes(r, b));
}

static bool parse_fp12(fp12_t *r, const char *hex)
{
    uint8_t b[FP12_BYTES];
    return parse_hex(b, sizeof b, hex) && CHECK(fp12_from_bytes(r, b));
}

static void expect_fp6(const fp6_t *got, const char *hex, const char *what)
{
    uint8_t g[FP6_BYTES], w[FP6_BYTES];
    fp6_to_bytes(g, got);
    if (parse_hex(w, sizeof w, hex))
        CHECK_BYTES(g, w, sizeof g, what);
}

static void expect_fp12(const fp12_t *got, const char *hex, const char *what)
{
    uint8_t g[FP12_BYTES], w[FP12_BYTES];
    fp12_to_bytes(g, got);
    if (parse_hex(w, sizeof w, hex))
        CHECK_BYTES(g, w, sizeof g, what);
}

static size_t run_vectors(size_t count)
{
    FILE *f = test_noble_open("gen_tower.mjs", count);
    if (!f)
        return 0;
    static char line[16384];
    size_t cases = 0;
    while (fgets(line, sizeof line, f)) {
        char *t[8];
        size_t n = test_split(line, t, 8);
        if (n < 3)
            continue;
        cases++;
        const char *op = t[0];
        if (!strcmp(op, "fp6_mul") && n == 4) {
            fp6_t a, b, r;
            if (parse_fp6(&a, t[1]) && parse_fp6(&b, t[2])) {
                fp6_mul(&r, &a, &b);
                expect_fp6(&r, t[3], op);
            }
        } else if (!strcmp(op, "fp6_sqr") || !strcmp(op, "fp6_inv")) {
            fp6_t a, r;
            if (parse_fp6(&a, t[1])) {
                if (op[4] == 's')
                    fp6_sqr(&r, &a);
                else
                    CHECK(fp6_inv(&r, &a));
                expect_fp6(&r, t[2], op);
            }
        } else if (!strcmp(op, "fp6_frob") && n == 4) {
            fp6_t a, r;
            if (parse_fp6(&a, t[2])) {
                fp6_frobenius(&r, &a, (unsigned)atoi(t[1]));
                expect_fp6(&r, t[3], op);
            }
        } else if (!strcmp(op, "fp12_mul") && n == 4) {
            fp12_t a, b, r;
            if (parse_fp12(&a, t[1]) && parse_fp12(&b, t[2])) {
                fp12_mul(&r, &a, &b);
                expect_fp12(&r, t[3], op);
            }
        } else if (!strcmp(op, "fp12_sqr") || !strcmp(op, "fp12_inv") ||
                   !strcmp(op, "fp12_conj") || !strcmp(op, "fp12_cyclo")) {
            fp12_t a, r;
            if (parse_fp12(&a, t[1])) {
                if (!strcmp(op, "fp12_sqr"))
                    fp12_sqr(&r, &a);
                else if (!strcmp(op, "fp12_inv"))
                    CHECK(fp12_inv(&r, &a));
                else if (!strcmp(op, "fp12_conj"))
                    fp12_conj(&r, &a);
                else
                    fp12_cyclotomic_sqr(&r, &a);
                expect_fp12(&r, t[2], op);
            }
        } else if (!strcmp(op, "fp12_frob") && n == 4) {
            fp12_t a, r;
            if (parse_fp12(&a, t[2])) {
                fp12_frobenius(&r, &a, (unsigned)atoi(t[1]));
                expect_fp12(&r, t[3], op);
            }
        } else if (!strcmp(op, "fp12_mul014") && n == 6) {
            fp12_t a, r;
            fp2_t l0, l1, l4;
            if (parse_fp12(&a, t[1]) && parse_fp2(&l0, t[2]) && parse_fp2(&l1, t[3]) &&
                parse_fp2(&l4, t[4])) {
                fp12_mul_by_014(&r, &a, &l0, &l1, &l4);
                expect_fp12(&r, t[5], op);
            }
        } else if (!strcmp(op, "fp12_pow") && n == 4) {
            fp12_t a, r;
            uint8_t eb[32];
            uint64_t e[4] = {0};
            if (parse_fp12(&a, t[1]) && parse_hex(eb, sizeof eb, t[2])) {
                for (size_t k = 0; k < 32; k++)
                    e[k / 8] |= (uint64_t)eb[31 - k] << (8 * (k % 8));
                fp12_pow(&r, &a, e, 4);
                expect_fp12(&r, t[3], op);
            }
        } else
            CHECK(!"known tower op");
    }
    test_noble_close(f);
    return cases;
}

int main(void)
{
    test_init("test_tower");
    size_t count = test_count(20);
    bool paths[2] = {false, true};
    for (size_t i = 0; i < 2; i++) {
        if (cpu_set_asm(paths[i]) != paths[i])
            continue; /* no assembly path on this build or CPU */
        test_fp6_laws(count);
        test_fp12_laws(count);
        test_frobenius_is_power(test_count(2));
        test_cyclotomic(count);
    }
    cpu_set_asm(false);
    size_t vec = test_count(50);
    size_t cases = run_vectors(vec);
    if (cpu_set_asm(true))
        cases += run_vectors(vec);
    printf("%zu noble cases\n", cases);
    CHECK(cases >= 10 * vec);
    return test_finish();
}
