// w4a16_gemm: GPTQ/AWQ-style weight-only int4 GEMM with group scales,
// symmetric (zero point 8), group size 128 along K:
//   w[n, k] = (q[n, k] - 8) * scales[n, k / 128],  out = x w^T (fp32 accumulate, bf16 out)
//   x [M, K] bf16, w_packed [N, K/8] i32, scales [N, K/128] bf16 -> out [M, N] bf16
// Packing (compressed-tensors' pack-quantized int4 format, weight_packed
// [N, K/8] int32, as vLLM loads W4A16 checkpoints): the 8 unsigned 4-bit
// values q[n, 8j .. 8j+7] are packed into w_packed[n, j], q[n, 8j + s] in bits
// 4s .. 4s+3 (low nibble first), i.e. q[n, 8j + s] = (w_packed[n, j] >> 4s) & 15
// with a logical shift (an int32 whose top nibble is >= 8 is negative).
// Dimensions: M rows (tokens), N output features, K input features (a multiple
// of 128). The entry point's group_size is fixed to 128.
// Work: the matrix product counts 2*M*N*K FLOPs at bf16, not at int4: the
// tensor cores have no int4 x bf16 instruction, so W4A16 kernels (Marlin,
// Machete, exllama) dequantize each weight to bf16 in registers and run bf16
// MMAs; the definition does the same (the dequantized weight is rounded to
// bf16 before the product). Dequantization is one multiply per weight (N*K;
// nibble extraction and the zero point are integer work, free). Bytes count
// the packed weights: 4 bytes per 8 weights (N*K/2) plus 2*N*K/128 of scales.
#x3 = affine_map<(n, j, s) -> (n, j)>
#g3 = affine_map<(n, j, s) -> (n, j floordiv 16)>
#w3 = affine_map<(n, j, s) -> (n, j, s)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#mn = affine_map<(m, n) -> (m, n)>
func.func @w4a16_gemm(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["M", "K"]},
    %w_packed: tensor<?x?xi32> {atrex.name = "w_packed", atrex.dims = ["N", "K/8"]},
    %scales: tensor<?x?xbf16> {atrex.name = "scales", atrex.dims = ["N", "K/128"]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["M", "N"]})
    attributes {atrex.operator = "w4a16_gemm",
    atrex.entry = {summary = "out = x w^T, w[n, k] = (q[n, k] - 8) * scales[n, k / 128], q[n, 8j + s] = (w_packed[n, j] >> 4s) & 15 (8 unsigned int4 per int32, low nibble first); x [M, K] bf16, w_packed [N, K/8] int32, scales [N, K/128] bf16, fp32 accumulate, bf16 out",
      keys = ["M", "N", "K"],
      key_doc = "M rows of x, N output features, K reduction length (multiple of 128)",
      example = {M = 16, N = 64, K = 256},
      args = ["out", "x", "w_packed", "scales", "group_size: int64_t"],
      constraints = [["K % 128 == 0", "K must be a multiple of 128"]]},
    atrex.examples = [
      {name = "llama3-8b-gate_up-decode-m64", phase = "decode", shape = {M = 64, N = 28672, K = 4096}},
      {name = "llama3-70b-down-prefill-m8192", phase = "prefill", shape = {M = 8192, N = 8192, K = 28672}}],
                atrex.fixed_inputs = {group_size = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %c4_i32 = arith.constant 4 : i32
  %c8_i32 = arith.constant 8 : i32
  %c15_i32 = arith.constant 15 : i32
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %w_packed, %c0 : tensor<?x?xi32>
  %kp = tensor.dim %w_packed, %c1 : tensor<?x?xi32>
  // dequantize: nibble s of w_packed[n, j], minus 8, times its group's scale
  // (1 FLOP per weight), rounded to bf16.
  %w3_init = tensor.empty(%n, %kp) : tensor<?x?x8xbf16>
  %w3 = linalg.generic {indexing_maps = [#x3, #g3, #w3],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w_packed, %scales : tensor<?x?xi32>, tensor<?x?xbf16>)
      outs(%w3_init : tensor<?x?x8xbf16>) {
  ^bb0(%p: i32, %sc: bf16, %o: bf16):
    %s = linalg.index 2 : index
    %s32 = arith.index_cast %s : index to i32
    %sh = arith.muli %s32, %c4_i32 : i32
    %v = arith.shrui %p, %sh : i32
    %q = arith.andi %v, %c15_i32 : i32
    %qs = arith.subi %q, %c8_i32 : i32
    %qf = arith.sitofp %qs : i32 to f32
    %scf = arith.extf %sc : bf16 to f32
    %wf = arith.mulf %qf, %scf : f32
    %wb = arith.truncf %wf : f32 to bf16
    linalg.yield %wb : bf16
  } -> tensor<?x?x8xbf16>
  %w = tensor.collapse_shape %w3 [[0], [1, 2]] : tensor<?x?x8xbf16> into tensor<?x?xbf16>
  // x w^T: 2*M*N*K FLOPs on the matrix engine (bf16 operands).
  %acc_init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%acc_init : tensor<?x?xf32>) -> tensor<?x?xf32>
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
