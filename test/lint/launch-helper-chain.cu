// Launches through internal helper functions are followed.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
__global__ void k(float *x) { x[threadIdx.x] = 0; }
static void launch(float *x, cudaStream_t s) { k<<<1, 32, 0, s>>>(x); }
static void middle(float *x) { launch(x, 0); }
namespace detail {
void outer(float *x) { middle(x); }
} // namespace detail
void entry(float *x) { detail::outer(x); }
