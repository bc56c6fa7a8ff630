// --entry narrows reachability to the named entry point.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not atrex-lint --no-snippets --entry=forward %s 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: atrex-lint --no-snippets --entry=warmup,forward %s 2>&1 | FileCheck %s --check-prefix=ALL
// ALL: verdict: adopted
// FWD: warning: kernel 'k' is defined but never launched from the entry
// FWD: verdict: no-kernel
__global__ void k(float *x) { x[0] = 1; }
void warmup(float *x) { k<<<1, 1>>>(x); }
void forward(float *y, const float *x) { y[0] = x[0]; }
