#include <cutlass/gemm/device/gemm.h>
using Gemm = cutlass::gemm::device::Gemm<float, cutlass::layout::RowMajor,
                                         float, cutlass::layout::RowMajor,
                                         float, cutlass::layout::RowMajor>;
int main() {
  Gemm gemm;
  Gemm::Arguments args({128, 128, 128}, {nullptr, 128}, {nullptr, 128},
                       {nullptr, 128}, {nullptr, 128}, {1.0f, 0.0f});
  // CHECK: warning: call to 'cutlass::gemm::device::Gemm::operator()' delegates compute to CUTLASS device-level operator [atrex-delegation-vendor]
  gemm(args);
  return 0;
}
// CHECK: verdict: fallback
