// Honest naive rms_norm in HIP: one block per row, fp32 accumulation, shared-memory tree
// reduction; hip* API and types only (hip_bfloat16, hipLaunchKernelGGL, hipStream_t,
// hipGetLastError). On the H200 it runs through HIP's NVIDIA-platform headers (compiled by
// nvcc, docs/submission-contract.md). Expected dynamic verdict: adopted.
#include <hip/hip_runtime.h>
#include <hip/hip_bfloat16.h>
#include <torch/all.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void rms_norm_kernel(hip_bfloat16 *out, const hip_bfloat16 *x, const hip_bfloat16 *w,
                                int h, float eps) {
  HIP_DYNAMIC_SHARED(float, partial);
  const hip_bfloat16 *row = x + static_cast<size_t>(hipBlockIdx_x) * h;
  float sum = 0.f;
  for (int i = hipThreadIdx_x; i < h; i += hipBlockDim_x) {
    float v = static_cast<float>(row[i]);
    sum += v * v;
  }
  partial[hipThreadIdx_x] = sum;
  __syncthreads();
  for (int s = hipBlockDim_x / 2; s > 0; s >>= 1) {
    if (hipThreadIdx_x < s)
      partial[hipThreadIdx_x] += partial[hipThreadIdx_x + s];
    __syncthreads();
  }
  float inv = rsqrtf(partial[0] / h + eps);
  for (int i = hipThreadIdx_x; i < h; i += hipBlockDim_x)
    out[static_cast<size_t>(hipBlockIdx_x) * h + i] =
        hip_bfloat16(static_cast<float>(row[i]) * inv * static_cast<float>(w[i]));
}

void rms_norm(torch::Tensor &out, const torch::Tensor &x, const torch::Tensor &w, double eps) {
  TORCH_CHECK(x.is_contiguous() && out.is_contiguous(), "contiguous tensors expected");
  static_assert(sizeof(hip_bfloat16) == sizeof(at::BFloat16), "bf16 layout");
  int t = x.size(0), h = x.size(1);
  const int threads = 256;
  // The caller's stream (the gate times and synchronizes it); a hipStream_t on NVIDIA.
  hipStream_t stream = at::cuda::getCurrentCUDAStream();
  hipLaunchKernelGGL(rms_norm_kernel, dim3(t), dim3(threads), threads * sizeof(float), stream,
                     reinterpret_cast<hip_bfloat16 *>(out.data_ptr()),
                     reinterpret_cast<const hip_bfloat16 *>(x.data_ptr()),
                     reinterpret_cast<const hip_bfloat16 *>(w.data_ptr()), h,
                     static_cast<float>(eps));
  hipError_t err = hipGetLastError();
  TORCH_CHECK(err == hipSuccess, "rms_norm_kernel launch: ", hipGetErrorString(err));
}
