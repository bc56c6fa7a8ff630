// REQUIRES: torch
// `Tensor::data<T>()` (the deprecated spelling of data_ptr<T>(), which old
// extensions' compat macros still pick) is an accessor, not compute;
// torch::utils::flatten_dense_tensors concatenates in ATen: delegation.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets %s -- -DFLATTEN 2>&1 | FileCheck %s --check-prefix=FLAT
#include <torch/extension.h>
#include <torch/csrc/utils/tensor_flatten.h>

__global__ void scale(float *x, int64_t n) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    x[i] *= 0.5f;
}

torch::Tensor run(torch::Tensor x) {
  scale<<<(x.numel() + 255) / 256, 256>>>(x.data<float>(), x.numel());
  return x;
}

#ifdef FLATTEN
torch::Tensor flat(std::vector<torch::Tensor> ts) {
  // FLAT: :[[@LINE+1]]:10: warning: call to 'torch::utils::flatten_dense_tensors' delegates compute to PyTorch/ATen [atrex-delegation-torch]
  return torch::utils::flatten_dense_tensors(ts);
}
#endif
// CHECK-NOT: warning:
// CHECK: verdict: adopted
// FLAT: verdict: fallback (fallback: PyTorch/ATen (torch::utils::flatten_dense_tensors))
