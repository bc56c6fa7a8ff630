// Output caching across calls through static containers or pointers.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <unordered_map>
__global__ void k(float *y, const float *x) { y[0] = x[0]; }
// CHECK: :[[@LINE+1]]:15: warning: global 'last_out' of type 'float *' keeps state between calls of the entry and can cache outputs [atrex-evasion-static-state]
static float *last_out = nullptr;
void entry(float *y, const float *x) {
  // CHECK: :[[@LINE+1]]:53: warning: static local 'cache' of type 'std::unordered_map<const float *, float *>' keeps state between calls of the entry and can cache outputs
  static std::unordered_map<const float *, float *> cache;
  if (cache.count(x)) {
    last_out = cache[x];
    return;
  }
  k<<<1, 1>>>(y, x);
  cache[x] = y;
}
// CHECK: verdict: suspicious
