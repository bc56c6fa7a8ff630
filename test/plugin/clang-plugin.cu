// The clang plugin runs atrex-lint's checks during a normal compile: the
// findings are warnings (-Werror promotes them) and a non-adopted submission
// gets a verdict warning.
// REQUIRES: cuda
// RUN: %clang_cuda_host -fplugin=%atrex_clang_plugin -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang_cuda_host -fplugin=%atrex_clang_plugin -Werror -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=WERROR
// RUN: %clang_cuda_host -fplugin=%atrex_clang_plugin -fplugin-arg-atrex-json=%t.json -fsyntax-only %s 2>/dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: not %clang_cuda_host -fplugin=%atrex_clang_plugin -fplugin-arg-atrex-bogus -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=BADARG
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(cublasHandle_t h, float *a) {
  float al = 2;
  k<<<1, 1>>>(a);
  // CHECK: clang-plugin.cu:[[@LINE+2]]:3: warning: call to 'cublasSscal_v2' delegates compute to cuBLAS [atrex-delegation-vendor]
  // WERROR: clang-plugin.cu:[[@LINE+1]]:3: error: call to 'cublasSscal_v2' delegates compute to cuBLAS [atrex-delegation-vendor]
  cublasSscal_v2(h, 4, &al, a, 1);
}
// CHECK: clang-plugin.cu:1:1: warning: atrex verdict: fallback (fallback: cuBLAS (cublasSscal_v2)) [atrex-verdict]
// JSON: "verdict": "fallback"
// BADARG: error: atrex: unknown plugin argument 'bogus'
