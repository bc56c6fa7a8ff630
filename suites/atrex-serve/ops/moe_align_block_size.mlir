// moe_align_block_size: the (token, slot) pairs of topk_ids grouped by expert
// into blocks of BS rows for a blocked MoE GEMM (vLLM's moe_align_block_size).
// With n = t * K + j the flat index of topk_ids[t, j] and N = T * K:
//   count[e] = #{n : topk_ids[n] = e}, padded[e] = ceil(count[e] / BS) * BS,
//   offset[e] = padded[0] + ... + padded[e - 1],
//   num_tokens_post_pad[0] = padded[0] + ... + padded[E - 1];
//   sorted_token_ids[offset[e] + r] = the flat index of the r-th pair of expert
//   e in increasing flat index (canonical: vLLM leaves the order within an
//   expert to its atomics), every other entry (the padding of each expert's
//   last block and the tail) = N, the sentinel;
//   expert_ids[b] = the expert whose rows block b holds, 0 for the blocks past
//   num_tokens_post_pad (vLLM's fill).
//   topk_ids [T, K] i32 in [0, E) -> sorted_token_ids [T*K + E*(BS-1)] i32,
//   expert_ids [MB] i32, num_tokens_post_pad [1] i32
// Dimensions: T tokens, K experts per token, E experts, BS block size (rows
// per block), MB = ceil((T*K + E*(BS-1)) / BS) blocks: the sizes a serving stack
// allocates, enough for any routing. The entry point's num_experts (= E) and
// block_size (= BS) are fixed inputs; no input carries them, so the body
// reads them from atrex.symbol constants.
// Integer work only (counts, prefix sums, ranks, selects): no FLOPs. Bytes:
// topk_ids read once, every output entry written once.
#cnt_e = affine_map<(e, n) -> (e)>
#cnt_n = affine_map<(e, n) -> (n)>
#e1 = affine_map<(e) -> (e)>
#pre_f = affine_map<(e, f) -> (f)>
#pre_e = affine_map<(e, f) -> (e)>
#tot_e = affine_map<(e) -> (e)>
#tot_o = affine_map<(e) -> (0)>
#rk_n = affine_map<(n, m) -> (n)>
#rk_m = affine_map<(n, m) -> (m)>
#n1 = affine_map<(n) -> (n)>
#st_p = affine_map<(p, n) -> (p)>
#st_n = affine_map<(p, n) -> (n)>
#bl_b = affine_map<(b, e) -> (b)>
#bl_e = affine_map<(b, e) -> (e)>
func.func @moe_align_block_size(
    %topk_ids: tensor<?x?xi32> {atrex.name = "topk_ids", atrex.dims = ["T", "K"]})
    -> (tensor<?xi32> {atrex.name = "sorted_token_ids", atrex.dims = ["T*K+E*(BS-1)"]},
        tensor<?xi32> {atrex.name = "expert_ids", atrex.dims = ["MB"]},
        tensor<1xi32> {atrex.name = "num_tokens_post_pad", atrex.dims = [1]})
    attributes {atrex.operator = "moe_align_block_size",
    atrex.entry = {summary = "pairs (t, j) of topk_ids [T, K] int32 grouped by expert, each expert's run padded to a multiple of BS: sorted_token_ids [T*K + E*(BS-1)] holds the flat indices t*K + j in expert order, increasing within an expert, padding and tail = T*K; expert_ids [MB] the expert of each BS-row block (0 past the end); num_tokens_post_pad [1] the padded total; all int32",
      keys = ["T", "K", "E", "BS"],
      key_doc = "T tokens, K experts per token, E experts, BS block size (GEMM rows per block)",
      example = {T = 8, K = 2, E = 8, BS = 4},
      args = ["sorted_token_ids", "expert_ids", "num_tokens_post_pad", "topk_ids",
              "num_experts: int64_t", "block_size: int64_t"],
      derived = ["MB = (T * K + E * (BS - 1) + BS - 1) / BS"],
      constraints = [["K <= E", "K must not exceed E"]]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, K = 8, E = 256, BS = 16, MB = 272}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, K = 8, E = 256, BS = 64, MB = 1276}}],
    atrex.fixed_inputs = {num_experts = "E", block_size = "BS"}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = arith.constant {atrex.symbol = "E"} -1 : index
  %bs = arith.constant {atrex.symbol = "BS"} -1 : index
  %zero_i32 = arith.constant 0 : i32
  %one_i32 = arith.constant 1 : i32
  %t = tensor.dim %topk_ids, %c0 : tensor<?x?xi32>
  %k = tensor.dim %topk_ids, %c1 : tensor<?x?xi32>
  %n = arith.muli %t, %k : index
  %n_i32 = arith.index_cast %n : index to i32
  %bs_i32 = arith.index_cast %bs : index to i32
  %bs_m1 = arith.subi %bs_i32, %one_i32 : i32
  %bsm1 = arith.subi %bs, %c1 : index
  %pad_total = arith.muli %e, %bsm1 : index
  %p = arith.addi %n, %pad_total : index
  %mb_num = arith.addi %p, %bsm1 : index
  %mb = arith.divui %mb_num, %bs : index
  %ids = tensor.collapse_shape %topk_ids [[0, 1]] : tensor<?x?xi32> into tensor<?xi32>

  // count[e] = #{n : ids[n] = e}.
  %cnt_init = tensor.empty(%e) : tensor<?xi32>
  %cnt0 = linalg.fill ins(%zero_i32 : i32) outs(%cnt_init : tensor<?xi32>) -> tensor<?xi32>
  %cnt = linalg.generic {indexing_maps = [#cnt_n, #cnt_e],
                         iterator_types = ["parallel", "reduction"]}
      ins(%ids : tensor<?xi32>) outs(%cnt0 : tensor<?xi32>) {
  ^bb0(%id: i32, %acc: i32):
    %ie = linalg.index 0 : index
    %ie32 = arith.index_cast %ie : index to i32
    %hit = arith.cmpi eq, %id, %ie32 : i32
    %inc = arith.select %hit, %one_i32, %zero_i32 : i32
    %r = arith.addi %acc, %inc : i32
    linalg.yield %r : i32
  } -> tensor<?xi32>
  // padded[e] = ceil(count[e] / BS) * BS.
  %pad_init = tensor.empty(%e) : tensor<?xi32>
  %padded = linalg.generic {indexing_maps = [#e1, #e1],
                            iterator_types = ["parallel"]}
      ins(%cnt : tensor<?xi32>) outs(%pad_init : tensor<?xi32>) {
  ^bb0(%c: i32, %o: i32):
    %up = arith.addi %c, %bs_m1 : i32
    %blocks = arith.divui %up, %bs_i32 : i32
    %r = arith.muli %blocks, %bs_i32 : i32
    linalg.yield %r : i32
  } -> tensor<?xi32>
  // offset[e] = sum of padded[f] over f < e.
  %off_init = tensor.empty(%e) : tensor<?xi32>
  %off0 = linalg.fill ins(%zero_i32 : i32) outs(%off_init : tensor<?xi32>) -> tensor<?xi32>
  %offset = linalg.generic {indexing_maps = [#pre_f, #pre_e],
                            iterator_types = ["parallel", "reduction"]}
      ins(%padded : tensor<?xi32>) outs(%off0 : tensor<?xi32>) {
  ^bb0(%pf: i32, %acc: i32):
    %ie = linalg.index 0 : index
    %if = linalg.index 1 : index
    %before = arith.cmpi ult, %if, %ie : index
    %inc = arith.select %before, %pf, %zero_i32 : i32
    %r = arith.addi %acc, %inc : i32
    linalg.yield %r : i32
  } -> tensor<?xi32>
  // num_tokens_post_pad = sum of padded.
  %tot_init = tensor.empty() : tensor<1xi32>
  %tot0 = linalg.fill ins(%zero_i32 : i32) outs(%tot_init : tensor<1xi32>) -> tensor<1xi32>
  %total = linalg.generic {indexing_maps = [#tot_e, #tot_o],
                           iterator_types = ["reduction"]}
      ins(%padded : tensor<?xi32>) outs(%tot0 : tensor<1xi32>) {
  ^bb0(%pe: i32, %acc: i32):
    %r = arith.addi %acc, %pe : i32
    linalg.yield %r : i32
  } -> tensor<1xi32>
  // rank[n] = #{m < n : ids[m] = ids[n]}: the pair's place within its expert.
  %rk_init = tensor.empty(%n) : tensor<?xi32>
  %rk0 = linalg.fill ins(%zero_i32 : i32) outs(%rk_init : tensor<?xi32>) -> tensor<?xi32>
  %rank = linalg.generic {indexing_maps = [#rk_n, #rk_m, #rk_n],
                          iterator_types = ["parallel", "reduction"]}
      ins(%ids, %ids : tensor<?xi32>, tensor<?xi32>) outs(%rk0 : tensor<?xi32>) {
  ^bb0(%idn: i32, %idm: i32, %acc: i32):
    %in = linalg.index 0 : index
    %im = linalg.index 1 : index
    %same = arith.cmpi eq, %idm, %idn : i32
    %earlier = arith.cmpi ult, %im, %in : index
    %hit = arith.andi %same, %earlier : i1
    %inc = arith.select %hit, %one_i32, %zero_i32 : i32
    %r = arith.addi %acc, %inc : i32
    linalg.yield %r : i32
  } -> tensor<?xi32>
  // dest[n] = offset[ids[n]] + rank[n].
  %dest_init = tensor.empty(%n) : tensor<?xi32>
  %dest = linalg.generic {indexing_maps = [#n1, #n1, #n1],
                          iterator_types = ["parallel"]}
      ins(%ids, %rank : tensor<?xi32>, tensor<?xi32>) outs(%dest_init : tensor<?xi32>) {
  ^bb0(%id: i32, %r: i32, %o: i32):
    %idx = arith.index_cast %id : i32 to index
    %base = tensor.extract %offset[%idx] : tensor<?xi32>
    %d = arith.addi %base, %r : i32
    linalg.yield %d : i32
  } -> tensor<?xi32>
  // sorted_token_ids[p] = the n with dest[n] = p, else N.
  %st_init = tensor.empty(%p) : tensor<?xi32>
  %st0 = linalg.fill ins(%n_i32 : i32) outs(%st_init : tensor<?xi32>) -> tensor<?xi32>
  %sorted = linalg.generic {indexing_maps = [#st_n, #st_p],
                            iterator_types = ["parallel", "reduction"]}
      ins(%dest : tensor<?xi32>) outs(%st0 : tensor<?xi32>) {
  ^bb0(%dn: i32, %acc: i32):
    %ip = linalg.index 0 : index
    %in = linalg.index 1 : index
    %ip32 = arith.index_cast %ip : index to i32
    %in32 = arith.index_cast %in : index to i32
    %hit = arith.cmpi eq, %dn, %ip32 : i32
    %r = arith.select %hit, %in32, %acc : i32
    linalg.yield %r : i32
  } -> tensor<?xi32>
  // expert_ids[b] = the e with offset[e] <= b * BS < offset[e] + padded[e],
  // else 0.
  %bl_init = tensor.empty(%mb) : tensor<?xi32>
  %bl0 = linalg.fill ins(%zero_i32 : i32) outs(%bl_init : tensor<?xi32>) -> tensor<?xi32>
  %blocks = linalg.generic {indexing_maps = [#bl_e, #bl_e, #bl_b],
                            iterator_types = ["parallel", "reduction"]}
      ins(%offset, %padded : tensor<?xi32>, tensor<?xi32>) outs(%bl0 : tensor<?xi32>) {
  ^bb0(%oe: i32, %pe: i32, %acc: i32):
    %ib = linalg.index 0 : index
    %ie = linalg.index 1 : index
    %ib32 = arith.index_cast %ib : index to i32
    %ie32 = arith.index_cast %ie : index to i32
    %row = arith.muli %ib32, %bs_i32 : i32
    %end = arith.addi %oe, %pe : i32
    %ge = arith.cmpi sge, %row, %oe : i32
    %lt = arith.cmpi slt, %row, %end : i32
    %hit = arith.andi %ge, %lt : i1
    %r = arith.select %hit, %ie32, %acc : i32
    linalg.yield %r : i32
  } -> tensor<?xi32>
  return %sorted, %blocks, %total : tensor<?xi32>, tensor<?xi32>, tensor<1xi32>
}
