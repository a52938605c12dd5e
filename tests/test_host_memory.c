/* util/host_memory: "KEY: N kB" lines read from /proc-style files (the key matched whole,
 * not as a prefix of another), and the host's figures read. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "util/host_memory.h"

int main(void)
{
    test_init("host_memory");
    const char *tmpdir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/test_host_memory_%ld", tmpdir && *tmpdir ? tmpdir : "/tmp",
             (long)getpid());
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL))
        return test_finish();
    fputs("MemTotal:       100 kB\nMemAvailableSoon: 7 kB\nMemAvailable:    42 kB\n"
          "VmHWM:\t  123456789012 kB\nBroken: many kB\n", f);
    fclose(f);
    CHECK(proc_kib(path, "MemTotal") == 100);
    CHECK(proc_kib(path, "MemAvailable") == 42); /* not MemAvailableSoon's 7 */
    CHECK(proc_kib(path, "VmHWM") == 123456789012ull);
    CHECK(proc_kib(path, "Broken") == 0);
    CHECK(proc_kib(path, "Mem") == 0);
    CHECK(proc_kib(path, "Missing") == 0);
    unlink(path);
    CHECK(proc_kib(path, "MemTotal") == 0); /* no file */

    uint64_t avail = host_memory_available(), total = host_memory_total();
    printf("  this host: %.2f GiB available, %.2f GiB of memory and swap\n",
           avail / 1073741824.0, total / 1073741824.0);
    /* Not compared: in a container MemAvailable is the host's, the total its limit. */
    CHECK(total > 0);
    CHECK(avail > 0);
    return test_finish();
}
