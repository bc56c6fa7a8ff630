// grouped_gemm_bf16: the MoE expert GEMM of torch._grouped_mm (2-d x 3-d with
// offsets) and CUTLASS grouped GEMM: the rows of x are already sorted by
// expert, expert e owns rows [offs[e-1], offs[e]) (offs[-1] = 0; cumulative
// row ends, as torch._grouped_mm's offs), and
//   out[t] = x[t] w[e]^T for every row t of expert e (fp32 accumulate, bf16 out).
//   x [T, K] bf16, w [E, N, K] bf16, offs [E] i32 -> out [T, N] bf16
// Dimensions: T rows (token-expert pairs, e.g. tokens x top-k), N output
// features per expert, K input features, E experts.
// offs is non-decreasing with offs[E-1] = T (every row belongs to an expert);
// an expert may own no rows. The body finds the expert of row t as
// #{e : offs[e] <= t} (integer work, free).
// Work: 2*T*N*K FLOPs on the matrix engine at bf16 whatever the split (each
// row is multiplied by one expert). Bytes: w is counted dense (2*E*N*K): a
// kernel reads only the experts that own rows, but no atrex.access kind
// describes "row e of w when offs[e] > offs[e-1]" yet, so the count is an upper
// bound, exact when every expert owns rows (prefill).
#te = affine_map<(t, e) -> (t, e)>
#oe = affine_map<(t, e) -> (e)>
#ot = affine_map<(t, e) -> (t)>
#x = affine_map<(t, n, k) -> (t, k)>
#id = affine_map<(t, n, k) -> (t)>
#o = affine_map<(t, n, k) -> (t, n)>
#tn = affine_map<(t, n) -> (t, n)>
func.func @grouped_gemm_bf16(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "K"]},
    %w: tensor<?x?x?xbf16> {atrex.name = "w", atrex.dims = ["E", "N", "K"]},
    %offs: tensor<?xi32> {atrex.name = "offs", atrex.dims = ["E"]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["T", "N"]})
    attributes {atrex.operator = "grouped_gemm_bf16",
    atrex.entry = {summary = "out[t] = x[t] w[e]^T for the rows t in [offs[e-1], offs[e]) of expert e (rows sorted by expert; offs [E] int32 cumulative row ends, offs[-1] = 0, offs[E-1] = T, as torch._grouped_mm); x [T, K], w [E, N, K] bf16, fp32 accumulate, bf16 out",
      keys = ["T", "N", "K", "E"],
      key_doc = "T rows of x (token-expert pairs), N output features per expert, K reduction length, E experts",
      example = {T = 24, N = 64, K = 128, E = 4},
      args = ["out", "x", "w", "offs"]},
    atrex.examples = [
      {name = "qwen3-30b-a3b-gate_up-decode-t64", phase = "decode", shape = {T = 512, N = 1536, K = 2048, E = 128}},
      {name = "qwen3-30b-a3b-gate_up-prefill-t8192", phase = "prefill", shape = {T = 65536, N = 1536, K = 2048, E = 128}},
      {name = "mixtral-8x7b-gate_up-decode-t64", phase = "decode", shape = {T = 128, N = 28672, K = 4096, E = 8}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %zero_i32 = arith.constant 0 : i32
  %one_i32 = arith.constant 1 : i32
  %t = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %ne = tensor.dim %w, %c0 : tensor<?x?x?xbf16>
  %n = tensor.dim %w, %c1 : tensor<?x?x?xbf16>
  %last = arith.subi %ne, %c1 : index
  // expert of row t: the number of experts whose rows end at or before t.
  %eid_init = tensor.empty(%t) : tensor<?xi32>
  %eid0 = linalg.fill ins(%zero_i32 : i32) outs(%eid_init : tensor<?xi32>) -> tensor<?xi32>
  %eid = linalg.generic {indexing_maps = [#oe, #ot],
                         iterator_types = ["parallel", "reduction"]}
      ins(%offs : tensor<?xi32>) outs(%eid0 : tensor<?xi32>) {
  ^bb0(%end: i32, %acc: i32):
    %it = linalg.index 0 : index
    %endi = arith.index_cast %end : i32 to index
    %before = arith.cmpi ule, %endi, %it : index
    %inc = arith.select %before, %one_i32, %zero_i32 : i32
    %r = arith.addi %acc, %inc : i32
    linalg.yield %r : i32
  } -> tensor<?xi32>
  // x[t] w[e(t)]^T: 2*T*N*K FLOPs on the matrix engine (bf16 operands).
  %acc_init = tensor.empty(%t, %n) : tensor<?x?xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%acc_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %acc = linalg.generic {indexing_maps = [#x, #id, #o],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %eid : tensor<?x?xbf16>, tensor<?xi32>)
      outs(%acc0 : tensor<?x?xf32>) attrs = {atrex.engine = "matrix"} {
  ^bb0(%xv: bf16, %e32: i32, %s: f32):
    %in = linalg.index 1 : index
    %ik = linalg.index 2 : index
    %e_raw = arith.index_cast %e32 : i32 to index
    // offs[E-1] = T keeps e < E; the clamp only keeps the read in bounds.
    %e = arith.minui %e_raw, %last : index
    %wv = tensor.extract %w[%e, %in, %ik] : tensor<?x?x?xbf16>
    %xf = arith.extf %xv : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %prod = arith.mulf %xf, %wf : f32
    %r = arith.addf %s, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %y_init = tensor.empty(%t, %n) : tensor<?x?xbf16>
  %y = linalg.generic {indexing_maps = [#tn, #tn],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc : tensor<?x?xf32>) outs(%y_init : tensor<?x?xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
