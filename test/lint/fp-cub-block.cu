// Block- and warp-level CUB inside an own kernel is the DSL, not delegation.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
template <int kThreads>
__global__ void row_sum(const float *x, float *y, int n) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  using WarpReduce = cub::WarpReduce<float>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ typename WarpReduce::TempStorage wtmp;
  float v = 0;
  for (int i = threadIdx.x; i < n; i += kThreads)
    v += x[blockIdx.x * n + i];
  float s = BlockReduce(tmp).Sum(v);
  float w = WarpReduce(wtmp).Sum(v);
  if (threadIdx.x == 0)
    y[blockIdx.x] = s + 0 * w;
}
void entry(const float *x, float *y, int rows, int n) {
  row_sum<256><<<rows, 256>>>(x, y, n);
}
