// rms_norm: y = x / sqrt(mean(x^2) + eps) * w, bf16 in/out, fp32 accumulate.
//   x [T, H] bf16, w [H] bf16, eps f32 -> out [T, H] bf16
// Dimensions: T tokens, H hidden size.
#rows = affine_map<(t, h) -> (t, h)>
#row = affine_map<(t, h) -> (t)>
#col = affine_map<(t, h) -> (h)>
#id1 = affine_map<(t) -> (t)>
func.func @rms_norm(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "H"]},
    %w: tensor<?xbf16> {atrex.name = "w", atrex.dims = ["H"]},
    %eps: f32 {atrex.name = "eps"})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["T", "H"]})
    attributes {atrex.operator = "rms_norm",
    atrex.entry = {summary = "out = x / sqrt(mean(x^2, -1) + eps) * w; bf16 in/out, fp32 accumulate",
      keys = ["T", "H"], key_doc = "T tokens, H hidden size", example = {T = 4, H = 256},
      args = ["out", "x", "w", "eps"]},
    atrex.dtype_params = {act = bf16},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, H = 4096}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, H = 8192}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %h = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %h_i64 = arith.index_cast %h : index to i64
  %h_f32 = arith.sitofp %h_i64 : i64 to f32
  // sum of squares per token: 2 FLOPs per element.
  %acc_init = tensor.empty(%t) : tensor<?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc_init : tensor<?xf32>) -> tensor<?xf32>
  %sumsq = linalg.generic {indexing_maps = [#rows, #row],
                           iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xbf16>) outs(%acc : tensor<?xf32>) {
  ^bb0(%xv: bf16, %s: f32):
    %xf = arith.extf %xv : bf16 to f32
    %sq = arith.mulf %xf, %xf : f32
    %sum = arith.addf %s, %sq : f32
    linalg.yield %sum : f32
  } -> tensor<?xf32>
  // inverse RMS per token: divf, addf and one rsqrt.
  %inv_init = tensor.empty(%t) : tensor<?xf32>
  %inv = linalg.generic {indexing_maps = [#id1, #id1],
                         iterator_types = ["parallel"]}
      ins(%sumsq : tensor<?xf32>) outs(%inv_init : tensor<?xf32>) {
  ^bb0(%s: f32, %o: f32):
    %mean = arith.divf %s, %h_f32 : f32
    %var = arith.addf %mean, %eps : f32
    %r = math.rsqrt %var : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  // scale and weight: 2 FLOPs per element.
  %out_init = tensor.empty(%t, %h) : tensor<?x?xbf16>
  %out = linalg.generic {indexing_maps = [#rows, #row, #col, #rows],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x, %inv, %w : tensor<?x?xbf16>, tensor<?xf32>, tensor<?xbf16>)
      outs(%out_init : tensor<?x?xbf16>) {
  ^bb0(%xv: bf16, %r: f32, %wv: bf16, %o: bf16):
    %xf = arith.extf %xv : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %n = arith.mulf %xf, %r : f32
    %y = arith.mulf %n, %wf : f32
    %yb = arith.truncf %y : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<?x?xbf16>
  return %out : tensor<?x?xbf16>
}
