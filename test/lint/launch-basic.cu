// An honest kernel launched with <<<>>> from an external entry is adopted.
// RUN: atrex-lint --mode=submission --no-snippets --inventory %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: kernel 'scale' at {{.*}}launch-basic.cu:[[@LINE+3]]:17: launched
// CHECK: entry 'scale_inplace'
// CHECK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}

void scale_inplace(float *x, float a, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, a, n);
}
