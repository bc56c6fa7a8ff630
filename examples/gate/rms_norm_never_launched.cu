// Defines a kernel but never launches it: the result comes from ATen ops.
// Expected dynamic verdict: no-kernel (the ATen kernels are named as foreign).
#include <ATen/ATen.h>
#include <cuda_bf16.h>

__global__ void rms_norm_kernel_unused(__nv_bfloat16 *out, const __nv_bfloat16 *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i];
}

void rms_norm(at::Tensor &out, const at::Tensor &x, const at::Tensor &w, double eps) {
  at::Tensor xf = x.to(at::kFloat);
  at::Tensor y = xf * at::rsqrt(xf.pow(2).mean(-1, true) + eps) * w.to(at::kFloat);
  out.copy_(y.to(at::kBFloat16));
}
