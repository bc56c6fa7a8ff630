// Honest naive mla_decode: DeepSeek MLA decode over a paged latent cache.
// One block (4 warps) per (query head, sequence); every head reads the one
// latent KV head. Token l of sequence b lives in page block_tables[b, l / BS],
// slot l % BS; a cache row is [c (L values) | k_pe (R values)], bf16.
// Sequence b attends to its first context_lens[b] tokens.
// Each warp takes every 4th token: the lanes split the L + R values of the row
// (d = lane + 32 i), the score s = scale * ([q_nope | q_pe] . row) is reduced
// with shuffles, and the warp keeps an online softmax (running max m, running
// sum l, fp32 accumulator of p * c over the L latent values). The four warps'
// states are merged at the end: out = sum_w e^(m_w - M) acc_w / sum_w
// e^(m_w - M) l_w, rounded to bf16. L + R <= 1024.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

constexpr int kWarps = 4, kMaxD = 1024, kMaxPerLane = kMaxD / 32;

__global__ void __launch_bounds__(kWarps * 32)
mla_decode_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *q_nope, const __nv_bfloat16 *q_pe,
                  const __nv_bfloat16 *kv_cache, const int *block_tables,
                  const int *context_lens, int h_count, int lat, int rope, int bs,
                  int max_blocks, float scale) {
  __shared__ float m_w[kWarps], l_w[kWarps];
  __shared__ float acc_w[kWarps][kMaxD];
  const int h = blockIdx.x, b = blockIdx.y;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row_len = lat + rope;
  const int ctx = context_lens[b];
  const int *table = block_tables + static_cast<size_t>(b) * max_blocks;
  const __nv_bfloat16 *qn = q_nope + (static_cast<size_t>(b) * h_count + h) * lat;
  const __nv_bfloat16 *qp = q_pe + (static_cast<size_t>(b) * h_count + h) * rope;

  float qv[kMaxPerLane], acc[kMaxPerLane];
#pragma unroll
  for (int i = 0; i < kMaxPerLane; ++i) {
    int d = lane + 32 * i;
    qv[i] = d < lat ? __bfloat162float(qn[d]) : (d < row_len ? __bfloat162float(qp[d - lat]) : 0.f);
    acc[i] = 0.f;
  }
  float m = -INFINITY, l = 0.f;
  for (int t = warp; t < ctx; t += kWarps) {
    size_t row = static_cast<size_t>(table[t / bs]) * bs + t % bs;
    const __nv_bfloat16 *kv = kv_cache + row * row_len;
    float dot = 0.f;
#pragma unroll
    for (int i = 0; i < kMaxPerLane; ++i) {
      int d = lane + 32 * i;
      if (d < row_len)
        dot = fmaf(qv[i], __bfloat162float(kv[d]), dot);
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
      int d = lane + 32 * i;
      if (d < lat)
        acc[i] = fmaf(p, __bfloat162float(kv[d]), acc[i] * alpha);
    }
    m = m_new;
  }
  if (lane == 0) {
    m_w[warp] = m;
    l_w[warp] = l;
  }
#pragma unroll
  for (int i = 0; i < kMaxPerLane; ++i) {
    int d = lane + 32 * i;
    if (d < lat)
      acc_w[warp][d] = acc[i];
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
  __nv_bfloat16 *op = out + (static_cast<size_t>(b) * h_count + h) * lat;
  for (int d = threadIdx.x; d < lat; d += blockDim.x) {
    float num = 0.f;
    for (int w = 0; w < kWarps; ++w)
      num += acc_w[w][d] * f[w];
    op[d] = __float2bfloat16(denom > 0.f ? num / denom : 0.f);
  }
}

void mla_decode(at::Tensor &out, const at::Tensor &q_nope, const at::Tensor &q_pe,
                const at::Tensor &kv_cache, const at::Tensor &block_tables,
                const at::Tensor &context_lens, double scale) {
  TORCH_CHECK(q_nope.is_contiguous() && q_pe.is_contiguous() && kv_cache.is_contiguous() &&
                  block_tables.is_contiguous() && context_lens.is_contiguous() &&
                  out.is_contiguous(),
              "contiguous tensors expected");
  int b = q_nope.size(0), h = q_nope.size(1), lat = q_nope.size(2), rope = q_pe.size(2);
  int bs = kv_cache.size(1);
  TORCH_CHECK(kv_cache.size(2) == lat + rope, "kv_cache rows must hold L + R values");
  TORCH_CHECK(lat + rope <= kMaxD, "L + R above ", kMaxD, " not supported");
  if (b == 0 || h == 0)
    return;
  dim3 grid(h, b);
  mla_decode_kernel<<<grid, kWarps * 32, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(q_nope.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(q_pe.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(kv_cache.data_ptr()), block_tables.data_ptr<int>(),
      context_lens.data_ptr<int>(), h, lat, rope, bs, static_cast<int>(block_tables.size(1)),
      static_cast<float>(scale));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
