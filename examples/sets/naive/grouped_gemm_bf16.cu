// Honest naive grouped_gemm_bf16: out[t] = x[t] w[e]^T for the rows t in
// [offs[e-1], offs[e]) of expert e (rows sorted by expert, offs cumulative
// row ends, offs[E-1] = T), bf16 in/out, fp32 accumulation.
// One 64x64 output tile per block of 256 threads, as gemm_bf16.cu (K in steps
// of 32 staged in shared memory as fp32, 4x4 register micro-tile per thread,
// fp32 FMA, no tensor cores), but a tile never straddles two experts: the grid
// has ceil(T/64) + E row tiles (an upper bound on sum_e ceil(rows_e / 64)),
// and each block finds its expert and tile by walking offs on the device (no
// host synchronization); blocks past the last tile exit, experts without rows
// get no tile and their weights are not read. Any T, N, K, E.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

constexpr int kBM = 64, kBN = 64, kBK = 32, kThreads = 256;

__global__ void __launch_bounds__(kThreads)
grouped_gemm_bf16_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, const __nv_bfloat16 *w,
                         const int *offs, int num_experts, int n, int k) {
  __shared__ float xs[kBK][kBM + 1]; // k-major: xs[kk][row]
  __shared__ float ws[kBK][kBN + 1];
  // This block's expert and row tile.
  int tile = blockIdx.y, lo = 0, e = 0;
  for (; e < num_experts; ++e) {
    int hi = offs[e];
    int tiles = (hi - lo + kBM - 1) / kBM;
    if (tile < tiles)
      break;
    tile -= tiles;
    lo = hi;
  }
  if (e == num_experts)
    return;
  const int m0 = lo + tile * kBM, m_end = offs[e];
  const __nv_bfloat16 *we = w + static_cast<size_t>(e) * n * k;
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int n0 = blockIdx.x * kBN;
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
      xs[kk][row] =
          (xr < m_end && gk < k) ? __bfloat162float(x[static_cast<size_t>(xr) * k + gk]) : 0.f;
      ws[kk][row] =
          (wr < n && gk < k) ? __bfloat162float(we[static_cast<size_t>(wr) * k + gk]) : 0.f;
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
      if (r < m_end && c < n)
        out[static_cast<size_t>(r) * n + c] = __float2bfloat16(acc[i][j]);
    }
}

void grouped_gemm_bf16(at::Tensor &out, const at::Tensor &x, const at::Tensor &w,
                       const at::Tensor &offs) {
  TORCH_CHECK(x.is_contiguous() && w.is_contiguous() && offs.is_contiguous() &&
                  out.is_contiguous(),
              "contiguous tensors expected");
  int t = x.size(0), k = x.size(1), num_experts = w.size(0), n = w.size(1);
  if (t == 0 || n == 0 || num_experts == 0)
    return;
  dim3 grid((n + kBN - 1) / kBN, (t + kBM - 1) / kBM + num_experts);
  grouped_gemm_bf16_kernel<<<grid, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(w.data_ptr()), offs.data_ptr<int>(), num_experts,
      n, k);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
