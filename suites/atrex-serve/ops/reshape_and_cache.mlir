// reshape_and_cache: write the new tokens' keys and values into the paged KV
// cache, in place. Token t goes to slot slot_mapping[t] = page * BS + offset,
// i.e. key_cache[page, offset] = key[t], value_cache[page, offset] = value[t];
// a negative slot (-1: a padding token) writes nothing, every other cache
// entry keeps its contents. The cache layout is paged_attention_decode's
// [NB, BS, Hk, D] (vLLM's flash layout, as reshape_and_cache_flash).
//   key, value [T, Hk, D] bf16, key_cache, value_cache [NB, BS, Hk, D] bf16,
//   slot_mapping [T] i64 -> key_cache_out, value_cache_out [NB, BS, Hk, D] bf16
//   (the in-place update, as results)
// Dimensions: T tokens, Hk KV heads, D head size, NB pages, BS tokens per page.
// No arithmetic: a copy of T rows. Bytes (atrex.access): the old cache contents
// are not read (`carried`), the results write the distinct non-negative slots
// of slot_mapping (`slots`: dimensions 0 and 1 as one slot axis), so a write
// of T tokens moves 2 x 2T*Hk*D + 8T bytes in and 2 x 2*U_slots*Hk*D out, not
// the whole caches.
#row = affine_map<(h, d) -> (h, d)>
func.func @reshape_and_cache(
    %key: tensor<?x?x?xbf16> {atrex.name = "key", atrex.dims = ["T", "Hk", "D"]},
    %value: tensor<?x?x?xbf16> {atrex.name = "value", atrex.dims = ["T", "Hk", "D"]},
    %key_cache: tensor<?x?x?x?xbf16> {atrex.name = "key_cache", atrex.dims = ["NB", "BS", "Hk", "D"],
                                      atrex.access = {kind = "carried"}},
    %value_cache: tensor<?x?x?x?xbf16> {atrex.name = "value_cache", atrex.dims = ["NB", "BS", "Hk", "D"],
                                        atrex.access = {kind = "carried"}},
    %slot_mapping: tensor<?xi64> {atrex.name = "slot_mapping", atrex.dims = ["T"]})
    -> (tensor<?x?x?x?xbf16> {atrex.name = "key_cache_out", atrex.dims = ["NB", "BS", "Hk", "D"],
                              atrex.access = {kind = "slots", index = "slot_mapping"}},
        tensor<?x?x?x?xbf16> {atrex.name = "value_cache_out", atrex.dims = ["NB", "BS", "Hk", "D"],
                              atrex.access = {kind = "slots", index = "slot_mapping"}})
    attributes {atrex.operator = "reshape_and_cache",
    atrex.entry = {summary = "paged KV-cache write in place: key_cache[s / BS, s % BS] = key[t], value_cache[s / BS, s % BS] = value[t] for s = slot_mapping[t] >= 0 (int64; -1 marks a padding token, skipped); caches [NB, BS, Hk, D] bf16 as paged_attention_decode reads them",
      keys = ["T", "Hk", "D", "NB", "BS"],
      key_doc = "T tokens, Hk KV heads, D head size, NB cache pages, BS tokens per page",
      example = {T = 8, Hk = 2, D = 64, NB = 4, BS = 16},
      args = ["key", "value", "key_cache", "value_cache", "slot_mapping"],
      constraints = [["T <= NB * BS", "T must not exceed the cache's NB * BS slots"]]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, Hk = 8, D = 128, NB = 16385, BS = 16},
       facts = {slot_mapping = {iota = {}}}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, Hk = 8, D = 128, NB = 16385, BS = 16},
       facts = {slot_mapping = {iota = {}}}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0_i64 = arith.constant 0 : i64
  %t = tensor.dim %key, %c0 : tensor<?x?x?xbf16>
  %hk = tensor.dim %key, %c1 : tensor<?x?x?xbf16>
  %d = tensor.dim %key, %c2 : tensor<?x?x?xbf16>
  %bs = tensor.dim %key_cache, %c1 : tensor<?x?x?x?xbf16>
  // One row per token; a padding token writes back the row already there.
  %caches:2 = scf.for %i = %c0 to %t step %c1
      iter_args(%kc = %key_cache, %vc = %value_cache)
      -> (tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>) {
    %slot = tensor.extract %slot_mapping[%i] : tensor<?xi64>
    %valid = arith.cmpi sge, %slot, %c0_i64 : i64
    %slot_idx = arith.index_cast %slot : i64 to index
    %s = arith.select %valid, %slot_idx, %c0 : index
    %page = arith.divui %s, %bs : index
    %off = arith.remui %s, %bs : index
    %row_init = tensor.empty(%hk, %d) : tensor<?x?xbf16>
    %k_new = tensor.extract_slice %key[%i, 0, 0] [1, %hk, %d] [1, 1, 1]
        : tensor<?x?x?xbf16> to tensor<?x?xbf16>
    %k_old = tensor.extract_slice %kc[%page, %off, 0, 0] [1, 1, %hk, %d] [1, 1, 1, 1]
        : tensor<?x?x?x?xbf16> to tensor<?x?xbf16>
    %k_row = linalg.generic {indexing_maps = [#row, #row, #row],
                              iterator_types = ["parallel", "parallel"]}
        ins(%k_new, %k_old : tensor<?x?xbf16>, tensor<?x?xbf16>)
        outs(%row_init : tensor<?x?xbf16>) {
    ^bb0(%a: bf16, %b: bf16, %o: bf16):
      %r = arith.select %valid, %a, %b : bf16
      linalg.yield %r : bf16
    } -> tensor<?x?xbf16>
    %kc_next = tensor.insert_slice %k_row into %kc[%page, %off, 0, 0] [1, 1, %hk, %d] [1, 1, 1, 1]
        : tensor<?x?xbf16> into tensor<?x?x?x?xbf16>
    %v_new = tensor.extract_slice %value[%i, 0, 0] [1, %hk, %d] [1, 1, 1]
        : tensor<?x?x?xbf16> to tensor<?x?xbf16>
    %v_old = tensor.extract_slice %vc[%page, %off, 0, 0] [1, 1, %hk, %d] [1, 1, 1, 1]
        : tensor<?x?x?x?xbf16> to tensor<?x?xbf16>
    %v_row = linalg.generic {indexing_maps = [#row, #row, #row],
                              iterator_types = ["parallel", "parallel"]}
        ins(%v_new, %v_old : tensor<?x?xbf16>, tensor<?x?xbf16>)
        outs(%row_init : tensor<?x?xbf16>) {
    ^bb0(%a: bf16, %b: bf16, %o: bf16):
      %r = arith.select %valid, %a, %b : bf16
      linalg.yield %r : bf16
    } -> tensor<?x?xbf16>
    %vc_next = tensor.insert_slice %v_row into %vc[%page, %off, 0, 0] [1, 1, %hk, %d] [1, 1, 1, 1]
        : tensor<?x?xbf16> into tensor<?x?x?x?xbf16>
    scf.yield %kc_next, %vc_next : tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>
  }
  return %caches#0, %caches#1 : tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>
}
