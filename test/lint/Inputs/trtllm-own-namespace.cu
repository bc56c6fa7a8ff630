// TensorRT-LLM's own tree: its kernels live in namespace tensorrt_llm, which
// the default policy delegates; the namespace this file opens is its own code.
#include <cuda_runtime.h>
namespace tensorrt_llm {
namespace kernels {
__global__ void scale_kernel(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}
void invokeScale(float *x, float s, int n, cudaStream_t st) {
  scale_kernel<<<(n + 255) / 256, 256, 0, st>>>(x, s, n);
}
} // namespace kernels
} // namespace tensorrt_llm

int main() {
  float *x;
  cudaMalloc(&x, 1024 * sizeof(float));
  tensorrt_llm::kernels::invokeScale(x, 2.f, 1024, 0);
  cudaDeviceSynchronize();
  return 0;
}
