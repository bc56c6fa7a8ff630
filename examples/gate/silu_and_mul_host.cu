// silu_and_mul computed on the host: the input is copied to the CPU, computed
// there, and copied back. No GPU kernel of any kind runs (only copies).
// Expected dynamic verdict: no-kernel (statically: fallback, the ATen calls).
#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>
#include <cmath>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

void silu_and_mul(at::Tensor &out, const at::Tensor &x) {
  int64_t t = x.size(0), d = x.size(1) / 2;
  std::vector<uint16_t> in(static_cast<size_t>(t * 2 * d)), res(static_cast<size_t>(t * d));
  auto stream = c10::cuda::getCurrentCUDAStream();
  cudaMemcpyAsync(in.data(), x.data_ptr(), in.size() * 2, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  auto toF = [](uint16_t h) { uint32_t u = static_cast<uint32_t>(h) << 16; float f; std::memcpy(&f, &u, 4); return f; };
  auto toH = [](float f) {
    uint32_t u; std::memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
    return static_cast<uint16_t>(u >> 16);
  };
  for (int64_t r = 0; r < t; ++r)
    for (int64_t c = 0; c < d; ++c) {
      float a = toF(in[r * 2 * d + c]), b = toF(in[r * 2 * d + d + c]);
      res[r * d + c] = toH(a / (1.f + std::exp(-a)) * b);
    }
  cudaMemcpyAsync(out.data_ptr(), res.data(), res.size() * 2, cudaMemcpyHostToDevice, stream);
  cudaStreamSynchronize(stream);
}
