// Honest naive merge_attn_states: one block per (token, head). The LSEs are
// [Hq, T] fp32; +inf (FlashAttention-2's empty key set) is read as -inf.
// m = max(p, s), wp = e^(p - m), ws = e^(s - m): the threads write
// output = (prefix_output * wp + suffix_output * ws) / (wp + ws) over the head
// dimension in fp32, rounded to bf16, thread 0 output_lse = log(wp + ws) + m.
// Both -inf: output = prefix_output, output_lse = -inf (vLLM's rule).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__global__ void merge_attn_states_kernel(__nv_bfloat16 *output, float *output_lse,
                                         const __nv_bfloat16 *prefix_output,
                                         const float *prefix_lse,
                                         const __nv_bfloat16 *suffix_output,
                                         const float *suffix_lse, int t, int hq, int d) {
  const int tok = blockIdx.x, h = blockIdx.y;
  const size_t base = (static_cast<size_t>(tok) * hq + h) * d;
  const size_t li = static_cast<size_t>(h) * t + tok;
  float p = prefix_lse[li], s = suffix_lse[li];
  if (isinf(p))
    p = -INFINITY;
  if (isinf(s))
    s = -INFINITY;
  float m = fmaxf(p, s);
  if (isinf(m)) { // both empty
    for (int i = threadIdx.x; i < d; i += blockDim.x)
      output[base + i] = prefix_output[base + i];
    if (threadIdx.x == 0)
      output_lse[li] = m;
    return;
  }
  float ep = expf(p - m), es = expf(s - m);
  float sum = ep + es;
  float wp = ep / sum, ws = es / sum;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = __bfloat162float(prefix_output[base + i]) * wp +
              __bfloat162float(suffix_output[base + i]) * ws;
    output[base + i] = __float2bfloat16(v);
  }
  if (threadIdx.x == 0)
    output_lse[li] = logf(sum) + m;
}

void merge_attn_states(at::Tensor &output, at::Tensor &output_lse, const at::Tensor &prefix_output,
                       const at::Tensor &prefix_lse, const at::Tensor &suffix_output,
                       const at::Tensor &suffix_lse) {
  TORCH_CHECK(prefix_output.is_contiguous() && suffix_output.is_contiguous() &&
                  output.is_contiguous() && prefix_lse.is_contiguous() &&
                  suffix_lse.is_contiguous() && output_lse.is_contiguous(),
              "contiguous tensors expected");
  int t = output.size(0), hq = output.size(1), d = output.size(2);
  if (t == 0 || hq == 0)
    return;
  merge_attn_states_kernel<<<dim3(t, hq), 128, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(output.data_ptr()), output_lse.data_ptr<float>(),
      reinterpret_cast<const __nv_bfloat16 *>(prefix_output.data_ptr()),
      prefix_lse.data_ptr<float>(),
      reinterpret_cast<const __nv_bfloat16 *>(suffix_output.data_ptr()),
      suffix_lse.data_ptr<float>(), t, hq, d);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
