// flash_attention_prefill: causal attention over variable-length sequences
// packed along the token axis (sequence i holds tokens cu_seqlens[i] ..
// cu_seqlens[i+1]-1), GQA (query head h = kvh * G + g reads KV head kvh,
// G = Hq/Hk). No cached prefix: query and key lengths are equal, so the
// bottom-right and top-left causal alignments coincide: key j is visible to
// query t iff start(t) <= j <= t. out = softmax(scale * q K^T) V with P (the
// unnormalized exp, rounded to bf16 as flash kernels do) normalized at the end.
//   q [T, Hq, D] bf16, k [T, Hk, D] bf16, v [T, Hk, D] bf16,
//   cu_seqlens [B+1] i32, scale f32 -> out [T, Hq, D] bf16
// Dimensions: T packed tokens, B sequences, Hq query heads, Hk KV heads, D head dim.
// The entry point's max_seqlen is a hint that does not change the result.
// Data-dependent work (fact: cu_seqlens): every op over (query t, key j) is
// atrex.causal_varlen, i.e. counted for the P = sum_i L_i (L_i + 1) / 2 pairs.
#st_c = affine_map<(t, i) -> (i)>
#st_t = affine_map<(t, i) -> (t)>
#qk_q = affine_map<(t, kh, g, j, d) -> (t, kh, g, d)>
#qk_k = affine_map<(t, kh, g, j, d) -> (j, kh, d)>
#qk_st = affine_map<(t, kh, g, j, d) -> (t)>
#qk_s = affine_map<(t, kh, g, j, d) -> (t, kh, g, j)>
#s4 = affine_map<(t, kh, g, j) -> (t, kh, g, j)>
#st4 = affine_map<(t, kh, g, j) -> (t)>
#m4 = affine_map<(t, kh, g, j) -> (t, kh, g)>
#pv_p = affine_map<(t, kh, g, d, j) -> (t, kh, g, j)>
#pv_v = affine_map<(t, kh, g, d, j) -> (j, kh, d)>
#pv_o = affine_map<(t, kh, g, d, j) -> (t, kh, g, d)>
#o4 = affine_map<(t, kh, g, d) -> (t, kh, g, d)>
#os4 = affine_map<(t, kh, g, d) -> (t, kh, g)>
func.func @flash_attention_prefill(
    %q: tensor<?x?x?xbf16> {atrex.name = "q", atrex.dims = ["T", "Hq", "D"]},
    %k: tensor<?x?x?xbf16> {atrex.name = "k", atrex.dims = ["T", "Hk", "D"]},
    %v: tensor<?x?x?xbf16> {atrex.name = "v", atrex.dims = ["T", "Hk", "D"]},
    %cu_seqlens: tensor<?xi32> {atrex.name = "cu_seqlens", atrex.dims = ["B+1"]},
    %scale: f32 {atrex.name = "scale"})
    -> (tensor<?x?x?xbf16> {atrex.name = "out", atrex.dims = ["T", "Hq", "D"]})
    attributes {atrex.operator = "flash_attention_prefill",
    atrex.entry = {summary = "causal attention over B variable-length sequences packed along T (cu_seqlens [B+1]), GQA, no cached prefix (the causal mask is aligned top-left = bottom-right); softmax(scale q k^T) v in fp32, bf16 out",
      keys = ["B", "T", "Hq", "Hk", "D"],
      key_doc = "B sequences, T total tokens, Hq query heads, Hk KV heads, D head size",
      example = {B = 3, T = 40, Hq = 4, Hk = 2, D = 64},
      args = ["out", "q", "k", "v", "cu_seqlens", "max_seqlen: int64_t", "scale"],
      constraints = [["Hq % Hk == 0", "Hq must be a multiple of Hk"], ["T >= B", "T must be at least B"]]},
    atrex.examples = [
      {name = "t8192-b4", phase = "prefill", shape = {T = 8192, B = 4, Hq = 32, Hk = 8, D = 128},
       facts = {cu_seqlens = [0, 2048, 4096, 6144, 8192]}},
      {name = "t16384-b1", phase = "prefill", shape = {T = 16384, B = 1, Hq = 64, Hk = 8, D = 128},
       facts = {cu_seqlens = [0, 16384]}}],
                atrex.fixed_inputs = {max_seqlen = "*"}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zero_i32 = arith.constant 0 : i32
  %t = tensor.dim %q, %c0 : tensor<?x?x?xbf16>
  %hq = tensor.dim %q, %c1 : tensor<?x?x?xbf16>
  %d = tensor.dim %q, %c2 : tensor<?x?x?xbf16>
  %hkv = tensor.dim %k, %c1 : tensor<?x?x?xbf16>
  %g = arith.divui %hq, %hkv : index
  %q4 = tensor.expand_shape %q [[0], [1, 2], [3]] output_shape [%t, %hkv, %g, %d]
      : tensor<?x?x?xbf16> into tensor<?x?x?x?xbf16>
  // start(t) = the largest cu_seqlens[i] <= t (integer work only).
  %st_init = tensor.empty(%t) : tensor<?xi32>
  %st0 = linalg.fill ins(%zero_i32 : i32) outs(%st_init : tensor<?xi32>) -> tensor<?xi32>
  %start = linalg.generic {indexing_maps = [#st_c, #st_t],
                           iterator_types = ["parallel", "reduction"]}
      ins(%cu_seqlens : tensor<?xi32>) outs(%st0 : tensor<?xi32>) {
  ^bb0(%cu: i32, %acc: i32):
    %it = linalg.index 0 : index
    %t32 = arith.index_cast %it : index to i32
    %le = arith.cmpi sle, %cu, %t32 : i32
    %cand = arith.select %le, %cu, %zero_i32 : i32
    %r = arith.maxsi %acc, %cand : i32
    linalg.yield %r : i32
  } -> tensor<?xi32>
  // S = q K^T: 2 FLOPs per visible (t, j) pair, head and d on the matrix engine.
  %s_init = tensor.empty(%t, %hkv, %g, %t) : tensor<?x?x?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %s = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q4, %k : tensor<?x?x?x?xbf16>, tensor<?x?x?xbf16>)
      outs(%s0 : tensor<?x?x?x?xf32>)
      attrs = {atrex.engine = "matrix",
               atrex.causal_varlen = {q = 0 : i64, k = 3 : i64, cu_seqlens = "cu_seqlens"}} {
  ^bb0(%qv: bf16, %kv: bf16, %acc: f32):
    %qf = arith.extf %qv : bf16 to f32
    %kf = arith.extf %kv : bf16 to f32
    %prod = arith.mulf %qf, %kf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x?xf32>
  // z = scale * S on visible pairs, -inf elsewhere: 1 FLOP per visible pair.
  %z_init = tensor.empty(%t, %hkv, %g, %t) : tensor<?x?x?x?xf32>
  %z = linalg.generic {indexing_maps = [#s4, #st4, #s4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %start : tensor<?x?x?x?xf32>, tensor<?xi32>)
      outs(%z_init : tensor<?x?x?x?xf32>)
      attrs = {atrex.causal_varlen = {q = 0 : i64, k = 3 : i64, cu_seqlens = "cu_seqlens"}} {
  ^bb0(%sv: f32, %stv: i32, %o: f32):
    %it = linalg.index 0 : index
    %ij = linalg.index 3 : index
    %sti = arith.index_cast %stv : i32 to index
    %causal = arith.cmpi ule, %ij, %it : index
    %same = arith.cmpi uge, %ij, %sti : index
    %visible = arith.andi %causal, %same : i1
    %sc = arith.mulf %sv, %scale : f32
    %r = arith.select %visible, %sc, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x?xf32>
  // row max: 1 FLOP per visible pair.
  %m_init = tensor.empty(%t, %hkv, %g) : tensor<?x?x?xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%m_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %m = linalg.generic {indexing_maps = [#s4, #m4],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%z : tensor<?x?x?x?xf32>) outs(%m0 : tensor<?x?x?xf32>)
      attrs = {atrex.causal_varlen = {q = 0 : i64, k = 3 : i64, cu_seqlens = "cu_seqlens"}} {
  ^bb0(%zv: f32, %acc: f32):
    %r = arith.maximumf %acc, %zv : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  // P = exp(z - max): 1 FLOP + 1 exp per visible pair; P rounded to bf16.
  %e_init = tensor.empty(%t, %hkv, %g, %t) : tensor<?x?x?x?xf32>
  %p_init = tensor.empty(%t, %hkv, %g, %t) : tensor<?x?x?x?xbf16>
  %e:2 = linalg.generic {indexing_maps = [#s4, #m4, #s4, #s4],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%z, %m : tensor<?x?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%e_init, %p_init : tensor<?x?x?x?xf32>, tensor<?x?x?x?xbf16>)
      attrs = {atrex.causal_varlen = {q = 0 : i64, k = 3 : i64, cu_seqlens = "cu_seqlens"}} {
  ^bb0(%zv: f32, %mv: f32, %o: f32, %ob: bf16):
    %dz = arith.subf %zv, %mv : f32
    %ev = math.exp %dz : f32
    %eb = arith.truncf %ev : f32 to bf16
    linalg.yield %ev, %eb : f32, bf16
  } -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xbf16>)
  // row sum: 1 FLOP per visible pair.
  %sum_init = tensor.empty(%t, %hkv, %g) : tensor<?x?x?xf32>
  %sum0 = linalg.fill ins(%zero : f32) outs(%sum_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %sum = linalg.generic {indexing_maps = [#s4, #m4],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e#0 : tensor<?x?x?x?xf32>) outs(%sum0 : tensor<?x?x?xf32>)
      attrs = {atrex.causal_varlen = {q = 0 : i64, k = 3 : i64, cu_seqlens = "cu_seqlens"}} {
  ^bb0(%ev: f32, %acc: f32):
    %r = arith.addf %acc, %ev : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  // O = P V: 2 FLOPs per visible pair, head and d on the matrix engine.
  %o_init = tensor.empty(%t, %hkv, %g, %d) : tensor<?x?x?x?xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%o_init : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%e#1, %v : tensor<?x?x?x?xbf16>, tensor<?x?x?xbf16>)
      outs(%o0 : tensor<?x?x?x?xf32>)
      attrs = {atrex.engine = "matrix",
               atrex.causal_varlen = {q = 0 : i64, k = 4 : i64, cu_seqlens = "cu_seqlens"}} {
  ^bb0(%pv: bf16, %vv: bf16, %acc: f32):
    %pf = arith.extf %pv : bf16 to f32
    %vf = arith.extf %vv : bf16 to f32
    %prod = arith.mulf %pf, %vf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?x?xf32>
  // normalize: 1 FLOP per output element.
  %out_init = tensor.empty(%t, %hkv, %g, %d) : tensor<?x?x?x?xbf16>
  %out4 = linalg.generic {indexing_maps = [#o4, #os4, #o4],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o, %sum : tensor<?x?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%out_init : tensor<?x?x?x?xbf16>) {
  ^bb0(%ov: f32, %sv: f32, %ob: bf16):
    %r = arith.divf %ov, %sv : f32
    %rb = arith.truncf %r : f32 to bf16
    linalg.yield %rb : bf16
  } -> tensor<?x?x?x?xbf16>
  %out = tensor.collapse_shape %out4 [[0], [1, 2], [3]]
      : tensor<?x?x?x?xbf16> into tensor<?x?x?xbf16>
  return %out : tensor<?x?x?xbf16>
}
