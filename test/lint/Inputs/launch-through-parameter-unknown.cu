// The launcher comes from a variable nobody can resolve: still reported.
#include <cuda_runtime.h>
__global__ void scale(float *x) { x[0] = 1; }
void run(void (*launch)(float *), float *x) {
  // CHECK: :[[@LINE+1]]:3: warning: call through a function pointer 'launch' whose target cannot be resolved [atrex-evasion-indirect-call]
  launch(x);
}
extern void (*registered)(float *);
void entry(float *x) {
  scale<<<1, 1>>>(x);
  run(registered, x);
}
// CHECK: verdict: suspicious
