// rms_norm, bf16 in/out, fp32 accumulation: an honest torch-extension
// submission with a block reduction in CUB. Expected verdict: adopted.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cub/block/block_reduce.cuh>
#include <cuda_bf16.h>

template <int kThreads>
__global__ void rms_norm_kernel(const __nv_bfloat16 *__restrict__ x,
                                const __nv_bfloat16 *__restrict__ w,
                                __nv_bfloat16 *__restrict__ y, int hidden,
                                float eps) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ float inv_rms;
  const __nv_bfloat16 *row = x + static_cast<size_t>(blockIdx.x) * hidden;
  float ss = 0.f;
  for (int i = threadIdx.x; i < hidden; i += kThreads) {
    float v = __bfloat162float(row[i]);
    ss += v * v;
  }
  float total = BlockReduce(tmp).Sum(ss);
  if (threadIdx.x == 0)
    inv_rms = rsqrtf(total / hidden + eps);
  __syncthreads();
  __nv_bfloat16 *out = y + static_cast<size_t>(blockIdx.x) * hidden;
  for (int i = threadIdx.x; i < hidden; i += kThreads)
    out[i] = __float2bfloat16(__bfloat162float(row[i]) * inv_rms *
                              __bfloat162float(w[i]));
}

torch::Tensor rms_norm(torch::Tensor x, torch::Tensor weight, double eps) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kBFloat16,
              "x must be a CUDA bf16 tensor");
  TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  const int hidden = x.size(-1);
  const int tokens = x.numel() / hidden;
  auto y = torch::empty_like(x);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  rms_norm_kernel<256><<<tokens, 256, 0, stream>>>(
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(weight.data_ptr()),
      reinterpret_cast<__nv_bfloat16 *>(y.data_ptr()), hidden,
      static_cast<float>(eps));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("rms_norm", &rms_norm); }
