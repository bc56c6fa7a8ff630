// A project's own launcher template, in a namespace that a vendor rule of the
// test policy matches by pattern (as FlashInfer's csrc/ calls flashinfer::...).
#pragma once
namespace fastlib {
__global__ void scale_kernel(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= 2.0f;
}
template <int Threads> void launchFast(float *p, int n) {
  scale_kernel<<<(n + Threads - 1) / Threads, Threads>>>(p, n);
}
// Declared only: whatever defines it is not this project's code.
void launchExternal(float *p, int n);
} // namespace fastlib
