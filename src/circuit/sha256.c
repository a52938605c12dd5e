/* The SHA-256 gadget (sha256.h). */
#include "sha256.h"

#include <string.h>

static cs_word big_sigma(cs_t *cs, const cs_word *x, unsigned r1, unsigned r2, unsigned r3)
{
    cs_word a = cs_word_rotr(x, r1), b = cs_word_rotr(x, r2), c = cs_word_rotr(x, r3);
    return cs_word_xor3(cs, &a, &b, &c);
}

static cs_word small_sigma(cs_t *cs, const cs_word *x, unsigned r1, unsigned r2, unsigned s)
{
    cs_word a = cs_word_rotr(x, r1), b = cs_word_rotr(x, r2), c = cs_word_shr(x, s);
    return cs_word_xor3(cs, &a, &b, &c);
}

void cs_sha256_compress(cs_t *cs, cs_word out[8], const cs_word state[8], const cs_word block[16])
{
    cs_word w[64];
    memcpy(w, block, 16 * sizeof *w);
    for (unsigned t = 16; t < 64; t++) {
        cs_push(cs, "schedule/w %u", t);
        cs_push(cs, "s0");
        cs_word s0 = small_sigma(cs, &w[t - 15], 7, 18, 3);
        cs_pop(cs);
        cs_push(cs, "s1");
        cs_word s1 = small_sigma(cs, &w[t - 2], 17, 19, 10);
        cs_pop(cs);
        const cs_word *ops[4] = {&s1, &w[t - 7], &s0, &w[t - 16]};
        w[t] = cs_word_add(cs, ops, 4, 0);
        cs_pop(cs);
    }
    cs_word v[8];
    memcpy(v, state, sizeof v);
    for (unsigned t = 0; t < 64; t++) {
        cs_push(cs, "round %u", t);
        cs_push(cs, "S1");
        cs_word S1 = big_sigma(cs, &v[4], 6, 11, 25);
        cs_pop(cs);
        cs_word ch = cs_word_ch(cs, &v[4], &v[5], &v[6]);
        cs_push(cs, "S0");
        cs_word S0 = big_sigma(cs, &v[0], 2, 13, 22);
        cs_pop(cs);
        cs_word maj = cs_word_maj(cs, &v[0], &v[1], &v[2]);
        /* e' = d + T1 and a' = T1 + T2, each one addition: T1 is never allocated. */
        cs_push(cs, "e");
        const cs_word *e_ops[5] = {&v[3], &v[7], &S1, &ch, &w[t]};
        cs_word e = cs_word_add(cs, e_ops, 5, SHA256_K[t]);
        cs_pop(cs);
        cs_push(cs, "a");
        const cs_word *a_ops[6] = {&v[7], &S1, &ch, &w[t], &S0, &maj};
        cs_word a = cs_word_add(cs, a_ops, 6, SHA256_K[t]);
        cs_pop(cs);
        memmove(v + 1, v, 7 * sizeof *v);
        v[4] = e;
        v[0] = a;
        cs_pop(cs);
    }
    for (unsigned i = 0; i < 8; i++) {
        cs_push(cs, "final %u", i);
        const cs_word *ops[2] = {&state[i], &v[i]};
        out[i] = cs_word_add(cs, ops, 2, 0);
        cs_pop(cs);
    }
}

void cs_sha256(cs_t *cs, cs_word digest[8], const cs_bit *msg, size_t n_bits)
{
    cs_push(cs, "sha256");
    size_t n_blocks = (n_bits + 1 + 64 + 511) / 512;
    cs_word h[8];
    for (unsigned i = 0; i < 8; i++)
        h[i] = cs_word_const(SHA256_IV[i]);
    for (size_t blk = 0; blk < n_blocks; blk++) {
        /* Message bits, then the known padding: a one, zeros, the 64-bit length. */
        cs_bit bits[512];
        for (size_t j = 0; j < 512; j++) {
            size_t pos = blk * 512 + j;
            size_t from_end = n_blocks * 512 - 1 - pos;
            if (pos < n_bits)
                bits[j] = msg[pos];
            else if (pos == n_bits)
                bits[j] = cs_bit_const(true);
            else if (from_end < 64)
                bits[j] = cs_bit_const((((uint64_t)n_bits) >> from_end) & 1);
            else
                bits[j] = cs_bit_const(false);
        }
        cs_word block[16];
        for (unsigned i = 0; i < 16; i++)
            block[i] = cs_word_from_be_bits(bits + 32 * i);
        cs_push(cs, "block %zu", blk);
        cs_sha256_compress(cs, h, h, block);
        cs_pop(cs);
    }
    memcpy(digest, h, sizeof h);
    cs_pop(cs);
}
