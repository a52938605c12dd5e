/* MULX/ADCX/ADOX Montgomery multiplication for 4 and 6 limbs (x86-64, BMI2 + ADX).
 *
 * Algorithm: CIOS (coarsely integrated operand scanning) with the two independent carry
 * chains ADX provides. For every limb b[i]:
 *
 *   A:  t[0..n] += a * b[i]          low halves of the products on the OF chain (ADOX),
 *                                    high halves on the CF chain (ADCX)
 *   B:  q = t[0] * minv mod 2^64;  t[0..n] += q * m;  t >>= 64  (t[0] is now zero)
 *
 * Bounds (modulus top limb < 2^63, inputs < m): t < 2m < 2^(64n) after every round, so t
 * needs n limbs between rounds and n+1 inside one; no (n+2)-th limb and no carry out of
 * the top limb can occur. Both chains of a phase end in the top limb: the CF chain by
 * adding the last high half, the OF chain by adding a constant zero ("flush"), after
 * which both flags are 0. Each phase still starts by clearing CF and OF with an
 * instruction that has no flag input (XOR or TEST), so its chains need not wait for the
 * last flag write of the previous phase.
 *
 * The n+1 accumulator limbs live in registers that rotate by one per round: the register
 * that held t[0] (zero after phase B) becomes the new top limb. Operands a, b and m are
 * read from memory by MULX/SUB (loads are off the critical path).
 *
 * Scheduling: the critical path is q -> q * m[0..1] -> t[1] -> next q, about 10 cycles a
 * round, while the single integer multiplier has 2n+1 products to do per round; for
 * 6 limbs the multiplier is the bottleneck. q for round i is therefore computed at the
 * very start of round i (from t0 + lo(a[0] * b[i]), with LEA), ahead of the other products
 * of a * b[i] in program order, so the out-of-order scheduler (oldest first) does not
 * queue it behind them. Measured on AMD Zen 4: 6 limbs 125 -> 110 cycles.
 *
 * The result is reduced once from [0, 2m) with SUB/SBB and CMOVC: no branch on data,
 * no data-dependent memory access.
 *
 * Squaring: 6 limbs has its own routine (21 instead of 36 products in phase A, see below;
 * about 18% faster than the multiplication on Zen 4). 4 limbs reuses the multiplication:
 * the same trick needs 3m < 2^256, which BLS12-381's r (about 2^254.9) does not meet.
 */
#include "mont_x86.h"

#ifdef G16_HAVE_X86_ASM

#define G16_ADX __attribute__((target("bmi2,adx")))

/* Every general register but rsp and rbp is taken inside the routines, so the three
 * values needed only now and then live in memory: minv and the result pointer in a small
 * frame that PROLOGUE pushes (they arrive in rax and rbx), the constant zero (added to
 * fold a pending carry flag into the top limb) in .rodata. Inline asm may not assume the
 * 128-byte red zone under rsp is free (the compiler may keep its own data there in a leaf
 * function), so PROLOGUE steps over it first. The compiler then only has to form one
 * RIP-relative memory operand, needing no register; asking it for rsp- or register-based
 * ones fails with sanitizers at -O0 ("impossible constraints"). */
static const uint64_t zero64 = 0;
#define PROLOGUE                                                                           \
    "leaq -128(%%rsp), %%rsp\n\t"                                                          \
    "pushq %%rbx\n\t" /* result pointer */                                                 \
    "pushq %%rax\n\t" /* minv */
#define EPILOGUE "leaq 144(%%rsp), %%rsp\n\t"
#define MINV "0(%%rsp)"
#define RP "8(%%rsp)"
#define ZERO "%[zero]"

/* ---- building blocks (AT&T syntax: source first; mulx src, lo, hi) ------------------ */

/* Register use in every routine below:
 *   rsi = a, rcx = b, rdi = m (pointers);  rdx = the MULX multiplier (b[i], then q);
 *   rax, rbx = product halves;  r15 = q of the current round;
 *   r8..r12 (4 limbs) or r8..r14 (6 limbs) = the rotating accumulator t[0..n].
 * On entry minv is in rax and the result pointer in rbx (see PROLOGUE). */

