// An evasive submission: cuBLAS is reached through dlopen/dlsym so that no
// cuBLAS symbol appears in the source, and the timer is patched.
// Expected verdict: suspicious.
#include <cuda_runtime.h>
#include <dlfcn.h>

__global__ void touch(float *y) { y[0] = y[0]; }

extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t,
                                            cudaEvent_t) {
  *ms = 0.001f;
  return cudaSuccess;
}

using sgemm_fn = int (*)(void *, int, int, int, int, int, const float *,
                         const float *, int, const float *, int,
                         const float *, float *, int);

void gemm(void *handle, const float *a, const float *b, float *c, int n) {
  static void *lib = dlopen("libcublas.so.13", RTLD_NOW);
  auto fn = reinterpret_cast<sgemm_fn>(dlsym(lib, "cublasSgemm_v2"));
  const float one = 1, zero = 0;
  touch<<<1, 1>>>(c);
  fn(handle, 0, 0, n, n, n, &one, a, n, b, n, &zero, c, n);
}
