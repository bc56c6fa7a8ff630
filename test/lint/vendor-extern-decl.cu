// Declaring the vendor function by hand instead of including its header
// does not hide it.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
extern "C" int cublasSgemm_v2(void *, int, int, int, int, int, const float *,
                              const float *, int, const float *, int,
                              const float *, float *, int);
__global__ void k(float *x) { x[0] = 0; }
void entry(void *h, float *a) {
  float al = 1, be = 0;
  k<<<1, 1>>>(a);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cublasSgemm_v2' delegates compute to cuBLAS
  cublasSgemm_v2(h, 0, 0, 4, 4, 4, &al, a, 4, a, 4, &be, a, 4);
}
// CHECK: verdict: fallback
