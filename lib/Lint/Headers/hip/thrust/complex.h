// atrex-lint's stand-in for rocThrust's <thrust/complex.h> (parsing only).
//
// PyTorch's headers include <thrust/complex.h> whenever __HIPCC__ is
// defined (torch/headeronly/util/complex.h) and convert c10::complex to and
// from thrust::complex. rocThrust is in neither Debian nor PyPI, so HIP
// sources that include torch parse against these declarations: the class,
// its conversions and arithmetic, and the math functions torch names. Only
// declarations: atrex-lint never generates code.
#pragma once
#include <complex>

namespace thrust {
template <typename T> struct complex {
  using value_type = T;
  __host__ __device__ complex(const T &re = T(), const T &im = T())
      : re_(re), im_(im) {}
  template <typename U>
  __host__ __device__ complex(const complex<U> &z)
      : re_(T(z.real())), im_(T(z.imag())) {}
  template <typename U>
  __host__ complex(const std::complex<U> &z)
      : re_(T(z.real())), im_(T(z.imag())) {}
  __host__ __device__ T real() const { return re_; }
  __host__ __device__ T imag() const { return im_; }
  __host__ __device__ void real(T re) { re_ = re; }
  __host__ __device__ void imag(T im) { im_ = im; }
  __host__ operator std::complex<T>() const { return {re_, im_}; }
  template <typename U> __host__ __device__ complex &operator=(const complex<U> &z);
  __host__ __device__ complex &operator+=(const complex &z);
  __host__ __device__ complex &operator-=(const complex &z);
  __host__ __device__ complex &operator*=(const complex &z);
  __host__ __device__ complex &operator/=(const complex &z);
  __host__ __device__ complex &operator+=(const T &z);
  __host__ __device__ complex &operator-=(const T &z);
  __host__ __device__ complex &operator*=(const T &z);
  __host__ __device__ complex &operator/=(const T &z);

private:
  T re_, im_;
};

#define ATREX_THRUST_BINARY(OP)                                                \
  template <typename T>                                                        \
  __host__ __device__ complex<T> operator OP(const complex<T> &,               \
                                             const complex<T> &);              \
  template <typename T>                                                        \
  __host__ __device__ complex<T> operator OP(const complex<T> &, const T &);   \
  template <typename T>                                                        \
  __host__ __device__ complex<T> operator OP(const T &, const complex<T> &);
ATREX_THRUST_BINARY(+)
ATREX_THRUST_BINARY(-)
ATREX_THRUST_BINARY(*)
ATREX_THRUST_BINARY(/)
#undef ATREX_THRUST_BINARY
template <typename T>
__host__ __device__ complex<T> operator-(const complex<T> &);
template <typename T>
__host__ __device__ complex<T> operator+(const complex<T> &);
template <typename T>
__host__ __device__ bool operator==(const complex<T> &, const complex<T> &);
template <typename T>
__host__ __device__ bool operator!=(const complex<T> &, const complex<T> &);

template <typename T> __host__ __device__ T abs(const complex<T> &);
template <typename T> __host__ __device__ T arg(const complex<T> &);
template <typename T> __host__ __device__ T norm(const complex<T> &);
template <typename T> __host__ __device__ complex<T> conj(const complex<T> &);
template <typename T>
__host__ __device__ complex<T> polar(const T &m, const T &theta = T());
template <typename T> __host__ __device__ complex<T> proj(const T &);
template <typename T> __host__ __device__ complex<T> proj(const complex<T> &);
template <typename T>
__host__ __device__ complex<T> pow(const complex<T> &, const complex<T> &);
template <typename T>
__host__ __device__ complex<T> pow(const complex<T> &, const T &);
template <typename T>
__host__ __device__ complex<T> pow(const T &, const complex<T> &);
#define ATREX_THRUST_UNARY(F)                                                  \
  template <typename T> __host__ __device__ complex<T> F(const complex<T> &);
ATREX_THRUST_UNARY(exp)
ATREX_THRUST_UNARY(log)
ATREX_THRUST_UNARY(log10)
ATREX_THRUST_UNARY(sqrt)
ATREX_THRUST_UNARY(sin)
ATREX_THRUST_UNARY(cos)
ATREX_THRUST_UNARY(tan)
ATREX_THRUST_UNARY(asin)
ATREX_THRUST_UNARY(acos)
ATREX_THRUST_UNARY(atan)
ATREX_THRUST_UNARY(sinh)
ATREX_THRUST_UNARY(cosh)
ATREX_THRUST_UNARY(tanh)
ATREX_THRUST_UNARY(asinh)
ATREX_THRUST_UNARY(acosh)
ATREX_THRUST_UNARY(atanh)
#undef ATREX_THRUST_UNARY
} // namespace thrust
