// rotary_embedding: NeoX-style RoPE on q and k (rotary dim = head dim),
// cos/sin cache rows indexed by positions: cache[p, :D/2] = cos, cache[p, D/2:] = sin.
//   positions [T] i64, query [T, Hq*D] bf16, key [T, Hk*D] bf16, cos_sin_cache [P, D] f32
//   -> query_out [T, Hq*D] bf16, key_out [T, Hk*D] bf16 (the in-place update, as results)
// Dimensions: T tokens, Hq query heads, Hk key heads, D head dim, P cached positions.
// The entry point's head_size (= D) and is_neox (= true) are fixed inputs.
// Bytes: only the cache rows named by positions are read (atrex.access rows).
#pos = affine_map<(t, h, i) -> (t)>
#x = affine_map<(t, h, i) -> (t, h, i)>
func.func @rotary_embedding(
    %positions: tensor<?xi64> {atrex.name = "positions", atrex.dims = ["T"]},
    %query: tensor<?x?xbf16> {atrex.name = "query", atrex.dims = ["T", "Hq*D"]},
    %key: tensor<?x?xbf16> {atrex.name = "key", atrex.dims = ["T", "Hk*D"]},
    %cos_sin_cache: tensor<?x?xf32> {atrex.name = "cos_sin_cache", atrex.dims = ["P", "D"],
                                      atrex.access = {kind = "rows", index = "positions"}})
    -> (tensor<?x?xbf16> {atrex.name = "query_out", atrex.dims = ["T", "Hq*D"]},
        tensor<?x?xbf16> {atrex.name = "key_out", atrex.dims = ["T", "Hk*D"]})
    attributes {atrex.operator = "rotary_embedding",
    atrex.entry = {summary = "NeoX-style RoPE applied in place to query and key; cos_sin_cache[P, D] holds cos in the first D/2 columns and sin in the last D/2, indexed by positions",
      keys = ["T", "Hq", "Hk", "D", "P"],
      key_doc = "T tokens, Hq query heads, Hk key heads, D head size (= rotary dim), P cache positions",
      example = {T = 4, Hq = 4, Hk = 2, D = 64, P = 64},
      args = ["positions", "query", "key", "head_size: int64_t", "cos_sin_cache", "is_neox: bool"],
      constraints = [["D % 2 == 0", "D must be a multiple of 2"]]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, Hq = 32, Hk = 8, D = 128, P = 131072},
       facts = {positions = {iota = {start = 4000}}}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, Hq = 32, Hk = 8, D = 128, P = 131072},
       facts = {positions = {iota = {}}}}],
                atrex.fixed_inputs = {head_size = "D", is_neox = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = tensor.dim %query, %c0 : tensor<?x?xbf16>
  %d = tensor.dim %cos_sin_cache, %c1 : tensor<?x?xf32>
  %qw = tensor.dim %query, %c1 : tensor<?x?xbf16>
  %kw = tensor.dim %key, %c1 : tensor<?x?xbf16>
  %hq = arith.divui %qw, %d : index
  %hk = arith.divui %kw, %d : index
  %q = tensor.expand_shape %query [[0], [1, 2]] output_shape [%t, %hq, %d]
      : tensor<?x?xbf16> into tensor<?x?x?xbf16>
  %k = tensor.expand_shape %key [[0], [1, 2]] output_shape [%t, %hk, %d]
      : tensor<?x?xbf16> into tensor<?x?x?xbf16>
  %half = arith.divui %d, %c2 : index

  // q: o1 = x1*cos - x2*sin, o2 = x2*cos + x1*sin: 6 FLOPs per pair.
  %q_x1 = tensor.extract_slice %q[0, 0, 0] [%t, %hq, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> to tensor<?x?x?xbf16>
  %q_x2 = tensor.extract_slice %q[0, 0, %half] [%t, %hq, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> to tensor<?x?x?xbf16>
  %q_init = tensor.empty(%t, %hq, %half) : tensor<?x?x?xbf16>
  %q_o:2 = linalg.generic {indexing_maps = [#pos, #x, #x, #x, #x],
                           iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%positions, %q_x1, %q_x2 : tensor<?xi64>, tensor<?x?x?xbf16>, tensor<?x?x?xbf16>)
      outs(%q_init, %q_init : tensor<?x?x?xbf16>, tensor<?x?x?xbf16>) {
  ^bb0(%p: i64, %a: bf16, %b: bf16, %o1: bf16, %o2: bf16):
    %i = linalg.index 2 : index
    %pi = arith.index_cast %p : i64 to index
    %si = arith.addi %i, %half : index
    %c = tensor.extract %cos_sin_cache[%pi, %i] : tensor<?x?xf32>
    %s = tensor.extract %cos_sin_cache[%pi, %si] : tensor<?x?xf32>
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %ac = arith.mulf %af, %c : f32
    %bs = arith.mulf %bf, %s : f32
    %r1 = arith.subf %ac, %bs : f32
    %bc = arith.mulf %bf, %c : f32
    %as = arith.mulf %af, %s : f32
    %r2 = arith.addf %bc, %as : f32
    %r1b = arith.truncf %r1 : f32 to bf16
    %r2b = arith.truncf %r2 : f32 to bf16
    linalg.yield %r1b, %r2b : bf16, bf16
  } -> (tensor<?x?x?xbf16>, tensor<?x?x?xbf16>)
  %q_full = tensor.empty(%t, %hq, %d) : tensor<?x?x?xbf16>
  %q_lo = tensor.insert_slice %q_o#0 into %q_full[0, 0, 0] [%t, %hq, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> into tensor<?x?x?xbf16>
  %q_out = tensor.insert_slice %q_o#1 into %q_lo[0, 0, %half] [%t, %hq, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> into tensor<?x?x?xbf16>

  // k: o1 = x1*cos - x2*sin, o2 = x2*cos + x1*sin: 6 FLOPs per pair.
  %k_x1 = tensor.extract_slice %k[0, 0, 0] [%t, %hk, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> to tensor<?x?x?xbf16>
  %k_x2 = tensor.extract_slice %k[0, 0, %half] [%t, %hk, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> to tensor<?x?x?xbf16>
  %k_init = tensor.empty(%t, %hk, %half) : tensor<?x?x?xbf16>
  %k_o:2 = linalg.generic {indexing_maps = [#pos, #x, #x, #x, #x],
                           iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%positions, %k_x1, %k_x2 : tensor<?xi64>, tensor<?x?x?xbf16>, tensor<?x?x?xbf16>)
      outs(%k_init, %k_init : tensor<?x?x?xbf16>, tensor<?x?x?xbf16>) {
  ^bb0(%p: i64, %a: bf16, %b: bf16, %o1: bf16, %o2: bf16):
    %i = linalg.index 2 : index
    %pi = arith.index_cast %p : i64 to index
    %si = arith.addi %i, %half : index
    %c = tensor.extract %cos_sin_cache[%pi, %i] : tensor<?x?xf32>
    %s = tensor.extract %cos_sin_cache[%pi, %si] : tensor<?x?xf32>
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %ac = arith.mulf %af, %c : f32
    %bs = arith.mulf %bf, %s : f32
    %r1 = arith.subf %ac, %bs : f32
    %bc = arith.mulf %bf, %c : f32
    %as = arith.mulf %af, %s : f32
    %r2 = arith.addf %bc, %as : f32
    %r1b = arith.truncf %r1 : f32 to bf16
    %r2b = arith.truncf %r2 : f32 to bf16
    linalg.yield %r1b, %r2b : bf16, bf16
  } -> (tensor<?x?x?xbf16>, tensor<?x?x?xbf16>)
  %k_full = tensor.empty(%t, %hk, %d) : tensor<?x?x?xbf16>
  %k_lo = tensor.insert_slice %k_o#0 into %k_full[0, 0, 0] [%t, %hk, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> into tensor<?x?x?xbf16>
  %k_out = tensor.insert_slice %k_o#1 into %k_lo[0, 0, %half] [%t, %hk, %half] [1, 1, 1]
      : tensor<?x?x?xbf16> into tensor<?x?x?xbf16>
  %query_out = tensor.collapse_shape %q_out [[0], [1, 2]]
      : tensor<?x?x?xbf16> into tensor<?x?xbf16>
  %key_out = tensor.collapse_shape %k_out [[0], [1, 2]]
      : tensor<?x?x?xbf16> into tensor<?x?xbf16>
  return %query_out, %key_out : tensor<?x?xbf16>, tensor<?x?xbf16>
}
