// atrex-template: simt_tiled
// atrex-summary: shared-memory tiled SIMT GEMM without tensor cores, out = x w^T: BM x BN output tile per block of 256 threads (16 x 16), each thread a (BM/16) x (BN/16) register micro-tile, K in steps of BK staged as fp32; exact fp32 products, fp32 accumulation
// atrex-order: 1
// atrex-param: BM 64 128
// atrex-param: BN 64 128
// atrex-param: BK 8 16
// atrex-default: BM=64 BN=64 BK=16
// atrex-require: (BM * BK) % 256 == 0
// atrex-require: (BN * BK) % 256 == 0
// atrex-focus: compute BM BN BK
// atrex-focus: memory BK BM BN
// atrex-direction: fewer-bytes BM+ BN+
// atrex-direction: more-ctas BM- BN-
// atrex-direction: raise-occupancy BM- BN-
// atrex-direction: more-in-flight BK+
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 16
#endif

constexpr int kThreads = 256, kTM = BM / 16, kTN = BN / 16;

__global__ void __launch_bounds__(kThreads)
gemm_bf16_simt_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, const __nv_bfloat16 *w, int m,
                      int n, int k) {
  __shared__ float xs[BK][BM + 1];
  __shared__ float ws[BK][BN + 1];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j)
      acc[i][j] = 0.f;
  for (int k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
    for (int r = 0; r < BM * BK / kThreads; ++r) {
      int idx = tid + r * kThreads, row = idx / BK, kk = idx % BK, gk = k0 + kk, gr = m0 + row;
      xs[kk][row] = (gr < m && gk < k) ? __bfloat162float(x[static_cast<size_t>(gr) * k + gk]) : 0.f;
    }
#pragma unroll
    for (int r = 0; r < BN * BK / kThreads; ++r) {
      int idx = tid + r * kThreads, row = idx / BK, kk = idx % BK, gk = k0 + kk, gr = n0 + row;
      ws[kk][row] = (gr < n && gk < k) ? __bfloat162float(w[static_cast<size_t>(gr) * k + gk]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[kTM], b[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
        a[i] = xs[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < kTN; ++j)
        b[j] = ws[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      int r = m0 + ty + 16 * i, c = n0 + tx + 16 * j;
      if (r < m && c < n)
        out[static_cast<size_t>(r) * n + c] = __float2bfloat16(acc[i][j]);
    }
}

void gemm_bf16(at::Tensor &out, const at::Tensor &x, const at::Tensor &w) {
  TORCH_CHECK(x.is_contiguous() && w.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  const int m = x.size(0), k = x.size(1), n = w.size(0);
  if (m == 0 || n == 0)
    return;
  dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
  gemm_bf16_simt_kernel<<<grid, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr()), m, n, k);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
