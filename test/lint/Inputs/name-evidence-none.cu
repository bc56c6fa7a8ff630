// An own kernel and a header nobody has: nothing to go on, 'unknown'.
#include "project_header_not_here.h"
__global__ void k(float *x) { x[0] = 0; }
int main() {
  k<<<1, 1>>>(nullptr);
  return 0;
}
// CHECK-NOT: matched by name
// CHECK: verdict: unknown
