// torch::zeros allocates an output and fills it with an ATen kernel: allowed
// glue in the default policy, named in a note; the strict policy counts it as
// delegation (allocate with empty and clear in an own kernel instead).
// REQUIRES: torch
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets --policy=strict %s 2>&1 | FileCheck %s --check-prefix=STRICT
#include <torch/extension.h>
__global__ void acc(const float *x, float *y, int n) {
  atomicAdd(y, x[threadIdx.x % n]);
}
torch::Tensor total(torch::Tensor x) {
  // CHECK: :[[@LINE+2]]:12: note: call to 'torch::zeros' is host glue (PyTorch allocation, fill, cast or device move) [atrex-glue-torch]
  // STRICT: :[[@LINE+1]]:12: warning: call to 'torch::zeros' is host glue
  auto y = torch::zeros({1}, x.options());
  acc<<<1, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
// CHECK: verdict: adopted
// STRICT: verdict: fallback (fallback: PyTorch allocation, fill, cast or device move (torch::zeros))
