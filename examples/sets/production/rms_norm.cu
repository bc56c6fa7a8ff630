// Production baseline for rms_norm: delegates to ATen's rms_norm (the fused
// CUDA kernel of libtorch where it has one), then copies into `out`.
// Dynamic verdict: fallback (only libtorch kernels run; the gate ranks
// fallback over no-kernel, as atrex-lint does).
#include <ATen/ATen.h>

void rms_norm(at::Tensor &out, const at::Tensor &x, const at::Tensor &w, double eps) {
  out.copy_(at::rms_norm(x, {x.size(-1)}, w, eps));
}
