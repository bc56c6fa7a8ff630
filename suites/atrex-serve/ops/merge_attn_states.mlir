// merge_attn_states: combine two partial attention results over disjoint key
// sets (prefix and suffix, split-KV) by their log-sum-exp (as vLLM's
// merge_attn_states; section 2.2 of arXiv:2501.01005):
//   p, s = prefix_lse, suffix_lse with +inf read as -inf (FlashAttention-2
//   returns +inf for an empty key set, FlashAttention-3 -inf),
//   m = max(p, s), wp = exp(p - m), ws = exp(s - m),
//   output = prefix_output * wp / (wp + ws) + suffix_output * ws / (wp + ws),
//   output_lse = log(wp + ws) + m;
//   when both are -inf: output = prefix_output, output_lse = -inf.
//   prefix_output, suffix_output [T, Hq, D] bf16, prefix_lse, suffix_lse [Hq, T] f32
//   -> output [T, Hq, D] bf16, output_lse [Hq, T] f32 (fp32 math, output rounded once)
// Dimensions: T tokens, Hq query heads, D head size.
#ht = affine_map<(h, t) -> (h, t)>
#o3 = affine_map<(t, h, d) -> (t, h, d)>
#w3 = affine_map<(t, h, d) -> (h, t)>
func.func @merge_attn_states(
    %prefix_output: tensor<?x?x?xbf16> {atrex.name = "prefix_output", atrex.dims = ["T", "Hq", "D"]},
    %prefix_lse: tensor<?x?xf32> {atrex.name = "prefix_lse", atrex.dims = ["Hq", "T"]},
    %suffix_output: tensor<?x?x?xbf16> {atrex.name = "suffix_output", atrex.dims = ["T", "Hq", "D"]},
    %suffix_lse: tensor<?x?xf32> {atrex.name = "suffix_lse", atrex.dims = ["Hq", "T"]})
    -> (tensor<?x?x?xbf16> {atrex.name = "output", atrex.dims = ["T", "Hq", "D"]},
        tensor<?x?xf32> {atrex.name = "output_lse", atrex.dims = ["Hq", "T"]})
    attributes {atrex.operator = "merge_attn_states",
    atrex.entry = {summary = "merge two partial attention states by their LSE: m = max(p, s) with +inf lse read as -inf, out = (e^(p-m) prefix_output + e^(s-m) suffix_output) / (e^(p-m) + e^(s-m)), out_lse = log(e^(p-m) + e^(s-m)) + m (both -inf: prefix_output, -inf); outputs [T, Hq, D] bf16, LSEs [Hq, T] fp32",
      keys = ["T", "Hq", "D"], key_doc = "T tokens, Hq query heads, D head size",
      example = {T = 8, Hq = 4, D = 64},
      args = ["output", "output_lse", "prefix_output", "prefix_lse", "suffix_output", "suffix_lse"]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, Hq = 32, D = 128}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, Hq = 32, D = 128}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %t = tensor.dim %prefix_output, %c0 : tensor<?x?x?xbf16>
  %hq = tensor.dim %prefix_output, %c1 : tensor<?x?x?xbf16>
  %d = tensor.dim %prefix_output, %c2 : tensor<?x?x?xbf16>
  // Per (head, token): maximumf, 2 subf, addf, 2 divf, addf = 7 FLOPs,
  // 2 exp, 1 log; the inf handling is compares and selects.
  %w_init = tensor.empty(%hq, %t) : tensor<?x?xf32>
  %w:3 = linalg.generic {indexing_maps = [#ht, #ht, #ht, #ht, #ht],
                         iterator_types = ["parallel", "parallel"]}
      ins(%prefix_lse, %suffix_lse : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%w_init, %w_init, %w_init : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  ^bb0(%p_raw: f32, %s_raw: f32, %o0: f32, %o1: f32, %o2: f32):
    %p_is_inf = arith.cmpf oeq, %p_raw, %pinf : f32
    %p = arith.select %p_is_inf, %ninf, %p_raw : f32
    %s_is_inf = arith.cmpf oeq, %s_raw, %pinf : f32
    %s = arith.select %s_is_inf, %ninf, %s_raw : f32
    %m = arith.maximumf %p, %s : f32
    %dp = arith.subf %p, %m : f32
    %ds = arith.subf %s, %m : f32
    %ep = math.exp %dp : f32
    %es = math.exp %ds : f32
    %sum = arith.addf %ep, %es : f32
    %wp = arith.divf %ep, %sum : f32
    %ws = arith.divf %es, %sum : f32
    %lg = math.log %sum : f32
    %lse = arith.addf %lg, %m : f32
    // Both sides empty: keep prefix_output (weights 1 and 0), lse -inf.
    %empty = arith.cmpf oeq, %m, %ninf : f32
    %wp_r = arith.select %empty, %one, %wp : f32
    %ws_r = arith.select %empty, %zero, %ws : f32
    %lse_r = arith.select %empty, %ninf, %lse : f32
    linalg.yield %wp_r, %ws_r, %lse_r : f32, f32, f32
  } -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  // Per element: 2 mulf, addf = 3 FLOPs.
  %out_init = tensor.empty(%t, %hq, %d) : tensor<?x?x?xbf16>
  %out = linalg.generic {indexing_maps = [#o3, #o3, #w3, #w3, #o3],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%prefix_output, %suffix_output, %w#0, %w#1
          : tensor<?x?x?xbf16>, tensor<?x?x?xbf16>, tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%out_init : tensor<?x?x?xbf16>) {
  ^bb0(%po: bf16, %so: bf16, %wp: f32, %ws: f32, %o: bf16):
    %pf = arith.extf %po : bf16 to f32
    %sf = arith.extf %so : bf16 to f32
    %a = arith.mulf %pf, %wp : f32
    %b = arith.mulf %sf, %ws : f32
    %r = arith.addf %a, %b : f32
    %rb = arith.truncf %r : f32 to bf16
    linalg.yield %rb : bf16
  } -> tensor<?x?x?xbf16>
  return %out, %w#2 : tensor<?x?x?xbf16>, tensor<?x?xf32>
}