/* lo, hi = [src] * rdx;  tl += lo (OF chain);  th += hi (CF chain). */
#define MAC(src, tl, th)                                                                   \
    "mulxq " src ", %%rax, %%rbx\n\t"                                                      \
    "adoxq %%rax, %%" tl "\n\t"                                                            \
    "adcxq %%rbx, %%" th "\n\t"

#define A(k) #k "*8(%%rsi)"
#define B(k) #k "*8(%%rcx)"
#define M(k) #k "*8(%%rdi)"

/* Round 0: t = a * b[0] on one carry chain, product halves written straight into t, and
 * q = t0 * minv into r15 (minv still in rax: the first q is on the critical path). The
 * IMUL writes the flags, so it sits before the chain starts. */
#define FIRST_HEAD(t0, t1)                                                                 \
    "movq " B(0) ", %%rdx\n\t"                                                             \
    "mulxq " A(0) ", %%" t0 ", %%" t1 "\n\t"                                               \
    "movq %%" t0 ", %%r15\n\t"                                                             \
    "imulq %%rax, %%r15\n\t"                                                               \
    PROLOGUE                                                                               \
    "xorl %%eax, %%eax\n\t"
#define FIRST_STEP(k, tk, tk1)                                                             \
    "mulxq " A(k) ", %%rax, %%" tk1 "\n\t"                                                 \
    "adcxq %%rax, %%" tk "\n\t"

#define FIRST4(t0, t1, t2, t3, t4)                                                         \
    FIRST_HEAD(t0, t1)                                                                     \
    FIRST_STEP(1, t1, t2) FIRST_STEP(2, t2, t3) FIRST_STEP(3, t3, t4)                      \
    "adcxq " ZERO ", %%" t4 "\n\t"

#define FIRST6(t0, t1, t2, t3, t4, t5, t6)                                                 \
    FIRST_HEAD(t0, t1)                                                                     \
    FIRST_STEP(1, t1, t2) FIRST_STEP(2, t2, t3) FIRST_STEP(3, t3, t4)                      \
    FIRST_STEP(4, t4, t5) FIRST_STEP(5, t5, t6)                                            \
    "adcxq " ZERO ", %%" t6 "\n\t"

/* Phase A of round i >= 1: t[0..n] += a * b[i]; t[n] is zero on entry. The next q only
 * needs the low word t0 + lo(a0 * b[i]): LEA forms it without touching the flags and the
 * IMUL runs before the carry chains start (TEST clears CF and OF). Placing the IMUL early
 * in program order matters: the multiplier is the busiest unit and the scheduler favours
 * older instructions, so q (the critical path) is no longer queued behind a * b[i]. */
#define MULADD_HEAD(i, t0, t1)                                                             \
    "movq " B(i) ", %%rdx\n\t"                                                             \
    "mulxq " A(0) ", %%rax, %%rbx\n\t"                                                     \
    "leaq (%%" t0 ", %%rax), %%r15\n\t"                                                    \
    "imulq " MINV ", %%r15\n\t"                                                            \
    "testq %%rax, %%rax\n\t"                                                               \
    "adoxq %%rax, %%" t0 "\n\t"                                                            \
    "adcxq %%rbx, %%" t1 "\n\t"

#define MULADD4(i, t0, t1, t2, t3, t4)                                                     \
    MULADD_HEAD(i, t0, t1)                                                                 \
    MAC(A(1), t1, t2) MAC(A(2), t2, t3) MAC(A(3), t3, t4)                                  \
    "adoxq " ZERO ", %%" t4 "\n\t"

#define MULADD6(i, t0, t1, t2, t3, t4, t5, t6)                                             \
    MULADD_HEAD(i, t0, t1)                                                                 \
    MAC(A(1), t1, t2) MAC(A(2), t2, t3) MAC(A(3), t3, t4) MAC(A(4), t4, t5)                \
    MAC(A(5), t5, t6)                                                                      \
    "adoxq " ZERO ", %%" t6 "\n\t"

