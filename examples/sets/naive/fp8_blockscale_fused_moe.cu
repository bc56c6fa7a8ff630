// Honest naive fp8_blockscale_fused_moe (DeepSeek-V3 style): fused_moe with
// e4m3 expert weights in 128x128 blocks (w1q [E, 2I, H], w1s [E, 2I/128, H/128],
// w2q [E, H, I], w2s [E, H/128, I/128]) and activations quantized to e4m3 per
// token and 128-column group before each GEMM:
//   xd  = dequant(quant128(x))                       (per token, groups of H)
//   [g; u] = xd (w1q[e] * w1s[e])^T,  a = silu(g) * u   (fp32)
//   ad  = dequant(quant128(a))                       (per pair, groups of I)
//   out[t] = sum_j topk_weights[t, j] * ad (w2q[e] * w2s[e])^T, bf16.
// quant128 is the reference's: s = max(absmax, 1e-10) / 448 (on CUDA ATen
// computes this tensor-by-scalar division as max(absmax, 1e-10) * (1.f / 448.f);
// true division differs in the last bit and moves e4m3 rounding ties),
// q = e4m3fn(clamp(v / s, -448, 448)), dequant = float(q) * s. Weights are
// dequantized element by element (float(q) * block scale) when staged in
// shared memory, exactly as the reference dequantizes them; all accumulation
// is fp32.
//
// Six kernels of our own, no ATen compute (at::empty only allocates):
//  1. moe_align (one block): pairs p = t * K + j sorted by expert into
//     64-row tiles (each expert's rows padded to a multiple of 64, padding -1),
//     and the expert of every tile (-1 past the last tile).
//  2. quant_dequant128 on x -> xd [T, H] fp32 (one warp per 128-group).
//  3. moe_gate_up: per (64-column tile of I, row tile) a 64x64 SIMT GEMM tile
//     that gathers xd[p / K] and multiplies with gate rows n and up rows I + n
//     of the dequantized w1[e]; epilogue act = silu(g) * u (fp32).
//  4. quant_dequant128 on the act rows in place (padding rows are left alone).
//  5. moe_down: act x dequant(w2[e])^T times the pair's routing weight -> y[p].
//  6. moe_combine: out[t] = sum_j y[t * K + j], rounded to bf16.
// H and I must be multiples of 128 (the operator's contract).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

constexpr int kBM = 64, kBN = 64, kBK = 32, kThreads = 256;
constexpr float kFp8Max = 448.f;

__device__ __forceinline__ float e4m3_to_float(__nv_fp8_storage_t v) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(v, __NV_E4M3)));
}

// ---- 1. routing: pairs sorted by expert, padded to whole tiles -------------
__global__ void moe_align_kernel(const int *topk_ids, int pairs, int experts, int max_tiles,
                                 int *sorted_pairs, int *tile_expert) {
  extern __shared__ int sh[]; // counts[E], offsets[E], fill[E]
  int *counts = sh, *offsets = sh + experts, *fill = sh + 2 * experts;
  for (int e = threadIdx.x; e < experts; e += blockDim.x) {
    counts[e] = 0;
    fill[e] = 0;
  }
  for (int i = threadIdx.x; i < max_tiles * kBM; i += blockDim.x)
    sorted_pairs[i] = -1;
  for (int i = threadIdx.x; i < max_tiles; i += blockDim.x)
    tile_expert[i] = -1;
  __syncthreads();
  for (int p = threadIdx.x; p < pairs; p += blockDim.x)
    atomicAdd(&counts[topk_ids[p]], 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    int tile = 0;
    for (int e = 0; e < experts; ++e) {
      offsets[e] = tile * kBM;
      int tiles = (counts[e] + kBM - 1) / kBM;
      for (int i = 0; i < tiles; ++i)
        tile_expert[tile + i] = e;
      tile += tiles;
    }
  }
  __syncthreads();
  for (int p = threadIdx.x; p < pairs; p += blockDim.x) {
    int e = topk_ids[p];
    sorted_pairs[offsets[e] + atomicAdd(&fill[e], 1)] = p;
  }
}

// ---- 2./4. dst = float(e4m3(clamp(src / s))) * s per 128-column group -----
// One warp per group; rows whose flag (row_pair) is negative are skipped.
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename Src>
__global__ void quant_dequant128_kernel(float *dst, const Src *src, int64_t rows, int cols,
                                        const int *row_pair) {
  const int lane = threadIdx.x % 32, groups = cols / 128;
  const int64_t g = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (g >= rows * groups)
    return;
  const int64_t row = g / groups;
  if (row_pair != nullptr && row_pair[row] < 0)
    return;
  const int64_t base = row * cols + (g % groups) * 128;
  float v[4], amax = 0.f;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    v[i] = to_float(src[base + lane + 32 * i]);
    amax = fmaxf(amax, fabsf(v[i]));
  }
  for (int off = 16; off > 0; off >>= 1)
    amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
  const float s = fmaxf(amax, 1e-10f) * (1.f / kFp8Max); // as ATen: times the reciprocal
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float q = fminf(fmaxf(v[i] / s, -kFp8Max), kFp8Max);
    dst[base + lane + 32 * i] = e4m3_to_float(__nv_cvt_float_to_fp8(q, __NV_SATFINITE, __NV_E4M3)) * s;
  }
}

