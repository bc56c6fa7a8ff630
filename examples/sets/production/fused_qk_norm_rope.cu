// Production baseline for fused_qk_norm_rope: the unfused torch path vLLM
// runs for Qwen3's q_norm / k_norm + rotary embedding (RMSNorm.forward_native
// per head, then RotaryEmbedding.forward_native), kept in fp32 up to one bf16
// rounding as the fused kernel keeps the values in registers:
//   the q and k heads (adjacent in qkv) as one [T, Hq + Hk, D] fp32 view,
//   n = x * rsqrt(mean(x^2) + eps) * w (w = q_weight for q heads, k_weight
//   for k heads), then the first rot = cos_sin_cache.size(1) values of each
//   head rotated with cos | sin = cos_sin_cache[position_ids[t]] (NeoX halves,
//   or GPT-J pairs when !is_neox), the rest only normalized, copied back into
//   the q and k heads of qkv in place; the v heads are not touched.
// ATen: pow, mean, rsqrt, mul, index_select, cat/stack, copy_.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void fused_qk_norm_rope(at::Tensor &qkv, int64_t num_heads_q, int64_t num_heads_k,
                        int64_t num_heads_v, int64_t head_dim, double eps,
                        const at::Tensor &q_weight, const at::Tensor &k_weight,
                        const at::Tensor &cos_sin_cache, bool is_neox,
                        const at::Tensor &position_ids) {
  int64_t tokens = qkv.size(0), heads = num_heads_q + num_heads_k, d = head_dim;
  TORCH_CHECK(qkv.size(-1) == (heads + num_heads_v) * d,
              "qkv width must be (Hq + Hk + Hv) * head_dim");
  int64_t rot = cos_sin_cache.size(1);
  TORCH_CHECK(rot % 2 == 0 && rot <= d, "rotary dim must be even and <= head_dim");
  at::Tensor qk = qkv.view({tokens, heads + num_heads_v, d}).narrow(1, 0, heads);
  at::Tensor x = qk.to(at::kFloat);
  at::Tensor w = at::cat({q_weight.to(at::kFloat).expand({num_heads_q, d}),
                          k_weight.to(at::kFloat).expand({num_heads_k, d})},
                         0);
  at::Tensor n = x * at::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + eps) * w;
  at::Tensor cs = cos_sin_cache.index_select(0, position_ids.flatten());
  at::Tensor cos = cs.narrow(1, 0, rot / 2).unsqueeze(1);
  at::Tensor sin = cs.narrow(1, rot / 2, rot / 2).unsqueeze(1);
  at::Tensor o;
  if (is_neox) {
    at::Tensor n1 = n.narrow(-1, 0, rot / 2), n2 = n.narrow(-1, rot / 2, rot / 2);
    o = at::cat({n1 * cos - n2 * sin, n2 * cos + n1 * sin}, -1);
  } else {
    at::Tensor n1 = n.slice(-1, 0, rot, 2), n2 = n.slice(-1, 1, rot, 2);
    o = at::stack({n1 * cos - n2 * sin, n2 * cos + n1 * sin}, -1).flatten(-2);
  }
  if (rot < d)
    o = at::cat({o, n.narrow(-1, rot, d - rot)}, -1);
  qk.copy_(o);
}
