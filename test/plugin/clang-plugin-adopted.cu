// An adopted submission compiles silently with the plugin; its policy and
// entry options are honoured.
// REQUIRES: cuda
// RUN: %clang_cuda_host -fplugin=%atrex_clang_plugin -Werror -c %s -o %t.o 2>&1 | count 0
// RUN: %clang_cuda_host -fplugin=%atrex_clang_plugin -fplugin-arg-atrex-entry=other -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: %clang_cuda_host -fplugin=%atrex_clang_plugin -fplugin-arg-atrex-policy=%S/../lint/Inputs/policy/strict.json -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=POLICY
__global__ void k(float *x) { x[0] = 0; }
void entry(float *x) {
  cudaMemsetAsync(x, 0, 4);
  k<<<1, 1>>>(x);
}
void other(float *x) { x[0] = 1; }
// ENTRY: warning: atrex verdict: no-kernel
// POLICY: warning: call to 'cudaMemsetAsync' delegates compute to CUDA runtime memset [atrex-delegation-vendor]
