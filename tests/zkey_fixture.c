/* snarkjs fixtures for the tests of jobs and the pipeline (zkey_fixture.h). */
#include "zkey_fixture.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "util/status.h"

void test_fixture_path(char *out, size_t cap, const char *name, const char *file)
{
    const char *src = getenv("G16_SOURCE_DIR");
    if (!src || !*src)
        test_skip("G16_SOURCE_DIR not set: run through ctest");
    snprintf(out, cap, "%s/tests/fixtures/%s/%s", src, name, file);
}

bool test_zkey_open(test_zkey *k, const char *name)
{
    memset(k, 0, sizeof *k);
    char path[TEST_PATH_BYTES];
    test_fixture_path(path, sizeof path, name, "circuit.zkey");
    test_fixture_path(k->wtns_path, sizeof k->wtns_path, name, "witness.wtns");
    g16_status st = zkey_open(&k->zkey, path);
    if (!st)
        st = groth16_vk_from_zkey(&k->vk, &k->zkey);
    if (!CHECK(st == G16_OK)) {
        fprintf(stderr, "  %s: %s\n", name, g16_last_error());
        zkey_close(&k->zkey);
        return false;
    }
    groth16_prover_key_from_zkey(&k->pk, &k->zkey);
    return true;
}

void test_zkey_close(test_zkey *k)
{
    groth16_vk_free(&k->vk);
    zkey_close(&k->zkey);
}

bool test_zkey_prove(groth16_proof *proof, fr_t **public_inputs, const test_zkey *k,
                     const char *wtns_path, const groth16_prove_options *opts)
{
    wtns_t w;
    g16_status st = wtns_open(&w, wtns_path);
    if (!st)
        st = groth16_prove_zkey(proof, public_inputs, NULL, &k->zkey, &w, opts);
    wtns_close(&w);
    if (!CHECK(st == G16_OK))
        fprintf(stderr, "  groth16_prove_zkey: %s\n", g16_last_error());
    return st == G16_OK;
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)n)) && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    if (f)
        fclose(f);
    *size = data ? (size_t)n : 0;
    return data;
}

static bool write_all(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f)
        ok &= fclose(f) == 0;
    return ok;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The .wtns layout snarkjs writes (FORMATS.md): the 12-byte container header, section 1
 * (id, u64 size, u32 n8 = 32, the prime, u32 nWitness), then section 2 (id, u64 size,
 * the values). */
enum {
    W_PRIME = 12 + 12 + 4,
    W_COUNT = W_PRIME + 32,
    W_SECTION2 = W_COUNT + 4,
    W_SECTION2_SIZE = W_SECTION2 + 4,
    W_VALUES = W_SECTION2 + 12,
};

/* BN254's scalar field prime r, little-endian. */
static const uint8_t BN254_R_LE[32] = {
    0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9, 0x79, 0x48,
    0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0,
    0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};

bool test_bad_witnesses(test_bad_wtns out[TEST_BAD_WTNS], const char *dir, const char *good)
{
    size_t size;
    uint8_t *w = read_all(good, &size);
    if (!CHECK(w != NULL && size > W_VALUES + 64))
        return false;
    uint32_t n = iden3_le32(w + W_COUNT);
    bool ok = CHECK(memcmp(w, "wtns", 4) == 0 && iden3_le32(w + 12) == 1 &&
                    iden3_le32(w + W_PRIME - 4) == 32 && iden3_le32(w + W_SECTION2) == 2 &&
                    size == W_VALUES + (size_t)n * 32);
    static const struct {
        const char *what, *name, *expect;
    } KINDS[TEST_BAD_WTNS] = {
        {"truncated", "truncated.wtns", "runs past the end of the file"},
        {"one value short", "short.wtns", "the witness is for another circuit"},
        {"another curve", "bn254.wtns", "curve BN254 not supported"},
        {"w[0] = 2", "w0.wtns", "w[0] is not 1"},
    };
    for (int i = 0; ok && i < TEST_BAD_WTNS; i++) {
        out[i].what = KINDS[i].what;
        out[i].expect = KINDS[i].expect;
        snprintf(out[i].path, sizeof out[i].path, "%s/%s", dir, KINDS[i].name);
        uint8_t *c = malloc(size);
        if (!CHECK(c != NULL)) {
            ok = false;
            break;
        }
        memcpy(c, w, size);
        size_t keep = size;
        if (i == 0) {
            keep = size - 40; /* into the last value */
        } else if (i == 1) {
            put_le(c + W_COUNT, n - 1, 4);
            put_le(c + W_SECTION2_SIZE, (uint64_t)(n - 1) * 32, 8);
            keep = size - 32;
        } else if (i == 2) {
            memcpy(c + W_PRIME, BN254_R_LE, 32);
        } else {
            c[W_VALUES] = 2;
        }
        ok = CHECK(write_all(out[i].path, c, keep));
        free(c);
    }
    free(w);
    return ok;
}

bool test_dir_make(char *dir, size_t cap, const char *prefix)
{
    snprintf(dir, cap, "/tmp/%s.XXXXXX", prefix);
    return CHECK(mkdtemp(dir) != NULL);
}

void test_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[TEST_PATH_BYTES];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(dir);
}
