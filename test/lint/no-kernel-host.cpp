// A C++ file with no kernel at all.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
// CHECK: :[[@LINE+1]]:6: error: no kernel is defined: the submission launches no GPU code of its own [atrex-no-kernel]
void entry(float *y, const float *x, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = x[i];
}
// CHECK: verdict: no-kernel
