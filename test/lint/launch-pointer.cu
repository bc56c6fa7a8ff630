// A kernel chosen through a function pointer is resolved from its
// initialiser: both candidates count as launched.
// RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK-DAG: kernel 'fast' at {{.*}}: launched
// CHECK-DAG: kernel 'slow' at {{.*}}: launched
// CHECK: verdict: adopted
__global__ void fast(float *x) { x[0] = 1; }
__global__ void slow(float *x) { x[0] = 2; }
void entry(float *x, bool big) {
  auto k = big ? fast : slow;
  k<<<1, 1>>>(x);
}
