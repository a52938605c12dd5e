/* Shared by every .cu file: checked CUDA calls that report the statement, file and line. */
#ifndef G16_BACKEND_CUDA_COMMON_CUH
#define G16_BACKEND_CUDA_COMMON_CUH

#include <cuda_runtime.h>

#include "util/status.h"

/* Evaluates a CUDA runtime call; on failure records "<call> failed at file:line: <error>"
 * and returns `status` from the enclosing function (which must return g16_status). */
#define CUDA_TRY(call, status)                                                        \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess)                                                      \
            return status_fail((status), "%s failed at %s:%d: %s", #call, __FILE__,    \
                               __LINE__, cudaGetErrorString(err_));                   \
    } while (0)

#endif
