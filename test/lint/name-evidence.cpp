// A file that does not compile (here: a vendor library's headers are not
// installed) is still judged on the calls its text spells when a policy rule
// matches their names: delegation and evasion are stronger than 'unknown'.
// Calls in comments, strings, directives and member calls do not count.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets %S/Inputs/name-evidence-none.cu 2>&1 | FileCheck %S/Inputs/name-evidence-none.cu
// RUN: not atrex-lint --mode=submission --no-snippets %S/Inputs/name-evidence-torch-types.cu 2>&1 | FileCheck %S/Inputs/name-evidence-torch-types.cu
// RUN: not atrex-lint --mode=submission --no-snippets %S/Inputs/name-evidence-cutlass-type.cu 2>&1 | FileCheck %S/Inputs/name-evidence-cutlass-type.cu
// RUN: not atrex-lint --mode=submission --no-snippets %S/Inputs/name-evidence-own-namespace.cu 2>&1 | FileCheck %S/Inputs/name-evidence-own-namespace.cu
// RUN: not atrex-lint --mode=submission --no-snippets %S/Inputs/name-evidence-using-namespace.cu 2>&1 | FileCheck %S/Inputs/name-evidence-using-namespace.cu
#include <rocblas/rocblas_not_installed.h>
#define LOG(x) rocblas_status_to_string(x)
int main() {
  rocblas_handle h;
  rocblas_create_handle(&h);
  // rocblas_dgemm(h, ...) in a comment
  const char *s = "rocblas_zgemm(";
  float *a = nullptr;
  // CHECK: :[[@LINE+1]]:3: warning: call to 'rocblas_sgemm' delegates compute to rocBLAS (matched by name: the file did not compile, so its calls are not resolved) [atrex-delegation-vendor]
  rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_none, 4, 4, 4,
                a, a, 4, a, 4, a, a, 4);
  return s[0];
}
// CHECK-NOT: rocblas_dgemm
// CHECK-NOT: rocblas_zgemm
// CHECK: verdict: fallback (fallback: rocBLAS (rocblas_sgemm); unknown:
