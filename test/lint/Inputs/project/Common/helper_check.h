// A project's shared helper header (like cuda-samples' Common/helper_cuda.h).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define checkErrors(call)                                                      \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      fprintf(stderr, "%s\n", cudaGetErrorString(e));                          \
      exit(EXIT_FAILURE);                                                      \
    }                                                                          \
  } while (0)
