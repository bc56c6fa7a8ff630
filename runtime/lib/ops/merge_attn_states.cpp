//===- merge_attn_states.cpp - generator, reference, tolerance ------------===//
//
// Definition and entry point: suites/atrex-serve/ops/merge_attn_states.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

#include <limits>

namespace atrex::rt::ops {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), hq = key(shape, "Hq"), d = key(shape, "D");
  TensorMap m;
  m["prefix_output"] = bf16(g.randn({t, hq, d}));
  m["suffix_output"] = bf16(g.randn({t, hq, d}));
  // LSEs of real attention rows span a few units to a few tens; the two
  // sides differ by up to 20, so one side's weight reaches e^-20.
  at::Tensor p = g.rand({hq, t}) * 20.0 - 2.0;
  at::Tensor s = g.rand({hq, t}) * 20.0 - 2.0;
  // Tokens whose prefix (or suffix) is empty: FlashAttention-3 reports -inf,
  // FlashAttention-2 +inf; both must give that side weight 0. Token t % 8 == 1
  // has prefix -inf, t % 8 == 4 prefix +inf, t % 8 == 6 suffix -inf (never
  // both sides).
  at::Tensor tok = at::arange(t, p.options().dtype(at::kLong)).remainder(8);
  p.masked_fill_(tok.eq(1).unsqueeze(0).expand({hq, t}), -kInf);
  p.masked_fill_(tok.eq(4).unsqueeze(0).expand({hq, t}), kInf);
  s.masked_fill_(tok.eq(6).unsqueeze(0).expand({hq, t}), -kInf);
  m["prefix_lse"] = p.contiguous();
  m["suffix_lse"] = s.contiguous();
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  auto finiteOrNegInf = [](const at::Tensor &lse) {
    at::Tensor l = f32(lse);
    return at::where(at::isposinf(l), at::full_like(l, -kInf), l);
  };
  at::Tensor p = finiteOrNegInf(get(in, "prefix_lse"));
  at::Tensor s = finiteOrNegInf(get(in, "suffix_lse"));
  at::Tensor m = at::maximum(p, s);
  at::Tensor empty = at::isneginf(m); // both sides empty
  at::Tensor shift = at::where(empty, at::zeros_like(m), m);
  at::Tensor ep = at::exp(p - shift), es = at::exp(s - shift);
  at::Tensor sum = ep + es;
  at::Tensor wp = at::where(empty, at::ones_like(m), ep / sum);
  at::Tensor ws = at::where(empty, at::zeros_like(m), es / sum);
  TensorMap out;
  // [Hq, T] weights -> [T, Hq, 1].
  out["output"] = bf16(f32(get(in, "prefix_output")) * wp.t().unsqueeze(-1) +
                       f32(get(in, "suffix_output")) * ws.t().unsqueeze(-1));
  out["output_lse"] = at::where(empty, m, at::log(sum) + m).contiguous();
  return out;
}
} // namespace

// output: fp32 math rounded once to bf16 (bf16Elementwise). output_lse =
// log(e^(p-m) + e^(s-m)) + m in fp32: exp and log within a few fp32 ulps on
// any device put the log term (in [0, ln 2]) off by under 1e-6, and adding m
// rounds to half an ulp of |lse| (under 1e-6 for the LSEs up to about 20
// here): 1e-5 absolute plus 1e-6 relative. An lse computed in bf16 is off by
// up to 2^-9 relative (0.04 at 20).
ATREX_REGISTER_OP(merge_attn_states,
                  {{"output", bf16Elementwise()},
                   {"output_lse", tol(1e-5, 1e-6, 0, 1e-6)}},
                  generate, reference, {"prefix_lse", "suffix_lse"});

} // namespace atrex::rt::ops
