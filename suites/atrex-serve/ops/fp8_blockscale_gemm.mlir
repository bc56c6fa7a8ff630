// fp8_blockscale_gemm: y = (xq * sx) (wq * sw)^T, bf16 result, with 1x128
// activation scales and 128x128 weight scales (DeepSeek-V3 style). Each
// 128-wide K block is an fp8 matrix product accumulated in fp32, then scaled
// by sx * sw and summed over blocks on the vector units (3 FLOPs per block).
//   xq [M, K] f8e4m3, sx [M, K/128] f32, wq [N, K] f8e4m3, sw [N/128, K/128] f32
//   -> out [M, N] bf16
// Dimensions: M rows, N output features, K input features (N, K multiples of 128).
#xa = affine_map<(m, n, kb, k) -> (m, kb, k)>
#wa = affine_map<(m, n, kb, k) -> (n, kb, k)>
#pa = affine_map<(m, n, kb, k) -> (m, n, kb)>
#p3 = affine_map<(m, n, kb) -> (m, n, kb)>
#sx3 = affine_map<(m, n, kb) -> (m, kb)>
#sw3 = affine_map<(m, n, kb) -> (n floordiv 128, kb)>
#y3 = affine_map<(m, n, kb) -> (m, n)>
#mn = affine_map<(m, n) -> (m, n)>
func.func @fp8_blockscale_gemm(
    %xq: tensor<?x?xf8E4M3FN> {atrex.name = "xq", atrex.dims = ["M", "K"]},
    %sx: tensor<?x?xf32> {atrex.name = "sx", atrex.dims = ["M", "K/128"]},
    %wq: tensor<?x?xf8E4M3FN> {atrex.name = "wq", atrex.dims = ["N", "K"]},
    %sw: tensor<?x?xf32> {atrex.name = "sw", atrex.dims = ["N/128", "K/128"]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["M", "N"]})
    attributes {atrex.operator = "fp8_blockscale_gemm",
    atrex.entry = {summary = "out = (xq * sx) (wq * sw)^T: e4m3 operands, 1x128 activation scales sx [M, K/128], 128x128 weight scales sw [N/128, K/128], fp32 accumulate, bf16 out",
      keys = ["M", "N", "K"],
      key_doc = "M rows of x, N rows of w (multiple of 128), K reduction length (multiple of 128)",
      example = {M = 16, N = 128, K = 256},
      args = ["out", "xq", "sx", "wq", "sw"],
      constraints = [["N % 128 == 0", "N must be a multiple of 128"],
                     ["K % 128 == 0", "K must be a multiple of 128"]]},
    atrex.examples = [
      {name = "decode-m64", phase = "decode", shape = {M = 64, N = 24576, K = 1536}},
      {name = "prefill-m8192", phase = "prefill", shape = {M = 8192, N = 7168, K = 18432}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %xq, %c0 : tensor<?x?xf8E4M3FN>
  %n = tensor.dim %wq, %c0 : tensor<?x?xf8E4M3FN>
  %kb = tensor.dim %sx, %c1 : tensor<?x?xf32>
  %x3 = tensor.expand_shape %xq [[0], [1, 2]] output_shape [%m, %kb, 128]
      : tensor<?x?xf8E4M3FN> into tensor<?x?x128xf8E4M3FN>
  %w3 = tensor.expand_shape %wq [[0], [1, 2]] output_shape [%n, %kb, 128]
      : tensor<?x?xf8E4M3FN> into tensor<?x?x128xf8E4M3FN>
  // per K block: 2*M*N*K FLOPs in total on the matrix engine (fp8 operands).
  %p_init = tensor.empty(%m, %n, %kb) : tensor<?x?x?xf32>
  %p0 = linalg.fill ins(%zero : f32) outs(%p_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %p = linalg.generic {indexing_maps = [#xa, #wa, #pa],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x3, %w3 : tensor<?x?x128xf8E4M3FN>, tensor<?x?x128xf8E4M3FN>)
      outs(%p0 : tensor<?x?x?xf32>) attrs = {atrex.engine = "matrix"} {
  ^bb0(%a: f8E4M3FN, %b: f8E4M3FN, %acc: f32):
    %af = arith.extf %a : f8E4M3FN to f32
    %bf = arith.extf %b : f8E4M3FN to f32
    %ab = arith.mulf %af, %bf : f32
    %r = arith.addf %acc, %ab : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  // scale and sum the blocks: 2 mulf + 1 addf per (m, n, block).
  %y_init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %y0 = linalg.fill ins(%zero : f32) outs(%y_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %yf = linalg.generic {indexing_maps = [#p3, #sx3, #sw3, #y3],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p, %sx, %sw : tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%y0 : tensor<?x?xf32>) {
  ^bb0(%pv: f32, %sa: f32, %sb: f32, %acc: f32):
    %s = arith.mulf %sa, %sb : f32
    %v = arith.mulf %pv, %s : f32
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %yb_init = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %y = linalg.generic {indexing_maps = [#mn, #mn],
                       iterator_types = ["parallel", "parallel"]}
      ins(%yf : tensor<?x?xf32>) outs(%yb_init : tensor<?x?xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
