// fp8_per_tensor_gemm: a scaled mm with per-tensor scales (vLLM's
// cutlass_scaled_mm) (one
// fp32 scale for all of a, one for all of b; static or dynamic per-tensor FP8
// checkpoints such as Llama-3.1-*-Instruct-FP8):
//   out = (a b^T) * scale_a * scale_b, the e4m3 product accumulated in fp32,
//   scaled in the epilogue (scale_a first, then scale_b), rounded once to bf16.
//   a [M, K] f8e4m3, b [N, K] f8e4m3 (gemm_bf16's convention: out = a b^T),
//   scale_a [1] f32, scale_b [1] f32 -> out [M, N] bf16
// Dimensions: M rows (tokens), N output features, K input features.
// Work: 2*M*N*K FLOPs on the matrix engine at f8e4m3, 2 FLOPs per output in
// the epilogue (one multiply per scale, as vLLM's ScaledEpilogue does).
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#mn = affine_map<(m, n) -> (m, n)>
#s = affine_map<(m, n) -> (0)>
func.func @fp8_per_tensor_gemm(
    %a: tensor<?x?xf8E4M3FN> {atrex.name = "a", atrex.dims = ["M", "K"]},
    %b: tensor<?x?xf8E4M3FN> {atrex.name = "b", atrex.dims = ["N", "K"]},
    %scale_a: tensor<1xf32> {atrex.name = "scale_a", atrex.dims = [1]},
    %scale_b: tensor<1xf32> {atrex.name = "scale_b", atrex.dims = [1]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["M", "N"]})
    attributes {atrex.operator = "fp8_per_tensor_gemm",
    atrex.entry = {summary = "out = (a b^T) * scale_a[0] * scale_b[0]: a [M, K], b [N, K] e4m3fn, one fp32 scale per tensor ([1] each), fp32 accumulate, bf16 out (vLLM cutlass_scaled_mm, per-tensor)",
      keys = ["M", "N", "K"], key_doc = "M rows of a, N rows of b, K reduction length",
      example = {M = 16, N = 64, K = 128},
      args = ["out", "a", "b", "scale_a", "scale_b"]},
    atrex.examples = [
      {name = "llama3-8b-qkv-decode-m64", phase = "decode", shape = {M = 64, N = 6144, K = 4096}},
      {name = "llama3-70b-down-prefill-m8192", phase = "prefill", shape = {M = 8192, N = 8192, K = 28672}}]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf8E4M3FN>
  %n = tensor.dim %b, %c0 : tensor<?x?xf8E4M3FN>
  // a b^T: 2*M*N*K FLOPs on the matrix engine (fp8 operands, fp32 accumulator).
  %acc_init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%acc_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %acc = linalg.generic {indexing_maps = [#a, #b, #c],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>)
      outs(%acc0 : tensor<?x?xf32>) attrs = {atrex.engine = "matrix"} {
  ^bb0(%av: f8E4M3FN, %bv: f8E4M3FN, %s: f32):
    %af = arith.extf %av : f8E4M3FN to f32
    %bf = arith.extf %bv : f8E4M3FN to f32
    %ab = arith.mulf %af, %bf : f32
    %r = arith.addf %s, %ab : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  // epilogue: (acc * scale_a) * scale_b = 2 FLOPs per output, rounded to bf16.
  %y_init = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %y = linalg.generic {indexing_maps = [#mn, #s, #s, #mn],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc, %scale_a, %scale_b : tensor<?x?xf32>, tensor<1xf32>, tensor<1xf32>)
      outs(%y_init : tensor<?x?xbf16>) {
  ^bb0(%v: f32, %sa: f32, %sb: f32, %o: bf16):
    %va = arith.mulf %v, %sa : f32
    %vb = arith.mulf %va, %sb : f32
    %r = arith.truncf %vb : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
