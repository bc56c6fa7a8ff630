// Honest naive topk_softmax: one thread per token, softmax over E experts in
// fp32, selection of the K largest by repeated scans. Expected verdict: adopted.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void topk_softmax_kernel(float *weights, int *ids, const float *logits, int t, int e,
                                    int k, bool renormalize) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= t)
    return;
  const float *l = logits + static_cast<size_t>(row) * e;
  float mx = -INFINITY;
  for (int i = 0; i < e; ++i)
    mx = fmaxf(mx, l[i]);
  float denom = 0.f;
  for (int i = 0; i < e; ++i)
    denom += expf(l[i] - mx);
  float picked = 0.f, sum = 0.f;
  float prevVal = INFINITY;
  int prevIdx = -1;
  for (int j = 0; j < k; ++j) {
    // Largest value strictly after (prevVal, prevIdx) in (value desc, index asc) order.
    float best = -INFINITY;
    int bi = -1;
    for (int i = 0; i < e; ++i) {
      float v = l[i];
      bool after = v < prevVal || (v == prevVal && i > prevIdx);
      if (after && (bi < 0 || v > best)) {
        best = v;
        bi = i;
      }
    }
    prevVal = best;
    prevIdx = bi;
    picked = expf(best - mx) / denom;
    weights[row * k + j] = picked;
    ids[row * k + j] = bi;
    sum += picked;
  }
  if (renormalize)
    for (int j = 0; j < k; ++j)
      weights[row * k + j] /= sum;
}

void topk_softmax(at::Tensor &topk_weights, at::Tensor &topk_ids, const at::Tensor &gating_output,
                  bool renormalize) {
  int t = gating_output.size(0), e = gating_output.size(1), k = topk_weights.size(1);
  topk_softmax_kernel<<<(t + 127) / 128, 128, 0, at::cuda::getCurrentCUDAStream()>>>(
      topk_weights.data_ptr<float>(), topk_ids.data_ptr<int>(), gating_output.data_ptr<float>(), t,
      e, k, renormalize);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
