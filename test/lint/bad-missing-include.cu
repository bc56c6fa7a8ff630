// A missing local header is named, with a hint.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK: bad-missing-include.cu:[[@LINE+1]]:10: fatal error: 'kernels/common.cuh' file not found
#include "kernels/common.cuh"
__global__ void k(float *x) { x[0] = 0; }
void entry(float *x) { k<<<1, 1>>>(x); }
// CHECK: verdict: unknown ({{.*}}'kernels/common.cuh' file not found (not found next to the file or in its project's include folders: pass the directory after '--' as -I<dir>, or a compile database with -p))
