// gelu_tanh_and_mul: x[..., 2D] -> gelu_tanh(x[..., :D]) * x[..., D:] (vLLM's
// gelu_tanh_and_mul, the gated MLP of models with hidden_act "gelu_pytorch_tanh",
// e.g. Gemma), gelu_tanh(a) = 0.5 a (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3))).
//   x [T, 2*D] bf16 -> out [T, D] bf16 (computed in f32, rounded once)
// Dimensions: T tokens, D output width (half the input width).
#rows = affine_map<(t, d) -> (t, d)>
func.func @gelu_tanh_and_mul(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "2*D"]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["T", "D"]})
    attributes {atrex.operator = "gelu_tanh_and_mul",
    atrex.entry = {summary = "out = gelu_tanh(x[..., :D]) * x[..., D:], gelu_tanh(a) = 0.5 a (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3))); bf16 in/out, fp32 math",
      keys = ["T", "D"], key_doc = "T tokens, D output width (x is [T, 2D])", example = {T = 4, D = 128},
      args = ["out", "x"]},
    atrex.dtype_params = {act = bf16},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, D = 14336}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, D = 14336}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  // sqrt(2 / pi) and the cubic coefficient of the tanh approximation.
  %beta = arith.constant 0.7978845608028654 : f32
  %kappa = arith.constant 0.044715 : f32
  %t = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %d2 = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %d = arith.divui %d2, %c2 : index
  %gate = tensor.extract_slice %x[0, 0] [%t, %d] [1, 1]
      : tensor<?x?xbf16> to tensor<?x?xbf16>
  %up = tensor.extract_slice %x[0, %d] [%t, %d] [1, 1]
      : tensor<?x?xbf16> to tensor<?x?xbf16>
  // per element: a*a, *a, kappa*, a+, beta*, 1+, 0.5*a, *, *up = 9 FLOPs + 1 tanh.
  %out_init = tensor.empty(%t, %d) : tensor<?x?xbf16>
  %out = linalg.generic {indexing_maps = [#rows, #rows, #rows],
                         iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<?x?xbf16>, tensor<?x?xbf16>)
      outs(%out_init : tensor<?x?xbf16>) {
  ^bb0(%g: bf16, %u: bf16, %o: bf16):
    %gf = arith.extf %g : bf16 to f32
    %uf = arith.extf %u : bf16 to f32
    %sq = arith.mulf %gf, %gf : f32
    %cube = arith.mulf %sq, %gf : f32
    %kc = arith.mulf %kappa, %cube : f32
    %sum = arith.addf %gf, %kc : f32
    %inner = arith.mulf %beta, %sum : f32
    %th = math.tanh %inner : f32
    %onep = arith.addf %one, %th : f32
    %ha = arith.mulf %half, %gf : f32
    %gelu = arith.mulf %ha, %onep : f32
    %y = arith.mulf %gelu, %uf : f32
    %yb = arith.truncf %y : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<?x?xbf16>
  return %out : tensor<?x?xbf16>
}
