// fp8_blockscale_fused_moe: fused_moe with fp8 e4m3 expert weights and
// 128x128 block scales (DeepSeek-V3 style). Activations are quantized
// dynamically per token and group of 128 (s = max(amax, 1e-10) / 448, as
// per_token_group_quant_fp8), each 128-wide K block is an fp8 matrix product
// accumulated in fp32, then scaled by s_act * s_weight and summed over blocks
// on the vector units. Intermediates (gate_up, silu_and_mul) are bf16.
//   x [T, H] bf16, w1q [E, 2*I, H] f8e4m3, w1s [E, 2*I/128, H/128] f32,
//   w2q [E, H, I] f8e4m3, w2s [E, H/128, I/128] f32,
//   topk_weights [T, K] f32, topk_ids [T, K] i32 -> out [T, H] bf16
// Dimensions: T tokens, H hidden size, E experts, I expert intermediate size
//   (H, I multiples of 128), K experts per token.
// Data-dependent bytes (fact: topk_ids): weights and weight scales are read
// only for the experts routed to (atrex.access rows).
#x3 = affine_map<(t, b, j) -> (t, b, j)>
#x3g = affine_map<(t, b, j) -> (t, b)>
#x2 = affine_map<(t, b) -> (t, b)>
#a4 = affine_map<(t, k, b, j) -> (t, k, b, j)>
#a4g = affine_map<(t, k, b, j) -> (t, k, b)>
#a3 = affine_map<(t, k, b) -> (t, k, b)>
#p1_x = affine_map<(t, k, n, b, j) -> (t, b, j)>
#p1_id = affine_map<(t, k, n, b, j) -> (t, k)>
#p1_o = affine_map<(t, k, n, b, j) -> (t, k, n, b)>
#g1_p = affine_map<(t, k, n, b) -> (t, k, n, b)>
#g1_s = affine_map<(t, k, n, b) -> (t, b)>
#g1_id = affine_map<(t, k, n, b) -> (t, k)>
#g1_o = affine_map<(t, k, n, b) -> (t, k, n)>
#e3 = affine_map<(t, k, n) -> (t, k, n)>
#p2_a = affine_map<(t, k, h, b, j) -> (t, k, b, j)>
#p2_id = affine_map<(t, k, h, b, j) -> (t, k)>
#p2_o = affine_map<(t, k, h, b, j) -> (t, k, h, b)>
#g2_s = affine_map<(t, k, h, b) -> (t, k, b)>
#c_y = affine_map<(t, h, k) -> (t, k, h)>
#c_w = affine_map<(t, h, k) -> (t, k)>
#c_o = affine_map<(t, h, k) -> (t, h)>
#th = affine_map<(t, h) -> (t, h)>
func.func @fp8_blockscale_fused_moe(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "H"]},
    %w1: tensor<?x?x?xf8E4M3FN> {atrex.name = "w1q", atrex.dims = ["E", "2*I", "H"],
                                 atrex.access = {kind = "rows", index = "topk_ids"}},
    %w1_scale: tensor<?x?x?xf32> {atrex.name = "w1s", atrex.dims = ["E", "2*I/128", "H/128"],
                                  atrex.access = {kind = "rows", index = "topk_ids"}},
    %w2: tensor<?x?x?xf8E4M3FN> {atrex.name = "w2q", atrex.dims = ["E", "H", "I"],
                                 atrex.access = {kind = "rows", index = "topk_ids"}},
    %w2_scale: tensor<?x?x?xf32> {atrex.name = "w2s", atrex.dims = ["E", "H/128", "I/128"],
                                  atrex.access = {kind = "rows", index = "topk_ids"}},
    %topk_weights: tensor<?x?xf32> {atrex.name = "topk_weights", atrex.dims = ["T", "K"]},
    %topk_ids: tensor<?x?xi32> {atrex.name = "topk_ids", atrex.dims = ["T", "K"]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["T", "H"]})
    attributes {atrex.operator = "fp8_blockscale_fused_moe",
    atrex.entry = {summary = "fused_moe with e4m3 weights and 128x128 block scales (w1s [E, 2I/128, H/128], w2s [E, H/128, I/128]); activations quantized to e4m3 per token and 128-column group before each GEMM (DeepSeek-V3 style), fp32 accumulate, bf16 out",
      keys = ["T", "H", "I", "E", "K"],
      key_doc = "T tokens, H hidden size (multiple of 128), I expert intermediate size (multiple of 128), E experts, K experts per token",
      example = {T = 4, H = 256, I = 128, E = 8, K = 2},
      args = ["out", "x", "w1q", "w1s", "w2q", "w2s", "topk_weights", "topk_ids"],
      constraints = [["H % 128 == 0", "H must be a multiple of 128"],
                     ["I % 128 == 0", "I must be a multiple of 128"], ["K <= E", "K must not exceed E"]]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, H = 7168, E = 256, I = 2048, K = 8},
       facts = {topk_ids = {iota = {mod = 256}}}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, H = 7168, E = 256, I = 2048, K = 8},
       facts = {topk_ids = {iota = {mod = 256}}}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-10 : f32
  %fp8_max = arith.constant 448.0 : f32
  %fp8_min = arith.constant -448.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %h = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %n2 = tensor.dim %w1, %c1 : tensor<?x?x?xf8E4M3FN>
  %i = tensor.dim %w2, %c2 : tensor<?x?x?xf8E4M3FN>
  %topk = tensor.dim %topk_ids, %c1 : tensor<?x?xi32>
  %hb = arith.divui %h, %c128 : index
  %ib = arith.divui %i, %c128 : index

  // 1. quantize x per (token, 128-group): 5 FLOPs per element + 2 per group.
  %xg = tensor.expand_shape %x [[0], [1, 2]] output_shape [%t, %hb, 128]
      : tensor<?x?xbf16> into tensor<?x?x128xbf16>
  %xa_init = tensor.empty(%t, %hb) : tensor<?x?xf32>
  %xa0 = linalg.fill ins(%zero : f32) outs(%xa_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %xamax = linalg.generic {indexing_maps = [#x3, #x3g],
                           iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xg : tensor<?x?x128xbf16>) outs(%xa0 : tensor<?x?xf32>) {
  ^bb0(%v: bf16, %m: f32):
    %vf = arith.extf %v : bf16 to f32
    %a = math.absf %vf : f32
    %mx = arith.maximumf %m, %a : f32
    linalg.yield %mx : f32
  } -> tensor<?x?xf32>
  %sx_init = tensor.empty(%t, %hb) : tensor<?x?xf32>
  %sx = linalg.generic {indexing_maps = [#x2, #x2],
                        iterator_types = ["parallel", "parallel"]}
      ins(%xamax : tensor<?x?xf32>) outs(%sx_init : tensor<?x?xf32>) {
  ^bb0(%m: f32, %o: f32):
    %c = arith.maximumf %m, %eps : f32
    %s = arith.divf %c, %fp8_max : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %xq_init = tensor.empty(%t, %hb) : tensor<?x?x128xf8E4M3FN>
  %xq = linalg.generic {indexing_maps = [#x3, #x3g, #x3],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xg, %sx : tensor<?x?x128xbf16>, tensor<?x?xf32>)
      outs(%xq_init : tensor<?x?x128xf8E4M3FN>) {
  ^bb0(%v: bf16, %s: f32, %o: f8E4M3FN):
    %vf = arith.extf %v : bf16 to f32
    %d = arith.divf %vf, %s : f32
    %lo = arith.maximumf %d, %fp8_min : f32
    %hi = arith.minimumf %lo, %fp8_max : f32
    %r = arith.truncf %hi : f32 to f8E4M3FN
    linalg.yield %r : f8E4M3FN
  } -> tensor<?x?x128xf8E4M3FN>

  // 2. gate_up per K block: 2*T*K*2I*H FLOPs on the matrix engine (fp8).
  %p1_init = tensor.empty(%t, %topk, %n2, %hb) : tensor<?x?x?x?xf32>
  %p1_0 = linalg.fill ins(%zero : f32) outs(%p1_init : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %p1 = linalg.generic {indexing_maps = [#p1_x, #p1_id, #p1_o],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%xq, %topk_ids : tensor<?x?x128xf8E4M3FN>, tensor<?x?xi32>)
      outs(%p1_0 : tensor<?x?x?x?xf32>) attrs = {atrex.engine = "matrix"} {
  ^bb0(%xv: f8E4M3FN, %e32: i32, %acc: f32):
    %in = linalg.index 2 : index
    %iblk = linalg.index 3 : index
    %ij = linalg.index 4 : index
    %base = arith.muli %iblk, %c128 : index
    %col = arith.addi %base, %ij : index
    %e = arith.index_cast %e32 : i32 to index
    %wv = tensor.extract %w1[%e, %in, %col] : tensor<?x?x?xf8E4M3FN>
    %xf = arith.extf %xv : f8E4M3FN to f32
    %wf = arith.extf %wv : f8E4M3FN to f32
    %prod = arith.mulf %xf, %wf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x?xf32>
  // 3. scale and sum the blocks: 3 FLOPs per (t, k, n, block); bf16 result.
  %g_init = tensor.empty(%t, %topk, %n2) : tensor<?x?x?xf32>
  %g0 = linalg.fill ins(%zero : f32) outs(%g_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %g = linalg.generic {indexing_maps = [#g1_p, #g1_s, #g1_id, #g1_o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p1, %sx, %topk_ids : tensor<?x?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xi32>)
      outs(%g0 : tensor<?x?x?xf32>) {
  ^bb0(%pv: f32, %sa: f32, %e32: i32, %acc: f32):
    %in = linalg.index 2 : index
    %iblk = linalg.index 3 : index
    %nb = arith.divui %in, %c128 : index
    %e = arith.index_cast %e32 : i32 to index
    %sb = tensor.extract %w1_scale[%e, %nb, %iblk] : tensor<?x?x?xf32>
    %s = arith.mulf %sa, %sb : f32
    %v = arith.mulf %pv, %s : f32
    %r = arith.addf %acc, %v : f32
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

  // 4. silu_and_mul: 4 FLOPs + 1 exp per (t, k, i); bf16 result.
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

  // 5. quantize a per (t, k, 128-group): 5 FLOPs per element + 2 per group.
  %ag = tensor.expand_shape %a [[0], [1], [2, 3]] output_shape [%t, %topk, %ib, 128]
      : tensor<?x?x?xbf16> into tensor<?x?x?x128xbf16>
  %aa_init = tensor.empty(%t, %topk, %ib) : tensor<?x?x?xf32>
  %aa0 = linalg.fill ins(%zero : f32) outs(%aa_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %aamax = linalg.generic {indexing_maps = [#a4, #a4g],
                           iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%ag : tensor<?x?x?x128xbf16>) outs(%aa0 : tensor<?x?x?xf32>) {
  ^bb0(%v: bf16, %m: f32):
    %vf = arith.extf %v : bf16 to f32
    %av = math.absf %vf : f32
    %mx = arith.maximumf %m, %av : f32
    linalg.yield %mx : f32
  } -> tensor<?x?x?xf32>
  %sa_init = tensor.empty(%t, %topk, %ib) : tensor<?x?x?xf32>
  %sa = linalg.generic {indexing_maps = [#a3, #a3],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%aamax : tensor<?x?x?xf32>) outs(%sa_init : tensor<?x?x?xf32>) {
  ^bb0(%m: f32, %o: f32):
    %c = arith.maximumf %m, %eps : f32
    %s = arith.divf %c, %fp8_max : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?xf32>
  %aq_init = tensor.empty(%t, %topk, %ib) : tensor<?x?x?x128xf8E4M3FN>
  %aq = linalg.generic {indexing_maps = [#a4, #a4g, #a4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ag, %sa : tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>)
      outs(%aq_init : tensor<?x?x?x128xf8E4M3FN>) {
  ^bb0(%v: bf16, %s: f32, %o: f8E4M3FN):
    %vf = arith.extf %v : bf16 to f32
    %d = arith.divf %vf, %s : f32
    %lo = arith.maximumf %d, %fp8_min : f32
    %hi = arith.minimumf %lo, %fp8_max : f32
    %r = arith.truncf %hi : f32 to f8E4M3FN
    linalg.yield %r : f8E4M3FN
  } -> tensor<?x?x?x128xf8E4M3FN>

  // 6. down per K block: 2*T*K*H*I FLOPs on the matrix engine (fp8).
  %p2_init = tensor.empty(%t, %topk, %h, %ib) : tensor<?x?x?x?xf32>
  %p2_0 = linalg.fill ins(%zero : f32) outs(%p2_init : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %p2 = linalg.generic {indexing_maps = [#p2_a, #p2_id, #p2_o],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%aq, %topk_ids : tensor<?x?x?x128xf8E4M3FN>, tensor<?x?xi32>)
      outs(%p2_0 : tensor<?x?x?x?xf32>) attrs = {atrex.engine = "matrix"} {
  ^bb0(%av: f8E4M3FN, %e32: i32, %acc: f32):
    %ih = linalg.index 2 : index
    %iblk = linalg.index 3 : index
    %ij = linalg.index 4 : index
    %base = arith.muli %iblk, %c128 : index
    %col = arith.addi %base, %ij : index
    %e = arith.index_cast %e32 : i32 to index
    %wv = tensor.extract %w2[%e, %ih, %col] : tensor<?x?x?xf8E4M3FN>
    %af = arith.extf %av : f8E4M3FN to f32
    %wf = arith.extf %wv : f8E4M3FN to f32
    %prod = arith.mulf %af, %wf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x?xf32>
  // 7. scale and sum the blocks: 3 FLOPs per (t, k, h, block).
  %y_init = tensor.empty(%t, %topk, %h) : tensor<?x?x?xf32>
  %y0 = linalg.fill ins(%zero : f32) outs(%y_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %y = linalg.generic {indexing_maps = [#g1_p, #g2_s, #g1_id, #g1_o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p2, %sa, %topk_ids : tensor<?x?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xi32>)
      outs(%y0 : tensor<?x?x?xf32>) {
  ^bb0(%pv: f32, %sav: f32, %e32: i32, %acc: f32):
    %ih = linalg.index 2 : index
    %iblk = linalg.index 3 : index
    %hblk = arith.divui %ih, %c128 : index
    %e = arith.index_cast %e32 : i32 to index
    %sb = tensor.extract %w2_scale[%e, %hblk, %iblk] : tensor<?x?x?xf32>
    %s = arith.mulf %sav, %sb : f32
    %v = arith.mulf %pv, %s : f32
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>

  // 8. weighted sum over the K slots: mulf + addf per (t, k, h).
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
