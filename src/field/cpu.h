/* Which arithmetic path the field code takes on this CPU.
 *
 * The portable C path always exists; on x86-64 CPUs with BMI2 and ADX (MULX, ADCX,
 * ADOX) a hand-scheduled assembly path is chosen at start-up. Tests run both.
 *
 * Independently, CPUs with AVX-512 IFMA (and an OS that saves the zmm state) get 8-lane
 * Fp products (fp_x8.h) in the MSMs' batch affine additions and 8-lane Fr butterflies
 * (fr_x8.h) in the NTT. G16_CPU_IFMA=0 in the environment turns that path off at
 * start-up, for tests and benchmarks. */
#ifndef G16_FIELD_CPU_H
#define G16_FIELD_CPU_H

#include <stdbool.h>

/* true while the assembly path is in use. Read on every multiplication, written only by
 * cpu_set_asm (not thread-safe against concurrent arithmetic: set it before work starts). */
extern bool cpu_use_asm;

/* true iff this build has the assembly path and this CPU can run it. */
bool cpu_asm_available(void);

/* Choose the path: enable is honoured only when cpu_asm_available(). Returns the path
 * now in use. */
bool cpu_set_asm(bool enable);

/* The same three for the AVX-512 IFMA path: CPUID reports AVX512F and AVX512IFMA and
 * XGETBV says the OS enabled the opmask and zmm registers. */
extern bool cpu_use_ifma;
bool cpu_ifma_available(void);
bool cpu_set_ifma(bool enable);

#endif
