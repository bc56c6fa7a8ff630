// Honest naive gemm_bf16: 32x32 shared-memory tiles, fp32 accumulation,
// out = x w^T. Expected dynamic verdict: adopted.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

constexpr int kTile = 32;

__global__ void gemm_bf16_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x,
                                 const __nv_bfloat16 *w, int m, int n, int k) {
  __shared__ float xs[kTile][kTile + 1];
  __shared__ float ws[kTile][kTile + 1];
  int row = blockIdx.y * kTile + threadIdx.y; // of out / x
  int col = blockIdx.x * kTile + threadIdx.x; // of out / row of w
  float acc = 0.f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    int kx = k0 + threadIdx.x;
    xs[threadIdx.y][threadIdx.x] = (row < m && kx < k) ? __bfloat162float(x[(size_t)row * k + kx]) : 0.f;
    int wr = blockIdx.x * kTile + threadIdx.y;
    ws[threadIdx.y][threadIdx.x] = (wr < n && kx < k) ? __bfloat162float(w[(size_t)wr * k + kx]) : 0.f;
    __syncthreads();
    for (int i = 0; i < kTile; ++i)
      acc += xs[threadIdx.y][i] * ws[threadIdx.x][i];
    __syncthreads();
  }
  if (row < m && col < n)
    out[(size_t)row * n + col] = __float2bfloat16(acc);
}

void gemm_bf16(at::Tensor &out, const at::Tensor &x, const at::Tensor &w) {
  int m = x.size(0), k = x.size(1), n = w.size(0);
  dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  gemm_bf16_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr()), m, n, k);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
