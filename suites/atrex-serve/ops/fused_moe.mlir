// fused_moe: top-k routed experts. For each token t and slot k with expert
// e = topk_ids[t, k]: g = x[t] w1[e]^T (gate then up halves, rounded to bf16),
// a = silu(g[:I]) * g[I:] (bf16), y = a w2[e]^T; out[t] = sum_k topk_weights[t, k] * y.
//   x [T, H] bf16, w1 [E, 2*I, H] bf16, w2 [E, H, I] bf16,
//   topk_weights [T, K] f32, topk_ids [T, K] i32 -> out [T, H] bf16
// Dimensions: T tokens, H hidden size, E experts, I expert intermediate size,
//   K experts per token.
// Data-dependent bytes (fact: topk_ids): w1 and w2 are read only for the
// experts routed to (atrex.access rows). The FLOPs do not depend on the ids.
#g_x = affine_map<(t, k, n, h) -> (t, h)>
#g_id = affine_map<(t, k, n, h) -> (t, k)>
#g_o = affine_map<(t, k, n, h) -> (t, k, n)>
#e3 = affine_map<(t, k, n) -> (t, k, n)>
#d_a = affine_map<(t, k, h, i) -> (t, k, i)>
#d_id = affine_map<(t, k, h, i) -> (t, k)>
#d_o = affine_map<(t, k, h, i) -> (t, k, h)>
#c_y = affine_map<(t, h, k) -> (t, k, h)>
#c_w = affine_map<(t, h, k) -> (t, k)>
#c_o = affine_map<(t, h, k) -> (t, h)>
#th = affine_map<(t, h) -> (t, h)>
func.func @fused_moe(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "H"]},
    %w1: tensor<?x?x?xbf16> {atrex.name = "w1", atrex.dims = ["E", "2*I", "H"],
                             atrex.access = {kind = "rows", index = "topk_ids"}},
    %w2: tensor<?x?x?xbf16> {atrex.name = "w2", atrex.dims = ["E", "H", "I"],
                             atrex.access = {kind = "rows", index = "topk_ids"}},
    %topk_weights: tensor<?x?xf32> {atrex.name = "topk_weights", atrex.dims = ["T", "K"]},
    %topk_ids: tensor<?x?xi32> {atrex.name = "topk_ids", atrex.dims = ["T", "K"]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["T", "H"]})
    attributes {atrex.operator = "fused_moe",
    atrex.entry = {summary = "out[t] = sum_j topk_weights[t,j] * w2[e] (silu(g) * u), [g; u] = w1[e] x[t], e = topk_ids[t,j]; w1 [E, 2I, H], w2 [E, H, I]; bf16, fp32 math",
      keys = ["T", "H", "I", "E", "K"],
      key_doc = "T tokens, H hidden size, I expert intermediate size, E experts, K experts per token",
      example = {T = 4, H = 128, I = 64, E = 8, K = 2},
      args = ["out", "x", "w1", "w2", "topk_weights", "topk_ids"],
      constraints = [["K <= E", "K must not exceed E"]]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, H = 2048, E = 128, I = 768, K = 8},
       facts = {topk_ids = {iota = {mod = 128}}}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, H = 2048, E = 128, I = 768, K = 8},
       facts = {topk_ids = {iota = {mod = 128}}}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %h = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %n2 = tensor.dim %w1, %c1 : tensor<?x?x?xbf16>
  %i = tensor.dim %w2, %c2 : tensor<?x?x?xbf16>
  %topk = tensor.dim %topk_ids, %c1 : tensor<?x?xi32>
  // gate_up = x w1[e]^T: 2*T*K*2I*H FLOPs on the matrix engine.
  %g_init = tensor.empty(%t, %topk, %n2) : tensor<?x?x?xf32>
  %g0 = linalg.fill ins(%zero : f32) outs(%g_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %g = linalg.generic {indexing_maps = [#g_x, #g_id, #g_o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %topk_ids : tensor<?x?xbf16>, tensor<?x?xi32>)
      outs(%g0 : tensor<?x?x?xf32>) attrs = {atrex.engine = "matrix"} {
  ^bb0(%xv: bf16, %e32: i32, %acc: f32):
    %in = linalg.index 2 : index
    %ih = linalg.index 3 : index
    %e = arith.index_cast %e32 : i32 to index
    %wv = tensor.extract %w1[%e, %in, %ih] : tensor<?x?x?xbf16>
    %xf = arith.extf %xv : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %prod = arith.mulf %xf, %wf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  %gb_init = tensor.empty(%t, %topk, %n2) : tensor<?x?x?xbf16>
  %gb = linalg.generic {indexing_maps = [#e3, #e3],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g : tensor<?x?x?xf32>) outs(%gb_init : tensor<?x?x?xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<?x?x?xbf16>
  // silu_and_mul: 4 FLOPs + 1 exp per (t, k, i).
  %gate = tensor.extract_slice %gb[0, 0, 0] [%t, %topk, %i] [1, 1, 1]
      : tensor<?x?x?xbf16> to tensor<?x?x?xbf16>
  %up = tensor.extract_slice %gb[0, 0, %i] [%t, %topk, %i] [1, 1, 1]
      : tensor<?x?x?xbf16> to tensor<?x?x?xbf16>
  %a_init = tensor.empty(%t, %topk, %i) : tensor<?x?x?xbf16>
  %a = linalg.generic {indexing_maps = [#e3, #e3, #e3],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%gate, %up : tensor<?x?x?xbf16>, tensor<?x?x?xbf16>)
      outs(%a_init : tensor<?x?x?xbf16>) {
  ^bb0(%gv: bf16, %uv: bf16, %o: bf16):
    %gf = arith.extf %gv : bf16 to f32
    %uf = arith.extf %uv : bf16 to f32
    %neg = arith.negf %gf : f32
    %ex = math.exp %neg : f32
    %den = arith.addf %one, %ex : f32
    %silu = arith.divf %gf, %den : f32
    %y = arith.mulf %silu, %uf : f32
    %yb = arith.truncf %y : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<?x?x?xbf16>
  // down = a w2[e]^T: 2*T*K*H*I FLOPs on the matrix engine.
  %y_init = tensor.empty(%t, %topk, %h) : tensor<?x?x?xf32>
  %y0 = linalg.fill ins(%zero : f32) outs(%y_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %y = linalg.generic {indexing_maps = [#d_a, #d_id, #d_o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %topk_ids : tensor<?x?x?xbf16>, tensor<?x?xi32>)
      outs(%y0 : tensor<?x?x?xf32>) attrs = {atrex.engine = "matrix"} {
  ^bb0(%av: bf16, %e32: i32, %acc: f32):
    %ih = linalg.index 2 : index
    %ii = linalg.index 3 : index
    %e = arith.index_cast %e32 : i32 to index
    %wv = tensor.extract %w2[%e, %ih, %ii] : tensor<?x?x?xbf16>
    %af = arith.extf %av : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %prod = arith.mulf %af, %wf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  // weighted sum over the K slots: mulf + addf per (t, k, h) on the
  // vector units (a K-long dot product per output).
  %s_init = tensor.empty(%t, %h) : tensor<?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [#c_y, #c_w, #c_o],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y, %topk_weights : tensor<?x?x?xf32>, tensor<?x?xf32>)
      outs(%s0 : tensor<?x?xf32>) attrs = {atrex.engine = "vector"} {
  ^bb0(%yv: f32, %wv: f32, %acc: f32):
    %prod = arith.mulf %yv, %wv : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %out_init = tensor.empty(%t, %h) : tensor<?x?xbf16>
  %out = linalg.generic {indexing_maps = [#th, #th],
                         iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<?x?xf32>) outs(%out_init : tensor<?x?xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<?x?xbf16>
  return %out : tensor<?x?xbf16>
}
