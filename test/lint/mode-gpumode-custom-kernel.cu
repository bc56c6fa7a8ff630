// GPU MODE's C++ submissions define `custom_kernel`, the function its
// harness calls: a submission, even without torch or a Python binding. A
// kernel defined but never launched from it launches nothing.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: atrex-lint --no-snippets %s -- -DLAUNCH 2>&1 | FileCheck %s --check-prefix=LAUNCH
#include <cuda_runtime.h>
#include <vector>

__global__ void copy_kernel(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

std::vector<float> custom_kernel(std::vector<float> data) {
#ifdef LAUNCH
  float *d = nullptr;
  cudaMalloc(&d, 2 * data.size() * sizeof(float));
  cudaMemcpy(d, data.data(), data.size() * sizeof(float),
             cudaMemcpyHostToDevice);
  copy_kernel<<<1, 256>>>(d, d + data.size(), int(data.size()));
  cudaMemcpy(data.data(), d + data.size(), data.size() * sizeof(float),
             cudaMemcpyDeviceToHost);
  cudaFree(d);
#endif
  return data;
}
// CHECK: note: analysed as a submission: it defines 'custom_kernel', the entry GPU MODE's harness calls
// CHECK: verdict: no-kernel
// LAUNCH: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