/* Phase B: t += q * m with q = r15; afterwards t0 == 0 and t1..tn is the new t. */
#define REDUCE4(t0, t1, t2, t3, t4)                                                        \
    "movq %%r15, %%rdx\n\t"                                                                \
    "xorl %%eax, %%eax\n\t"                                                                \
    MAC(M(0), t0, t1) MAC(M(1), t1, t2) MAC(M(2), t2, t3) MAC(M(3), t3, t4)                \
    "adoxq " ZERO ", %%" t4 "\n\t"

#define REDUCE6(t0, t1, t2, t3, t4, t5, t6)                                                \
    "movq %%r15, %%rdx\n\t"                                                                \
    "xorl %%eax, %%eax\n\t"                                                                \
    MAC(M(0), t0, t1) MAC(M(1), t1, t2) MAC(M(2), t2, t3) MAC(M(3), t3, t4)                \
    MAC(M(4), t4, t5) MAC(M(5), t5, t6)                                                    \
    "adoxq " ZERO ", %%" t6 "\n\t"

/* r = t - m if t >= m else t, for t < 2m in t0..t3; u0..u3 are scratch; the result
 * pointer is loaded from the stack slot rp into p. */
#define FINAL4(rp, t0, t1, t2, t3, u0, u1, u2, u3, p)                                      \
    "movq %%" t0 ", %%" u0 "\n\t"                                                          \
    "movq %%" t1 ", %%" u1 "\n\t"                                                          \
    "movq %%" t2 ", %%" u2 "\n\t"                                                          \
    "movq %%" t3 ", %%" u3 "\n\t"                                                          \
    "subq " M(0) ", %%" u0 "\n\t"                                                          \
    "sbbq " M(1) ", %%" u1 "\n\t"                                                          \
    "sbbq " M(2) ", %%" u2 "\n\t"                                                          \
    "sbbq " M(3) ", %%" u3 "\n\t"                                                          \
    "movq " rp ", %%" p "\n\t"                                                             \
    "cmovcq %%" t0 ", %%" u0 "\n\t"                                                        \
    "cmovcq %%" t1 ", %%" u1 "\n\t"                                                        \
    "cmovcq %%" t2 ", %%" u2 "\n\t"                                                        \
    "cmovcq %%" t3 ", %%" u3 "\n\t"                                                        \
    "movq %%" u0 ", 0(%%" p ")\n\t"                                                        \
    "movq %%" u1 ", 8(%%" p ")\n\t"                                                        \
    "movq %%" u2 ", 16(%%" p ")\n\t"                                                       \
    "movq %%" u3 ", 24(%%" p ")\n\t"

#define FINAL6(rp, t0, t1, t2, t3, t4, t5, u0, u1, u2, u3, u4, u5, p)                      \
    "movq %%" t0 ", %%" u0 "\n\t"                                                          \
    "movq %%" t1 ", %%" u1 "\n\t"                                                          \
    "movq %%" t2 ", %%" u2 "\n\t"                                                          \
    "movq %%" t3 ", %%" u3 "\n\t"                                                          \
    "movq %%" t4 ", %%" u4 "\n\t"                                                          \
    "movq %%" t5 ", %%" u5 "\n\t"                                                          \
    "subq " M(0) ", %%" u0 "\n\t"                                                          \
    "sbbq " M(1) ", %%" u1 "\n\t"                                                          \
    "sbbq " M(2) ", %%" u2 "\n\t"                                                          \
    "sbbq " M(3) ", %%" u3 "\n\t"                                                          \
    "sbbq " M(4) ", %%" u4 "\n\t"                                                          \
    "sbbq " M(5) ", %%" u5 "\n\t"                                                          \
    "movq " rp ", %%" p "\n\t"                                                             \
    "cmovcq %%" t0 ", %%" u0 "\n\t"                                                        \
    "cmovcq %%" t1 ", %%" u1 "\n\t"                                                        \
    "cmovcq %%" t2 ", %%" u2 "\n\t"                                                        \
    "cmovcq %%" t3 ", %%" u3 "\n\t"                                                        \
    "cmovcq %%" t4 ", %%" u4 "\n\t"                                                        \
    "cmovcq %%" t5 ", %%" u5 "\n\t"                                                        \
    "movq %%" u0 ", 0(%%" p ")\n\t"                                                        \
    "movq %%" u1 ", 8(%%" p ")\n\t"                                                        \
    "movq %%" u2 ", 16(%%" p ")\n\t"                                                       \
    "movq %%" u3 ", 24(%%" p ")\n\t"                                                       \
    "movq %%" u4 ", 32(%%" p ")\n\t"                                                       \
    "movq %%" u5 ", 40(%%" p ")\n\t"

