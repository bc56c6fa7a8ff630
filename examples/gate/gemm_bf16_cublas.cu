// Delegation: calls cuBLAS directly (cublasGemmEx, bf16 in/out, fp32 compute)
// into a scratch buffer, then the submission's own kernel copies it to `out`.
// Expected dynamic verdict: fallback (cuBLAS kernels named).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>

__global__ void copy_kernel(__nv_bfloat16 *dst, const __nv_bfloat16 *src, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

void gemm_bf16(at::Tensor &out, const at::Tensor &x, const at::Tensor &w) {
  static cublasHandle_t handle = nullptr;
  if (!handle)
    TORCH_CHECK(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate failed");
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  cublasSetStream(handle, stream);
  int m = x.size(0), k = x.size(1), n = w.size(0);
  at::Tensor tmp = at::empty_like(out);
  float alpha = 1.f, beta = 0.f;
  // Column-major view: out^T [n, m] = w [n, k] * x^T [k, m].
  cublasStatus_t st = cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha,
                                   w.data_ptr(), CUDA_R_16BF, k, x.data_ptr(), CUDA_R_16BF, k,
                                   &beta, tmp.data_ptr(), CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT);
  TORCH_CHECK(st == CUBLAS_STATUS_SUCCESS, "cublasGemmEx failed: ", static_cast<int>(st));
  int64_t total = tmp.numel();
  copy_kernel<<<(total + 255) / 256, 256, 0, stream>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(tmp.data_ptr()), total);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
