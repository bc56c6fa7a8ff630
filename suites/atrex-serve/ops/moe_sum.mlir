// moe_sum: the sum over the K routed experts of each token's (already
// weighted) expert outputs (vLLM's moe_sum, the last step of the unfused MoE
// path): out[t, h] = sum_k input[t, k, h].
//   input [T, K, H] bf16 -> out [T, H] bf16 (accumulated in f32, rounded once)
// Dimensions: T tokens, K experts per token, H hidden size.
#in = affine_map<(t, h, k) -> (t, k, h)>
#o = affine_map<(t, h, k) -> (t, h)>
#th = affine_map<(t, h) -> (t, h)>
func.func @moe_sum(
    %input: tensor<?x?x?xbf16> {atrex.name = "input", atrex.dims = ["T", "K", "H"]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["T", "H"]})
    attributes {atrex.operator = "moe_sum",
    atrex.entry = {summary = "out[t, :] = sum_k input[t, k, :]; input [T, K, H] bf16 (weighted expert outputs), out [T, H] bf16, fp32 accumulation",
      keys = ["T", "K", "H"], key_doc = "T tokens, K experts per token, H hidden size",
      example = {T = 4, K = 8, H = 256},
      args = ["out", "input"]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, K = 8, H = 2048}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, K = 8, H = 2048}}]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %t = tensor.dim %input, %c0 : tensor<?x?x?xbf16>
  %h = tensor.dim %input, %c2 : tensor<?x?x?xbf16>
  // addf per (t, k, h): K FLOPs per output.
  %s_init = tensor.empty(%t, %h) : tensor<?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [#in, #o],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%input : tensor<?x?x?xbf16>) outs(%s0 : tensor<?x?xf32>) {
  ^bb0(%x: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %r = arith.addf %acc, %xf : f32
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
