// A header library in the style of FlashInfer's vec_dtypes.cuh (0.7.4, line
// 747): a dependent member template called without the `template` keyword.
// nvcc accepts it; clang rejects it once the template is instantiated.
#pragma once
namespace veclib {
template <typename T> struct caster {
  template <int N> static void cast(T *dst, const T *src) {
    for (int i = 0; i < N; ++i)
      dst[i] = src[i];
  }
  static void cast(T *dst) { dst[0] = T(); }
};
template <typename T, int N> __host__ __device__ inline void copy_vec(T *dst, const T *src) {
  caster<T>::cast<N>(dst, src);
}
template <typename T, int N> __global__ void copy_kernel(T *dst, const T *src) {
  copy_vec<T, N>(dst + threadIdx.x * N, src + threadIdx.x * N);
}
template <typename T, int N> void launch_copy(T *dst, const T *src, int n, cudaStream_t s) {
  copy_kernel<T, N><<<1, n / N, 0, s>>>(dst, src);
}
} // namespace veclib
