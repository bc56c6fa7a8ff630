// gemm that calls cuBLAS directly from a helper after a token own kernel.
// Expected verdict: fallback.
#include <cublas_v2.h>
#include <cuda_bf16.h>

__global__ void cast_to_float(const __nv_bfloat16 *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __bfloat162float(x[i]);
}

static cublasHandle_t handle() {
  static cublasHandle_t h = nullptr;
  if (!h)
    cublasCreate(&h);
  return h;
}

void gemm_bf16(const __nv_bfloat16 *x, const __nv_bfloat16 *w,
               __nv_bfloat16 *y, float *xf, int m, int n, int k) {
  cast_to_float<<<(m * k + 255) / 256, 256>>>(x, xf, m * k);
  const float one = 1.f, zero = 0.f;
  cublasGemmEx(handle(), CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, w,
               CUDA_R_16BF, k, x, CUDA_R_16BF, k, &zero, y, CUDA_R_16BF, n,
               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
