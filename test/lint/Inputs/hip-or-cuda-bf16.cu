// Written for both: HIP's header under USE_ROCM, CUDA's otherwise. Parsed as
// CUDA (a header only CUDA has is spelled), not as HIP.
#ifndef USE_ROCM
#include <cuda_bf16.h>
#else
#include <hip/hip_bf16.h>
#endif
__global__ void k(float *p) { p[0] = 1.0f; }
void run(float *p) { k<<<1, 1>>>(p); }
