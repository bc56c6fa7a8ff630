// Cooperative groups (tiles, reductions) inside an own kernel.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void sum(const float *x, float *y) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<32> t = cg::tiled_partition<32>(b);
  float v = cg::reduce(t, x[b.thread_rank()], cg::plus<float>());
  if (t.thread_rank() == 0)
    atomicAdd(y, v);
}
void entry(const float *x, float *y) { sum<<<1, 128>>>(x, y); }
