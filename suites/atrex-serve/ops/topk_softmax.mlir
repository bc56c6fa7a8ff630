// topk_softmax: router logits [T, E] -> softmax over all E, the K largest
// probabilities in descending order (ties: lower expert id first) and their
// expert ids, divided by their sum when R = 1 (renormalize).
//   gating_output [T, E] f32 -> topk_weights [T, K] f32, topk_ids [T, K] i32
// Dimensions: T tokens, E experts, K experts per token, R renormalize (0 or 1).
// Only the results carry K and no tensor carries R: the body reads them from
// atrex.symbol constants; renormalization is a loop of R iterations, so its
// 2 FLOPs per selected weight count only when R = 1.
// The selection (ranks by comparison, then a select per rank) counts no FLOPs.
#te = affine_map<(t, e) -> (t, e)>
#t = affine_map<(t, e) -> (t)>
#r_e = affine_map<(t, e, f) -> (t, e)>
#r_f = affine_map<(t, e, f) -> (t, f)>
#s_tk = affine_map<(t, k, e) -> (t, k)>
#s_te = affine_map<(t, k, e) -> (t, e)>
func.func @topk_softmax(
    %gating: tensor<?x?xf32> {atrex.name = "gating_output", atrex.dims = ["T", "E"]})
    -> (tensor<?x?xf32> {atrex.name = "topk_weights", atrex.dims = ["T", "K"]},
        tensor<?x?xi32> {atrex.name = "topk_ids", atrex.dims = ["T", "K"]})
    attributes {atrex.operator = "topk_softmax",
    atrex.entry = {summary = "p = softmax(gating_output, -1) in fp32; topk_weights, topk_ids = top-K of p sorted descending; divided by their sum when renormalize",
      keys = ["T", "E", "K", "R"], key_doc = "T tokens, E experts, K experts per token, R renormalize (0 or 1)",
      example = {T = 4, E = 16, K = 4, R = 1},
      args = ["topk_weights", "topk_ids", "gating_output", "renormalize: bool"],
      constraints = [["K <= E", "K must not exceed E"], ["R <= 1", "R must be 0 or 1"]],
      nonnegative = ["R"]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, E = 128, K = 8, R = 1}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, E = 128, K = 8, R = 1}}],
                atrex.fixed_inputs = {renormalize = "R"}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %topk = arith.constant {atrex.symbol = "K"} -1 : index
  %renorm = arith.constant {atrex.symbol = "R"} -1 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zero_i32 = arith.constant 0 : i32
  %one_i32 = arith.constant 1 : i32
  %t = tensor.dim %gating, %c0 : tensor<?x?xf32>
  %e = tensor.dim %gating, %c1 : tensor<?x?xf32>
  // softmax over E: maximumf, subf, addf, divf = 4 FLOPs + 1 exp per element.
  %m_init = tensor.empty(%t) : tensor<?xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%m_init : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#te, #t],
                       iterator_types = ["parallel", "reduction"]}
      ins(%gating : tensor<?x?xf32>) outs(%m0 : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %ex_init = tensor.empty(%t, %e) : tensor<?x?xf32>
  %ex = linalg.generic {indexing_maps = [#te, #t, #te],
                        iterator_types = ["parallel", "parallel"]}
      ins(%gating, %m : tensor<?x?xf32>, tensor<?xf32>)
      outs(%ex_init : tensor<?x?xf32>) {
  ^bb0(%x: f32, %mx: f32, %o: f32):
    %d = arith.subf %x, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %s_init = tensor.empty(%t) : tensor<?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#te, #t],
                       iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<?x?xf32>) outs(%s0 : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %p_init = tensor.empty(%t, %e) : tensor<?x?xf32>
  %p = linalg.generic {indexing_maps = [#te, #t, #te],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<?x?xf32>, tensor<?xf32>)
      outs(%p_init : tensor<?x?xf32>) {
  ^bb0(%x: f32, %sum: f32, %o: f32):
    %r = arith.divf %x, %sum : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  // rank[t, e] = #{f : p[t, f] > p[t, e] or (p[t, f] == p[t, e] and f < e)}.
  %rank_init = tensor.empty(%t, %e) : tensor<?x?xi32>
  %rank0 = linalg.fill ins(%zero_i32 : i32) outs(%rank_init : tensor<?x?xi32>) -> tensor<?x?xi32>
  %rank = linalg.generic {indexing_maps = [#r_e, #r_f, #r_e],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p, %p : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%rank0 : tensor<?x?xi32>) {
  ^bb0(%pe: f32, %pf: f32, %acc: i32):
    %ie = linalg.index 1 : index
    %if = linalg.index 2 : index
    %gt = arith.cmpf ogt, %pf, %pe : f32
    %eq = arith.cmpf oeq, %pf, %pe : f32
    %lt = arith.cmpi ult, %if, %ie : index
    %tie = arith.andi %eq, %lt : i1
    %before = arith.ori %gt, %tie : i1
    %inc = arith.select %before, %one_i32, %zero_i32 : i32
    %r = arith.addi %acc, %inc : i32
    linalg.yield %r : i32
  } -> tensor<?x?xi32>
  // The expert of rank k and its probability (selects only).
  %w_init = tensor.empty(%t, %topk) : tensor<?x?xf32>
  %w0 = linalg.fill ins(%zero : f32) outs(%w_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %id_init = tensor.empty(%t, %topk) : tensor<?x?xi32>
  %id0 = linalg.fill ins(%zero_i32 : i32) outs(%id_init : tensor<?x?xi32>) -> tensor<?x?xi32>
  %sel:2 = linalg.generic {indexing_maps = [#s_te, #s_te, #s_tk, #s_tk],
                           iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p, %rank : tensor<?x?xf32>, tensor<?x?xi32>)
      outs(%w0, %id0 : tensor<?x?xf32>, tensor<?x?xi32>) {
  ^bb0(%pv: f32, %rv: i32, %wacc: f32, %iacc: i32):
    %k = linalg.index 1 : index
    %ei = linalg.index 2 : index
    %k32 = arith.index_cast %k : index to i32
    %e32 = arith.index_cast %ei : index to i32
    %hit = arith.cmpi eq, %rv, %k32 : i32
    %wr = arith.select %hit, %pv, %wacc : f32
    %ir = arith.select %hit, %e32, %iacc : i32
    linalg.yield %wr, %ir : f32, i32
  } -> (tensor<?x?xf32>, tensor<?x?xi32>)
  // renormalize (R iterations, 0 or 1): addf per selected weight, then divf
  // per selected weight.
  %wn = scf.for %it = %c0 to %renorm step %c1
      iter_args(%cur = %sel#0) -> (tensor<?x?xf32>) {
    %ws_init = tensor.empty(%t) : tensor<?xf32>
    %ws0 = linalg.fill ins(%zero : f32) outs(%ws_init : tensor<?xf32>) -> tensor<?xf32>
    %ws = linalg.generic {indexing_maps = [#te, #t],
                          iterator_types = ["parallel", "reduction"]}
        ins(%cur : tensor<?x?xf32>) outs(%ws0 : tensor<?xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %r = arith.addf %acc, %x : f32
      linalg.yield %r : f32
    } -> tensor<?xf32>
    %wn_init = tensor.empty(%t, %topk) : tensor<?x?xf32>
    %norm = linalg.generic {indexing_maps = [#te, #t, #te],
                            iterator_types = ["parallel", "parallel"]}
        ins(%cur, %ws : tensor<?x?xf32>, tensor<?xf32>)
        outs(%wn_init : tensor<?x?xf32>) {
    ^bb0(%x: f32, %sum: f32, %o: f32):
      %r = arith.divf %x, %sum : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32>
    scf.yield %norm : tensor<?x?xf32>
  }
  return %wn, %sel#1 : tensor<?x?xf32>, tensor<?x?xi32>
}
