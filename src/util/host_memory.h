/* The host's memory as the kernel reports it, for plans made before allocating. */
#ifndef G16_UTIL_HOST_MEMORY_H
#define G16_UTIL_HOST_MEMORY_H

#include <stdint.h>

/* The value of the line "KEY: N kB" of a /proc file such as /proc/meminfo or
 * /proc/self/status, in KiB; 0 when there is none. */
uint64_t proc_kib(const char *path, const char *key);
/* MemAvailable from /proc/meminfo, in bytes: what can be allocated without swapping, or
 * what a container's (cgroup) limit leaves where less; 0 when neither can be read. */
uint64_t host_memory_available(void);
/* Physical memory plus swap, in bytes, or a container's (cgroup) limit where lower: more
 * than this can never be held at once; 0 when unknown. */
uint64_t host_memory_total(void);

#endif
