// Honest naive grouped_topk (DeepSeek-V3 routing): one thread per token, fp32.
// s_e = 1 / (1 + exp(-x_e)), v_e = s_e + bias_e (recomputed where needed, the
// same expression each time, so comparisons are consistent). Each group of
// E / G experts is scored by the sum of its two largest v; the TG best groups
// (score descending, lower group first on ties) are kept by repeated scans;
// then K repeated scans over the experts of the kept groups pick the largest v
// in (v descending, index ascending) order. Weights are the chosen s (no bias),
// divided by their sum when renormalize, times routed_scaling_factor.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int kMaxGroups = 64;

__device__ __forceinline__ float score(const float *x, int e) {
  return 1.f / (1.f + expf(-x[e]));
}

__global__ void grouped_topk_kernel(float *weights, int *ids, const float *logits,
                                    const float *bias, int t, int e, int groups, int kept,
                                    int k, bool renormalize, float scale) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= t)
    return;
  const float *x = logits + static_cast<int64_t>(row) * e;
  int per_group = e / groups;
  float group_score[kMaxGroups];
  for (int g = 0; g < groups; ++g) {
    float first = -INFINITY, second = -INFINITY;
    for (int j = g * per_group; j < (g + 1) * per_group; ++j) {
      float v = score(x, j) + bias[j];
      if (v > first) {
        second = first;
        first = v;
      } else if (v > second) {
        second = v;
      }
    }
    group_score[g] = first + second;
  }
  unsigned long long keep = 0;
  for (int j = 0; j < kept; ++j) {
    int best = -1;
    for (int g = 0; g < groups; ++g)
      if (!((keep >> g) & 1ull) && (best < 0 || group_score[g] > group_score[best]))
        best = g;
    keep |= 1ull << best;
  }
  float prev_val = INFINITY, sum = 0.f;
  int prev_idx = -1;
  float *w = weights + static_cast<int64_t>(row) * k;
  int *id = ids + static_cast<int64_t>(row) * k;
  for (int j = 0; j < k; ++j) {
    // Largest v strictly after (prev_val, prev_idx) in (v desc, index asc) order.
    float best = -INFINITY;
    int bi = -1;
    for (int i = 0; i < e; ++i) {
      if (!((keep >> (i / per_group)) & 1ull))
        continue;
      float v = score(x, i) + bias[i];
      bool after = v < prev_val || (v == prev_val && i > prev_idx);
      if (after && (bi < 0 || v > best)) {
        best = v;
        bi = i;
      }
    }
    prev_val = best;
    prev_idx = bi;
    float s = score(x, bi);
    w[j] = s;
    id[j] = bi;
    sum += s;
  }
  for (int j = 0; j < k; ++j)
    w[j] = (renormalize ? w[j] / sum : w[j]) * scale;
}

void grouped_topk(at::Tensor &topk_weights, at::Tensor &topk_ids, const at::Tensor &gating_output,
                  int64_t num_expert_group, int64_t topk_group, bool renormalize,
                  double routed_scaling_factor, const at::Tensor &e_score_correction_bias) {
  TORCH_CHECK(gating_output.is_contiguous() && e_score_correction_bias.is_contiguous() &&
                  topk_weights.is_contiguous() && topk_ids.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(gating_output.scalar_type() == at::kFloat &&
                  e_score_correction_bias.scalar_type() == at::kFloat,
              "fp32 gating_output and bias expected");
  int t = gating_output.size(0), e = gating_output.size(1), k = topk_weights.size(1);
  TORCH_CHECK(num_expert_group > 0 && num_expert_group <= kMaxGroups &&
                  e % num_expert_group == 0 && e / num_expert_group >= 2,
              "E must split into at most 64 groups of at least 2 experts");
  TORCH_CHECK(topk_group > 0 && topk_group <= num_expert_group &&
                  k <= topk_group * (e / num_expert_group),
              "topk_group and K out of range");
  if (t == 0)
    return;
  grouped_topk_kernel<<<(t + 127) / 128, 128, 0, at::cuda::getCurrentCUDAStream()>>>(
      topk_weights.data_ptr<float>(), topk_ids.data_ptr<int>(), gating_output.data_ptr<float>(),
      e_score_correction_bias.data_ptr<float>(), t, e, static_cast<int>(num_expert_group),
      static_cast<int>(topk_group), k, renormalize, static_cast<float>(routed_scaling_factor));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
