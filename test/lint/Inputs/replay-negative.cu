// Copies between the call's own tensors, and a static scalar flag, are no
// replay (the flag alone is a note).
#include <torch/extension.h>
__global__ void k(const float *x, float *y) { y[0] = x[0]; }
static bool warned = false;
void forward(torch::Tensor x, torch::Tensor out) {
  auto tmp = torch::empty_like(x);
  k<<<1, 1>>>(x.data_ptr<float>(), tmp.data_ptr<float>());
  if (!warned)
    warned = true;
  cudaMemcpyAsync(out.data_ptr<float>(), tmp.data_ptr<float>(),
                  x.numel() * sizeof(float), cudaMemcpyDeviceToDevice);
}
// CHECK-NOT: atrex-evasion-replay
// CHECK: verdict: adopted
