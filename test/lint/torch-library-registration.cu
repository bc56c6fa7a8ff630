// REQUIRES: torch
// Operators registered with TORCH_LIBRARY_IMPL (or the stable ABI's
// STABLE_TORCH_LIBRARY_IMPL) are what the harness calls, even when they are
// not externally visible (an anonymous namespace): the registration object
// built at load time hands them to torch. A plain table of function pointers
// calls nothing by itself.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
#include <torch/library.h>
#include <ATen/ATen.h>

namespace {
__global__ void twice(float *x, int64_t n) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

at::Tensor twice_cuda(const at::Tensor &x) {
  at::Tensor y = at::empty_like(x);
  twice<<<(y.numel() + 255) / 256, 256>>>(y.data_ptr<float>(), y.numel());
  return y;
}

void gemm(cublasHandle_t h, const float *a, float *c, int n) {
  const float one = 1, zero = 0;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &zero,
              c, n);
}
} // namespace

// Never used: its cuBLAS helper is not reached.
static void (*const unused_table[])(cublasHandle_t, const float *, float *,
                                    int) = {&gemm};

TORCH_LIBRARY_IMPL(mylib, CUDA, m) { m.impl("twice", &twice_cuda); }

// CHECK-NOT: cublasSgemm
// CHECK-NOT: atrex-kernel-unlaunched
// CHECK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
