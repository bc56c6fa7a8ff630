// Production baseline for fp8_per_tensor_gemm: cuBLASLt's fp8 GEMM through
// at::_scaled_mm with per-tensor scales (what vLLM's Fp8LinearOp calls when
// CUTLASS is not used): out = (a b^T) * scale_a * scale_b, e4m3 x e4m3 with
// fp32 accumulation (use_fast_accum off), bf16 out, written straight into
// `out` (_scaled_mm_out; a row-major, b^T column-major as cuBLASLt wants).
// Where cuBLASLt refuses the shape (K and N must be multiples of 16) the
// operands are dequantized to fp32 (exact: e4m3 values) and multiplied by
// cuBLAS in fp32 (at::mm), scaled as the reference does.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void fp8_per_tensor_gemm(at::Tensor &out, const at::Tensor &a, const at::Tensor &b,
                         const at::Tensor &scale_a, const at::Tensor &scale_b) {
  if (a.size(1) % 16 == 0 && b.size(0) % 16 == 0) {
    try {
      at::_scaled_mm_out(out, a, b.t(), scale_a, scale_b, std::nullopt, std::nullopt,
                         at::kBFloat16, /*use_fast_accum=*/false);
      return;
    } catch (const c10::Error &) {
      // no cuBLASLt fp8 algorithm for this shape: fp32 below
    }
  }
  out.copy_(at::mm(a.to(at::kFloat), b.to(at::kFloat).t()) * scale_a * scale_b);
}
