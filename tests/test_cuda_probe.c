/* The CUDA toolchain end to end: skipped (exit 77) in builds without CUDA or on machines
 * without a GPU, never reported as passed there. */
#include "harness.h"

#ifdef G16_HAVE_CUDA
#include "backend/cuda/cuda_probe.h"
#endif

int main(void)
{
    test_init("test_cuda_probe");
#ifndef G16_HAVE_CUDA
    test_skip("this build has no CUDA backend");
#else
    cuda_probe_info info;
    g16_status st = cuda_probe(&info);
    if (st == G16_ERR_UNSUPPORTED)
        test_skip(g16_last_error());
    if (!CHECK(st == G16_OK))
        printf("cuda_probe: %s: %s\n", g16_status_message(st), g16_last_error());
    printf("device: %s, sm_%d%d, %d SMs, %.1f GiB, L2 %.0f MiB; probe kernel %.3f ms; "
           "pinned H2D %.1f GB/s\n",
           info.name, info.cc_major, info.cc_minor, info.multiprocessors,
           info.global_mem_bytes / 1073741824.0, info.l2_bytes / 1048576.0, info.kernel_ms,
           info.h2d_gbps);
    CHECK(info.cc_major >= 7);
    return test_finish();
#endif
}
