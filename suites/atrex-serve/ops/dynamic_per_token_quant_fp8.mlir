// dynamic_per_token_quant_fp8: one scale per token (row),
//   s = max(amax(|x|), eps) / 448, xq = clamp(x / s, -448, 448) as e4m3 (fn).
//   x [T, H] bf16, eps f32 -> out_q [T, H] f8e4m3, out_s [T, 1] f32
// Dimensions: T tokens, H hidden size. Without the optional scale upper
// bound (of vLLM's dynamic_per_token_scaled_fp8_quant).
#x2 = affine_map<(t, h) -> (t, h)>
#r2 = affine_map<(t, h) -> (t, 0)>
#s2 = affine_map<(t, i) -> (t, i)>
func.func @dynamic_per_token_quant_fp8(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "H"]},
    %eps: f32 {atrex.name = "eps"})
    -> (tensor<?x?xf8E4M3FN> {atrex.name = "out_q", atrex.dims = ["T", "H"]},
        tensor<?x1xf32> {atrex.name = "out_s", atrex.dims = ["T", 1]})
    attributes {atrex.operator = "dynamic_per_token_quant_fp8",
    atrex.entry = {summary = "one scale per token: s = max(absmax(x[t, :]), eps) / 448, q = clamp(x / s, -448, 448) in e4m3fn; fp32 scales [T, 1]",
      keys = ["T", "H"], key_doc = "T tokens, H hidden size", example = {T = 4, H = 256},
      args = ["out_q", "out_s", "x", "eps"]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, H = 4096}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, H = 4096}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %fp8_max = arith.constant 448.0 : f32
  %fp8_min = arith.constant -448.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %h = tensor.dim %x, %c1 : tensor<?x?xbf16>
  // amax per token: absf + maximumf = 2 FLOPs per element.
  %amax_init = tensor.empty(%t) : tensor<?x1xf32>
  %amax0 = linalg.fill ins(%zero : f32) outs(%amax_init : tensor<?x1xf32>) -> tensor<?x1xf32>
  %amax = linalg.generic {indexing_maps = [#x2, #r2],
                          iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xbf16>) outs(%amax0 : tensor<?x1xf32>) {
  ^bb0(%v: bf16, %m: f32):
    %vf = arith.extf %v : bf16 to f32
    %a = math.absf %vf : f32
    %mx = arith.maximumf %m, %a : f32
    linalg.yield %mx : f32
  } -> tensor<?x1xf32>
  // scale per token: maximumf with eps, divf by 448 = 2 FLOPs per token.
  %s_init = tensor.empty(%t) : tensor<?x1xf32>
  %scales = linalg.generic {indexing_maps = [#s2, #s2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%amax : tensor<?x1xf32>) outs(%s_init : tensor<?x1xf32>) {
  ^bb0(%m: f32, %o: f32):
    %c = arith.maximumf %m, %eps : f32
    %s = arith.divf %c, %fp8_max : f32
    linalg.yield %s : f32
  } -> tensor<?x1xf32>
  // quantize: divf, maximumf, minimumf = 3 FLOPs per element.
  %q_init = tensor.empty(%t, %h) : tensor<?x?xf8E4M3FN>
  %q = linalg.generic {indexing_maps = [#x2, #r2, #x2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %scales : tensor<?x?xbf16>, tensor<?x1xf32>)
      outs(%q_init : tensor<?x?xf8E4M3FN>) {
  ^bb0(%v: bf16, %s: f32, %o: f8E4M3FN):
    %vf = arith.extf %v : bf16 to f32
    %d = arith.divf %vf, %s : f32
    %lo = arith.maximumf %d, %fp8_min : f32
    %hi = arith.minimumf %lo, %fp8_max : f32
    %r = arith.truncf %hi : f32 to f8E4M3FN
    linalg.yield %r : f8E4M3FN
  } -> tensor<?x?xf8E4M3FN>
  return %q, %scales : tensor<?x?xf8E4M3FN>, tensor<?x1xf32>
}
