/* Which arithmetic path the field code takes on this CPU.
 *
 * The portable C path always exists; on x86-64 CPUs with BMI2 and ADX (MULX, ADCX,
 * ADOX) a hand-scheduled assembly path is chosen at start-up. Tests run both. */
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

#endif
