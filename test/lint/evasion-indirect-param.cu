// A callback whose target comes from outside the submission cannot be
// resolved and is reported rather than passed.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
__global__ void k(float *x) { x[0] = 0; }
extern void (*registered_op)(float *);
void entry(float *a, void (*post)(float *)) {
  k<<<1, 1>>>(a);
  // CHECK: :[[@LINE+1]]:3: warning: call through a function pointer 'post' whose target cannot be resolved [atrex-evasion-indirect-call]
  post(a);
  // CHECK: :[[@LINE+1]]:3: warning: call through a function pointer 'registered_op' whose target cannot be resolved
  registered_op(a);
}
// CHECK: verdict: suspicious
