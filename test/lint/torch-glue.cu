// An honest torch extension: output allocation, shape queries, device guard,
// current stream, TORCH_CHECK, views and the pybind11 binding are glue.
// REQUIRES: torch
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK-NOT: error:
// CHECK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
__global__ void rms_norm_kernel(const float *x, const float *w, float *y,
                                int hidden, float eps) {
  extern __shared__ float red[];
  const float *row = x + blockIdx.x * hidden;
  float s = 0;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x)
    s += row[i] * row[i];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o /= 2) {
    if (threadIdx.x < o)
      red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  float inv = rsqrtf(red[0] / hidden + eps);
  for (int i = threadIdx.x; i < hidden; i += blockDim.x)
    y[blockIdx.x * hidden + i] = row[i] * inv * w[i];
}
torch::Tensor rms_norm(torch::Tensor x, torch::Tensor w, double eps) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kFloat, "bad input");
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  auto x2 = x.reshape({-1, x.size(-1)}).contiguous();
  auto y = torch::empty_like(x2);
  const int tokens = x2.size(0), hidden = x2.size(1);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  rms_norm_kernel<<<tokens, 256, 256 * sizeof(float), stream>>>(
      x2.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), hidden,
      static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y.view(x.sizes());
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("rms_norm", &rms_norm); }
