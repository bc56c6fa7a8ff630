// Calls the header's cuBLAS helper: delegation, found through the call.
#include "context.h"
void dense(cublasHandle_t h, const float *a, float *c, int n) {
  ctx_gemm(h, a, c, n);
}
// CHECK: context.h:{{[0-9]+}}:3: warning: call to 'cublasSgemm_v2' delegates compute to cuBLAS [atrex-delegation-vendor]
// CHECK: verdict: fallback (fallback: cuBLAS (cublasSgemm_v2))
