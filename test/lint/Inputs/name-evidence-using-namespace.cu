// A file that does not compile, with `using namespace` of namespaces a rule
// names. Through the directive an unqualified name is the library's only if
// a rule names it beyond the namespace (`cub::Device*`): a rule on a whole
// namespace (`flashinfer::*`) does not claim the file's macros, locals,
// keywords, runtime calls or the functions it defines (FlashInfer's csrc/
// calls its own norm::RMSNorm through `using namespace flashinfer;`).
#include "flashinfer_headers_not_here.h"
#include <cub/cub_not_here.cuh>
#define MY_CHECK(x) (void)(x)
using namespace flashinfer;
using namespace cub;
static int helper(int n) { return n + 1; }
void run(float *x, int n, void *tmp, size_t bytes) {
  MY_CHECK(n);
  CHECK_INPUT(x);
  auto launch = [&](int m) { return m; };
  launch(helper(n));
  ffi::CUDADeviceGuard device_guard(0);
  cudaError_t status = norm::RMSNorm(x, x, x, 1, 1);
  if (status != cudaSuccess)
    printf("%s", cudaGetErrorString(status));
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cub::DeviceReduce::Sum' delegates compute to CUB device-wide algorithm (matched by name
  DeviceReduce::Sum(tmp, bytes, x, x, n);
}
// CHECK-NOT: flashinfer::
// CHECK: verdict: fallback (fallback: CUB device-wide algorithm (cub::DeviceReduce::Sum); unknown:
