/* The seed corpus of fuzz_native_key: small native keys written by native_key_write, the
 * writer g16 uses, from hand-made keys (points are multiples of the generators, so the
 * header points decode; densities of several shapes, an empty B among them).
 * Usage: seeds_native_key DIR (DIR is created). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "groth16/density.h"
#include "io/native_key.h"

static void g1_multiple(g1_affine_t *r, uint64_t k)
{
    g1_jac_t g;
    fr_t s;
    g1_generator(&g);
    fr_from_u64(&s, k);
    g1_mul_vartime(&g, &g, &s);
    g1_to_affine(r, &g);
}

static void g2_multiple(g2_affine_t *r, uint64_t k)
{
    g2_jac_t g;
    fr_t s;
    g2_generator(&g);
    fr_from_u64(&s, k);
    g2_mul_vartime(&g, &g, &s);
    g2_to_affine(r, &g);
}

/* A key of nv wires (np public), domain n, with wire j in A iff a_mask >> j & 1 (B: b_mask). */
static int write_key(const char *path, size_t nv, size_t np, size_t n, uint64_t a_mask,
                     uint64_t b_mask)
{
    groth16_setup_key key = {.n_vars = nv, .n_public = np, .domain_size = n,
                             .n_constraints = n - np - 1};
    size_t words = density_words(nv);
    key.density_a = calloc(words, 8);
    key.density_b = calloc(words, 8);
    for (size_t j = 0; j < nv && j < 64; j++) {
        if ((a_mask >> j) & 1)
            density_set(key.density_a, j);
        if ((b_mask >> j) & 1)
            density_set(key.density_b, j);
    }
    key.n_a = density_count(key.density_a, 0, nv);
    key.n_b = density_count(key.density_b, 0, nv);
    key.ic = calloc(np + 1, sizeof *key.ic);
    key.a = calloc(key.n_a + 1, sizeof *key.a);
    key.b1 = calloc(key.n_b + 1, sizeof *key.b1);
    key.b2 = calloc(key.n_b + 1, sizeof *key.b2);
    key.c = calloc(nv - np, sizeof *key.c);
    key.h = calloc(n, sizeof *key.h);
    uint64_t k = 2;
    g1_multiple(&key.alpha1, k++);
    g1_multiple(&key.beta1, k++);
    g1_multiple(&key.delta1, k++);
    g2_multiple(&key.beta2, k++);
    g2_affine_generator(&key.gamma2);
    g2_multiple(&key.delta2, k++);
    for (size_t i = 0; i <= np; i++)
        g1_multiple(&key.ic[i], k++);
    for (size_t i = 0; i < key.n_a; i++)
        g1_multiple(&key.a[i], k++);
    for (size_t i = 0; i < key.n_b; i++) {
        g1_multiple(&key.b1[i], k++);
        g2_multiple(&key.b2[i], k++);
    }
    for (size_t i = 0; i + np + 1 < nv; i++)
        g1_multiple(&key.c[i], k++);
    for (size_t i = 0; i < n; i++)
        g1_multiple(&key.h[i], k++);
    g16_status st = native_key_write(path, &key, "seed", n, np);
    void *owned[] = {key.density_a, key.density_b, key.ic, key.a, key.b1, key.b2, key.c, key.h};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        free(owned[i]);
    if (st != G16_OK) {
        fprintf(stderr, "seeds_native_key: %s\n", g16_last_error());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: seeds_native_key DIR\n");
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    static const struct {
        size_t nv, np, n;
        uint64_t a, b;
    } shapes[] = {
        {2, 1, 4, 0x3, 0x0},
        {6, 1, 8, 0x17, 0x29},
        {70, 3, 128, 0x3fffffffffffffffull, 0x8421084210842109ull},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/seed%zu.g16k", argv[1], i);
        rc |= write_key(path, shapes[i].nv, shapes[i].np, shapes[i].n, shapes[i].a,
                        shapes[i].b);
    }
    return rc;
}
