// gemm_bf16: y = x W^T with fp32 accumulation, bf16 result.
//   x [M, K] bf16, w [N, K] bf16 -> out [M, N] bf16
// Dimensions: M rows (tokens), N output features, K input features.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#mn = affine_map<(m, n) -> (m, n)>
func.func @gemm_bf16(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["M", "K"]},
    %w: tensor<?x?xbf16> {atrex.name = "w", atrex.dims = ["N", "K"]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["M", "N"]})
    attributes {atrex.operator = "gemm_bf16",
    atrex.entry = {summary = "out = x w^T, x [M, K], w [N, K], bf16 in/out, fp32 accumulate",
      keys = ["M", "N", "K"], key_doc = "M rows of x, N rows of w, K reduction length",
      example = {M = 16, N = 64, K = 128},
      args = ["out", "x", "w"]},
    atrex.examples = [
      {name = "decode-m64", phase = "decode", shape = {M = 64, N = 28672, K = 4096}},
      {name = "prefill-m8192", phase = "prefill", shape = {M = 8192, N = 28672, K = 4096}}]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %w, %c0 : tensor<?x?xbf16>
  %acc_init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%acc_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  // 2*M*N*K FLOPs on the matrix engine (bf16 operands).
  %acc = linalg.matmul indexing_maps = [#a, #b, #c]
      ins(%x, %w : tensor<?x?xbf16>, tensor<?x?xbf16>)
      outs(%acc0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y_init = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %y = linalg.generic {indexing_maps = [#mn, #mn],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc : tensor<?x?xf32>) outs(%y_init : tensor<?x?xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
