// Production baseline for rotary_embedding: eager ATen ops in fp32 (gather
// cos/sin rows by position, rotate, round to bf16 once) written back into the
// query and key views in place. NeoX (is_neox) and GPT-J layouts.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

static void rotate(at::Tensor &x, int64_t tokens, int64_t head_size, const at::Tensor &cos,
                   const at::Tensor &sin, int64_t rot, bool neox) {
  at::Tensor xv = x.view({tokens, -1, head_size}).narrow(-1, 0, rot);
  at::Tensor xf = xv.to(at::kFloat);
  at::Tensor o;
  if (neox) {
    at::Tensor x1 = xf.narrow(-1, 0, rot / 2), x2 = xf.narrow(-1, rot / 2, rot / 2);
    o = at::cat({x1 * cos - x2 * sin, x2 * cos + x1 * sin}, -1);
  } else {
    at::Tensor x1 = xf.slice(-1, 0, rot, 2), x2 = xf.slice(-1, 1, rot, 2);
    o = at::stack({x1 * cos - x2 * sin, x2 * cos + x1 * sin}, -1).flatten(-2);
  }
  xv.copy_(o);
}

void rotary_embedding(const at::Tensor &positions, at::Tensor &query, at::Tensor &key,
                      int64_t head_size, const at::Tensor &cos_sin_cache, bool is_neox) {
  int64_t tokens = positions.numel(), rot = cos_sin_cache.size(1);
  at::Tensor cs = cos_sin_cache.index_select(0, positions.flatten());
  at::Tensor cos = cs.narrow(1, 0, rot / 2).unsqueeze(1), sin = cs.narrow(1, rot / 2, rot / 2).unsqueeze(1);
  rotate(query, tokens, head_size, cos, sin, rot, is_neox);
  rotate(key, tokens, head_size, cos, sin, rot, is_neox);
}
