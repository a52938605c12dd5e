#include <stdio.h>

#include "commands.h"
#include "g16.h"

#ifdef G16_HAVE_CUDA
#include "backend/cuda/cuda_probe.h"
#endif

int cmd_devices(int argc, char **argv)
{
    (void)argv;
    if (argc > 0)
        return cli_usage_error("devices");
#ifndef G16_HAVE_CUDA
    printf("this g16 was built without the CUDA backend (no nvcc at build time)\n");
    return 0;
#else
    cuda_probe_info info;
    g16_status st = cuda_probe(&info);
    if (st == G16_ERR_UNSUPPORTED) {
        printf("no usable CUDA device: %s\n", g16_last_error());
        return 0;
    }
    if (st != G16_OK) {
        fprintf(stderr, "g16 devices: %s\n", cli_status_text(st));
        return 1;
    }
    printf("%d CUDA device(s); device 0: %s, compute capability %d.%d, %d SMs, %.1f GiB, "
           "L2 %.0f MiB\nprobe kernel: %.3f ms, output checked; pinned host-to-device copy: "
           "%.1f GB/s\n",
           info.device_count, info.name, info.cc_major, info.cc_minor, info.multiprocessors,
           info.global_mem_bytes / 1073741824.0, info.l2_bytes / 1048576.0, info.kernel_ms,
           info.h2d_gbps);
    return 0;
#endif
}
