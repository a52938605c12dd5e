#include "cpu.h"

bool cpu_use_asm = false;

bool cpu_asm_available(void)
{
#ifdef G16_HAVE_X86_ASM
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
#else
    return false;
#endif
}

bool cpu_set_asm(bool enable)
{
    cpu_use_asm = enable && cpu_asm_available();
    return cpu_use_asm;
}

/* Pick the fast path once, before main(), so library users need no init call. */
__attribute__((constructor)) static void cpu_select_path(void) { cpu_set_asm(true); }
