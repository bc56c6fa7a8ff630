// grouped_topk: biased grouped routing (DeepSeek-V3's; vLLM's grouped_topk with
// sigmoid scoring and e_score_correction_bias). Per token t:
//   s[e] = sigmoid(gating_output[t, e]) = 1 / (1 + exp(-x)),  v[e] = s[e] + bias[e]
//   the E experts form G groups of E/G consecutive experts; a group's score is
//   the sum of its two largest v; the TG groups of largest score are kept;
//   topk_ids = the K experts of largest v within the kept groups, in descending
//   order of v; topk_weights = their s (without the bias), divided by their
//   sum, times routed_scaling_factor.
// Ties (equal group scores, equal v) go to the lower group / expert index; the
// generator draws inputs without ties, so ids are well defined whatever a
// kernel's tie rule.
//   gating_output [T, E] f32, e_score_correction_bias [E] f32,
//   routed_scaling_factor f32 -> topk_weights [T, K] f32, topk_ids [T, K] i32
// Dimensions: T tokens, E experts, G expert groups, TG groups kept, K experts
// per token. The entry point's num_expert_group (= G), topk_group (= TG) and
// renormalize (= true) are fixed inputs; no tensor carries G, TG or K, so the
// body reads them from atrex.symbol constants.
// The selections (group and expert ranks by comparison, selects) count no
// FLOPs.
#te = affine_map<(t, e) -> (t, e)>
#e1 = affine_map<(t, e) -> (e)>
#g3 = affine_map<(t, g, j) -> (t, g, j)>
#g2 = affine_map<(t, g, j) -> (t, g)>
#tg = affine_map<(t, g) -> (t, g)>
#rg_g = affine_map<(t, g, h) -> (t, g)>
#rg_h = affine_map<(t, g, h) -> (t, h)>
#r_e = affine_map<(t, e, f) -> (t, e)>
#r_f = affine_map<(t, e, f) -> (t, f)>
#s_tk = affine_map<(t, k, e) -> (t, k)>
#s_te = affine_map<(t, k, e) -> (t, e)>
#tk = affine_map<(t, k) -> (t, k)>
#t1 = affine_map<(t, k) -> (t)>
func.func @grouped_topk(
    %gating: tensor<?x?xf32> {atrex.name = "gating_output", atrex.dims = ["T", "E"]},
    %scale: f32 {atrex.name = "routed_scaling_factor"},
    %bias: tensor<?xf32> {atrex.name = "e_score_correction_bias", atrex.dims = ["E"]})
    -> (tensor<?x?xf32> {atrex.name = "topk_weights", atrex.dims = ["T", "K"]},
        tensor<?x?xi32> {atrex.name = "topk_ids", atrex.dims = ["T", "K"]})
    attributes {atrex.operator = "grouped_topk",
    atrex.entry = {summary = "s = sigmoid(gating_output) fp32, v = s + e_score_correction_bias; groups of E/G experts scored by the sum of their top-2 v, the TG best groups kept; topk_ids = the K experts of largest v in the kept groups, sorted by v descending (int32); topk_weights = their s / sum(s) * routed_scaling_factor (fp32)",
      keys = ["T", "E", "G", "TG", "K"],
      key_doc = "T tokens, E experts, G expert groups (num_expert_group), TG groups kept (topk_group), K experts per token",
      example = {T = 4, E = 16, G = 4, TG = 2, K = 4},
      args = ["topk_weights", "topk_ids", "gating_output", "num_expert_group: int64_t",
              "topk_group: int64_t", "renormalize: bool", "routed_scaling_factor",
              "e_score_correction_bias"],
      constraints = [["E % G == 0", "E must be a multiple of G"],
                     ["E / G >= 2", "every group needs at least 2 experts (its score is a top-2 sum)"],
                     ["TG <= G", "TG must not exceed G"],
                     ["K <= TG * (E / G)", "K must not exceed the experts of the TG kept groups"]]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, E = 256, G = 8, TG = 4, K = 8}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, E = 256, G = 8, TG = 4, K = 8}}],
    atrex.fixed_inputs = {num_expert_group = "G", topk_group = "TG", renormalize = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %groups = arith.constant {atrex.symbol = "G"} -1 : index
  %kept = arith.constant {atrex.symbol = "TG"} -1 : index
  %topk = arith.constant {atrex.symbol = "K"} -1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %zero_i32 = arith.constant 0 : i32
  %one_i32 = arith.constant 1 : i32
  %t = tensor.dim %gating, %c0 : tensor<?x?xf32>
  %e = tensor.dim %gating, %c1 : tensor<?x?xf32>
  %epg = arith.divui %e, %groups : index
  %kept_i32 = arith.index_cast %kept : index to i32

  // s = 1 / (1 + exp(-x)) and v = s + bias: negf, addf, divf, addf = 4 FLOPs
  // + 1 exp per element.
  %sv_init = tensor.empty(%t, %e) : tensor<?x?xf32>
  %sv:2 = linalg.generic {indexing_maps = [#te, #e1, #te, #te],
                          iterator_types = ["parallel", "parallel"]}
      ins(%gating, %bias : tensor<?x?xf32>, tensor<?xf32>)
      outs(%sv_init, %sv_init : tensor<?x?xf32>, tensor<?x?xf32>) {
  ^bb0(%x: f32, %b: f32, %o1: f32, %o2: f32):
    %nx = arith.negf %x : f32
    %ex = math.exp %nx : f32
    %den = arith.addf %one, %ex : f32
    %s = arith.divf %one, %den : f32
    %v = arith.addf %s, %b : f32
    linalg.yield %s, %v : f32, f32
  } -> (tensor<?x?xf32>, tensor<?x?xf32>)

  // The two largest v of each group (compares and selects only).
  %v3 = tensor.expand_shape %sv#1 [[0], [1, 2]] output_shape [%t, %groups, %epg]
      : tensor<?x?xf32> into tensor<?x?x?xf32>
  %m_init = tensor.empty(%t, %groups) : tensor<?x?xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%m_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %m:2 = linalg.generic {indexing_maps = [#g3, #g2, #g2],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%v3 : tensor<?x?x?xf32>) outs(%m0, %m0 : tensor<?x?xf32>, tensor<?x?xf32>) {
  ^bb0(%v: f32, %first: f32, %second: f32):
    %gt1 = arith.cmpf ogt, %v, %first : f32
    %gt2 = arith.cmpf ogt, %v, %second : f32
    %n1 = arith.select %gt1, %v, %first : f32
    %keep2 = arith.select %gt2, %v, %second : f32
    %n2 = arith.select %gt1, %first, %keep2 : f32
    linalg.yield %n1, %n2 : f32, f32
  } -> (tensor<?x?xf32>, tensor<?x?xf32>)
  // Group score: 1 addf per group.
  %gs_init = tensor.empty(%t, %groups) : tensor<?x?xf32>
  %gs = linalg.generic {indexing_maps = [#tg, #tg, #tg],
                        iterator_types = ["parallel", "parallel"]}
      ins(%m#0, %m#1 : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%gs_init : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %sum = arith.addf %a, %b : f32
    linalg.yield %sum : f32
  } -> tensor<?x?xf32>
  // grank[t, g] = #{h : gs[t, h] > gs[t, g] or (equal and h < g)}.
  %grank_init = tensor.empty(%t, %groups) : tensor<?x?xi32>
  %grank0 = linalg.fill ins(%zero_i32 : i32) outs(%grank_init : tensor<?x?xi32>) -> tensor<?x?xi32>
  %grank = linalg.generic {indexing_maps = [#rg_g, #rg_h, #rg_g],
                           iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%gs, %gs : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%grank0 : tensor<?x?xi32>) {
  ^bb0(%sg: f32, %sh: f32, %acc: i32):
    %ig = linalg.index 1 : index
    %ih = linalg.index 2 : index
    %gt = arith.cmpf ogt, %sh, %sg : f32
    %eq = arith.cmpf oeq, %sh, %sg : f32
    %lt = arith.cmpi ult, %ih, %ig : index
    %tie = arith.andi %eq, %lt : i1
    %before = arith.ori %gt, %tie : i1
    %inc = arith.select %before, %one_i32, %zero_i32 : i32
    %r = arith.addi %acc, %inc : i32
    linalg.yield %r : i32
  } -> tensor<?x?xi32>
  // Experts of groups not kept are out of the race (-inf; a select).
  %km_init = tensor.empty(%t, %e) : tensor<?x?xf32>
  %km = linalg.generic {indexing_maps = [#te, #te],
                        iterator_types = ["parallel", "parallel"]}
      ins(%sv#1 : tensor<?x?xf32>) outs(%km_init : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %it = linalg.index 0 : index
    %ie = linalg.index 1 : index
    %grp = arith.divui %ie, %epg : index
    %gr = tensor.extract %grank[%it, %grp] : tensor<?x?xi32>
    %in = arith.cmpi slt, %gr, %kept_i32 : i32
    %r = arith.select %in, %v, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  // rank[t, e] = #{f : km[t, f] > km[t, e] or (equal and f < e)}.
  %rank_init = tensor.empty(%t, %e) : tensor<?x?xi32>
  %rank0 = linalg.fill ins(%zero_i32 : i32) outs(%rank_init : tensor<?x?xi32>) -> tensor<?x?xi32>
  %rank = linalg.generic {indexing_maps = [#r_e, #r_f, #r_e],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%km, %km : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%rank0 : tensor<?x?xi32>) {
  ^bb0(%ve: f32, %vf: f32, %acc: i32):
    %ie = linalg.index 1 : index
    %if = linalg.index 2 : index
    %gt = arith.cmpf ogt, %vf, %ve : f32
    %eq = arith.cmpf oeq, %vf, %ve : f32
    %lt = arith.cmpi ult, %if, %ie : index
    %tie = arith.andi %eq, %lt : i1
    %before = arith.ori %gt, %tie : i1
    %inc = arith.select %before, %one_i32, %zero_i32 : i32
    %r = arith.addi %acc, %inc : i32
    linalg.yield %r : i32
  } -> tensor<?x?xi32>
  // The expert of rank k and its unbiased score s (selects only).
  %w_init = tensor.empty(%t, %topk) : tensor<?x?xf32>
  %w0 = linalg.fill ins(%zero : f32) outs(%w_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %id_init = tensor.empty(%t, %topk) : tensor<?x?xi32>
  %id0 = linalg.fill ins(%zero_i32 : i32) outs(%id_init : tensor<?x?xi32>) -> tensor<?x?xi32>
  %sel:2 = linalg.generic {indexing_maps = [#s_te, #s_te, #s_tk, #s_tk],
                           iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%sv#0, %rank : tensor<?x?xf32>, tensor<?x?xi32>)
      outs(%w0, %id0 : tensor<?x?xf32>, tensor<?x?xi32>) {
  ^bb0(%sv_e: f32, %rv: i32, %wacc: f32, %iacc: i32):
    %k = linalg.index 1 : index
    %ei = linalg.index 2 : index
    %k32 = arith.index_cast %k : index to i32
    %e32 = arith.index_cast %ei : index to i32
    %hit = arith.cmpi eq, %rv, %k32 : i32
    %wr = arith.select %hit, %sv_e, %wacc : f32
    %ir = arith.select %hit, %e32, %iacc : i32
    linalg.yield %wr, %ir : f32, i32
  } -> (tensor<?x?xf32>, tensor<?x?xi32>)
  // Renormalize and scale: addf per selected weight (the sum), then divf and
  // mulf per selected weight.
  %ws_init = tensor.empty(%t) : tensor<?xf32>
  %ws0 = linalg.fill ins(%zero : f32) outs(%ws_init : tensor<?xf32>) -> tensor<?xf32>
  %ws = linalg.generic {indexing_maps = [#tk, #t1],
                        iterator_types = ["parallel", "reduction"]}
      ins(%sel#0 : tensor<?x?xf32>) outs(%ws0 : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %wn_init = tensor.empty(%t, %topk) : tensor<?x?xf32>
  %wn = linalg.generic {indexing_maps = [#tk, #t1, #tk],
                        iterator_types = ["parallel", "parallel"]}
      ins(%sel#0, %ws : tensor<?x?xf32>, tensor<?xf32>)
      outs(%wn_init : tensor<?x?xf32>) {
  ^bb0(%x: f32, %sum: f32, %o: f32):
    %q = arith.divf %x, %sum : f32
    %r = arith.mulf %q, %scale : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %wn, %sel#1 : tensor<?x?xf32>, tensor<?x?xi32>
}
