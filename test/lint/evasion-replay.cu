// A call counter that switches to replaying a result kept from an earlier
// call: the first calls compute and store, the timed ones copy the stored
// tensor out. The copy out of kept state is the replay.
// REQUIRES: torch
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: atrex-lint --no-snippets %S/Inputs/replay-negative.cu 2>&1 | FileCheck %S/Inputs/replay-negative.cu
#include <torch/extension.h>
__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2 * x[i];
}
static int calls = 0;
static torch::Tensor kept;
void forward(torch::Tensor x, torch::Tensor out) {
  if (++calls > 3 && kept.defined()) {
    // CHECK: :[[@LINE+1]]:5: error: 'at::Tensor::copy_' copies out 'kept', state kept from an earlier call of the entry: a result replayed instead of computed [atrex-evasion-replay]
    out.copy_(kept);
    return;
  }
  k<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(),
                                      out.data_ptr<float>(), x.numel());
  kept = out.clone();
}
torch::Tensor forward2(torch::Tensor x) {
  static torch::Tensor last;
  if (last.defined())
    // CHECK: :[[@LINE+1]]:12: error: 'at::Tensor::clone' copies out 'last'
    return last.clone();
  auto out = torch::empty_like(x);
  k<<<1, 1>>>(x.data_ptr<float>(), out.data_ptr<float>(), 1);
  last = out;
  return out;
}
// CHECK: verdict: suspicious ({{.*}}suspicious: atrex-evasion-replay (kept)
