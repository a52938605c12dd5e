/* The GLV endomorphism of BLS12-381 for the GPU MSM (Gallant, Lambert and Vanstone,
 * "Faster point multiplication on elliptic curves with efficient endomorphisms",
 * CRYPTO 2001).
 *
 * Both groups live on curves y^2 = x^3 + b (j-invariant 0), where phi(x, y) = (beta x, y),
 * beta a cube root of unity in Fp, is an automorphism; on the order-r subgroup it is
 * multiplication by a cube root of unity mod r. With lambda = z^2 - 1 (z the curve's
 * parameter -0xd201000000010000; lambda^2 + lambda + 1 = r), phi(P) = lambda P for
 *   G1: beta = 0x1a0111ea...00000000aaac (the cube root whose square is the other),
 *   G2: beta = 0x5f19672f...fffffffefffe (on the twist the other root has eigenvalue lambda),
 * both checked against scalar multiplication (tests/test_cuda_msm_emu.c joins GLV MSMs
 * and compares them with the CPU's MSM, which has no endomorphism in it).
 *
 * So k P = k1 P + k2 phi(P) for k = k1 + lambda k2, and with k2 = floor(k / lambda),
 * k1 = k mod lambda both halves are below 2^128 (lambda < 2^128, r / lambda < 2^128): an
 * MSM of n 255-bit scalars becomes one of 2n 128-bit scalars over P and phi(P). The pairs
 * the buckets take are about the same (the bits are), but every window has twice the
 * points in the same buckets: half the windows, so half the per-bucket work (the rounds'
 * bucket kernels, their tails, the reduction) for a given width. phi(P)'s x is one product,
 * so it is made once per key (a table of beta x beside the bases: "precomputed multiples
 * of the bases") rather than in every round-0 load. */
#ifndef G16_BACKEND_CUDA_GLV_CUH
#define G16_BACKEND_CUDA_GLV_CUH

#include "field.cuh"

/* beta in Montgomery form (x 2^384 mod p), 32-bit limbs, little-endian. */
G16_HD constexpr uint64_t glv_beta64(int group, int i)
{
    return group == 1 ? (i == 0 ? 0xcd03c9e48671f071ull
                         : i == 1 ? 0x5dab22461fcda5d2ull
                         : i == 2 ? 0x587042afd3851b95ull
                         : i == 3 ? 0x8eb60ebe01bacb9eull
                         : i == 4 ? 0x03f97d6e83d050d2ull
                                  : 0x18f0206554638741ull)
                      : (i == 0 ? 0x30f1361b798a64e8ull
                         : i == 1 ? 0xf3b8ddab7ece5a2aull
                         : i == 2 ? 0x16a8ca3ac61577f7ull
                         : i == 3 ? 0xc26a2ff874fd029bull
                         : i == 4 ? 0x3636b76660701c6eull
                                  : 0x051ba4ab241b6160ull);
}

G16_HD fp_d glv_beta(int group)
{
    fp_d b;
#pragma unroll
    for (int i = 0; i < 12; i++)
        b.v[i] = (uint32_t)(glv_beta64(group, i / 2) >> (32 * (i % 2)));
    return b;
}

/* phi's x: beta x (G1), beta x in both coordinates of Fp2 (G2); 0 (infinity) stays 0. */
G16_HD fp_d glv_phi_x(const fp_d &x) { return glv_beta(1) * x; }
G16_HD fp2_d glv_phi_x(const fp2_d &x)
{
    fp_d b = glv_beta(2);
    return fp2_d{b * x.c0, b * x.c1};
}

/* lambda = z^2 - 1 and mu = floor(2^256 / lambda) (129 bits), 32-bit limbs. */
G16_HD constexpr uint32_t glv_lambda32(int i)
{
    return i == 0 ? 0xffffffffu : i == 1 ? 0x00000000u : i == 2 ? 0x0001a402u : 0xac45a401u;
}
G16_HD constexpr uint32_t glv_mu32(int i)
{
    return i == 0 ? 0xf6cfee30u
         : i == 1 ? 0x63f6e522u
         : i == 2 ? 0xe01faaddu
         : i == 3 ? 0x7c6becf1u
                  : 0x00000001u;
}

/* out[0 .. NA + NB) = a * b, little-endian 32-bit limbs. */
template <int NA, int NB>
G16_HD void glv_mul_limbs(uint32_t *out, const uint32_t *a, const uint32_t *b)
{
#pragma unroll
    for (int i = 0; i < NA + NB; i++)
        out[i] = 0;
#pragma unroll
    for (int i = 0; i < NA; i++) {
        uint64_t carry = 0;
#pragma unroll
        for (int j = 0; j < NB; j++) {
            uint64_t v = (uint64_t)a[i] * b[j] + out[i + j] + carry;
            out[i + j] = (uint32_t)v;
            carry = v >> 32;
        }
        out[i + NB] = (uint32_t)carry;
    }
}

/* r -= b (8 limbs, r >= b). */
G16_HD void glv_sub_limbs(uint32_t *r, const uint32_t *b)
{
    uint64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        uint64_t d = (uint64_t)r[i] - b[i] - borrow;
        r[i] = (uint32_t)d;
        borrow = (d >> 63) & 1;
    }
}

/* k (a canonical scalar, 8 limbs, k < r) -> out[0..4) = k mod lambda, out[4..8) = floor(k /
 * lambda). Barrett: q = floor(floor(k / 2^127) mu / 2^129) is at most 2 below the
 * quotient (lambda >= 2^127), so k - q lambda is corrected by at most a few subtractions;
 * the tests' scalars near multiples of lambda reach the corrections. */
G16_HD void glv_split(uint32_t out[8], const uint32_t k[8])
{
    const uint32_t lambda[8] = {glv_lambda32(0), glv_lambda32(1), glv_lambda32(2),
                                glv_lambda32(3), 0, 0, 0, 0};
    const uint32_t mu[5] = {glv_mu32(0), glv_mu32(1), glv_mu32(2), glv_mu32(3), glv_mu32(4)};
    uint32_t t[5], prod[10], q[5];
#pragma unroll
    for (int i = 0; i < 5; i++)
        t[i] = (k[i + 3] >> 31) | (i + 4 < 8 ? k[i + 4] << 1 : 0u);
    glv_mul_limbs<5, 5>(prod, t, mu);
#pragma unroll
    for (int i = 0; i < 5; i++)
        q[i] = (prod[i + 4] >> 1) | (i + 5 < 10 ? prod[i + 5] << 31 : 0u);
    /* rem = k - q lambda (q < 2^128: q[4] is 0). */
    uint32_t ql[8], rem[8];
    glv_mul_limbs<4, 4>(ql, q, lambda);
#pragma unroll
    for (int i = 0; i < 8; i++)
        rem[i] = k[i];
    glv_sub_limbs(rem, ql);
    for (int step = 0; step < 4; step++) {
        /* rem >= lambda? (rem < 2^130 here: its limbs 5..7 are zero) */
        bool ge = rem[4] != 0;
        if (!ge) {
            ge = true;
            for (int i = 3; i >= 0; i--)
                if (rem[i] != lambda[i]) {
                    ge = rem[i] > lambda[i];
                    break;
                }
        }
        if (!ge)
            break;
        glv_sub_limbs(rem, lambda);
        uint64_t c = 1;
        for (int i = 0; i < 4; i++) {
            uint64_t v = (uint64_t)q[i] + c;
            q[i] = (uint32_t)v;
            c = v >> 32;
        }
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        out[i] = rem[i];
        out[4 + i] = q[i];
    }
}

#endif
