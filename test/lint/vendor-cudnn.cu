// cuDNN calls are delegation.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cudnn.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(cudnnHandle_t h, cudnnTensorDescriptor_t d, float *x) {
  float one = 1, zero = 0;
  k<<<1, 1>>>(x);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cudnnSoftmaxForward' delegates compute to cuDNN [atrex-delegation-vendor]
  cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL,
                      &one, d, x, &zero, d, x);
}
// CHECK: verdict: fallback
