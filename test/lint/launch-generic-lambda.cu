// A launch inside a generic lambda (`[&](auto tag)`, the dispatch idiom of
// xformers, FlashInfer and CUTLASS examples) is found in the lambda's
// instantiations, in plain functions and in function templates, and so is a
// library call made there.
// RUN: atrex-lint --no-snippets --mode=submission %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets --mode=submission %s -- -DDELEGATE 2>&1 | FileCheck %s --check-prefix=DEL
#include <cublas_v2.h>
#include <type_traits>

template <int N> __global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= N;
}

template <bool Meta> void run_t(float *p, int n, int k) {
  bool found = false;
  auto launch = [&](auto N) {
    if (Meta)
      return;
    found = true;
    scale<N.value><<<(n + 255) / 256, 256>>>(p, n);
  };
  auto test = [&](auto N) {
    if (N.value == k)
      launch(N);
  };
  test(std::integral_constant<int, 2>());
  test(std::integral_constant<int, 4>());
}

void entry(float *p, int n, int k, cublasHandle_t h) {
  run_t<false>(p, n, k);
  auto generic = [&](auto alpha) {
#ifdef DELEGATE
    // DEL: :[[@LINE+1]]:5: warning: call to 'cublasSscal_v2' delegates compute to cuBLAS [atrex-delegation-vendor]
    cublasSscal(h, n, &alpha, p, 1);
#else
    scale<8><<<1, 256>>>(p, int(alpha));
#endif
  };
  generic(2.0f);
}
// CHECK-NOT: warning:
// CHECK: verdict: adopted (adopted: 3 own kernels launched from the entry, no delegation)
// DEL: verdict: fallback (fallback: cuBLAS (cublasSscal_v2))
