// atrex-template: wmma
// atrex-summary: tensor-core GEMM through WMMA (16x16x16 bf16 fragments, fp32 accumulate), out = x w^T: BM x BN tile per block of WM x WN warps, each warp (BM/WM) x (BN/WN); x and w tiles of BK columns staged in shared memory by 16-byte copies, double-buffered with cp.async when STAGES = 2 (K a multiple of 8 and 16-byte aligned rows; else synchronous element loads); out-of-range rows and columns are zero-filled; per-warp epilogue through shared memory with bounds checks
// atrex-order: 2
// atrex-param: BM 64 128 256
// atrex-param: BN 64 128
// atrex-param: BK 32
// atrex-param: WM 2 4
// atrex-param: WN 2
// atrex-param: STAGES 1 2
// atrex-default: BM=128 BN=128 BK=32 WM=2 WN=2 STAGES=1
// atrex-require: BM % (16 * WM) == 0
// atrex-require: BN % (16 * WN) == 0
// atrex-require: (BM / WM / 16) * (BN / WN / 16) <= 16
// atrex-require: STAGES * (BM + BN) * (BK + 8) * 2 <= 160000
// atrex-focus: compute STAGES BN BM WN WM BK
// atrex-focus: memory STAGES BK BM BN WM WN
// atrex-direction: tensor-cores
// atrex-direction: pipeline-stages STAGES+
// atrex-direction: larger-tiles BM+ BN+
// atrex-direction: fewer-bytes BM+ BN+
// atrex-direction: more-in-flight STAGES+
// atrex-direction: more-ctas BM- BN-
// atrex-direction: raise-occupancy STAGES- BM-
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cuda_pipeline_primitives.h>
#include <mma.h>
#include <cstdint>

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WM
#define WM 2
#endif
#ifndef WN
#define WN 2
#endif
#ifndef STAGES
#define STAGES 1
#endif

using namespace nvcuda;

constexpr int kThreads = 32 * WM * WN;
constexpr int kLd = BK + 8; // bf16 elements per shared-memory row (16-byte multiple)
constexpr int kFM = BM / WM / 16, kFN = BN / WN / 16;
constexpr int kStageElems = (BM + BN) * kLd;

// Stages one BK-wide slice of x rows [m0, m0+BM) and w rows [n0, n0+BN) into
// `as` / `bs`. VEC: 16-byte cp.async copies (zero-filled out of range).
template <bool VEC>
__device__ __forceinline__ void load_tile(__nv_bfloat16 *as, __nv_bfloat16 *bs,
                                          const __nv_bfloat16 *x, const __nv_bfloat16 *w, int m,
                                          int n, int k, int m0, int n0, int k0) {
  if constexpr (VEC) {
    constexpr int kChunks = BK / 8; // 16-byte chunks per row
    for (int idx = threadIdx.x; idx < (BM + BN) * kChunks; idx += kThreads) {
      int row = idx / kChunks, ch = idx % kChunks, gk = k0 + ch * 8;
      bool is_a = row < BM;
      int r = is_a ? row : row - BM;
      int gr = (is_a ? m0 : n0) + r, lim = is_a ? m : n;
      const __nv_bfloat16 *src = (is_a ? x : w);
      __nv_bfloat16 *dst = (is_a ? as : bs) + r * kLd + ch * 8;
      bool ok = gr < lim && gk < k; // k % 8 == 0: a chunk is all in or all out
      const __nv_bfloat16 *p = ok ? src + static_cast<size_t>(gr) * k + gk : src;
      __pipeline_memcpy_async(dst, p, 16, ok ? 0 : 16);
    }
  } else {
    for (int idx = threadIdx.x; idx < (BM + BN) * BK; idx += kThreads) {
      int row = idx / BK, kk = idx % BK, gk = k0 + kk;
      bool is_a = row < BM;
      int r = is_a ? row : row - BM;
      int gr = (is_a ? m0 : n0) + r, lim = is_a ? m : n;
      const __nv_bfloat16 *src = (is_a ? x : w);
      (is_a ? as : bs)[r * kLd + kk] = (gr < lim && gk < k)
                                           ? src[static_cast<size_t>(gr) * k + gk]
                                           : __float2bfloat16(0.f);
    }
  }
}

