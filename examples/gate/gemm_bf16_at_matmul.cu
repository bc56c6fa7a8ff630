// Delegation: the GEMM is at::matmul (cuBLAS/cuBLASLt inside libtorch); the
// submission's own kernel only copies the result into `out`.
// Expected dynamic verdict: fallback (foreign GEMM kernels named).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__global__ void copy_kernel(__nv_bfloat16 *dst, const __nv_bfloat16 *src, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

void gemm_bf16(at::Tensor &out, const at::Tensor &x, const at::Tensor &w) {
  at::Tensor tmp = at::matmul(x, w.t()).contiguous();
  int64_t n = tmp.numel();
  copy_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(tmp.data_ptr()), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
