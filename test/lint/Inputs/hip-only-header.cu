// HIP known by a header only HIP has (<hip/hip_fp16.h>), with no
// hip_runtime.h spelled: parsed as HIP.
#include <hip/hip_fp16.h>
#include <hip/hip_runtime_api.h>
__global__ void k(__half *p) { p[0] = __float2half(1.0f); }
void run(__half *p) { hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, p); }
