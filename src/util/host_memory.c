#include "host_memory.h"

#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>

uint64_t proc_kib(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    unsigned long long kib = 0;
    if (f) {
        char line[256];
        size_t n = strlen(key);
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, key, n) && line[n] == ':' &&
                sscanf(line + n + 1, "%llu kB", &kib) == 1)
                break;
        fclose(f);
    }
    return kib;
}

uint64_t host_memory_available(void) { return proc_kib("/proc/meminfo", "MemAvailable") * 1024; }

uint64_t host_memory_total(void)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return 0;
    return ((uint64_t)si.totalram + (uint64_t)si.totalswap) * (si.mem_unit ? si.mem_unit : 1);
}
