#include "cpu.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(G16_HAVE_IFMA)
#include <cpuid.h>
#endif

bool cpu_use_asm = false;
bool cpu_use_ifma = false;

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

bool cpu_ifma_available(void)
{
#if defined(G16_HAVE_IFMA)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) /* OSXSAVE */
        return false;
    /* XCR0: SSE, AVX, opmask, ZMM_Hi256 and Hi16_ZMM state (bits 1, 2, 5, 6, 7) all
     * saved by the OS; a CPU flag alone does not make the registers usable. Encoded as
     * bytes: the assembler may lack the mnemonic without -mxsave. */
    uint32_t lo, hi;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 0xe6) != 0xe6)
        return false;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return (b & (1u << 16)) && (b & (1u << 21)); /* AVX512F, AVX512IFMA */
#else
    return false;
#endif
}

bool cpu_set_ifma(bool enable)
{
    cpu_use_ifma = enable && cpu_ifma_available();
    return cpu_use_ifma;
}

/* Pick the fast paths once, before main(), so library users need no init call. */
__attribute__((constructor)) static void cpu_select_path(void)
{
    cpu_set_asm(true);
    const char *ifma = getenv("G16_CPU_IFMA");
    cpu_set_ifma(!(ifma && strcmp(ifma, "0") == 0));
}
