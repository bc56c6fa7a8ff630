// A cooperative launch with grid-wide synchronisation is an own kernel.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;
__global__ void two_phase(float *x, int n) {
  cg::grid_group g = cg::this_grid();
  int i = g.thread_rank();
  if (i < n)
    x[i] *= 2;
  g.sync();
  if (i < n)
    x[i] += 1;
}
void entry(float *x, int n) {
  void *args[] = {&x, &n};
  cudaLaunchCooperativeKernel((void *)two_phase, dim3(4), dim3(128), args, 0,
                              0);
}
