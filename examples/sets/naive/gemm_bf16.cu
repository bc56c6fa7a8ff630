// Honest naive gemm_bf16: out = x w^T, x [M, K], w [N, K], bf16 in/out.
// Shared-memory tiled SIMT GEMM with fp32 accumulation (no tensor cores):
// 64x64 output tile per block of 256 threads, K in steps of 32, each thread
// accumulates a 4x4 register micro-tile (rows ty + 16 i, columns tx + 16 j).
// Operands are converted to fp32 when staged in shared memory, so every
// product is exact in fp32 and the only differences to the reference are the
// order of the fp32 additions and the final bf16 rounding.
// (The gate example examples/gate/gemm_bf16_naive.cu is the simpler 32x32
// one-output-per-thread version of the same kernel.)
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

constexpr int kBM = 64, kBN = 64, kBK = 32, kThreads = 256;

__global__ void __launch_bounds__(kThreads)
gemm_bf16_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, const __nv_bfloat16 *w, int m,
                 int n, int k) {
  __shared__ float xs[kBK][kBM + 1]; // k-major: xs[kk][row]
  __shared__ float ws[kBK][kBN + 1];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      acc[i][j] = 0.f;
  for (int k0 = 0; k0 < k; k0 += kBK) {
#pragma unroll
    for (int r = 0; r < kBM * kBK / kThreads; ++r) {
      int idx = tid + r * kThreads;
      int row = idx / kBK, kk = idx % kBK, gk = k0 + kk;
      int xr = m0 + row, wr = n0 + row;
      xs[kk][row] = (xr < m && gk < k) ? __bfloat162float(x[static_cast<size_t>(xr) * k + gk]) : 0.f;
      ws[kk][row] = (wr < n && gk < k) ? __bfloat162float(w[static_cast<size_t>(wr) * k + gk]) : 0.f;
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

void gemm_bf16(at::Tensor &out, const at::Tensor &x, const at::Tensor &w) {
  TORCH_CHECK(x.is_contiguous() && w.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  int m = x.size(0), k = x.size(1), n = w.size(0);
  if (m == 0 || n == 0)
    return;
  dim3 grid((n + kBN - 1) / kBN, (m + kBM - 1) / kBM);
  gemm_bf16_kernel<<<grid, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr()), m, n, k);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
