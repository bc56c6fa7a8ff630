// Compute next to glue is still delegation: the line between the two.
#include <torch/extension.h>
__global__ void k(float *y) { y[0] = 1; }
torch::Tensor forward(torch::Tensor x) {
  auto out = torch::zeros_like(x);
  k<<<1, 1>>>(out.data_ptr<float>());
  // CHECK: :[[@LINE+1]]:10: warning: call to 'at::Tensor::add' delegates compute to PyTorch/ATen [atrex-delegation-torch]
  return out.add(x.to(torch::kFloat).softmax(-1));
}
// CHECK: verdict: fallback
