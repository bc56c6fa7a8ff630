// Delegation in HIP: the GEMM is at::matmul (cuBLAS/cuBLASLt inside libtorch on the H200);
// the submission's own HIP kernel only copies the result into `out`.
// Expected dynamic verdict: fallback (foreign GEMM kernels named).
#include <hip/hip_runtime.h>
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void copy_kernel(uint16_t *dst, const uint16_t *src, int64_t n) {
  int64_t i = static_cast<int64_t>(hipBlockIdx_x) * hipBlockDim_x + hipThreadIdx_x;
  if (i < n)
    dst[i] = src[i];
}

void gemm_bf16(at::Tensor &out, const at::Tensor &x, const at::Tensor &w) {
  at::Tensor tmp = at::matmul(x, w.t()).contiguous();
  int64_t n = tmp.numel();
  hipStream_t stream = at::cuda::getCurrentCUDAStream();
  hipLaunchKernelGGL(copy_kernel, dim3((n + 255) / 256), dim3(256), 0, stream,
                     reinterpret_cast<uint16_t *>(out.data_ptr()),
                     reinterpret_cast<const uint16_t *>(tmp.data_ptr()), n);
  hipError_t err = hipGetLastError();
  TORCH_CHECK(err == hipSuccess, "copy_kernel launch: ", hipGetErrorString(err));
}
