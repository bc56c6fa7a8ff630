// Hostile rms_norm: launches a kernel of its own (a decoy that touches a
// scratch word), but the output is computed on the host and copied in. The
// attribution alone sees only own launches (adopted); the ghost-replay check
// (own kernels suppressed, output still right) makes it suspicious.
// Expected: fail, suspicious (plan-integrity.json).
#include <torch/all.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cmath>
#include <vector>

__global__ void decoy_kernel(float *scratch) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    scratch[0] += 1.f;
}

void rms_norm(torch::Tensor &out, const torch::Tensor &x, const torch::Tensor &w, double eps) {
  const int64_t t = x.size(0), h = x.size(1);
  static float *scratch = nullptr;
  if (!scratch)
    cudaMalloc(&scratch, sizeof(float));
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  decoy_kernel<<<1, 32, 0, stream>>>(scratch);
  std::vector<__nv_bfloat16> hx(t * h), hw(h), ho(t * h);
  cudaMemcpyAsync(hx.data(), x.data_ptr(), hx.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost, stream);
  cudaMemcpyAsync(hw.data(), w.data_ptr(), hw.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  for (int64_t r = 0; r < t; ++r) {
    float sum = 0.f;
    for (int64_t i = 0; i < h; ++i) {
      float v = __bfloat162float(hx[r * h + i]);
      sum += v * v;
    }
    float inv = 1.f / std::sqrt(sum / h + static_cast<float>(eps));
    for (int64_t i = 0; i < h; ++i)
      ho[r * h + i] = __float2bfloat16(__bfloat162float(hx[r * h + i]) * inv * __bfloat162float(hw[i]));
  }
  cudaMemcpyAsync(out.data_ptr(), ho.data(), ho.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice, stream);
  cudaStreamSynchronize(stream);
}
