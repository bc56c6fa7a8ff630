// GPU regression input (GpuGate.ScalarsFollowEachTrialsInputs): a
// flash_attention_prefill that computes with ATen (so its verdict is fallback)
// and writes NaN when max_seqlen is not the longest sequence of cu_seqlens,
// i.e. when the gate passes a scalar derived from other inputs.
#include <ATen/ATen.h>

#include <algorithm>
#include <limits>

void flash_attention_prefill(at::Tensor &out, const at::Tensor &q, const at::Tensor &k,
                             const at::Tensor &v, const at::Tensor &cu_seqlens, int64_t max_seqlen,
                             double scale) {
  at::Tensor cu = cu_seqlens.to(at::kCPU).to(at::kLong).contiguous();
  const int64_t *c = cu.data_ptr<int64_t>();
  int64_t batch = cu.numel() - 1, longest = 0;
  for (int64_t b = 0; b < batch; ++b)
    longest = std::max(longest, c[b + 1] - c[b]);
  if (longest != max_seqlen) {
    out.fill_(std::numeric_limits<float>::quiet_NaN());
    return;
  }
  int64_t hq = q.size(1), hk = k.size(1);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t s = c[b], len = c[b + 1] - s;
    if (len == 0)
      continue;
    at::Tensor qb = q.narrow(0, s, len).transpose(0, 1).to(at::kFloat);
    at::Tensor kb = k.narrow(0, s, len).transpose(0, 1).to(at::kFloat).repeat_interleave(hq / hk, 0);
    at::Tensor vb = v.narrow(0, s, len).transpose(0, 1).to(at::kFloat).repeat_interleave(hq / hk, 0);
    at::Tensor sc = at::matmul(qb, kb.transpose(1, 2)) * scale;
    at::Tensor mask = at::ones({len, len}, sc.options().dtype(at::kBool)).triu(1);
    sc.masked_fill_(mask, -std::numeric_limits<float>::infinity());
    at::Tensor o = at::matmul(at::softmax(sc, -1), vb);
    out.narrow(0, s, len).copy_(o.transpose(0, 1));
  }
}