/* ---- 4 limbs: accumulator registers r8..r12 ------------------------------------------ */

G16_ADX void mont_mul_adx_4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                            const uint64_t m[4], uint64_t minv)
{
    const uint64_t *pa = a, *pb = b, *pm = m;
    uint64_t k = minv, *pr = r;
    __asm__ volatile(
        FIRST4("r8", "r9", "r10", "r11", "r12")
        REDUCE4("r8", "r9", "r10", "r11", "r12")
        MULADD4(1, "r9", "r10", "r11", "r12", "r8")
        REDUCE4("r9", "r10", "r11", "r12", "r8")
        MULADD4(2, "r10", "r11", "r12", "r8", "r9")
        REDUCE4("r10", "r11", "r12", "r8", "r9")
        MULADD4(3, "r11", "r12", "r8", "r9", "r10")
        REDUCE4("r11", "r12", "r8", "r9", "r10")
        FINAL4(RP, "r12", "r8", "r9", "r10", "rax", "rbx", "rdx", "rsi", "rcx")
        EPILOGUE
        : "+S"(pa), "+c"(pb), "+D"(pm), "+a"(k), "+b"(pr)
        : [zero] "m"(zero64)
        : "rdx", "r8", "r9", "r10", "r11", "r12", "r15", "cc", "memory");
}

G16_ADX void mont_sqr_adx_4(uint64_t r[4], const uint64_t a[4], const uint64_t m[4],
                            uint64_t minv)
{
    mont_mul_adx_4(r, a, a, m, minv);
}

/* ---- 6 limbs: accumulator registers r8..r14 ------------------------------------------ */

G16_ADX void mont_mul_adx_6(uint64_t r[6], const uint64_t a[6], const uint64_t b[6],
                            const uint64_t m[6], uint64_t minv)
{
    const uint64_t *pa = a, *pb = b, *pm = m;
    uint64_t k = minv, *pr = r;
    __asm__ volatile(
        FIRST6("r8", "r9", "r10", "r11", "r12", "r13", "r14")
        REDUCE6("r8", "r9", "r10", "r11", "r12", "r13", "r14")
        MULADD6(1, "r9", "r10", "r11", "r12", "r13", "r14", "r8")
        REDUCE6("r9", "r10", "r11", "r12", "r13", "r14", "r8")
        MULADD6(2, "r10", "r11", "r12", "r13", "r14", "r8", "r9")
        REDUCE6("r10", "r11", "r12", "r13", "r14", "r8", "r9")
        MULADD6(3, "r11", "r12", "r13", "r14", "r8", "r9", "r10")
        REDUCE6("r11", "r12", "r13", "r14", "r8", "r9", "r10")
        MULADD6(4, "r12", "r13", "r14", "r8", "r9", "r10", "r11")
        REDUCE6("r12", "r13", "r14", "r8", "r9", "r10", "r11")
        MULADD6(5, "r13", "r14", "r8", "r9", "r10", "r11", "r12")
        REDUCE6("r13", "r14", "r8", "r9", "r10", "r11", "r12")
        FINAL6(RP, "r14", "r8", "r9", "r10", "r11", "r12",
               "rax", "rbx", "rdx", "rsi", "rcx", "r15", "r13")
        EPILOGUE
        : "+S"(pa), "+c"(pb), "+D"(pm), "+a"(k), "+b"(pr)
        : [zero] "m"(zero64)
        : "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc", "memory");
}

