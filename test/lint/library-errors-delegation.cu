// Errors inside system headers only are a note (library-errors.cu), but the
// instantiation that failed took its calls with it: the names in the file's
// text still count, so a device-level library operator whose instantiation
// fails in the library stays delegation (regression: pytorch-labs/applied-ai
// kernels/cuda/cutlass_gemm/cutlass_kernel.cu came out no-kernel).
// RUN: not atrex-lint --no-snippets %s -- -isystem %S/Inputs/sysinc 2>&1 | FileCheck %s
#include <cuda_runtime.h>
#include <fakecutlass/gemm.h>

struct MyKernel {
  int tile;
};

void gemm(cudaStream_t s) {
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<MyKernel>;
  Gemm op;
  op(s);
}
// CHECK: note: {{[0-9]+}} compiler error(s) inside system headers {{.*}}[atrex-library-errors]
// CHECK: verdict: fallback (fallback: CUTLASS device-level operator (cutlass::gemm::device::GemmUniversalAdapter)
