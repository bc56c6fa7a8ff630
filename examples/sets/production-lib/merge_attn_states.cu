// Production baseline for merge_attn_states: FlashInfer's MergeState
// (flashinfer/attention/cascade.cuh, MergeStateKernel: the kernel behind
// flashinfer.cascade.merge_state, with which SGLang's FlashInfer backend
// merges its ragged (new tokens) and paged (prefix) extend results), launched
// by FlashInfer's own launcher (one CTA per token, threads (D / vec, Hq),
// vec = max(8, D / 32)), writing `output` [T, Hq, D] bf16 directly.
//
// FlashInfer's states are base-2 LSEs laid out [T, Hq] and it merges two empty
// states (-inf, -inf) to output 0; the card's LSEs are natural logs [Hq, T],
// +inf means empty (FlashAttention-2), and two empty sides give
// prefix_output with LSE -inf. Own conversions around it:
//   `to_log2` (a 32x32 tiled transpose of both LSEs to [T, Hq]): +inf read as
//   -inf, then x log2(e); where both sides are empty the prefix LSE becomes
//   0 (finite), so FlashInfer's weights are exactly 1 and 0 (1 / 1, 0 / 1)
//   and the output is prefix_output, as the card's;
//   `to_ln` (the merged [T, Hq] log2 LSE transposed back to [Hq, T]): x ln 2,
//   and -inf where both input LSEs were infinite.
// Their cost: 2 extra launches, 20 T Hq bytes read and 12 T Hq written
// (2.6 MB and 1.6 MB at T 8192, Hq 16) beside the merge's 6 T Hq D bytes
// (100 MB there). FlashInfer computes the weights with ex2.approx and the
// LSE with lg2.approx (errors about 2^-22), and the base change rounds 2 to 3
// times more (about 2e-7 relative): within the card's 1e-5 + 1e-6 |lse| per
// element and 1e-6 relative norm.
// D in {64, 128, 256, 512} (FlashInfer's dispatch), Hq D / vec <= 1024.
// Headers: scripts/fetch-production-libs.sh. Static and dynamic verdict:
// fallback (FlashInfer); baseline mode.
#include <ATen/cuda/CUDAContext.h>
#include <flashinfer/attention/cascade.cuh>
#include <torch/all.h>

#include <algorithm>

namespace {
using DType = __nv_bfloat16;
constexpr int kTile = 32, kRows = 8;
constexpr float kLog2e = 1.4426950408889634f, kLn2 = 0.6931471805599453f;

// prefix_lse, suffix_lse [Hq, T] natural -> pa, sb [T, Hq] base 2.
__global__ void to_log2(const float *__restrict__ prefix_lse, const float *__restrict__ suffix_lse,
                        float *__restrict__ pa, float *__restrict__ sb, int64_t tokens,
                        int64_t heads) {
  __shared__ float tp[kTile][kTile + 1], ts[kTile][kTile + 1];
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int64_t h0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const float inf = __int_as_float(0x7f800000);
  for (int k = threadIdx.y; k < kTile; k += kRows) {
    const int64_t h = h0 + k, t = t0 + threadIdx.x;
    if (h < heads && t < tokens) {
      float p = prefix_lse[h * tokens + t], s = suffix_lse[h * tokens + t];
      p = p == inf ? -inf : p;
      s = s == inf ? -inf : s;
      if (p == -inf && s == -inf)
        p = 0.f; // both empty: weights 1 and 0, output = prefix_output
      tp[k][threadIdx.x] = p * kLog2e;
      ts[k][threadIdx.x] = s * kLog2e;
    }
  }
  __syncthreads();
  for (int k = threadIdx.y; k < kTile; k += kRows) {
    const int64_t t = t0 + k, h = h0 + threadIdx.x;
    if (h < heads && t < tokens) {
      pa[t * heads + h] = tp[threadIdx.x][k];
      sb[t * heads + h] = ts[threadIdx.x][k];
    }
  }
}

// merged [T, Hq] base 2 -> output_lse [Hq, T] natural; -inf where both input
// LSEs were infinite (both sides empty).
__global__ void to_ln(const float *__restrict__ merged, const float *__restrict__ prefix_lse,
                      const float *__restrict__ suffix_lse, float *__restrict__ output_lse,
                      int64_t tokens, int64_t heads) {
  __shared__ float tm[kTile][kTile + 1];
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int64_t h0 = static_cast<int64_t>(blockIdx.y) * kTile;
  for (int k = threadIdx.y; k < kTile; k += kRows) {
    const int64_t t = t0 + k, h = h0 + threadIdx.x;
    if (h < heads && t < tokens)
      tm[threadIdx.x][k] = merged[t * heads + h];
  }
  __syncthreads();
  for (int k = threadIdx.y; k < kTile; k += kRows) {
    const int64_t h = h0 + k, t = t0 + threadIdx.x;
    if (h < heads && t < tokens) {
      const int64_t i = h * tokens + t;
      const bool empty = isinf(prefix_lse[i]) && isinf(suffix_lse[i]);
      output_lse[i] = empty ? -__int_as_float(0x7f800000) : tm[k][threadIdx.x] * kLn2;
    }
  }
}
} // namespace

