// Production baseline for softmax: ATen's softmax (libtorch's CUDA softmax
// kernel: row maximum subtracted, fp32 exp and sum) written straight into
// `probs` with softmax_out. Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void softmax(at::Tensor &probs, const at::Tensor &logits) {
  at::softmax_out(probs, logits, -1);
}
