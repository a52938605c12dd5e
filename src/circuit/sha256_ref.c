/* Plain SHA-256 (FIPS 180-4 section 6.2), the reference for the gadget's tests. */
#include "sha256.h"

#include <string.h>

const uint32_t SHA256_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

const uint32_t SHA256_IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

void sha256_ref_compress(uint32_t state[8], const uint32_t block[16])
{
    uint32_t w[64];
    memcpy(w, block, 16 * sizeof *w);
    for (unsigned t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
    uint32_t v[8];
    memcpy(v, state, sizeof v);
    for (unsigned t = 0; t < 64; t++) {
        uint32_t e = v[4], a = v[0];
        uint32_t t1 = v[7] + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
                      ((e & v[5]) ^ (~e & v[6])) + SHA256_K[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
                      ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
        memmove(v + 1, v, 7 * sizeof *v);
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (unsigned i = 0; i < 8; i++)
        state[i] += v[i];
}

void sha256_ref(uint8_t out[32], const uint8_t *msg, size_t len)
{
    uint32_t h[8];
    memcpy(h, SHA256_IV, sizeof h);
    uint8_t buf[128];
    size_t done = 0;
    for (; len - done >= 64; done += 64) {
        uint32_t w[16];
        for (unsigned i = 0; i < 16; i++)
            w[i] = (uint32_t)msg[done + 4 * i] << 24 | (uint32_t)msg[done + 4 * i + 1] << 16 |
                   (uint32_t)msg[done + 4 * i + 2] << 8 | msg[done + 4 * i + 3];
        sha256_ref_compress(h, w);
    }
    size_t rest = len - done;
    size_t blocks = rest + 9 <= 64 ? 1 : 2;
    memset(buf, 0, sizeof buf);
    if (rest)
        memcpy(buf, msg + done, rest);
    buf[rest] = 0x80;
    uint64_t bits = (uint64_t)len * 8;
    for (unsigned i = 0; i < 8; i++)
        buf[64 * blocks - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t b = 0; b < blocks; b++) {
        uint32_t w[16];
        for (unsigned i = 0; i < 16; i++) {
            const uint8_t *p = buf + 64 * b + 4 * i;
            w[i] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        }
        sha256_ref_compress(h, w);
    }
    for (unsigned i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(h[i] >> 8);
        out[4 * i + 3] = (uint8_t)h[i];
    }
}
