// Honest naive rms_norm: one block per row, fp32 accumulation, shared-memory
// tree reduction. Expected dynamic verdict: adopted.
#include <torch/all.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_bf16.h>

__global__ void rms_norm_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x,
                                const __nv_bfloat16 *w, int h, float eps) {
  extern __shared__ float partial[];
  const __nv_bfloat16 *row = x + static_cast<size_t>(blockIdx.x) * h;
  float sum = 0.f;
  for (int i = threadIdx.x; i < h; i += blockDim.x) {
    float v = __bfloat162float(row[i]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  float inv = rsqrtf(partial[0] / h + eps);
  for (int i = threadIdx.x; i < h; i += blockDim.x)
    out[static_cast<size_t>(blockIdx.x) * h + i] =
        __float2bfloat16(__bfloat162float(row[i]) * inv * __bfloat162float(w[i]));
}

void rms_norm(torch::Tensor &out, const torch::Tensor &x, const torch::Tensor &w, double eps) {
  TORCH_CHECK(x.is_contiguous() && out.is_contiguous(), "contiguous tensors expected");
  int t = x.size(0), h = x.size(1);
  const int threads = 256;
  rms_norm_kernel<<<t, threads, threads * sizeof(float), at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr()), h, static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
