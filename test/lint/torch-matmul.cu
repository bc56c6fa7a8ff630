// The correctness illusion: a torch extension that defines a kernel for show
// and returns at::matmul.
// REQUIRES: torch
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <torch/extension.h>
// CHECK: :[[@LINE+1]]:17: warning: kernel 'gemm_kernel' is defined but never launched from the entry [atrex-kernel-unlaunched]
__global__ void gemm_kernel(const float *a, const float *b, float *c, int n) {}
torch::Tensor gemm(torch::Tensor x, torch::Tensor w) {
  // CHECK: :[[@LINE+1]]:10: warning: call to 'at::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
  return at::matmul(x, w.t());
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("gemm", &gemm); }
// CHECK: verdict: fallback (fallback: PyTorch/ATen (at::matmul); no-kernel: none of the 1 kernel defined is launched from the entry)
