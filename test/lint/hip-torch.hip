// A ROCm torch extension: torch's headers include <thrust/complex.h> under
// __HIPCC__; atrex-lint parses them against its own stand-in when rocThrust
// is not installed.
// REQUIRES: torch, hip
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
#include <torch/extension.h>
#include <hip/hip_runtime.h>
__global__ void add_kernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
torch::Tensor add(torch::Tensor a, torch::Tensor b) {
  auto c = torch::empty_like(a);
  int n = a.numel();
  hipLaunchKernelGGL(add_kernel, dim3((n + 255) / 256), dim3(256), 0, 0,
                     a.data_ptr<float>(), b.data_ptr<float>(),
                     c.data_ptr<float>(), n);
  return c;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("add", &add); }
