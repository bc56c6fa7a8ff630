# silu_and_mul in the KernelBench form: ModelNew.forward(x) returns the output;
# the kernel is CUDA C++ built with torch.utils.cpp_extension.load_inline at
# import. Expected: adopted (the built library's cubins are the submission's).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_bf16.h>
#include <c10/cuda/CUDAStream.h>

__global__ void silu_and_mul_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x,
                                    long long d) {
  long long row = blockIdx.y;
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < d;
       i += (long long)gridDim.x * blockDim.x) {
    float a = __bfloat162float(x[row * 2 * d + i]);
    float b = __bfloat162float(x[row * 2 * d + d + i]);
    out[row * d + i] = __float2bfloat16(a / (1.0f + __expf(-a)) * b);
  }
}

torch::Tensor silu_and_mul(torch::Tensor x) {
  long long t = x.size(0), d = x.size(1) / 2;
  auto out = torch::empty({t, d}, x.options());
  dim3 grid((unsigned)((d + 255) / 256 < 64 ? (d + 255) / 256 : 64), (unsigned)t);
  silu_and_mul_kernel<<<grid, 256, 0, c10::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), d);
  return out;
}
"""

ext = load_inline(name="atrex_example_silu_and_mul", cpp_sources="torch::Tensor silu_and_mul(torch::Tensor x);",
                  cuda_sources=cuda_source, functions=["silu_and_mul"],
                  extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.silu_and_mul(x)
