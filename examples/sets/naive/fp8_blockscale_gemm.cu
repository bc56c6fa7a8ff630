// Honest naive fp8_blockscale_gemm: out = (xq * sx) (wq * sw)^T, bf16 out.
//   xq [M, K] e4m3fn, sx [M, K/128] fp32 (1x128 activation scales),
//   wq [N, K] e4m3fn, sw [N/128, K/128] fp32 (128x128 weight scales).
// Scales are applied exactly as the reference does: every operand element is
// dequantized in fp32 (float(q) * scale, one fp32 rounding) when it is staged
// in shared memory, then the products are accumulated in fp32. Same tiling as
// gemm_bf16.cu: 64x64 output tile per block of 256 threads, K in steps of 32
// (a step never straddles a 128-column scale group), 4x4 register micro-tile.
// K must be a multiple of 128 (the operator's contract); N need not be.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

constexpr int kBM = 64, kBN = 64, kBK = 32, kThreads = 256;

__device__ __forceinline__ float e4m3_to_float(__nv_fp8_storage_t v) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(v, __NV_E4M3)));
}

__global__ void __launch_bounds__(kThreads)
fp8_blockscale_gemm_kernel(__nv_bfloat16 *out, const __nv_fp8_storage_t *xq, const float *sx,
                           const __nv_fp8_storage_t *wq, const float *sw, int m, int n, int k) {
  __shared__ float xs[kBK][kBM + 1];
  __shared__ float ws[kBK][kBN + 1];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int kb = k / 128; // scale columns
  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      acc[i][j] = 0.f;
  for (int k0 = 0; k0 < k; k0 += kBK) {
    const int g = k0 / 128; // scale group of this K step
#pragma unroll
    for (int r = 0; r < kBM * kBK / kThreads; ++r) {
      int idx = tid + r * kThreads;
      int row = idx / kBK, kk = idx % kBK, gk = k0 + kk;
      int xr = m0 + row, wr = n0 + row;
      xs[kk][row] = xr < m ? e4m3_to_float(xq[static_cast<size_t>(xr) * k + gk]) *
                                 sx[static_cast<size_t>(xr) * kb + g]
                           : 0.f;
      ws[kk][row] = wr < n ? e4m3_to_float(wq[static_cast<size_t>(wr) * k + gk]) *
                                 sw[static_cast<size_t>(wr / 128) * kb + g]
                           : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = xs[kk][ty + 16 * i];
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
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int r = m0 + ty + 16 * i, c = n0 + tx + 16 * j;
      if (r < m && c < n)
        out[static_cast<size_t>(r) * n + c] = __float2bfloat16(acc[i][j]);
    }
}

void fp8_blockscale_gemm(at::Tensor &out, const at::Tensor &xq, const at::Tensor &sx,
                         const at::Tensor &wq, const at::Tensor &sw) {
  TORCH_CHECK(xq.is_contiguous() && sx.is_contiguous() && wq.is_contiguous() &&
                  sw.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  int m = xq.size(0), k = xq.size(1), n = wq.size(0);
  TORCH_CHECK(k % 128 == 0, "K must be a multiple of 128");
  if (m == 0 || n == 0)
    return;
  dim3 grid((n + kBN - 1) / kBN, (m + kBM - 1) / kBM);
  fp8_blockscale_gemm_kernel<<<grid, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_fp8_storage_t *>(xq.data_ptr()), sx.data_ptr<float>(),
      reinterpret_cast<const __nv_fp8_storage_t *>(wq.data_ptr()), sw.data_ptr<float>(), m, n, k);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
