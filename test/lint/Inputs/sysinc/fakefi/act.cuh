// A header library's own kernel template, in a namespace the default policy
// names as a vendor library (flashinfer::*), launched by the including file.
#pragma once
namespace flashinfer {
namespace activation {
template <typename T, float (*Act)(const float &)>
__global__ void act_and_mul_kernel(T *out, const T *in, int d) {
  int i = blockIdx.x * d + threadIdx.x;
  out[i] = T(Act(float(in[2 * i])) * float(in[2 * i + 1]));
}
} // namespace activation
} // namespace flashinfer
