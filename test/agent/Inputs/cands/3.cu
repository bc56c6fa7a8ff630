// 3: faster, but the work is cuBLAS's: FAKE_US=5 FAKE_VERDICT=fallback
#include <cublas_v2.h>
__global__ void rms_kernel(float *y, int n) { y[threadIdx.x] *= 2; }
void rms_norm(cublasHandle_t h, const float *x, const float *w, float *y, int n) {
  float one = 1, zero = 0;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, 1, n, &one, w, n, x, n, &zero, y, n);
  rms_kernel<<<1, n>>>(y, n);
}
