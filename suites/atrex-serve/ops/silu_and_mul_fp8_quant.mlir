// silu_and_mul_fp8_quant: silu_and_mul fused with static per-tensor fp8
// quantization, y = silu(x[..., :D]) * x[..., D:], silu(a) = a / (1 + exp(-a)),
// out = clamp(y / scale, -448, 448) as e4m3 (fn); y stays in f32 (not rounded
// to bf16 in between).
//   x [T, 2*D] bf16, scale [1] f32 -> out [T, D] f8e4m3
// Dimensions: T tokens, D output width (half the input width). The scale is
// a one-element fp32 tensor read on the device (as vLLM's silu_and_mul_quant).
#rows = affine_map<(t, d) -> (t, d)>
func.func @silu_and_mul_fp8_quant(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "2*D"]},
    %scale: tensor<1xf32> {atrex.name = "scale", atrex.dims = [1]})
    -> (tensor<?x?xf8E4M3FN> {atrex.name = "out", atrex.dims = ["T", "D"]})
    attributes {atrex.operator = "silu_and_mul_fp8_quant",
    atrex.entry = {summary = "out = clamp(silu(x[..., :D]) * x[..., D:] / scale[0], -448, 448) in e4m3fn; bf16 in, fp32 math, scale a one-element fp32 tensor",
      keys = ["T", "D"], key_doc = "T tokens, D output width (x is [T, 2D])", example = {T = 4, D = 128},
      args = ["out", "x", "scale"]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, D = 14336}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, D = 14336}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  %fp8_max = arith.constant 448.0 : f32
  %fp8_min = arith.constant -448.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %d2 = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %d = arith.divui %d2, %c2 : index
  %s = tensor.extract %scale[%c0] : tensor<1xf32>
  %gate = tensor.extract_slice %x[0, 0] [%t, %d] [1, 1]
      : tensor<?x?xbf16> to tensor<?x?xbf16>
  %up = tensor.extract_slice %x[0, %d] [%t, %d] [1, 1]
      : tensor<?x?xbf16> to tensor<?x?xbf16>
  // per element: negf, exp, addf, divf, mulf = 4 FLOPs + 1 exp (silu * up),
  // then divf, maximumf, minimumf = 3 FLOPs (quantize).
  %out_init = tensor.empty(%t, %d) : tensor<?x?xf8E4M3FN>
  %out = linalg.generic {indexing_maps = [#rows, #rows, #rows],
                         iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<?x?xbf16>, tensor<?x?xbf16>)
      outs(%out_init : tensor<?x?xf8E4M3FN>) {
  ^bb0(%g: bf16, %u: bf16, %o: f8E4M3FN):
    %gf = arith.extf %g : bf16 to f32
    %uf = arith.extf %u : bf16 to f32
    %neg = arith.negf %gf : f32
    %e = math.exp %neg : f32
    %den = arith.addf %one, %e : f32
    %silu = arith.divf %gf, %den : f32
    %y = arith.mulf %silu, %uf : f32
    %q = arith.divf %y, %s : f32
    %lo = arith.maximumf %q, %fp8_min : f32
    %hi = arith.minimumf %lo, %fp8_max : f32
    %r = arith.truncf %hi : f32 to f8E4M3FN
    linalg.yield %r : f8E4M3FN
  } -> tensor<?x?xf8E4M3FN>
  return %out : tensor<?x?xf8E4M3FN>
}
