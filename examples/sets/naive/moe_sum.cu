// Honest naive moe_sum: one thread per output element, the K expert outputs
// summed in fp32 and rounded once. Expected dynamic verdict: adopted.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__global__ void moe_sum_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *input, int64_t t, int k,
                               int h) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= t * h)
    return;
  int64_t tok = i / h, col = i % h;
  const __nv_bfloat16 *src = input + tok * k * h + col;
  float acc = 0.f;
  for (int j = 0; j < k; ++j)
    acc += __bfloat162float(src[static_cast<int64_t>(j) * h]);
  out[i] = __float2bfloat16(acc);
}

void moe_sum(at::Tensor &out, const at::Tensor &input) {
  TORCH_CHECK(input.is_contiguous() && out.is_contiguous(), "contiguous tensors expected");
  int64_t t = input.size(0);
  int k = input.size(1), h = input.size(2);
  int64_t n = t * h;
  if (n == 0)
    return;
  moe_sum_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(input.data_ptr()), t, k, h);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
