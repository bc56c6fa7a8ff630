// Honest naive fp8_per_tensor_gemm: out = (a b^T) * scale_a[0] * scale_b[0], bf16 out.
//   a [M, K] e4m3fn, b [N, K] e4m3fn, scale_a, scale_b one-element fp32 tensors
//   (read on the device, no host synchronization).
// Same tiling as gemm_bf16.cu: 64x64 output tile per block of 256 threads, K in
// steps of 32 staged in shared memory as fp32 (float(e4m3) is exact), 4x4
// register micro-tile per thread, fp32 FMA (no tensor cores). The epilogue
// scales the fp32 sum by scale_a, then by scale_b (the reference's order) and
// rounds once to bf16. Any M, N, K.
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
fp8_per_tensor_gemm_kernel(__nv_bfloat16 *out, const __nv_fp8_storage_t *a,
                           const __nv_fp8_storage_t *b, const float *scale_a,
                           const float *scale_b, int m, int n, int k) {
  __shared__ float as[kBK][kBM + 1]; // k-major: as[kk][row]
  __shared__ float bs[kBK][kBN + 1];
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
      int ar = m0 + row, br = n0 + row;
      as[kk][row] = (ar < m && gk < k) ? e4m3_to_float(a[static_cast<size_t>(ar) * k + gk]) : 0.f;
      bs[kk][row] = (br < n && gk < k) ? e4m3_to_float(b[static_cast<size_t>(br) * k + gk]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float x[4], y[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        x[i] = as[kk][ty + 16 * i];
        y[i] = bs[kk][tx + 16 * i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          acc[i][j] = fmaf(x[i], y[j], acc[i][j]);
    }
    __syncthreads();
  }
  const float sa = scale_a[0], sb = scale_b[0];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int r = m0 + ty + 16 * i, c = n0 + tx + 16 * j;
      if (r < m && c < n)
        out[static_cast<size_t>(r) * n + c] = __float2bfloat16((acc[i][j] * sa) * sb);
    }
}

void fp8_per_tensor_gemm(at::Tensor &out, const at::Tensor &a, const at::Tensor &b,
                         const at::Tensor &scale_a, const at::Tensor &scale_b) {
  TORCH_CHECK(a.is_contiguous() && b.is_contiguous() && out.is_contiguous(),
              "contiguous tensors expected");
  TORCH_CHECK(scale_a.numel() == 1 && scale_b.numel() == 1, "per-tensor scales expected");
  int m = a.size(0), k = a.size(1), n = b.size(0);
  if (m == 0 || n == 0)
    return;
  dim3 grid((n + kBN - 1) / kBN, (m + kBM - 1) / kBM);
  fp8_per_tensor_gemm_kernel<<<grid, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_fp8_storage_t *>(a.data_ptr()),
      reinterpret_cast<const __nv_fp8_storage_t *>(b.data_ptr()), scale_a.data_ptr<float>(),
      scale_b.data_ptr<float>(), m, n, k);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
