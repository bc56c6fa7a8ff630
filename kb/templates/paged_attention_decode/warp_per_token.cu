// atrex-template: warp_per_token
// atrex-summary: one block of WARPS warps per (query head, sequence); each warp takes TOK tokens per step (their K and V rows loaded together, TOK gathers in flight), the lanes split the head dimension in packs of VEC bf16, q.k reduced with shuffles, an online softmax per warp (running max, running sum, fp32 accumulator), the warps merged through shared memory; D <= 256
// atrex-order: 1
// atrex-param: WARPS 4 8
// atrex-param: VEC 1 2 4 8
// atrex-param: TOK 1 2 4
// atrex-default: WARPS=4 VEC=1 TOK=1
// atrex-require: WARPS * TOK <= 32
// atrex-focus: memory VEC TOK WARPS
// atrex-focus: compute WARPS TOK VEC
// atrex-direction: wider-loads VEC+
// atrex-direction: more-in-flight TOK+ VEC+
// atrex-direction: raise-occupancy WARPS-
// atrex-direction: fewer-barriers WARPS-
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cstdint>

#ifndef WARPS
#define WARPS 4
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef TOK
#define TOK 1
#endif

constexpr int kMaxD = 256;

template <int V> struct alignas(2 * V) Pack {
  __nv_bfloat16 v[V];
};

