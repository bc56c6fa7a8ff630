// per_token_group_quant_fp8: groups of 128 along the last dim, per group
//   s = max(amax(|x|), eps) / 448, xq = clamp(x / s, -448, 448) as e4m3 (fn).
//   x [T, H] bf16, eps f32 -> out_q [T, H] f8e4m3, out_s [T, H/128] f32
// Dimensions: T tokens, H hidden size (a multiple of 128). The entry
// point's group_size is fixed to 128.
#x3 = affine_map<(t, g, i) -> (t, g, i)>
#g3 = affine_map<(t, g, i) -> (t, g)>
#g2 = affine_map<(t, g) -> (t, g)>
func.func @per_token_group_quant_fp8(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "H"]},
    %eps: f32 {atrex.name = "eps"})
    -> (tensor<?x?xf8E4M3FN> {atrex.name = "out_q", atrex.dims = ["T", "H"]},
        tensor<?x?xf32> {atrex.name = "out_s", atrex.dims = ["T", "H/128"]})
    attributes {atrex.operator = "per_token_group_quant_fp8",
    atrex.entry = {summary = "groups of 128 along the last dim: s = max(absmax(g), eps) / 448, q = clamp(x / s, -448, 448) in e4m3fn; fp32 scales [T, H/128]",
      keys = ["T", "H"], key_doc = "T tokens, H hidden size (multiple of 128)", example = {T = 4, H = 256},
      args = ["out_q", "out_s", "x", "group_size: int64_t", "eps"],
      constraints = [["H % 128 == 0", "H must be a multiple of 128"]]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, H = 7168}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, H = 7168}}],
                atrex.fixed_inputs = {group_size = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %fp8_max = arith.constant 448.0 : f32
  %fp8_min = arith.constant -448.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %h = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %g = arith.divui %h, %c128 : index
  %xg = tensor.expand_shape %x [[0], [1, 2]] output_shape [%t, %g, 128]
      : tensor<?x?xbf16> into tensor<?x?x128xbf16>
  // amax per group: absf + maximumf = 2 FLOPs per element.
  %amax_init = tensor.empty(%t, %g) : tensor<?x?xf32>
  %amax0 = linalg.fill ins(%zero : f32) outs(%amax_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %amax = linalg.generic {indexing_maps = [#x3, #g3],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xg : tensor<?x?x128xbf16>) outs(%amax0 : tensor<?x?xf32>) {
  ^bb0(%v: bf16, %m: f32):
    %vf = arith.extf %v : bf16 to f32
    %a = math.absf %vf : f32
    %mx = arith.maximumf %m, %a : f32
    linalg.yield %mx : f32
  } -> tensor<?x?xf32>
  // scale per group: maximumf with eps, divf by 448 = 2 FLOPs per group.
  %s_init = tensor.empty(%t, %g) : tensor<?x?xf32>
  %scales = linalg.generic {indexing_maps = [#g2, #g2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%amax : tensor<?x?xf32>) outs(%s_init : tensor<?x?xf32>) {
  ^bb0(%m: f32, %o: f32):
    %c = arith.maximumf %m, %eps : f32
    %s = arith.divf %c, %fp8_max : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  // quantize: divf, maximumf, minimumf = 3 FLOPs per element.
  %q_init = tensor.empty(%t, %g) : tensor<?x?x128xf8E4M3FN>
  %q = linalg.generic {indexing_maps = [#x3, #g3, #x3],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xg, %scales : tensor<?x?x128xbf16>, tensor<?x?xf32>)
      outs(%q_init : tensor<?x?x128xf8E4M3FN>) {
  ^bb0(%v: bf16, %s: f32, %o: f8E4M3FN):
    %vf = arith.extf %v : bf16 to f32
    %d = arith.divf %vf, %s : f32
    %lo = arith.maximumf %d, %fp8_min : f32
    %hi = arith.minimumf %lo, %fp8_max : f32
    %r = arith.truncf %hi : f32 to f8E4M3FN
    linalg.yield %r : f8E4M3FN
  } -> tensor<?x?x128xf8E4M3FN>
  %xq = tensor.collapse_shape %q [[0], [1, 2]]
      : tensor<?x?x128xf8E4M3FN> into tensor<?x?xf8E4M3FN>
  return %xq, %scales : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}