void merge_attn_states(torch::Tensor &output, torch::Tensor &output_lse,
                       const torch::Tensor &prefix_output, const torch::Tensor &prefix_lse,
                       const torch::Tensor &suffix_output, const torch::Tensor &suffix_lse) {
  TORCH_CHECK(output.scalar_type() == at::kBFloat16 &&
                  prefix_output.scalar_type() == at::kBFloat16 &&
                  suffix_output.scalar_type() == at::kBFloat16,
              "bf16 outputs expected");
  TORCH_CHECK(output_lse.scalar_type() == at::kFloat && prefix_lse.scalar_type() == at::kFloat &&
                  suffix_lse.scalar_type() == at::kFloat,
              "fp32 LSEs expected");
  TORCH_CHECK(output.is_contiguous() && output_lse.is_contiguous() &&
                  prefix_output.is_contiguous() && prefix_lse.is_contiguous() &&
                  suffix_output.is_contiguous() && suffix_lse.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(prefix_output.dim() == 3, "outputs [T, Hq, D] expected");
  const int64_t tokens = prefix_output.size(0), heads = prefix_output.size(1),
                d = prefix_output.size(2);
  TORCH_CHECK(prefix_lse.numel() == heads * tokens && suffix_lse.numel() == heads * tokens &&
                  output_lse.numel() == heads * tokens,
              "LSEs [Hq, T] expected");
  TORCH_CHECK(d == 64 || d == 128 || d == 256 || d == 512,
              "FlashInfer's MergeState dispatches D = 64, 128, 256, 512 (D = ", d, ")");
  TORCH_CHECK(d / std::max<int64_t>(8, d / 32) * heads <= 1024,
              "FlashInfer's MergeState launches D / vec x Hq threads: at most 1024");
  if (tokens == 0 || heads == 0)
    return;

  torch::Tensor lse2 = torch::empty({3, tokens, heads}, prefix_lse.options());
  float *pa = lse2.data_ptr<float>(), *sb = pa + tokens * heads, *merged = sb + tokens * heads;
  const float *p = prefix_lse.data_ptr<float>(), *s = suffix_lse.data_ptr<float>();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const dim3 grid(static_cast<unsigned>((tokens + kTile - 1) / kTile),
                  static_cast<unsigned>((heads + kTile - 1) / kTile));
  const dim3 block(kTile, kRows);

  to_log2<<<grid, block, 0, stream>>>(p, s, pa, sb, tokens, heads);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  cudaError_t st = flashinfer::MergeState<DType, DType>(
      reinterpret_cast<DType *>(prefix_output.data_ptr()), pa,
      reinterpret_cast<DType *>(suffix_output.data_ptr()), sb,
      reinterpret_cast<DType *>(output.data_ptr()), merged, static_cast<uint32_t>(tokens),
      static_cast<uint32_t>(heads), static_cast<uint32_t>(d), stream);
  TORCH_CHECK(st == cudaSuccess, "flashinfer MergeState: ", cudaGetErrorString(st));
  to_ln<<<grid, block, 0, stream>>>(merged, p, s, output_lse.data_ptr<float>(), tokens, heads);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
