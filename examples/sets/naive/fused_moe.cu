// Honest naive fused_moe: out[t] = sum_j topk_weights[t, j] * w2[e] (silu(g) * u),
// [g; u] = w1[e] x[t], e = topk_ids[t, j]; x [T, H], w1 [E, 2I, H], w2 [E, H, I]
// bf16, topk_weights [T, K] fp32, topk_ids [T, K] int32, out [T, H] bf16.
// Like the reference, everything between the bf16 inputs and the bf16 output
// is fp32 (the gate/up result, the activation and the expert outputs).
//
// Four kernels of our own, no ATen compute (torch::empty only allocates):
//  1. moe_align (one block): counts the (token, slot) pairs p = t * K + j per
//     expert, lays the experts out one after another in 64-row tiles (each
//     expert's rows padded to a multiple of 64; padding rows hold -1) and
//     records which expert every tile belongs to (-1 past the last tile).
//  2. moe_gate_up: per (64-column tile of I, row tile) a 64x64 SIMT GEMM tile
//     that gathers x[p / K] for its rows and multiplies with both the gate rows
//     n and the up rows I + n of w1[e]; epilogue act = silu(g) * u (fp32).
//  3. moe_down: per (64-column tile of H, row tile) act x w2[e]^T, scaled by
//     the pair's routing weight, written to y[p] (fp32, one row per pair).
//  4. moe_combine: out[t] = sum_j y[t * K + j] (fp32), rounded to bf16.
// The GEMM tiles follow gemm_bf16.cu: K in steps of 32 staged in shared memory
// as fp32, 256 threads, each with 4x4 (gate/up: 2 x 4x4) register accumulators.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

constexpr int kBM = 64, kBN = 64, kBK = 32, kThreads = 256;

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

__device__ __forceinline__ float silu(float g) { return g / (1.f + expf(-g)); }

// ---- 2. act[row] = silu(x[p/K] w1[e][n]^T) * (x[p/K] w1[e][I+n]^T) ----------
__global__ void __launch_bounds__(kThreads)
moe_gate_up_kernel(float *act, const __nv_bfloat16 *x, const __nv_bfloat16 *w1,
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
  const __nv_bfloat16 *we = w1 + static_cast<size_t>(e) * 2 * inter * h;
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
      as[kk][row] = (t >= 0 && kin) ? __bfloat162float(x[static_cast<size_t>(t) * h + gk]) : 0.f;
      gs[kk][row] = (n < inter && kin) ? __bfloat162float(we[static_cast<size_t>(n) * h + gk]) : 0.f;
      us[kk][row] =
          (n < inter && kin) ? __bfloat162float(we[static_cast<size_t>(inter + n) * h + gk]) : 0.f;
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
moe_down_kernel(float *y, const float *act, const __nv_bfloat16 *w2, const float *topk_weights,
                const int *sorted_pairs, const int *tile_expert, int h, int inter) {
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
  const __nv_bfloat16 *we = w2 + static_cast<size_t>(e) * h * inter;
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
      ws[kk][row] = (n < h && kin) ? __bfloat162float(we[static_cast<size_t>(n) * inter + gk]) : 0.f;
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

void fused_moe(at::Tensor &out, const at::Tensor &x, const at::Tensor &w1, const at::Tensor &w2,
               const at::Tensor &topk_weights, const at::Tensor &topk_ids) {
  TORCH_CHECK(x.is_contiguous() && w1.is_contiguous() && w2.is_contiguous() &&
                  topk_weights.is_contiguous() && topk_ids.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  const int tokens = x.size(0), h = x.size(1), experts = w1.size(0), inter = w1.size(1) / 2;
  const int topk = topk_ids.size(1), pairs = tokens * topk;
  if (tokens == 0)
    return;
  const int max_tiles = (pairs + kBM - 1) / kBM + experts;
  auto i32 = x.options().dtype(at::kInt);
  auto f32 = x.options().dtype(at::kFloat);
  at::Tensor sorted_pairs = at::empty({static_cast<int64_t>(max_tiles) * kBM}, i32);
  at::Tensor tile_expert = at::empty({max_tiles}, i32);
  at::Tensor act = at::empty({static_cast<int64_t>(max_tiles) * kBM, inter}, f32);
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
  moe_gate_up_kernel<<<dim3((inter + kBN - 1) / kBN, max_tiles), kThreads, 0, stream>>>(
      act.data_ptr<float>(), reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w1.data_ptr()), sorted_pairs.data_ptr<int>(),
      tile_expert.data_ptr<int>(), h, inter, topk);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  moe_down_kernel<<<dim3((h + kBN - 1) / kBN, max_tiles), kThreads, 0, stream>>>(
      y.data_ptr<float>(), act.data_ptr<float>(),
      reinterpret_cast<const __nv_bfloat16 *>(w2.data_ptr()), topk_weights.data_ptr<float>(),
      sorted_pairs.data_ptr<int>(), tile_expert.data_ptr<int>(), h, inter);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  int64_t n = static_cast<int64_t>(tokens) * h;
  int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 65536));
  moe_combine_kernel<<<blocks, 256, 0, stream>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()), y.data_ptr<float>(), tokens, h, topk);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
