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
// row is multiplied by one expert). Bytes: w counts only the experts that own
// rows, 2*N*K each (atrex.access groups: expert e when offs[e] > offs[e-1];
// its facts are offs, which must end at T, the rows of x), so data-dependent:
// 2*T*K + 2*U_groups*N*K + 4*E read, 2*T*N written.
// The examples' offs are skewed splits in which, as in the runtime
// generator's inputs at those shapes, min(T, E - floor(E/4)) experts own rows
// (96 of 128, 6 of 8): the examples' floors are those of the gate's inputs.
#te = affine_map<(t, e) -> (t, e)>
#oe = affine_map<(t, e) -> (e)>
#ot = affine_map<(t, e) -> (t)>
#x = affine_map<(t, n, k) -> (t, k)>
#id = affine_map<(t, n, k) -> (t)>
#o = affine_map<(t, n, k) -> (t, n)>
#tn = affine_map<(t, n) -> (t, n)>
func.func @grouped_gemm_bf16(
    %x: tensor<?x?xbf16> {atrex.name = "x", atrex.dims = ["T", "K"]},
    %w: tensor<?x?x?xbf16> {atrex.name = "w", atrex.dims = ["E", "N", "K"],
                             atrex.access = {kind = "groups", ends = "offs", rows = "x"}},
    %offs: tensor<?xi32> {atrex.name = "offs", atrex.dims = ["E"]})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["T", "N"]})
    attributes {atrex.operator = "grouped_gemm_bf16",
    atrex.entry = {summary = "out[t] = x[t] w[e]^T for the rows t in [offs[e-1], offs[e]) of expert e (rows sorted by expert; offs [E] int32 cumulative row ends, offs[-1] = 0, offs[E-1] = T, as torch._grouped_mm); x [T, K], w [E, N, K] bf16, fp32 accumulate, bf16 out",
      keys = ["T", "N", "K", "E"],
      key_doc = "T rows of x (token-expert pairs), N output features per expert, K reduction length, E experts",
      example = {T = 24, N = 64, K = 128, E = 4},
      args = ["out", "x", "w", "offs"]},
    atrex.examples = [
      {name = "qwen3-30b-a3b-gate_up-decode-t64", phase = "decode", shape = {T = 512, N = 1536, K = 2048, E = 128},
       facts = {offs = [0, 33, 35, 35, 38, 41, 42, 44, 44, 46, 50, 52, 52, 55, 58, 58, 66, 68, 71, 74, 79, 80,
         83, 110, 113, 114, 114, 116, 127, 127, 243, 246, 246, 248, 248, 249, 262, 264, 265, 266,
         273, 275, 277, 278, 279, 284, 285, 287, 287, 287, 289, 292, 315, 317, 320, 320, 321,
         321, 323, 325, 325, 326, 326, 326, 327, 331, 334, 335, 336, 342, 345, 348, 348, 349,
         350, 350, 351, 351, 353, 358, 366, 387, 389, 389, 390, 392, 395, 405, 416, 416, 418,
         420, 420, 423, 424, 426, 448, 448, 448, 451, 451, 458, 458, 459, 461, 462, 462, 463,
         463, 465, 467, 470, 477, 478, 482, 491, 492, 492, 492, 495, 497, 505, 506, 506, 507,
         509, 512, 512]}},
      {name = "qwen3-30b-a3b-gate_up-prefill-t8192", phase = "prefill", shape = {T = 65536, N = 1536, K = 2048, E = 128},
       facts = {offs = [32, 4169, 5292, 5292, 5292, 5420, 6009, 6175, 6661, 7459, 7459, 7459, 7913, 8603, 8603,
         8677, 8952, 8997, 9253, 10785, 10785, 10785, 11072, 11135, 11902, 12899, 13038, 13038,
         13131, 13269, 14112, 14198, 14198, 15487, 15487, 15685, 15943, 15978, 16280, 16280,
         17292, 17342, 17650, 18216, 18253, 18267, 18267, 18267, 19015, 19088, 19088, 21191,
         21256, 21424, 21469, 21469, 21469, 21485, 22412, 22435, 23761, 23832, 24218, 24274,
         24274, 24274, 24399, 28205, 28975, 28975, 29032, 29071, 29345, 29386, 29386, 30540,
         30613, 30613, 30946, 31033, 31051, 31051, 31455, 31535, 36246, 36246, 36595, 36595,
         37207, 37505, 37703, 37947, 37947, 37993, 37993, 38081, 40714, 40799, 41450, 42184,
         43715, 43728, 43728, 43728, 49627, 50613, 50613, 50924, 51105, 51105, 51251, 51973,
         51973, 52600, 52936, 52936, 53383, 53743, 54808, 54957, 58415, 62187, 62440, 62490,
         64714, 65023, 65434, 65536]}},
      {name = "mixtral-8x7b-gate_up-decode-t64", phase = "decode", shape = {T = 128, N = 28672, K = 4096, E = 8},
       facts = {offs = [9, 32, 39, 39, 39, 49, 91, 128]}}]} {
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
