// Only objects the submission defines can keep state: `extern` declarations
// (Python's `extern PyObject *PyExc_...` when its headers come in with -I)
// are someone else's. A global the file defines is still reported.
// RUN: atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --mode=submission --no-snippets %s -- -DDEFINE_IT 2>&1 | FileCheck %s --check-prefix=DEF
#include <cuda_runtime.h>
struct PyObject;
extern PyObject *PyExc_RuntimeError;
extern float *shared_table;
#ifdef DEFINE_IT
float *shared_table;
#endif
__global__ void k(float *x, const float *t) { x[0] = t ? t[0] : 0; }
void entry(float *a) {
  if (PyExc_RuntimeError)
    k<<<1, 1>>>(a, shared_table);
  else
    k<<<1, 1>>>(a, nullptr);
}
// CHECK-NOT: atrex-evasion-static-state
// CHECK: verdict: adopted
// DEF: global 'shared_table' of type 'float *' keeps state between calls of the entry and can cache outputs [atrex-evasion-static-state]
// DEF: verdict: suspicious
