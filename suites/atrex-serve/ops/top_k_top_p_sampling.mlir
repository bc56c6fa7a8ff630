// top_k_top_p_sampling: top-k then top-p sampling (FlashInfer's), deterministic given one
// uniform sample per row. Per row b, in the order of the probabilities
// (descending, ties by the lower token index):
//   1. top-k: keep the k most probable tokens, k = top_k[b] when
//      1 <= top_k[b] <= V, else V (0 or -1 disables the filter);
//   2. top-p: keep the smallest prefix of those, n tokens, whose mass reaches
//      top_p[b] of the kept mass S_k: the least n with
//      c_n >= top_p[b] * S_k (c_n the mass of the n most probable tokens,
//      S_k = c_k), or n = k when no n does (top_p = 1 keeps all k);
//   3. renormalize over the n kept tokens (mass S_n = c_n) and pick by
//      inverse CDF in token-index order (as FlashInfer's sampling kernels scan
//      the vocabulary): the first kept token i whose inclusive cumulative
//      kept mass exceeds uniform[b] * S_n (the last kept token if rounding
//      leaves none).
//   probs [B, V] f32, top_k [B] i32, top_p [B] f32, uniform [B] f32 in [0, 1)
//   -> samples [B] i32
// Dimensions: B rows (sequences), V vocabulary size.
// Work: the order (ranks, the probabilities sorted by rank) is comparisons and
// selects, free; three passes over the vocabulary add one probability per
// token each, 3BV: the top-k mass S_k (a reduction), the prefix masses in
// probability order (finding n and S_n), the cumulative kept mass in index
// order (the pick); plus top_p * S_k and uniform * S_n, 2B. The two scans are
// scf.for loops over the tokens of each row (linalg has no scan).
#r_i = affine_map<(b, i, j) -> (b, i)>
#r_j = affine_map<(b, i, j) -> (b, j)>
#s_bi = affine_map<(b, r, i) -> (b, i)>
#s_br = affine_map<(b, r, i) -> (b, r)>
#b1 = affine_map<(b) -> (b)>
#bv = affine_map<(b, i) -> (b, i)>
#bvb = affine_map<(b, i) -> (b)>
func.func @top_k_top_p_sampling(
    %probs: tensor<?x?xf32> {atrex.name = "probs", atrex.dims = ["B", "V"]},
    %top_k: tensor<?xi32> {atrex.name = "top_k", atrex.dims = ["B"]},
    %top_p: tensor<?xf32> {atrex.name = "top_p", atrex.dims = ["B"]},
    %uniform: tensor<?xf32> {atrex.name = "uniform", atrex.dims = ["B"]})
    -> (tensor<?xi32> {atrex.name = "samples", atrex.dims = ["B"]})
    attributes {atrex.operator = "top_k_top_p_sampling",
    atrex.entry = {summary = "per row: keep the top_k most probable tokens (descending, ties by lower index; top_k outside [1, V] keeps all), then the smallest prefix of them whose mass reaches top_p of theirs, renormalize, and pick by inverse CDF in token-index order: the first kept token whose cumulative kept mass exceeds uniform * kept mass; probs [B, V] f32, top_k [B] int32, top_p [B] f32, uniform [B] f32 in [0, 1) -> samples [B] int32",
      keys = ["B", "V"], key_doc = "B rows (sequences), V vocabulary size",
      example = {B = 4, V = 64},
      args = ["samples", "probs", "top_k", "top_p", "uniform"],
      constraints = [["V >= 2", "V must be at least 2 (with one token every sample is 0)"]]},
    atrex.examples = [
      {name = "qwen3-b64-v151936", phase = "decode", shape = {B = 64, V = 151936}},
      {name = "llama3-b256-v128256", phase = "decode", shape = {B = 256, V = 128256}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %zero_i32 = arith.constant 0 : i32
  %one_i32 = arith.constant 1 : i32
  %none_i32 = arith.constant -1 : i32
  %true = arith.constant true
  %false = arith.constant false
  %nb = tensor.dim %probs, %c0 : tensor<?x?xf32>
  %v = tensor.dim %probs, %c1 : tensor<?x?xf32>
  // rank[b, i] = #{j : p[b, j] > p[b, i] or (p[b, j] == p[b, i] and j < i)}.
  %rank_init = tensor.empty(%nb, %v) : tensor<?x?xi32>
  %rank0 = linalg.fill ins(%zero_i32 : i32) outs(%rank_init : tensor<?x?xi32>) -> tensor<?x?xi32>
  %rank = linalg.generic {indexing_maps = [#r_i, #r_j, #r_i],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%probs, %probs : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%rank0 : tensor<?x?xi32>) {
  ^bb0(%pi: f32, %pj: f32, %acc: i32):
    %ii = linalg.index 1 : index
    %ij = linalg.index 2 : index
    %gt = arith.cmpf ogt, %pj, %pi : f32
    %eq = arith.cmpf oeq, %pj, %pi : f32
    %lt = arith.cmpi ult, %ij, %ii : index
    %tie = arith.andi %eq, %lt : i1
    %before = arith.ori %gt, %tie : i1
    %inc = arith.select %before, %one_i32, %zero_i32 : i32
    %r = arith.addi %acc, %inc : i32
    linalg.yield %r : i32
  } -> tensor<?x?xi32>
  // sorted[b, r] = the probability of rank r (selects only).
  %sorted_init = tensor.empty(%nb, %v) : tensor<?x?xf32>
  %sorted0 = linalg.fill ins(%zero : f32) outs(%sorted_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sorted = linalg.generic {indexing_maps = [#s_bi, #s_bi, #s_br],
                            iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%probs, %rank : tensor<?x?xf32>, tensor<?x?xi32>)
      outs(%sorted0 : tensor<?x?xf32>) {
  ^bb0(%pv: f32, %rv: i32, %acc: f32):
    %ir = linalg.index 1 : index
    %r32 = arith.index_cast %ir : index to i32
    %hit = arith.cmpi eq, %rv, %r32 : i32
    %r = arith.select %hit, %pv, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %v32 = arith.index_cast %v : index to i32
  // k[b]: top_k[b] when in [1, V], else V (integer work).
  %k_init = tensor.empty(%nb) : tensor<?xi32>
  %kk = linalg.generic {indexing_maps = [#b1, #b1],
                        iterator_types = ["parallel"]}
      ins(%top_k : tensor<?xi32>) outs(%k_init : tensor<?xi32>) {
  ^bb0(%k32: i32, %o: i32):
    %k_lo = arith.cmpi sge, %k32, %one_i32 : i32
    %k_hi = arith.cmpi sle, %k32, %v32 : i32
    %k_ok = arith.andi %k_lo, %k_hi : i1
    %k_sel = arith.select %k_ok, %k32, %v32 : i32
    linalg.yield %k_sel : i32
  } -> tensor<?xi32>
  // S_k[b] = mass of the top-k tokens: 1 addf per token.
  %sk_init = tensor.empty(%nb) : tensor<?xf32>
  %sk0 = linalg.fill ins(%zero : f32) outs(%sk_init : tensor<?xf32>) -> tensor<?xf32>
  %sk = linalg.generic {indexing_maps = [#bv, #bv, #bvb, #bvb],
                        iterator_types = ["parallel", "reduction"]}
      ins(%probs, %rank, %kk : tensor<?x?xf32>, tensor<?x?xi32>, tensor<?xi32>)
      outs(%sk0 : tensor<?xf32>) {
  ^bb0(%pv: f32, %rv: i32, %k32: i32, %acc: f32):
    %in_k = arith.cmpi slt, %rv, %k32 : i32
    %add = arith.select %in_k, %pv, %zero : f32
    %r = arith.addf %acc, %add : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %samples_init = tensor.empty(%nb) : tensor<?xi32>
  %samples = scf.for %ib = %c0 to %nb step %c1
      iter_args(%out = %samples_init) -> (tensor<?xi32>) {
    %k32 = tensor.extract %kk[%ib] : tensor<?xi32>
    %k = arith.index_cast %k32 : i32 to index
    %km1 = arith.subi %k, %c1 : index
    // top-p threshold top_p * S_k (1 mulf).
    %skv = tensor.extract %sk[%ib] : tensor<?xf32>
    %p = tensor.extract %top_p[%ib] : tensor<?xf32>
    %thr = arith.mulf %p, %skv : f32
    // prefix masses in probability order (1 addf per token): n is the first
    // prefix within the top k that reaches the threshold, or k; S_n its mass.
    %scan:4 = scf.for %ir = %c0 to %v step %c1
        iter_args(%run = %zero, %done = %false, %n_acc = %c0, %sn_acc = %zero)
        -> (f32, i1, index, f32) {
      %sv = tensor.extract %sorted[%ib, %ir] : tensor<?x?xf32>
      %nrun = arith.addf %run, %sv : f32
      %in_k = arith.cmpi ult, %ir, %k : index
      %reach = arith.cmpf oge, %nrun, %thr : f32
      %at_k = arith.cmpi eq, %ir, %km1 : index
      %end = arith.ori %reach, %at_k : i1
      %open = arith.xori %done, %true : i1
      %stop0 = arith.andi %in_k, %end : i1
      %stop = arith.andi %stop0, %open : i1
      %ir1 = arith.addi %ir, %c1 : index
      %n_new = arith.select %stop, %ir1, %n_acc : index
      %sn_new = arith.select %stop, %nrun, %sn_acc : f32
      %done_new = arith.ori %done, %stop : i1
      scf.yield %nrun, %done_new, %n_new, %sn_new : f32, i1, index, f32
    }
    // the pick: target = uniform * S_n (1 mulf), then the first kept token in
    // index order whose cumulative kept mass exceeds it (1 addf per token).
    %u = tensor.extract %uniform[%ib] : tensor<?xf32>
    %target = arith.mulf %u, %scan#3 : f32
    %pick:3 = scf.for %ii = %c0 to %v step %c1
        iter_args(%run = %zero, %found = %none_i32, %last = %none_i32) -> (f32, i32, i32) {
      %pv = tensor.extract %probs[%ib, %ii] : tensor<?x?xf32>
      %rv = tensor.extract %rank[%ib, %ii] : tensor<?x?xi32>
      %ri = arith.index_cast %rv : i32 to index
      %kept = arith.cmpi ult, %ri, %scan#2 : index
      %add = arith.select %kept, %pv, %zero : f32
      %nrun = arith.addf %run, %add : f32
      %i32 = arith.index_cast %ii : index to i32
      %over = arith.cmpf ogt, %nrun, %target : f32
      %open = arith.cmpi slt, %found, %zero_i32 : i32
      %hit0 = arith.andi %kept, %over : i1
      %hit = arith.andi %hit0, %open : i1
      %nfound = arith.select %hit, %i32, %found : i32
      %nlast = arith.select %kept, %i32, %last : i32
      scf.yield %nrun, %nfound, %nlast : f32, i32, i32
    }
    %got = arith.cmpi sge, %pick#1, %zero_i32 : i32
    %sample = arith.select %got, %pick#1, %pick#2 : i32
    %cell = tensor.from_elements %sample : tensor<1xi32>
    %nout = tensor.insert_slice %cell into %out[%ib] [1] [1] : tensor<1xi32> into tensor<?xi32>
    scf.yield %nout : tensor<?xi32>
  }
  return %samples : tensor<?xi32>
}
