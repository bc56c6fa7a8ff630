// fused_qk_norm_rope: per-head RMSNorm of the query and key heads of a packed
// QKV activation, then NeoX-style RoPE on them, in place; value heads
// untouched (vLLM's fused_qk_norm_rope for Qwen3's q_norm / k_norm).
// For token t and head h of the first Hq + Hk heads (q heads, then k heads),
// with w = q_weight for a q head and k_weight for a k head:
//   n = x * rsqrt(mean(x^2) + eps) * w                (over the head's D values)
//   o[i] = n[i] cos[i] - n[i + D/2] sin[i],  o[i + D/2] = n[i + D/2] cos[i] + n[i] sin[i]
// with cos = cos_sin_cache[p, :D/2], sin = cos_sin_cache[p, D/2:], p = position_ids[t]
// (rotary_embedding's cache layout, rotary dim = head dim). fp32 throughout,
// one bf16 rounding per element (the normalized values are not rounded before
// the rotation, as the fused kernel keeps them in registers).
//   qkv [T, (Hq + 2 Hk) * D] bf16 (q heads, k heads, v heads), q_weight [D] bf16,
//   k_weight [D] bf16, eps f32, cos_sin_cache [P, D] f32, position_ids [T] i64
//   -> qkv_out [T, (Hq + 2 Hk) * D] bf16 (the in-place update, as a result)
// Dimensions: T tokens, Hq query heads, Hk key (= value) heads, D head size,
// P cached positions. The entry point's num_heads_q, num_heads_k, num_heads_v,
// head_dim and is_neox are fixed inputs (Hq, Hk, Hk, D, true); no tensor
// carries Hq or Hk alone, so the body reads them from atrex.symbol constants.
// Bytes: only the cache rows named by position_ids are read (atrex.access
// rows); of qkv only the q and k heads, the first (Hq + Hk) * D columns of
// every token, are read and written back (atrex.access columns on qkv and
// qkv_out): the value heads are neither needed nor changed.
#hd = affine_map<(t, h, i) -> (t, h, i)>
#h2 = affine_map<(t, h, i) -> (t, h)>
#pos = affine_map<(t, h, i) -> (t)>
#th = affine_map<(t, h) -> (t, h)>
func.func @fused_qk_norm_rope(
    %qkv: tensor<?x?xbf16> {atrex.name = "qkv", atrex.dims = ["T", "(Hq+2*Hk)*D"],
                            atrex.access = {kind = "columns", count = "(Hq+Hk)*D"}},
    %eps: f32 {atrex.name = "eps"},
    %q_weight: tensor<?xbf16> {atrex.name = "q_weight", atrex.dims = ["D"]},
    %k_weight: tensor<?xbf16> {atrex.name = "k_weight", atrex.dims = ["D"]},
    %cos_sin_cache: tensor<?x?xf32> {atrex.name = "cos_sin_cache", atrex.dims = ["P", "D"],
                                      atrex.access = {kind = "rows", index = "position_ids"}},
    %position_ids: tensor<?xi64> {atrex.name = "position_ids", atrex.dims = ["T"]})
    -> (tensor<?x?xbf16> {atrex.name = "qkv_out", atrex.dims = ["T", "(Hq+2*Hk)*D"],
                          atrex.access = {kind = "columns", count = "(Hq+Hk)*D"}})
    attributes {atrex.operator = "fused_qk_norm_rope",
    atrex.entry = {summary = "in place on qkv [T, (Hq+2Hk)*D] bf16 (q, k, v heads): each q and k head is RMS-normalized over its D values (fp32, eps, weight q_weight or k_weight [D] bf16), then rotated NeoX-style with cos_sin_cache[position_ids[t]] ([P, D] fp32: cos | sin); one bf16 rounding; v heads unchanged",
      keys = ["T", "Hq", "Hk", "D", "P"],
      key_doc = "T tokens, Hq query heads, Hk key heads (= value heads), D head size (= rotary dim), P cache positions",
      example = {T = 4, Hq = 4, Hk = 2, D = 64, P = 64},
      args = ["qkv", "num_heads_q: int64_t", "num_heads_k: int64_t", "num_heads_v: int64_t",
              "head_dim: int64_t", "eps", "q_weight", "k_weight", "cos_sin_cache", "is_neox: bool",
              "position_ids"],
      constraints = [["D % 2 == 0", "D must be a multiple of 2"]]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, Hq = 32, Hk = 8, D = 128, P = 40960},
       facts = {position_ids = {iota = {start = 4000}}}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, Hq = 64, Hk = 8, D = 128, P = 40960},
       facts = {position_ids = {iota = {}}}}],
    atrex.fixed_inputs = {num_heads_q = "Hq", num_heads_k = "Hk", num_heads_v = "Hk",
                          head_dim = "D", is_neox = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %hq = arith.constant {atrex.symbol = "Hq"} -1 : index
  %hk = arith.constant {atrex.symbol = "Hk"} -1 : index
  %t = tensor.dim %qkv, %c0 : tensor<?x?xbf16>
  %w = tensor.dim %qkv, %c1 : tensor<?x?xbf16>
  %d = tensor.dim %q_weight, %c0 : tensor<?xbf16>
  %nh = arith.divui %w, %d : index
  %nqk = arith.addi %hq, %hk : index
  %half = arith.divui %d, %c2 : index
  %d_i64 = arith.index_cast %d : index to i64
  %d_f32 = arith.sitofp %d_i64 : i64 to f32
  %x = tensor.expand_shape %qkv [[0], [1, 2]] output_shape [%t, %nh, %d]
      : tensor<?x?xbf16> into tensor<?x?x?xbf16>
  // The q and k heads are the first Hq + Hk heads.
  %qk = tensor.extract_slice %x[0, 0, 0] [%t, %nqk, %d] [1, 1, 1]
      : tensor<?x?x?xbf16> to tensor<?x?x?xbf16>

  // Sum of squares per (token, head): mulf, addf = 2 FLOPs per element.
  %ss_init = tensor.empty(%t, %nqk) : tensor<?x?xf32>
  %ss0 = linalg.fill ins(%zero : f32) outs(%ss_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %ss = linalg.generic {indexing_maps = [#hd, #h2],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%qk : tensor<?x?x?xbf16>) outs(%ss0 : tensor<?x?xf32>) {
  ^bb0(%v: bf16, %acc: f32):
    %vf = arith.extf %v : bf16 to f32
    %sq = arith.mulf %vf, %vf : f32
    %sum = arith.addf %acc, %sq : f32
    linalg.yield %sum : f32
  } -> tensor<?x?xf32>
  // Inverse RMS per (token, head): divf, addf and one rsqrt.
  %inv_init = tensor.empty(%t, %nqk) : tensor<?x?xf32>
  %inv = linalg.generic {indexing_maps = [#th, #th],
                         iterator_types = ["parallel", "parallel"]}
      ins(%ss : tensor<?x?xf32>) outs(%inv_init : tensor<?x?xf32>) {
  ^bb0(%s: f32, %o: f32):
    %mean = arith.divf %s, %d_f32 : f32
    %var = arith.addf %mean, %eps : f32
    %r = math.rsqrt %var : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>

  // Normalize and rotate, per pair (i, i + D/2): n1 = x1*r*w1, n2 = x2*r*w2
  // (4 mulf), o1 = n1*cos - n2*sin, o2 = n2*cos + n1*sin (4 mulf, subf, addf):
  // 10 FLOPs per pair, 5 per element. The weight is q_weight's for heads
  // h < Hq, k_weight's otherwise (selects are free).
  %x1 = tensor.extract_slice %qk[0, 0, 0] [%t, %nqk, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> to tensor<?x?x?xbf16>
  %x2 = tensor.extract_slice %qk[0, 0, %half] [%t, %nqk, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> to tensor<?x?x?xbf16>
  %o_init = tensor.empty(%t, %nqk, %half) : tensor<?x?x?xbf16>
  %o:2 = linalg.generic {indexing_maps = [#pos, #hd, #hd, #h2, #hd, #hd],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%position_ids, %x1, %x2, %inv
          : tensor<?xi64>, tensor<?x?x?xbf16>, tensor<?x?x?xbf16>, tensor<?x?xf32>)
      outs(%o_init, %o_init : tensor<?x?x?xbf16>, tensor<?x?x?xbf16>) {
  ^bb0(%p: i64, %a: bf16, %b: bf16, %r: f32, %o1: bf16, %o2: bf16):
    %h = linalg.index 1 : index
    %i = linalg.index 2 : index
    %is_q = arith.cmpi ult, %h, %hq : index
    %si = arith.addi %i, %half : index
    %wq1 = tensor.extract %q_weight[%i] : tensor<?xbf16>
    %wk1 = tensor.extract %k_weight[%i] : tensor<?xbf16>
    %wq2 = tensor.extract %q_weight[%si] : tensor<?xbf16>
    %wk2 = tensor.extract %k_weight[%si] : tensor<?xbf16>
    %w1 = arith.select %is_q, %wq1, %wk1 : bf16
    %w2 = arith.select %is_q, %wq2, %wk2 : bf16
    %w1f = arith.extf %w1 : bf16 to f32
    %w2f = arith.extf %w2 : bf16 to f32
    %pi = arith.index_cast %p : i64 to index
    %c = tensor.extract %cos_sin_cache[%pi, %i] : tensor<?x?xf32>
    %s = tensor.extract %cos_sin_cache[%pi, %si] : tensor<?x?xf32>
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %ar = arith.mulf %af, %r : f32
    %n1 = arith.mulf %ar, %w1f : f32
    %br = arith.mulf %bf, %r : f32
    %n2 = arith.mulf %br, %w2f : f32
    %n1c = arith.mulf %n1, %c : f32
    %n2s = arith.mulf %n2, %s : f32
    %r1 = arith.subf %n1c, %n2s : f32
    %n2c = arith.mulf %n2, %c : f32
    %n1s = arith.mulf %n1, %s : f32
    %r2 = arith.addf %n2c, %n1s : f32
    %r1b = arith.truncf %r1 : f32 to bf16
    %r2b = arith.truncf %r2 : f32 to bf16
    linalg.yield %r1b, %r2b : bf16, bf16
  } -> (tensor<?x?x?xbf16>, tensor<?x?x?xbf16>)
  // Written back into the q and k heads; the v heads keep their values.
  %lo = tensor.insert_slice %o#0 into %x[0, 0, 0] [%t, %nqk, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> into tensor<?x?x?xbf16>
  %full = tensor.insert_slice %o#1 into %lo[0, 0, %half] [%t, %nqk, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> into tensor<?x?x?xbf16>
  %qkv_out = tensor.collapse_shape %full [[0], [1, 2]]
      : tensor<?x?x?xbf16> into tensor<?x?xbf16>
  return %qkv_out : tensor<?x?xbf16>
}
