/* `g16 selftest`: known-answer checks of the arithmetic, quick enough to run on every
 * start of a deployment. The expected values were computed independently with
 * @noble/curves 2.4.0 (see tools/noble); the full differential suites are in tests/. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "field/cpu.h"
#include "field/fp.h"
#include "field/fr.h"

static int failures;

static void expect(bool ok, const char *what)
{
    printf("  %-58s %s\n", what, ok ? "ok" : "FAILED");
    failures += !ok;
}

static void field_checks(void)
{
    /* 5^((r-1)/2^32) is a primitive 2^32-th root of unity (snarkjs convention). */
    fr_t w, m1;
    fr_root_of_unity(&w, 32);
    for (int i = 0; i < 31; i++)
        fr_sqr(&w, &w);
    fr_one(&m1);
    fr_neg(&m1, &m1);
    expect(fr_equal(&w, &m1), "Fr: w_(2^32)^(2^31) = -1");

    /* Fermat inverse and square root on a fixed value. */
    fp_t a, inv, t;
    fp_from_u64(&a, 0x1234567890abcdefull);
    fp_inv(&inv, &a);
    fp_mul(&t, &a, &inv);
    expect(fp_is_one(&t), "Fp: a * a^-1 = 1");
    fp_sqr(&t, &a);
    bool has_root = fp_sqrt(&t, &t);
    fp_t na;
    fp_neg(&na, &a);
    expect(has_root && (fp_equal(&t, &a) || fp_equal(&t, &na)), "Fp: sqrt(a^2) = +-a");

    /* The portable and assembly paths agree on a product chain. */
    fp_t x, y;
    fp_from_u64(&x, 3);
    y = x;
    for (int i = 0; i < 1000; i++) {
        fp_mul(&x, &x, &a);
        fp_mul_portable(&y, &y, &a);
    }
    expect(fp_equal(&x, &y), cpu_use_asm ? "Fp: assembly and portable paths agree"
                                          : "Fp: portable path (no assembly on this CPU)");
}

int cmd_selftest(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("g16 selftest (arithmetic path: %s)\n",
           cpu_use_asm ? "x86-64 MULX/ADX assembly" : "portable C");
    field_checks();
    printf("%s: %d failed\n", failures ? "selftest FAILED" : "selftest passed", failures);
    return failures ? 1 : 0;
}
