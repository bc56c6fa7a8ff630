// A launch of a library's own kernel (a __global__ template of a header
// library on a system path) is judged like a call: FlashInfer's
// act_and_mul_kernel<<<...>>> is delegation to FlashInfer, as a call of its
// host launcher is. A launched library kernel that no delegation rule names
// (veclib's, test/lint/library-errors.cu) stays unjudged, and the file's own
// kernel keeps it adopted there.
// RUN: not atrex-lint --no-snippets %s -- -isystem %S/Inputs/sysinc 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets --format=json %s -- -isystem %S/Inputs/sysinc | FileCheck %s --check-prefix=JSON
#include <cuda_runtime.h>
#include <fakefi/act.cuh>

__device__ float silu(const float &v) { return v / (1.0f + __expf(-v)); }

void silu_and_mul(float *out, const float *in, int tokens, int d, cudaStream_t s) {
  flashinfer::activation::act_and_mul_kernel<float, silu><<<tokens, d, 0, s>>>(out, in, d);
}
// CHECK: library-kernel-launch.cu:[[@LINE-2]]:3: warning: launch of 'flashinfer::activation::act_and_mul_kernel' delegates compute to FlashInfer [atrex-delegation-vendor]
// CHECK: verdict: fallback (fallback: FlashInfer (flashinfer::activation::act_and_mul_kernel)
// JSON: "library": "FlashInfer",
