// static_scaled_fp8_quant: one given (calibrated) scale for the whole tensor,
//   q = clamp(x / scale, -448, 448) as e4m3 (fn).
//   x [T, H] bf16, scale [1] f32 -> out [T, H] f8e4m3
// Dimensions: T tokens, H hidden size. The scale is a one-element fp32
// tensor read on the device; a kernel that multiplies by the fp32 reciprocal
// 1/scale (vLLM's static_scaled_fp8_quant) differs from x / scale by at most
// one fp32 ulp before the e4m3 rounding.
#x2 = affine_map<(t, h) -> (t, h)>
func.func @static_scaled_fp8_quant(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "H"]},
    %scale: tensor<1xf32> {atrex.name = "scale", atrex.dims = [1]})
    -> (tensor<?x?xf8E4M3FN> {atrex.name = "out", atrex.dims = ["T", "H"]})
    attributes {atrex.operator = "static_scaled_fp8_quant",
    atrex.entry = {summary = "per-tensor static fp8 quantization with a given scale: out = clamp(x / scale[0], -448, 448) in e4m3fn; scale is a one-element fp32 tensor",
      keys = ["T", "H"], key_doc = "T tokens, H hidden size", example = {T = 4, H = 256},
      args = ["out", "x", "scale"]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, H = 4096}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, H = 4096}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %fp8_max = arith.constant 448.0 : f32
  %fp8_min = arith.constant -448.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %h = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %s = tensor.extract %scale[%c0] : tensor<1xf32>
  // quantize: divf, maximumf, minimumf = 3 FLOPs per element.
  %q_init = tensor.empty(%t, %h) : tensor<?x?xf8E4M3FN>
  %q = linalg.generic {indexing_maps = [#x2, #x2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xbf16>) outs(%q_init : tensor<?x?xf8E4M3FN>) {
  ^bb0(%v: bf16, %o: f8E4M3FN):
    %vf = arith.extf %v : bf16 to f32
    %d = arith.divf %vf, %s : f32
    %lo = arith.maximumf %d, %fp8_min : f32
    %hi = arith.minimumf %lo, %fp8_max : f32
    %r = arith.truncf %hi : f32 to f8E4M3FN
    linalg.yield %r : f8E4M3FN
  } -> tensor<?x?xf8E4M3FN>
  return %q : tensor<?x?xf8E4M3FN>
}