__device__ __forceinline__ float silu(float g) { return g / (1.f + expf(-g)); }

// ---- 2. act[row] = silu(x[p/K] w1[e][n]^T) * (x[p/K] w1[e][I+n]^T) ----------
__global__ void __launch_bounds__(kThreads)
moe_gate_up_kernel(float *act, const float *xd, const __nv_fp8_storage_t *w1q, const float *w1s,
                   const int *sorted_pairs, const int *tile_expert, int h, int inter, int topk) {
  const int tile = blockIdx.y, e = tile_expert[tile];
  if (e < 0)
    return;
  __shared__ float as[kBK][kBM + 1];
  __shared__ float gs[kBK][kBN + 1];
  __shared__ float us[kBK][kBN + 1];
  __shared__ int tok[kBM];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int r0 = tile * kBM, n0 = blockIdx.x * kBN;
  if (tid < kBM) {
    int p = sorted_pairs[r0 + tid];
    tok[tid] = p < 0 ? -1 : p / topk;
  }
  __syncthreads();
  const __nv_fp8_storage_t *we = w1q + static_cast<size_t>(e) * 2 * inter * h;
  const int hb = h / 128; // scale columns
  const float *se = w1s + static_cast<size_t>(e) * (2 * inter / 128) * hb;
  float ag[4][4], au[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      ag[i][j] = au[i][j] = 0.f;
  for (int k0 = 0; k0 < h; k0 += kBK) {
#pragma unroll
    for (int r = 0; r < kBM * kBK / kThreads; ++r) {
      int idx = tid + r * kThreads;
      int row = idx / kBK, kk = idx % kBK, gk = k0 + kk;
      int t = tok[row], n = n0 + row;
      bool kin = gk < h;
      as[kk][row] = (t >= 0 && kin) ? xd[static_cast<size_t>(t) * h + gk] : 0.f;
      gs[kk][row] = (n < inter && kin) ? e4m3_to_float(we[static_cast<size_t>(n) * h + gk]) *
                                             se[static_cast<size_t>(n / 128) * hb + gk / 128]
                                       : 0.f;
      us[kk][row] = (n < inter && kin)
                        ? e4m3_to_float(we[static_cast<size_t>(inter + n) * h + gk]) *
                              se[static_cast<size_t>((inter + n) / 128) * hb + gk / 128]
                        : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float a[4], g[4], u[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = as[kk][ty + 16 * i];
        g[i] = gs[kk][tx + 16 * i];
        u[i] = us[kk][tx + 16 * i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          ag[i][j] = fmaf(a[i], g[j], ag[i][j]);
          au[i][j] = fmaf(a[i], u[j], au[i][j]);
        }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    int row = ty + 16 * i;
    if (tok[row] < 0)
      continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int c = n0 + tx + 16 * j;
      if (c < inter)
        act[static_cast<size_t>(r0 + row) * inter + c] = silu(ag[i][j]) * au[i][j];
    }
  }
}

// ---- 3. y[p] = topk_weight[p] * (act[row] w2[e]^T) -------------------------
__global__ void __launch_bounds__(kThreads)
moe_down_kernel(float *y, const float *act, const __nv_fp8_storage_t *w2q, const float *w2s,
                const float *topk_weights, const int *sorted_pairs, const int *tile_expert, int h,
                int inter) {
  const int tile = blockIdx.y, e = tile_expert[tile];
  if (e < 0)
    return;
  __shared__ float as[kBK][kBM + 1];
  __shared__ float ws[kBK][kBN + 1];
  __shared__ int pair[kBM];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int r0 = tile * kBM, n0 = blockIdx.x * kBN;
  if (tid < kBM)
    pair[tid] = sorted_pairs[r0 + tid];
  __syncthreads();
  const __nv_fp8_storage_t *we = w2q + static_cast<size_t>(e) * h * inter;
  const int ib = inter / 128; // scale columns
  const float *se = w2s + static_cast<size_t>(e) * (h / 128) * ib;
  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      acc[i][j] = 0.f;
  for (int k0 = 0; k0 < inter; k0 += kBK) {
#pragma unroll
    for (int r = 0; r < kBM * kBK / kThreads; ++r) {
      int idx = tid + r * kThreads;
      int row = idx / kBK, kk = idx % kBK, gk = k0 + kk;
      int n = n0 + row;
      bool kin = gk < inter;
      as[kk][row] = (pair[row] >= 0 && kin) ? act[static_cast<size_t>(r0 + row) * inter + gk] : 0.f;
      ws[kk][row] = (n < h && kin) ? e4m3_to_float(we[static_cast<size_t>(n) * inter + gk]) *
                                         se[static_cast<size_t>(n / 128) * ib + gk / 128]
                                   : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = as[kk][ty + 16 * i];
        b[i] = ws[kk][tx + 16 * i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    int p = pair[ty + 16 * i];
    if (p < 0)
      continue;
    float wt = topk_weights[p];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int c = n0 + tx + 16 * j;
      if (c < h)
        y[static_cast<size_t>(p) * h + c] = acc[i][j] * wt;
    }
  }
}

// ---- 4. out[t] = sum_j y[t * K + j] ----------------------------------------
__global__ void moe_combine_kernel(__nv_bfloat16 *out, const float *y, int64_t tokens, int h,
                                   int topk) {
  int64_t n = tokens * h;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t t = i / h, c = i % h;
    float s = 0.f;
    for (int j = 0; j < topk; ++j)
      s += y[(t * topk + j) * h + c];
    out[i] = __float2bfloat16(s);
  }
}

void fp8_blockscale_fused_moe(at::Tensor &out, const at::Tensor &x, const at::Tensor &w1q,
                              const at::Tensor &w1s, const at::Tensor &w2q, const at::Tensor &w2s,
                              const at::Tensor &topk_weights, const at::Tensor &topk_ids) {
  TORCH_CHECK(x.is_contiguous() && w1q.is_contiguous() && w1s.is_contiguous() &&
                  w2q.is_contiguous() && w2s.is_contiguous() && topk_weights.is_contiguous() &&
                  topk_ids.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  const int tokens = x.size(0), h = x.size(1), experts = w1q.size(0), inter = w1q.size(1) / 2;
  const int topk = topk_ids.size(1), pairs = tokens * topk;
  TORCH_CHECK(h % 128 == 0 && inter % 128 == 0, "H and I must be multiples of 128");
  if (tokens == 0)
    return;
  const int max_tiles = (pairs + kBM - 1) / kBM + experts;
  const int64_t max_rows = static_cast<int64_t>(max_tiles) * kBM;
  auto i32 = x.options().dtype(at::kInt);
  auto f32 = x.options().dtype(at::kFloat);
  at::Tensor sorted_pairs = at::empty({max_rows}, i32);
  at::Tensor tile_expert = at::empty({max_tiles}, i32);
  at::Tensor xd = at::empty({tokens, h}, f32);
  at::Tensor act = at::empty({max_rows, inter}, f32);
  at::Tensor y = at::empty({pairs, h}, f32);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();

  size_t align_smem = 3 * sizeof(int) * experts;
  if (align_smem > 48 * 1024)
    C10_CUDA_CHECK(cudaFuncSetAttribute(moe_align_kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(align_smem)));
  moe_align_kernel<<<1, 1024, align_smem, stream>>>(topk_ids.data_ptr<int>(), pairs, experts,
                                                   max_tiles, sorted_pairs.data_ptr<int>(),
                                                   tile_expert.data_ptr<int>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  const int warps = 8;
  int64_t groups = static_cast<int64_t>(tokens) * (h / 128);
  quant_dequant128_kernel<__nv_bfloat16><<<(groups + warps - 1) / warps, warps * 32, 0, stream>>>(
      xd.data_ptr<float>(), reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), tokens, h,
      nullptr);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  moe_gate_up_kernel<<<dim3((inter + kBN - 1) / kBN, max_tiles), kThreads, 0, stream>>>(
      act.data_ptr<float>(), xd.data_ptr<float>(),
      reinterpret_cast<const __nv_fp8_storage_t *>(w1q.data_ptr()), w1s.data_ptr<float>(),
      sorted_pairs.data_ptr<int>(), tile_expert.data_ptr<int>(), h, inter, topk);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  groups = max_rows * (inter / 128);
  quant_dequant128_kernel<float><<<(groups + warps - 1) / warps, warps * 32, 0, stream>>>(
      act.data_ptr<float>(), act.data_ptr<float>(), max_rows, inter, sorted_pairs.data_ptr<int>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  moe_down_kernel<<<dim3((h + kBN - 1) / kBN, max_tiles), kThreads, 0, stream>>>(
      y.data_ptr<float>(), act.data_ptr<float>(),
      reinterpret_cast<const __nv_fp8_storage_t *>(w2q.data_ptr()), w2s.data_ptr<float>(),
      topk_weights.data_ptr<float>(), sorted_pairs.data_ptr<int>(), tile_expert.data_ptr<int>(),
      h, inter);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  int64_t n = static_cast<int64_t>(tokens) * h;
  int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 65536));
  moe_combine_kernel<<<blocks, 256, 0, stream>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()), y.data_ptr<float>(), tokens, h, topk);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
