// atrex-lint's HIP prelude (parsing only, never compiled into code).
//
// With -nogpuinc clang does not pre-include __clang_hip_runtime_wrapper.h,
// whose first job is to bring in the standard headers with __host__ and
// __device__ defined, before HIP's own headers include clang's
// cuda_wrappers/{complex,algorithm,new}. Without it, <complex> after
// <hip/hip_runtime.h> declares no std::complex and a standard header before
// it fails on '__host__'. The wrapper itself cannot be used: its libdevice
// declarations disagree with older HIP headers. This prelude does the first
// part only.
#pragma once
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#include <cmath>
#include <cstdlib>
#include <stdlib.h>
#include <__clang_cuda_math_forward_declares.h>
#include <algorithm>
#include <complex>
#include <new>
#undef __host__
#undef __device__
