// fused_add_rms_norm: r = x + residual (bf16, written back), y = rms_norm(r).
//   x [T, H] bf16, residual [T, H] bf16, w [H] bf16, eps f32
//   -> x_out [T, H] bf16 (the normalized x), residual_out [T, H] bf16 (both in place in the entry point)
// Dimensions: T tokens, H hidden size.
#rows = affine_map<(t, h) -> (t, h)>
#row = affine_map<(t, h) -> (t)>
#col = affine_map<(t, h) -> (h)>
#id1 = affine_map<(t) -> (t)>
func.func @fused_add_rms_norm(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "H"]},
    %residual: tensor<?x?xbf16> {atrex.name = "residual", atrex.dims = ["T", "H"]},
    %w: tensor<?xbf16> {atrex.name = "w", atrex.dims = ["H"]},
    %eps: f32 {atrex.name = "eps"})
    -> (tensor<?x?xbf16> {atrex.name = "x_out", atrex.dims = ["T", "H"]},
        tensor<?x?xbf16> {atrex.name = "residual_out", atrex.dims = ["T", "H"]})
    attributes {atrex.operator = "fused_add_rms_norm",
    atrex.entry = {summary = "r = x + residual (written back into residual), x = rms_norm(r) * w (written back into x)",
      keys = ["T", "H"], key_doc = "T tokens, H hidden size", example = {T = 4, H = 256},
      args = ["x", "residual", "w", "eps"]},
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
  // r = x + residual, rounded to bf16: 1 FLOP per element.
  %r_init = tensor.empty(%t, %h) : tensor<?x?xbf16>
  %r = linalg.generic {indexing_maps = [#rows, #rows, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %residual : tensor<?x?xbf16>, tensor<?x?xbf16>)
      outs(%r_init : tensor<?x?xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %af, %bf : f32
    %sb = arith.truncf %s : f32 to bf16
    linalg.yield %sb : bf16
  } -> tensor<?x?xbf16>
  // sum of squares per token: 2 FLOPs per element.
  %acc_init = tensor.empty(%t) : tensor<?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc_init : tensor<?xf32>) -> tensor<?xf32>
  %sumsq = linalg.generic {indexing_maps = [#rows, #row],
                           iterator_types = ["parallel", "reduction"]}
      ins(%r : tensor<?x?xbf16>) outs(%acc : tensor<?xf32>) {
  ^bb0(%rv: bf16, %s: f32):
    %rf = arith.extf %rv : bf16 to f32
    %sq = arith.mulf %rf, %rf : f32
    %sum = arith.addf %s, %sq : f32
    linalg.yield %sum : f32
  } -> tensor<?xf32>
  // inverse RMS per token: 2 FLOPs and one rsqrt.
  %inv_init = tensor.empty(%t) : tensor<?xf32>
  %inv = linalg.generic {indexing_maps = [#id1, #id1],
                         iterator_types = ["parallel"]}
      ins(%sumsq : tensor<?xf32>) outs(%inv_init : tensor<?xf32>) {
  ^bb0(%s: f32, %o: f32):
    %mean = arith.divf %s, %h_f32 : f32
    %var = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %var : f32
    linalg.yield %rs : f32
  } -> tensor<?xf32>
  // scale and weight: 2 FLOPs per element.
  %out_init = tensor.empty(%t, %h) : tensor<?x?xbf16>
  %out = linalg.generic {indexing_maps = [#rows, #row, #col, #rows],
                         iterator_types = ["parallel", "parallel"]}
      ins(%r, %inv, %w : tensor<?x?xbf16>, tensor<?xf32>, tensor<?xbf16>)
      outs(%out_init : tensor<?x?xbf16>) {
  ^bb0(%rv: bf16, %rs: f32, %wv: bf16, %o: bf16):
    %rf = arith.extf %rv : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %n = arith.mulf %rf, %rs : f32
    %y = arith.mulf %n, %wf : f32
    %yb = arith.truncf %y : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<?x?xbf16>
  return %out, %r : tensor<?x?xbf16>, tensor<?x?xbf16>
}
