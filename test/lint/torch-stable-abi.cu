// REQUIRES: torch
// torch's stable C++ ABI (torch/csrc/stable): extensions built with
// -DUSE_CUDA (as their setup.py does; atrex-lint defines it for CUDA) get the
// CUDA half of the C shim. Allocation, views and tensor accessors are glue;
// the ops that compute (matmul, sum, ...) are delegation to PyTorch.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s --check-prefixes=CHECK,MODE
// RUN: not atrex-lint --no-snippets --mode=submission %s -- -DUSE_MATMUL 2>&1 | FileCheck %s --check-prefix=MM
#include <cuda_runtime.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

__global__ void twice(const float *in, float *out, int64_t n) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

namespace {
torch::stable::Tensor twice_cuda(torch::stable::Tensor x) {
  torch::stable::Tensor out = torch::stable::empty_like(x);
  void *stream = nullptr;
  aoti_torch_get_current_cuda_stream(x.get_device_index(), &stream);
  int64_t n = x.numel();
  twice<<<(n + 255) / 256, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float *>(x.data_ptr()),
      static_cast<float *>(out.data_ptr()), n);
#ifdef USE_MATMUL
  // MM: :[[@LINE+1]]:9: warning: call to 'torch::stable::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
  out = torch::stable::matmul(out, x);
#endif
  return out;
}
} // namespace

// Registered, not externally visible: reached from the registration.
STABLE_TORCH_LIBRARY_IMPL(mylib, CUDA, m) {
  m.impl("twice", TORCH_BOX(&twice_cuda));
}
// MODE: note: analysed as a submission: a torch extension
// CHECK-NOT: error:
// CHECK-NOT: warning:
// CHECK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
// MM: verdict: fallback (fallback: PyTorch/ATen (torch::stable::matmul))
