// A file that does not compile and names a device-level CUTLASS operator as
// a type (`using Gemm = cutlass::gemm::device::...<...>`, then
// `gemm_op.run()`): delegation, matched by name. A qualified name followed
// by '<' that no delegation rule names (`std::vector<`) is nothing.
#include "cutlass_not_installed_here/gemm.h"
#include <vector>
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
std::vector<int> sizes;
// A functor's template-id is not delegation.
void sort_keys() { auto cmp = thrust::less<thrust::tuple<int, int>>(); }
void run(void *args) {
  Gemm gemm_op;
  gemm_op.run(args);
}
// CHECK: :7:14: warning: use of 'cutlass::gemm::device::GemmUniversalAdapter' delegates compute to CUTLASS
// CHECK-NOT: std::vector
// CHECK-NOT: thrust::less
// CHECK: verdict: fallback
