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

/* A byte count from a cgroup file ("max", a missing file or v1's ~2^63: none, 0). */
static uint64_t cgroup_bytes(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v >= (1ull << 62) ? 0 : v;
}

uint64_t host_memory_available(void)
{
    uint64_t avail = proc_kib("/proc/meminfo", "MemAvailable") * 1024;
    /* In a container /proc/meminfo is the host's: its cgroup's limit less its usage is
     * what it may still take (v2, else v1). */
    uint64_t limit = cgroup_bytes("/sys/fs/cgroup/memory.max"), used = 0;
    if (limit)
        used = cgroup_bytes("/sys/fs/cgroup/memory.current");
    else if ((limit = cgroup_bytes("/sys/fs/cgroup/memory/memory.limit_in_bytes")))
        used = cgroup_bytes("/sys/fs/cgroup/memory/memory.usage_in_bytes");
    if (limit) {
        uint64_t left = limit > used ? limit - used : 0;
        avail = avail && avail < left ? avail : left;
    }
    return avail;
}

uint64_t host_memory_total(void)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return 0;
    uint64_t unit = si.mem_unit ? si.mem_unit : 1, swap = (uint64_t)si.totalswap * unit,
             total = (uint64_t)si.totalram * unit + swap;
    /* A container's limit (cgroup v2, else v1 with swap accounting, else v1) is lower
     * than what sysinfo reports, which is the host's. */
    uint64_t limit = cgroup_bytes("/sys/fs/cgroup/memory.max");
    if (limit) {
        uint64_t limit_swap = cgroup_bytes("/sys/fs/cgroup/memory.swap.max");
        limit += limit_swap ? limit_swap : swap; /* "max" (or 0): at most the host's */
    } else if (!(limit = cgroup_bytes("/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes"))) {
        limit = cgroup_bytes("/sys/fs/cgroup/memory/memory.limit_in_bytes");
        limit += limit ? swap : 0;
    }
    return limit && limit < total ? limit : total;
}
