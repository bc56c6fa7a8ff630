// A file that does not parse: clang's error with file:line, and the verdict
// unknown, never adopted, even though a launch was seen before the error.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
__global__ void k(float *x) { x[0] = 0; }
void entry(float *x) {
  k<<<1, 1>>>(x);
  // CHECK: bad-parse-error.cu:[[@LINE+1]]:13: error: use of undeclared identifier 'undefined_thing'
  float y = undefined_thing + 1
}
// CHECK: verdict: unknown (unknown: {{.*}}bad-parse-error.cu:8:13: error: use of undeclared identifier 'undefined_thing'
