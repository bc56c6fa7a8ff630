// concat_and_cache_mla: write the new tokens' MLA latent KV into the paged
// cache, in place (vLLM's concat_and_cache_mla with a bf16 cache). Token t
// goes to slot s = slot_mapping[t] = page * BS + offset:
//   kv_cache[page, offset, :L] = kv_c[t], kv_cache[page, offset, L:] = k_pe[t]
// (the compressed KV and the decoupled RoPE key, concatenated); a negative
// slot (-1: a padding token) writes nothing, every other cache entry keeps
// its contents.
//   kv_c [T, L] bf16, k_pe [T, R] bf16, kv_cache [NB, BS, L + R] bf16,
//   slot_mapping [T] i64 -> kv_cache_out [NB, BS, L + R] bf16 (the in-place
//   update, as a result)
// Dimensions: T tokens, L latent (kv_lora_rank) width, R RoPE key width,
// NB pages, BS tokens per page. The cache is bf16: a serving stack's
// kv_cache_dtype and scale arguments (an fp8 cache; vLLM's) are not part of
// this entry.
// No arithmetic: a copy of T rows. Bytes (atrex.access, as reshape_and_cache):
// the old cache contents are not read (`carried`), the result writes the
// distinct non-negative slots of slot_mapping (`slots`), so a write of T
// tokens reads 2T(L + R) + 8T bytes and writes 2 U_slots (L + R).
#row = affine_map<(i) -> (i)>
func.func @concat_and_cache_mla(
    %kv_c: tensor<?x?xbf16> {atrex.name = "kv_c", atrex.dims = ["T", "L"]},
    %k_pe: tensor<?x?xbf16> {atrex.name = "k_pe", atrex.dims = ["T", "R"]},
    %kv_cache: tensor<?x?x?xbf16> {atrex.name = "kv_cache", atrex.dims = ["NB", "BS", "L+R"],
                                   atrex.access = {kind = "carried"}},
    %slot_mapping: tensor<?xi64> {atrex.name = "slot_mapping", atrex.dims = ["T"]})
    -> (tensor<?x?x?xbf16> {atrex.name = "kv_cache_out", atrex.dims = ["NB", "BS", "L+R"],
                            atrex.access = {kind = "slots", index = "slot_mapping"}})
    attributes {atrex.operator = "concat_and_cache_mla",
    atrex.entry = {summary = "MLA paged cache write in place: kv_cache[s / BS, s % BS] = concat(kv_c[t], k_pe[t]) for s = slot_mapping[t] >= 0 (int64; -1 marks a padding token, skipped); kv_cache [NB, BS, L + R] bf16",
      keys = ["T", "L", "R", "NB", "BS"],
      key_doc = "T tokens, L latent width (kv_lora_rank), R RoPE key width (qk_rope_head_dim), NB cache pages, BS tokens per page",
      example = {T = 8, L = 64, R = 16, NB = 4, BS = 16},
      args = ["kv_c", "k_pe", "kv_cache", "slot_mapping"],
      constraints = [["T <= NB * BS", "T must not exceed the cache's NB * BS slots"]]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, L = 512, R = 64, NB = 4097, BS = 64},
       facts = {slot_mapping = {iota = {}}}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, L = 512, R = 64, NB = 4097, BS = 64},
       facts = {slot_mapping = {iota = {}}}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i64 = arith.constant 0 : i64
  %t = tensor.dim %kv_c, %c0 : tensor<?x?xbf16>
  %l = tensor.dim %kv_c, %c1 : tensor<?x?xbf16>
  %r = tensor.dim %k_pe, %c1 : tensor<?x?xbf16>
  %bs = tensor.dim %kv_cache, %c1 : tensor<?x?x?xbf16>
  // One row per token, its kv_c part then its k_pe part; a padding token
  // writes back the row already there.
  %cache = scf.for %i = %c0 to %t step %c1 iter_args(%kc = %kv_cache) -> (tensor<?x?x?xbf16>) {
    %slot = tensor.extract %slot_mapping[%i] : tensor<?xi64>
    %valid = arith.cmpi sge, %slot, %c0_i64 : i64
    %slot_idx = arith.index_cast %slot : i64 to index
    %s = arith.select %valid, %slot_idx, %c0 : index
    %page = arith.divui %s, %bs : index
    %off = arith.remui %s, %bs : index
    %c_new = tensor.extract_slice %kv_c[%i, 0] [1, %l] [1, 1]
        : tensor<?x?xbf16> to tensor<?xbf16>
    %c_old = tensor.extract_slice %kc[%page, %off, 0] [1, 1, %l] [1, 1, 1]
        : tensor<?x?x?xbf16> to tensor<?xbf16>
    %c_init = tensor.empty(%l) : tensor<?xbf16>
    %c_row = linalg.generic {indexing_maps = [#row, #row, #row],
                             iterator_types = ["parallel"]}
        ins(%c_new, %c_old : tensor<?xbf16>, tensor<?xbf16>)
        outs(%c_init : tensor<?xbf16>) {
    ^bb0(%a: bf16, %b: bf16, %o: bf16):
      %v = arith.select %valid, %a, %b : bf16
      linalg.yield %v : bf16
    } -> tensor<?xbf16>
    %kc_c = tensor.insert_slice %c_row into %kc[%page, %off, 0] [1, 1, %l] [1, 1, 1]
        : tensor<?xbf16> into tensor<?x?x?xbf16>
    %pe_new = tensor.extract_slice %k_pe[%i, 0] [1, %r] [1, 1]
        : tensor<?x?xbf16> to tensor<?xbf16>
    %pe_old = tensor.extract_slice %kc_c[%page, %off, %l] [1, 1, %r] [1, 1, 1]
        : tensor<?x?x?xbf16> to tensor<?xbf16>
    %pe_init = tensor.empty(%r) : tensor<?xbf16>
    %pe_row = linalg.generic {indexing_maps = [#row, #row, #row],
                              iterator_types = ["parallel"]}
        ins(%pe_new, %pe_old : tensor<?xbf16>, tensor<?xbf16>)
        outs(%pe_init : tensor<?xbf16>) {
    ^bb0(%a: bf16, %b: bf16, %o: bf16):
      %v = arith.select %valid, %a, %b : bf16
      linalg.yield %v : bf16
    } -> tensor<?xbf16>
    %kc_next = tensor.insert_slice %pe_row into %kc_c[%page, %off, %l] [1, 1, %r] [1, 1, 1]
        : tensor<?xbf16> into tensor<?x?x?xbf16>
    scf.yield %kc_next : tensor<?x?x?xbf16>
  }
  return %cache : tensor<?x?x?xbf16>
}
