// Production baseline for fused_add_rms_norm: residual += x (one bf16
// rounding of the fp32 sum, as the reference's residual_out), then ATen's
// rms_norm of the updated residual written into x. The norm reads the
// bf16-rounded residual where the reference uses the fp32 sum (well inside the
// tolerance). Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void fused_add_rms_norm(at::Tensor &x, at::Tensor &residual, const at::Tensor &w, double eps) {
  residual.add_(x);
  x.copy_(at::rms_norm(residual, {residual.size(-1)}, w, eps));
}