// Lane `lane` holds columns (p * 32 + lane) * V + j, p < P, j < V.
template <int V, int P>
__global__ void __launch_bounds__(WARPS * 32)
paged_attention_decode_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *query,
                              const __nv_bfloat16 *key_cache, const __nv_bfloat16 *value_cache,
                              const int *block_tables, const int *context_lens, int hq, int hk,
                              int d, int bs, int max_blocks, float scale) {
  __shared__ float m_w[WARPS], l_w[WARPS];
  __shared__ float acc_w[WARPS][kMaxD];
  const int h = blockIdx.x, b = blockIdx.y;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int kvh = h / (hq / hk);
  const int ctx = context_lens[b];
  const int *table = block_tables + static_cast<size_t>(b) * max_blocks;
  const __nv_bfloat16 *qp = query + (static_cast<size_t>(b) * hq + h) * d;

  float qv[P][V], acc[P][V];
#pragma unroll
  for (int p = 0; p < P; ++p)
#pragma unroll
    for (int j = 0; j < V; ++j) {
      int c = (p * 32 + lane) * V + j;
      qv[p][j] = c < d ? __bfloat162float(qp[c]) * scale : 0.f;
      acc[p][j] = 0.f;
    }
  float m = -INFINITY, l = 0.f;
  for (int t0 = warp * TOK; t0 < ctx; t0 += WARPS * TOK) {
    Pack<V> kv[TOK][P], vv[TOK][P];
    bool live[TOK];
#pragma unroll
    for (int u = 0; u < TOK; ++u) {
      int t = t0 + u;
      live[u] = t < ctx;
      size_t row = live[u] ? (static_cast<size_t>(table[t / bs]) * bs + t % bs) * hk + kvh : 0;
      const Pack<V> *kp = reinterpret_cast<const Pack<V> *>(key_cache + row * d);
      const Pack<V> *vp = reinterpret_cast<const Pack<V> *>(value_cache + row * d);
#pragma unroll
      for (int p = 0; p < P; ++p) {
        int pc = p * 32 + lane;
        bool in = live[u] && pc * V < d;
        if (in) {
          kv[u][p] = kp[pc];
          vv[u][p] = vp[pc];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < TOK; ++u) {
      if (!live[u])
        break;
      float dot = 0.f;
#pragma unroll
      for (int p = 0; p < P; ++p)
        if ((p * 32 + lane) * V < d)
#pragma unroll
          for (int j = 0; j < V; ++j)
            dot = fmaf(qv[p][j], __bfloat162float(kv[u][p].v[j]), dot);
#pragma unroll
      for (int off = 16; off > 0; off >>= 1)
        dot += __shfl_xor_sync(0xffffffffu, dot, off);
      float m_new = fmaxf(m, dot);
      float alpha = __expf(m - m_new); // 0 while m is still -inf
      float pr = __expf(dot - m_new);
      l = l * alpha + pr;
#pragma unroll
      for (int p = 0; p < P; ++p)
        if ((p * 32 + lane) * V < d)
#pragma unroll
          for (int j = 0; j < V; ++j)
            acc[p][j] = fmaf(pr, __bfloat162float(vv[u][p].v[j]), acc[p][j] * alpha);
      m = m_new;
    }
  }
  if (lane == 0) {
    m_w[warp] = m;
    l_w[warp] = l;
  }
#pragma unroll
  for (int p = 0; p < P; ++p)
#pragma unroll
    for (int j = 0; j < V; ++j) {
      int c = (p * 32 + lane) * V + j;
      if (c < d)
        acc_w[warp][c] = acc[p][j];
    }
  __syncthreads();
  float mx = -INFINITY;
  for (int w2 = 0; w2 < WARPS; ++w2)
    mx = fmaxf(mx, m_w[w2]);
  float denom = 0.f;
  for (int w2 = 0; w2 < WARPS; ++w2)
    denom += m_w[w2] == -INFINITY ? 0.f : l_w[w2] * __expf(m_w[w2] - mx);
  __nv_bfloat16 *op = out + (static_cast<size_t>(b) * hq + h) * d;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float num = 0.f;
    for (int w2 = 0; w2 < WARPS; ++w2)
      if (m_w[w2] != -INFINITY)
        num += acc_w[w2][c] * __expf(m_w[w2] - mx);
    op[c] = __float2bfloat16(denom > 0.f ? num / denom : 0.f);
  }
}

template <int V>
static void launch(at::Tensor &out, const at::Tensor &query, const at::Tensor &key_cache,
                   const at::Tensor &value_cache, const at::Tensor &block_tables,
                   const at::Tensor &context_lens, float scale) {
  int b = query.size(0), hq = query.size(1), d = query.size(2);
  int bs = key_cache.size(1), hk = key_cache.size(2);
  dim3 grid(hq, b);
  auto *o = reinterpret_cast<__nv_bfloat16 *>(out.data_ptr());
  auto *q = reinterpret_cast<const __nv_bfloat16 *>(query.data_ptr());
  auto *kc = reinterpret_cast<const __nv_bfloat16 *>(key_cache.data_ptr());
  auto *vc = reinterpret_cast<const __nv_bfloat16 *>(value_cache.data_ptr());
  const int *bt = block_tables.data_ptr<int>(), *cl = context_lens.data_ptr<int>();
  const int mb = static_cast<int>(block_tables.size(1));
  auto stream = at::cuda::getCurrentCUDAStream();
  // P passes of 32 lanes x V columns cover D.
  const int passes = (d + 32 * V - 1) / (32 * V);
  if (passes <= 1)
    paged_attention_decode_kernel<V, 1><<<grid, WARPS * 32, 0, stream>>>(o, q, kc, vc, bt, cl, hq,
                                                                         hk, d, bs, mb, scale);
  else if (passes <= 2)
    paged_attention_decode_kernel<V, 2><<<grid, WARPS * 32, 0, stream>>>(o, q, kc, vc, bt, cl, hq,
                                                                         hk, d, bs, mb, scale);
  else if (passes <= 4)
    paged_attention_decode_kernel<V, 4><<<grid, WARPS * 32, 0, stream>>>(o, q, kc, vc, bt, cl, hq,
                                                                         hk, d, bs, mb, scale);
  else
    paged_attention_decode_kernel<V, 8 / V><<<grid, WARPS * 32, 0, stream>>>(
        o, q, kc, vc, bt, cl, hq, hk, d, bs, mb, scale);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void paged_attention_decode(at::Tensor &out, const at::Tensor &query, const at::Tensor &key_cache,
                            const at::Tensor &value_cache, const at::Tensor &block_tables,
                            const at::Tensor &context_lens, double scale) {
  TORCH_CHECK(query.is_contiguous() && key_cache.is_contiguous() && value_cache.is_contiguous() &&
                  block_tables.is_contiguous() && context_lens.is_contiguous() &&
                  out.is_contiguous(),
              "contiguous tensors expected");
  const int b = query.size(0), hq = query.size(1), d = query.size(2), hk = key_cache.size(2);
  TORCH_CHECK(d <= kMaxD, "head size above ", kMaxD, " not supported");
  TORCH_CHECK(hq % hk == 0, "Hq must be a multiple of Hk");
  if (b == 0)
    return;
  auto al = [](const at::Tensor &t, int bytes) {
    return reinterpret_cast<uintptr_t>(t.data_ptr()) % bytes == 0;
  };
  const float s = static_cast<float>(scale);
  if (d % VEC == 0 && al(key_cache, 2 * VEC) && al(value_cache, 2 * VEC))
    launch<VEC>(out, query, key_cache, value_cache, block_tables, context_lens, s);
  else
    launch<1>(out, query, key_cache, value_cache, block_tables, context_lens, s);
}
