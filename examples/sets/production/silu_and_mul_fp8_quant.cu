// Production baseline for silu_and_mul_fp8_quant: vLLM's torch path for
// SiluAndMul followed by static per-tensor fp8 quantization
// (scaled_fp8_quant's native form), kept in fp32 between the two as the
// fused kernel keeps the activation in registers:
//   a = silu(float(x[..., :D])) * x[..., D:]   (fp32, ATen's silu and mul)
//   out = e4m3fn(clamp(a / scale[0], -448, 448))
// The division is by the one-element device tensor `scale` (true division,
// as the reference), saturated, then cast by copy_ into `out` (RNE).
// Rounding the activation to bf16 first (vLLM's eager path) would move a few
// percent of the values across an e4m3 rounding tie; fp32 avoids that.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void silu_and_mul_fp8_quant(at::Tensor &out, const at::Tensor &x, const at::Tensor &scale) {
  int64_t d = x.size(-1) / 2;
  at::Tensor a = at::silu(x.narrow(-1, 0, d).to(at::kFloat));
  a.mul_(x.narrow(-1, d, d)).div_(scale).clamp_(-448.0, 448.0);
  out.copy_(a);
}