template <bool VEC>
__global__ void __launch_bounds__(kThreads)
gemm_bf16_wmma_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, const __nv_bfloat16 *w, int m,
                      int n, int k) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __nv_bfloat16 *smem = reinterpret_cast<__nv_bfloat16 *>(smem_raw);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / WN, wn = warp % WN;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  constexpr int kStages = VEC ? STAGES : 1;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFM][kFN];
#pragma unroll
  for (int i = 0; i < kFM; ++i)
#pragma unroll
    for (int j = 0; j < kFN; ++j)
      wmma::fill_fragment(acc[i][j], 0.f);

  const int tiles = (k + BK - 1) / BK;
  if (kStages == 2 && tiles > 0) {
    load_tile<VEC>(smem, smem + BM * kLd, x, w, m, n, k, m0, n0, 0);
    __pipeline_commit();
  }
  for (int t = 0; t < tiles; ++t) {
    __nv_bfloat16 *as = smem + (kStages == 2 ? (t % 2) * kStageElems : 0);
    __nv_bfloat16 *bs = as + BM * kLd;
    if (kStages == 2) {
      if (t + 1 < tiles) {
        __nv_bfloat16 *an = smem + ((t + 1) % 2) * kStageElems;
        load_tile<VEC>(an, an + BM * kLd, x, w, m, n, k, m0, n0, (t + 1) * BK);
      }
      __pipeline_commit();
      __pipeline_wait_prior(1);
    } else {
      load_tile<VEC>(as, bs, x, w, m, n, k, m0, n0, t * BK);
      if (VEC) {
        __pipeline_commit();
        __pipeline_wait_prior(0);
      }
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[kFM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b[kFN];
#pragma unroll
      for (int i = 0; i < kFM; ++i)
        wmma::load_matrix_sync(a[i], as + (wm * (BM / WM) + i * 16) * kLd + kk, kLd);
#pragma unroll
      for (int j = 0; j < kFN; ++j)
        wmma::load_matrix_sync(b[j], bs + (wn * (BN / WN) + j * 16) * kLd + kk, kLd);
#pragma unroll
      for (int i = 0; i < kFM; ++i)
#pragma unroll
        for (int j = 0; j < kFN; ++j)
          wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  // Epilogue: each warp stages one 16x16 fp32 fragment at a time in its own
  // slice of shared memory and writes it as bf16 within bounds.
  float *scratch = reinterpret_cast<float *>(smem_raw) + warp * 256;
#pragma unroll
  for (int i = 0; i < kFM; ++i)
#pragma unroll
    for (int j = 0; j < kFN; ++j) {
      wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      const int r0 = m0 + wm * (BM / WM) + i * 16, c0 = n0 + wn * (BN / WN) + j * 16;
      for (int e = lane; e < 256; e += 32) {
        int r = r0 + e / 16, c = c0 + e % 16;
        if (r < m && c < n)
          out[static_cast<size_t>(r) * n + c] = __float2bfloat16(scratch[e]);
      }
      __syncwarp();
    }
}

template <bool VEC> static void launch(__nv_bfloat16 *o, const __nv_bfloat16 *x,
                                       const __nv_bfloat16 *w, int m, int n, int k) {
  constexpr int kStages = VEC ? STAGES : 1;
  size_t smem = static_cast<size_t>(kStages) * kStageElems * sizeof(__nv_bfloat16);
  size_t epi = static_cast<size_t>(WM * WN) * 256 * sizeof(float);
  if (epi > smem)
    smem = epi;
  C10_CUDA_CHECK(cudaFuncSetAttribute(gemm_bf16_wmma_kernel<VEC>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(smem)));
  dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
  gemm_bf16_wmma_kernel<VEC><<<grid, kThreads, smem, at::cuda::getCurrentCUDAStream()>>>(
      o, x, w, m, n, k);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void gemm_bf16(at::Tensor &out, const at::Tensor &x, const at::Tensor &w) {
  TORCH_CHECK(x.is_contiguous() && w.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  const int m = x.size(0), k = x.size(1), n = w.size(0);
  if (m == 0 || n == 0)
    return;
  auto *o = reinterpret_cast<__nv_bfloat16 *>(out.data_ptr());
  auto *xp = reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr());
  auto *wp = reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr());
  const bool vec = k % 8 == 0 && reinterpret_cast<uintptr_t>(xp) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(wp) % 16 == 0;
  if (vec)
    launch<true>(o, xp, wp, m, n, k);
  else
    launch<false>(o, xp, wp, m, n, k);
}
