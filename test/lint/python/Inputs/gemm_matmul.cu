#include <torch/extension.h>
__global__ void bias_kernel(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.f;
}
torch::Tensor gemm(torch::Tensor a, torch::Tensor b) {
  // the GEMM itself is ATen's
  auto y =
      at::matmul(a, b);
  bias_kernel<<<(y.numel() + 255) / 256, 256>>>(y.data_ptr<float>(), y.numel());
  return y;
}
