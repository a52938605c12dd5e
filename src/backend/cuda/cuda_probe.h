/* The smallest end-to-end use of the CUDA toolchain: find a device, run a kernel, check
 * its output on the host. It proves that the build, the driver and the device work
 * before any real kernel is trusted. Declared for C; defined in cuda_probe.cu. */
#ifndef G16_BACKEND_CUDA_PROBE_H
#define G16_BACKEND_CUDA_PROBE_H

#include <stddef.h>

#include "g16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int device_count;
    char name[256];
    int cc_major, cc_minor;
    int multiprocessors;
    size_t global_mem_bytes;
    size_t l2_bytes;
    double kernel_ms;  /* the check kernel's time by CUDA events */
    double h2d_gbps;   /* pinned host-to-device copy rate measured on 256 MiB */
} cuda_probe_info;

/* Runs the probe on device 0. G16_ERR_UNSUPPORTED when there is no usable device (the
 * message says why); G16_ERR_INTERNAL when the kernel's output is wrong. */
g16_status cuda_probe(cuda_probe_info *info);

#ifdef __cplusplus
}
#endif

#endif