/* ---- 6-limb squaring ------------------------------------------------------------------ *
 *
 * Same CIOS rounds, but phase A of round i adds only the terms of a^2 that have a[i] as
 * their lower factor:  a[i] * (a[i] + 2 * sum_{j>i} a[j] 2^(64(j-i)))  at limb i of t.
 * With d = 2a as a 6-limb number (a < 2^383), the doubled tail has the limbs
 *   e[i+1] = a[i+1] << 1,   d[j] = (a[j] << 1) | (a[j-1] >> 63) for j >= i+2,
 * (no limb 6: a[5] < 2^63), so row i is 6-i products (21 in all instead of 36) and it
 * starts at limb i, leaving t[0..i-1] alone: q of round i is t[0] * minv straight from the
 * previous round. e[2..5] and d[3..5] are computed once into a stack frame; row 0 uses
 * e[1], d[2..5] from registers.
 *
 * Bound: after round i, t < 2a + m < 3m (the partial rows sum to at most 2a * 2^(64(i+1))),
 * so this needs 3m < 2^384 (checked: m[5] < 2^62), where the multiplication needs only
 * 2m < 2^384. The final t is REDC(a^2) < 2m as before. Other moduli take the
 * multiplication. */

#define SQ_E(j) #j "*8-16(%%rsp)" /* e[2..5] at 0..24 */
#define SQ_D(j) #j "*8+8(%%rsp)"  /* d[3..5] at 32..48 */
#define SQ_MINV "56(%%rsp)"
#define SQ_RP "64(%%rsp)"
#define SQ_EPILOGUE "leaq 200(%%rsp), %%rsp\n\t"

/* Round 0: t = a[0] * (a[0], e[1], d[2..5]) and q into r15; builds the frame meanwhile.
 * r10..r14 first hold a[1..5], then e[1], d[2..5] (SHLD from the top down), then
 * t[2..6]. */
#define SQ_FIRST                                                                           \
    "movq " A(0) ", %%rdx\n\t"                                                             \
    "mulxq %%rdx, %%r8, %%r9\n\t"                                                          \
    "movq %%r8, %%r15\n\t"                                                                 \
    "imulq %%rax, %%r15\n\t"                                                               \
    PROLOGUE                                                                               \
    "leaq -56(%%rsp), %%rsp\n\t"                                                           \
    "movq " A(1) ", %%r10\n\t"                                                             \
    "movq " A(2) ", %%r11\n\t"                                                             \
    "movq " A(3) ", %%r12\n\t"                                                             \
    "movq " A(4) ", %%r13\n\t"                                                             \
    "movq " A(5) ", %%r14\n\t"                                                             \
    "leaq (%%r11, %%r11), %%rax\n\t"                                                       \
    "movq %%rax, " SQ_E(2) "\n\t"                                                          \
    "leaq (%%r12, %%r12), %%rbx\n\t"                                                       \
    "movq %%rbx, " SQ_E(3) "\n\t"                                                          \
    "leaq (%%r13, %%r13), %%rax\n\t"                                                       \
    "movq %%rax, " SQ_E(4) "\n\t"                                                          \
    "leaq (%%r14, %%r14), %%rbx\n\t"                                                       \
    "movq %%rbx, " SQ_E(5) "\n\t"                                                          \
    "shldq $1, %%r13, %%r14\n\t"                                                           \
    "movq %%r14, " SQ_D(5) "\n\t"                                                          \
    "shldq $1, %%r12, %%r13\n\t"                                                           \
    "movq %%r13, " SQ_D(4) "\n\t"                                                          \
    "shldq $1, %%r11, %%r12\n\t"                                                           \
    "movq %%r12, " SQ_D(3) "\n\t"                                                          \
    "shldq $1, %%r10, %%r11\n\t"                                                           \
    "addq %%r10, %%r10\n\t"                                                                \
    "xorl %%eax, %%eax\n\t"                                                                \
    "mulxq %%r10, %%rax, %%r10\n\t"                                                        \
    "adcxq %%rax, %%r9\n\t"                                                                \
    "mulxq %%r11, %%rax, %%r11\n\t"                                                        \
    "adcxq %%rax, %%r10\n\t"                                                               \
    "mulxq %%r12, %%rax, %%r12\n\t"                                                        \
    "adcxq %%rax, %%r11\n\t"                                                               \
    "mulxq %%r13, %%rax, %%r13\n\t"                                                        \
    "adcxq %%rax, %%r12\n\t"                                                               \
    "mulxq %%r14, %%rax, %%r14\n\t"                                                        \
    "adcxq %%rax, %%r13\n\t"                                                               \
    "adcxq " ZERO ", %%r14\n\t"

