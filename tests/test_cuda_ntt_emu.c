/* The GPU NTT's kernel code run on the host (cuda_ntt_emulate): test_cuda_ntt.c's checks
 * against the CPU NTT, with the GPU's pass plan and with tiny plans, in any CUDA build,
 * GPU or not. Skipped in builds without CUDA. */
#define TEST_CUDA_NTT_EMULATE 1
#define TEST_NAME "test_cuda_ntt_emu"
#include "test_cuda_ntt.c"
