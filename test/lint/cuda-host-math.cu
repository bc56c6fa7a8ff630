// Host code of a CUDA program calls the classification functions and
// min/max that nvcc's cuda_runtime.h declares for the host too (llm.c's
// validate_result, bitsandbytes' launch bounds); clang's CUDA headers
// declare them for device code only: atrex-lint's CUDA prelude adds them.
// Headers test nvcc's version macros (CUTLASS's driver wrappers) and
// `#if __CUDACC__` (NCCL), which needs the value nvcc gives it. The min/max
// overloads are nvcc's, mixed signed/unsigned ones included: FlashInfer's
// `dim3 block(min(hidden_dim, 1024))` with a uint32_t was ambiguous
// (regression: its csrc/norm.cu came out unknown).
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: atrex-lint --print-command %s | FileCheck %s --check-prefix=CMD
// CMD: -D__CUDACC_VER_MAJOR__={{[0-9]+}} -D__CUDACC_VER_MINOR__={{[0-9]+}} -include{{.*}}atrex_cuda_prelude.h
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
// nvcc's __CUDACC__ has a value (NCCL's device headers test `#if __CUDACC__`).
#if __CUDACC__
#else
#error "__CUDACC__ has no value"
#endif
#if !defined(__CUDACC_VER_MAJOR__) || __CUDACC_VER_MAJOR__ < 11
#error no nvcc version macros
#endif
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = fminf(x[i] * 2.0f, 1.0f);
}
int main() {
  const int n = 1000;
  float *d, h[n];
  cudaMalloc(&d, n * sizeof(float));
  int threads = min(n, 256);
  unsigned hidden = 4096;
  dim3 block(min(hidden, 1024));
  long rows = max(1L, 2L);
  unsigned long long big = min(1ULL << 40, 7LL);
  double mixed = min(1.0f, 2.0);
  scale<<<(n + threads - 1) / threads, threads>>>(d, n);
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (!isfinite(h[i]) || isnan(h[i]))
      ++bad;
  printf("%d %f %u %ld %llu %f\n", bad, max(1.0, 2.0), block.x, rows, big,
         mixed);
  return bad != 0;
}
// CHECK-NOT: error:
// CHECK: verdict: adopted (adopted: 1 own kernel launched from 'main', no delegation)