/* Start of round i >= 1: q = t0 * minv (IMUL before the chains), rdx = a[i]. */
#define SQ_HEAD(i, t0)                                                                     \
    "movq %%" t0 ", %%r15\n\t"                                                             \
    "imulq " SQ_MINV ", %%r15\n\t"                                                         \
    "movq " A(i) ", %%rdx\n\t"                                                             \
    "xorl %%eax, %%eax\n\t"
#define SQ_FLUSH(t6) "adoxq " ZERO ", %%" t6 "\n\t"

G16_ADX void mont_sqr_adx_6(uint64_t r[6], const uint64_t a[6], const uint64_t m[6],
                            uint64_t minv)
{
    if (m[5] >> 62) { /* the modulus is public: not a secret-dependent branch */
        mont_mul_adx_6(r, a, a, m, minv);
        return;
    }
    const uint64_t *pa = a, *pm = m;
    uint64_t k = minv, *pr = r;
    __asm__ volatile(
        SQ_FIRST
        REDUCE6("r8", "r9", "r10", "r11", "r12", "r13", "r14")
        /* round 1: t0..t6 = r9..r14, r8 */
        SQ_HEAD(1, "r9")
        MAC(A(1), "r10", "r11") MAC(SQ_E(2), "r11", "r12") MAC(SQ_D(3), "r12", "r13")
        MAC(SQ_D(4), "r13", "r14") MAC(SQ_D(5), "r14", "r8") SQ_FLUSH("r8")
        REDUCE6("r9", "r10", "r11", "r12", "r13", "r14", "r8")
        /* round 2: t0..t6 = r10..r14, r8, r9 */
        SQ_HEAD(2, "r10")
        MAC(A(2), "r12", "r13") MAC(SQ_E(3), "r13", "r14") MAC(SQ_D(4), "r14", "r8")
        MAC(SQ_D(5), "r8", "r9") SQ_FLUSH("r9")
        REDUCE6("r10", "r11", "r12", "r13", "r14", "r8", "r9")
        /* round 3: t0..t6 = r11..r14, r8..r10 */
        SQ_HEAD(3, "r11")
        MAC(A(3), "r14", "r8") MAC(SQ_E(4), "r8", "r9") MAC(SQ_D(5), "r9", "r10")
        SQ_FLUSH("r10")
        REDUCE6("r11", "r12", "r13", "r14", "r8", "r9", "r10")
        /* round 4: t0..t6 = r12..r14, r8..r11 */
        SQ_HEAD(4, "r12")
        MAC(A(4), "r9", "r10") MAC(SQ_E(5), "r10", "r11") SQ_FLUSH("r11")
        REDUCE6("r12", "r13", "r14", "r8", "r9", "r10", "r11")
        /* round 5: t0..t6 = r13, r14, r8..r12 */
        SQ_HEAD(5, "r13")
        MAC(A(5), "r11", "r12") SQ_FLUSH("r12")
        REDUCE6("r13", "r14", "r8", "r9", "r10", "r11", "r12")
        FINAL6(SQ_RP, "r14", "r8", "r9", "r10", "r11", "r12",
               "rax", "rbx", "rdx", "rsi", "rcx", "r15", "r13")
        SQ_EPILOGUE
        : "+S"(pa), "+D"(pm), "+a"(k), "+b"(pr)
        : [zero] "m"(zero64)
        : "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
          "memory");
}

#endif /* G16_HAVE_X86_ASM */
