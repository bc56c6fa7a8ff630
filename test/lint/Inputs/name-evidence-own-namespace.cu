// A file that does not compile, in a namespace a vendor rule names
// (ROCm/aiter's own kernels live in `namespace aiter`; the default policy
// delegates `aiter::*`): the namespace it opens is its own code, not the
// library's. A call into another library's namespace still counts.
#include "aiter_config_not_here.h"
namespace aiter {
__device__ float Max(float a, float b) { return a > b ? a : b; }
__global__ void k(float *x) { x[0] = aiter::Max(x[0], 0.f); }
void run(float *x) {
  k<<<1, 1>>>(x);
  aiter::helpers::launch_cfg(x);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'flashinfer::norm::RMSNorm' delegates compute to FlashInfer (matched by name
  flashinfer::norm::RMSNorm(x, x, x, 1, 1);
}
} // namespace aiter
// CHECK-NOT: aiter::
// CHECK: verdict: fallback (fallback: FlashInfer (flashinfer::norm::RMSNorm); unknown:
