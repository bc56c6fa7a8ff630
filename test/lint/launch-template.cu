// Templated kernels: every instantiation is in the inventory; a template is
// launched when one of its instances is.
// RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK-DAG: kernel 'add<float>' at {{.*}}: launched
// CHECK-DAG: kernel 'add<double>' at {{.*}}: launched
// CHECK: verdict: adopted
template <typename T> __global__ void add(T *y, const T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += x[i];
}
template <typename T> void run(T *y, const T *x, int n) {
  add<T><<<(n + 127) / 128, 128>>>(y, x, n);
}
void entry_f32(float *y, const float *x, int n) { run(y, x, n); }
void entry_f64(double *y, const double *x, int n) { run<double>(y, x, n); }
