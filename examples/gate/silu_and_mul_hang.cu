// Hangs: the kernel waits for a flag nobody sets.
// Expected: fail with "hang", the watchdog kills the worker, the run continues.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_bf16.h>

__global__ void silu_and_mul_kernel(__nv_bfloat16 *out, volatile int *flag) {
  while (*flag == 0) {
  }
  out[0] = __float2bfloat16(0.f);
}

void silu_and_mul(at::Tensor &out, const at::Tensor &x) {
  at::Tensor flag = at::zeros({1}, x.options().dtype(at::kInt));
  silu_and_mul_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()), flag.data_ptr<int>());
}
