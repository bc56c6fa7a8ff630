// Honest naive w4a16_gemm: out = x w^T with int4 weights, bf16 in/out.
//   x [M, K] bf16, w_packed [N, K/8] int32 (8 unsigned 4-bit values per word,
//   q[n, 8j + s] = (w_packed[n, j] >> 4s) & 15), scales [N, K/128] bf16,
//   w[n, k] = (q[n, k] - 8) * scales[n, k / 128].
// Same tiling as gemm_bf16.cu: 64x64 output tile per block of 256 threads, K in
// steps of 32 staged in shared memory as fp32, 4x4 register micro-tile per
// thread, fp32 FMA (no tensor cores). Each weight is unpacked (logical shift of
// the word as unsigned) and dequantized in fp32 when it is staged: an integer
// in [-8, 7] times a bf16 scale is exact in fp32, as the reference computes it.
// K must be a multiple of 128 and group_size 128 (the operator's contract).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

constexpr int kBM = 64, kBN = 64, kBK = 32, kThreads = 256, kGroup = 128;

__global__ void __launch_bounds__(kThreads)
w4a16_gemm_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, const uint32_t *w_packed,
                  const __nv_bfloat16 *scales, int m, int n, int k) {
  __shared__ float xs[kBK][kBM + 1]; // k-major: xs[kk][row]
  __shared__ float ws[kBK][kBN + 1];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int words = k / 8, groups = k / kGroup;
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
      xs[kk][row] = xr < m ? __bfloat162float(x[static_cast<size_t>(xr) * k + gk]) : 0.f;
      float wv = 0.f;
      if (wr < n) {
        uint32_t word = w_packed[static_cast<size_t>(wr) * words + gk / 8];
        int q = static_cast<int>((word >> (4 * (gk % 8))) & 15u) - 8;
        wv = static_cast<float>(q) *
             __bfloat162float(scales[static_cast<size_t>(wr) * groups + gk / kGroup]);
      }
      ws[kk][row] = wv;
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

void w4a16_gemm(at::Tensor &out, const at::Tensor &x, const at::Tensor &w_packed,
                const at::Tensor &scales, int64_t group_size) {
  TORCH_CHECK(x.is_contiguous() && w_packed.is_contiguous() && scales.is_contiguous() &&
                  out.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(group_size == kGroup, "group_size must be ", kGroup);
  int m = x.size(0), k = x.size(1), n = w_packed.size(0);
  TORCH_CHECK(k % kGroup == 0, "K must be a multiple of ", kGroup);
  if (m == 0 || n == 0)
    return;
  dim3 grid((n + kBN - 1) / kBN, (m + kBM - 1) / kBM);
  w4a16_gemm_kernel<<<grid, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const uint32_t *>(w_packed.data_ptr<int>()),
      reinterpret_cast<const __nv_bfloat16 *>(scales.data_ptr()), m, n, k);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
