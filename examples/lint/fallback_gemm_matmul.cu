// gemm_bf16 that "passes" by calling ATen: the kernel is decoration.
// Expected verdict: fallback.
#include <torch/extension.h>

__global__ void gemm_kernel(const float *a, const float *b, float *c, int m,
                            int n, int k) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m && col < n) {
    float acc = 0;
    for (int i = 0; i < k; ++i)
      acc += a[row * k + i] * b[col * k + i];
    c[row * n + col] = acc;
  }
}

torch::Tensor gemm_bf16(torch::Tensor x, torch::Tensor w) {
  // "Optimised path" for large shapes.
  if (x.size(0) >= 16)
    return torch::matmul(x, w.t());
  auto y = torch::empty({x.size(0), w.size(0)}, x.options());
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("gemm_bf16", &gemm_bf16); }
