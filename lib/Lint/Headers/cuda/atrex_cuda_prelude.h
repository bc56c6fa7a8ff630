// atrex-lint's CUDA prelude (parsing only, never compiled into code).
//
// What nvcc's cuda_runtime.h makes visible to host code and clang's CUDA
// wrapper does not: nvcc's crt/math_functions.h declares the classification
// functions (isfinite, isnan, ...) in the global namespace for host code too,
// and host overloads of min/max. Clang declares them for device code only, so
// an honest program's host-side check `if (!isfinite(ref[i]))` or `min(M, 8)`
// would not compile (llm.c dev/cuda, bitsandbytes). Only same-type overloads
// are added, so that no call that resolved before becomes ambiguous.
#pragma once
#include <cmath>
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;
#define ATREX_HOST_MINMAX(T)                                                   \
  static inline __attribute__((host)) T min(T a, T b) { return a < b ? a : b; } \
  static inline __attribute__((host)) T max(T a, T b) { return a > b ? a : b; }
ATREX_HOST_MINMAX(int)
ATREX_HOST_MINMAX(unsigned int)
ATREX_HOST_MINMAX(long long)
ATREX_HOST_MINMAX(unsigned long long)
ATREX_HOST_MINMAX(float)
ATREX_HOST_MINMAX(double)
#undef ATREX_HOST_MINMAX
// nvcc defines __CUDACC__ to 1; clang's CUDA wrapper defines it empty, so
// `#if __CUDACC__` (NCCL's nccl_device/utility.h) is an error under clang.
#ifdef __CUDACC__
#undef __CUDACC__
#define __CUDACC__ 1
#endif
