// Honest naive paged_attention_decode: one block (4 warps) per (query head,
// sequence). One query token per sequence, GQA (query head h reads KV head
// h / (Hq / Hk)). Token l of sequence b lives in cache block
// block_tables[b, l / BS], slot l % BS; the caches are [NB, BS, Hk, D] bf16.
// Sequence b attends to its first context_lens[b] tokens.
// Each warp takes every 4th token: the lanes split the head dimension
// (d = lane + 32 i), the score s = scale * (q . k) is reduced with shuffles,
// and the warp keeps an online softmax (running max m, running sum l, fp32
// accumulator of p * v). The four warps' states are merged at the end:
// out = sum_w e^(m_w - M) acc_w / sum_w e^(m_w - M) l_w, rounded to bf16.
// D <= 256.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

constexpr int kWarps = 4, kMaxD = 256, kMaxPerLane = kMaxD / 32;

__global__ void __launch_bounds__(kWarps * 32)
paged_attention_decode_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *query,
                              const __nv_bfloat16 *key_cache, const __nv_bfloat16 *value_cache,
                              const int *block_tables, const int *context_lens, int hq, int hk,
                              int d, int bs, int max_blocks, float scale) {
  __shared__ float m_w[kWarps], l_w[kWarps];
  __shared__ float acc_w[kWarps][kMaxD];
  const int h = blockIdx.x, b = blockIdx.y;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int kvh = h / (hq / hk);
  const int ctx = context_lens[b];
  const int *table = block_tables + static_cast<size_t>(b) * max_blocks;
  const __nv_bfloat16 *qp = query + (static_cast<size_t>(b) * hq + h) * d;

  float qv[kMaxPerLane], acc[kMaxPerLane];
#pragma unroll
  for (int i = 0; i < kMaxPerLane; ++i) {
    int c = lane + 32 * i;
    qv[i] = c < d ? __bfloat162float(qp[c]) : 0.f;
    acc[i] = 0.f;
  }
  float m = -INFINITY, l = 0.f;
  for (int t = warp; t < ctx; t += kWarps) {
    size_t row = (static_cast<size_t>(table[t / bs]) * bs + t % bs) * hk + kvh;
    const __nv_bfloat16 *kp = key_cache + row * d;
    const __nv_bfloat16 *vp = value_cache + row * d;
    float dot = 0.f;
#pragma unroll
    for (int i = 0; i < kMaxPerLane; ++i) {
      int c = lane + 32 * i;
      if (c < d)
        dot = fmaf(qv[i], __bfloat162float(kp[c]), dot);
    }
    for (int off = 16; off > 0; off >>= 1)
      dot += __shfl_xor_sync(0xffffffffu, dot, off);
    float s = dot * scale;
    float m_new = fmaxf(m, s);
    float alpha = expf(m - m_new); // 0 while m is still -inf
    float p = expf(s - m_new);
    l = l * alpha + p;
#pragma unroll
    for (int i = 0; i < kMaxPerLane; ++i) {
      int c = lane + 32 * i;
      if (c < d)
        acc[i] = fmaf(p, __bfloat162float(vp[c]), acc[i] * alpha);
    }
    m = m_new;
  }
  if (lane == 0) {
    m_w[warp] = m;
    l_w[warp] = l;
  }
#pragma unroll
  for (int i = 0; i < kMaxPerLane; ++i) {
    int c = lane + 32 * i;
    if (c < d)
      acc_w[warp][c] = acc[i];
  }
  __syncthreads();
  float mx = -INFINITY;
  for (int w = 0; w < kWarps; ++w)
    mx = fmaxf(mx, m_w[w]);
  float denom = 0.f, f[kWarps];
  for (int w = 0; w < kWarps; ++w) {
    f[w] = m_w[w] == -INFINITY ? 0.f : expf(m_w[w] - mx);
    denom += l_w[w] * f[w];
  }
  __nv_bfloat16 *op = out + (static_cast<size_t>(b) * hq + h) * d;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float num = 0.f;
    for (int w = 0; w < kWarps; ++w)
      num += acc_w[w][c] * f[w];
    op[c] = __float2bfloat16(denom > 0.f ? num / denom : 0.f);
  }
}

void paged_attention_decode(at::Tensor &out, const at::Tensor &query, const at::Tensor &key_cache,
                            const at::Tensor &value_cache, const at::Tensor &block_tables,
                            const at::Tensor &context_lens, double scale) {
  TORCH_CHECK(query.is_contiguous() && key_cache.is_contiguous() && value_cache.is_contiguous() &&
                  block_tables.is_contiguous() && context_lens.is_contiguous() &&
                  out.is_contiguous(),
              "contiguous tensors expected");
  int b = query.size(0), hq = query.size(1), d = query.size(2);
  int bs = key_cache.size(1), hk = key_cache.size(2);
  TORCH_CHECK(d <= kMaxD, "head size above ", kMaxD, " not supported");
  TORCH_CHECK(hq % hk == 0, "Hq must be a multiple of Hk");
  if (b == 0)
    return;
  dim3 grid(hq, b);
  paged_attention_decode_kernel<<<grid, kWarps * 32, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(query.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(key_cache.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(value_cache.data_ptr()),
      block_tables.data_ptr<int>(), context_lens.data_ptr<int>(), hq, hk, d, bs,
      static_cast<int>(block_tables.size(1)), static_cast<float>(scale));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
