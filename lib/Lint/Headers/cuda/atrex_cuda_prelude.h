// atrex-lint's CUDA prelude (parsing only, never compiled into code).
//
// What nvcc's cuda_runtime.h makes visible to host code and clang's CUDA
// wrapper does not: nvcc's crt/math_functions.h declares the classification
// functions (isfinite, isnan, ...) in the global namespace for host code too,
// and host overloads of min/max. Clang declares them for device code only, so
// an honest program's host-side check `if (!isfinite(ref[i]))` or `min(M, 8)`
// would not compile (llm.c dev/cuda, bitsandbytes). The overloads are
// nvcc's set (crt/math_functions.hpp): same-type ones and the mixed
// signed/unsigned and float/double pairs, whose result is the unsigned or
// wider type, so that `min(hidden_dim, 1024)` with a uint32_t (FlashInfer's
// norm.cuh) resolves as under nvcc instead of being ambiguous.
#pragma once
#include <cmath>
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;
#define ATREX_HOST_MINMAX(R, A, B)                                              \
  static inline __attribute__((host)) R min(A a, B b) {                        \
    return (R)a < (R)b ? (R)a : (R)b;                                          \
  }                                                                            \
  static inline __attribute__((host)) R max(A a, B b) {                        \
    return (R)a > (R)b ? (R)a : (R)b;                                          \
  }
ATREX_HOST_MINMAX(int, int, int)
ATREX_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
ATREX_HOST_MINMAX(unsigned int, int, unsigned int)
ATREX_HOST_MINMAX(unsigned int, unsigned int, int)
ATREX_HOST_MINMAX(long, long, long)
ATREX_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
ATREX_HOST_MINMAX(unsigned long, long, unsigned long)
ATREX_HOST_MINMAX(unsigned long, unsigned long, long)
ATREX_HOST_MINMAX(long long, long long, long long)
ATREX_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
ATREX_HOST_MINMAX(unsigned long long, long long, unsigned long long)
ATREX_HOST_MINMAX(unsigned long long, unsigned long long, long long)
ATREX_HOST_MINMAX(float, float, float)
ATREX_HOST_MINMAX(double, double, double)
ATREX_HOST_MINMAX(double, float, double)
ATREX_HOST_MINMAX(double, double, float)
#undef ATREX_HOST_MINMAX
// nvcc defines __CUDACC__ to 1; clang's CUDA wrapper defines it empty, so
// `#if __CUDACC__` (NCCL's nccl_device/utility.h) is an error under clang.
#ifdef __CUDACC__
#undef __CUDACC__
#define __CUDACC__ 1
#endif
