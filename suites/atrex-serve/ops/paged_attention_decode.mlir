// paged_attention_decode: one query token per sequence, GQA (query head h
// reads KV head h / (Hq/Hk)), KV in pages of BS tokens: token l of sequence
// b lives in page block_tables[b, l / BS], slot l % BS; positions
// l >= context_lens[b] are masked. out = softmax(scale * q K^T) V, with P (the
// unnormalized exp, rounded to bf16 as flash kernels do) normalized at the end.
//   query [B, Hq, D] bf16, key_cache [NB, BS, Hk, D] bf16, value_cache [NB, BS, Hk, D] bf16,
//   block_tables [B, MB] i32, context_lens [B] i32, scale f32 -> out [B, Hq, D] bf16
// Dimensions: B sequences, Hq query heads, Hk KV heads, D head dim,
//   NB pages in the cache, BS tokens per page, MB block-table width.
// Data-dependent work (facts: context_lens, block_tables): every op over the
// key axis l is atrex.ragged (l < context_lens[b]); the caches are read only
// for the pages referenced (atrex.access paged).
#q4 = affine_map<(b, h, l, d) -> (b, h, d)>
#c4 = affine_map<(b, h, l, d) -> (b)>
#s4 = affine_map<(b, h, l, d) -> (b, h, l)>
#s3 = affine_map<(b, h, l) -> (b, h, l)>
#c3 = affine_map<(b, h, l) -> (b)>
#m3 = affine_map<(b, h, l) -> (b, h)>
#pv_p = affine_map<(b, h, d, l) -> (b, h, l)>
#pv_c = affine_map<(b, h, d, l) -> (b)>
#pv_o = affine_map<(b, h, d, l) -> (b, h, d)>
#o3 = affine_map<(b, h, d) -> (b, h, d)>
#os = affine_map<(b, h, d) -> (b, h)>
func.func @paged_attention_decode(
    %q: tensor<?x?x?xbf16> {atrex.name = "query", atrex.dims = ["B", "Hq", "D"]},
    %k_cache: tensor<?x?x?x?xbf16> {atrex.name = "key_cache", atrex.dims = ["NB", "BS", "Hk", "D"],
        atrex.access = {kind = "paged", table = "block_tables", lengths = "context_lens"}},
    %v_cache: tensor<?x?x?x?xbf16> {atrex.name = "value_cache", atrex.dims = ["NB", "BS", "Hk", "D"],
        atrex.access = {kind = "paged", table = "block_tables", lengths = "context_lens"}},
    %block_tables: tensor<?x?xi32> {atrex.name = "block_tables", atrex.dims = ["B", "MB"]},
    %context_lens: tensor<?xi32> {atrex.name = "context_lens", atrex.dims = ["B"]},
    %scale: f32 {atrex.name = "scale"})
    -> (tensor<?x?x?xbf16> {atrex.name = "out", atrex.dims = ["B", "Hq", "D"]})
    attributes {atrex.operator = "paged_attention_decode",
    atrex.entry = {summary = "one query token per sequence, GQA; K/V cache [NB, BS, Hk, D] in blocks addressed by block_tables [B, ceil(L/BS)]; sequence b attends to its first context_lens[b] tokens; softmax(scale q k^T) v in fp32, bf16 out. NB = B * ceil(L/BS) + 1",
      keys = ["B", "Hq", "Hk", "D", "BS", "L"],
      key_doc = "B sequences, Hq query heads, Hk KV heads, D head size, BS block size, L max context length",
      example = {B = 3, Hq = 4, Hk = 2, D = 64, BS = 16, L = 80},
      args = ["out", "query", "key_cache", "value_cache", "block_tables", "context_lens", "scale"],
      derived = ["MB = (L + BS - 1) / BS", "NB = B * MB + 1"],
      constraints = [["Hq % Hk == 0", "Hq must be a multiple of Hk"]]},
    atrex.examples = [
      {name = "b64-ctx4k", phase = "decode", shape = {B = 64, Hq = 32, Hk = 8, D = 128, NB = 16385, BS = 16, MB = 256},
       facts = {context_lens = {fill = 4096}, block_tables = {iota = {}}}},
      {name = "b8-ctx32k", phase = "decode", shape = {B = 8, Hq = 64, Hk = 8, D = 128, NB = 16385, BS = 16, MB = 2048},
       facts = {context_lens = {fill = 32768}, block_tables = {iota = {}}}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %b = tensor.dim %q, %c0 : tensor<?x?x?xbf16>
  %hq = tensor.dim %q, %c1 : tensor<?x?x?xbf16>
  %d = tensor.dim %q, %c2 : tensor<?x?x?xbf16>
  %bs = tensor.dim %k_cache, %c1 : tensor<?x?x?x?xbf16>
  %hkv = tensor.dim %k_cache, %c2 : tensor<?x?x?x?xbf16>
  %mb = tensor.dim %block_tables, %c1 : tensor<?x?xi32>
  %l = arith.muli %mb, %bs : index
  %group = arith.divui %hq, %hkv : index
  // S = q K^T: 2 FLOPs per (b, h, valid l, d) on the matrix engine.
  %s_init = tensor.empty(%b, %hq, %l) : tensor<?x?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %s = linalg.generic {indexing_maps = [#q4, #c4, #s4],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %context_lens : tensor<?x?x?xbf16>, tensor<?xi32>)
      outs(%s0 : tensor<?x?x?xf32>)
      attrs = {atrex.engine = "matrix",
               atrex.ragged = {loop = 2 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%qv: bf16, %ctx: i32, %acc: f32):
    %ib = linalg.index 0 : index
    %ih = linalg.index 1 : index
    %il = linalg.index 2 : index
    %id = linalg.index 3 : index
    %ctxi = arith.index_cast %ctx : i32 to index
    %valid = arith.cmpi ult, %il, %ctxi : index
    %blk = arith.divui %il, %bs : index
    %slot = arith.remui %il, %bs : index
    %page32 = tensor.extract %block_tables[%ib, %blk] : tensor<?x?xi32>
    %page_raw = arith.index_cast %page32 : i32 to index
    %page = arith.select %valid, %page_raw, %c0 : index
    %kvh = arith.divui %ih, %group : index
    %kv = tensor.extract %k_cache[%page, %slot, %kvh, %id] : tensor<?x?x?x?xbf16>
    %qf = arith.extf %qv : bf16 to f32
    %kf = arith.extf %kv : bf16 to f32
    %prod = arith.mulf %qf, %kf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  // z = scale * S on valid keys, -inf elsewhere: 1 FLOP per valid key.
  %z_init = tensor.empty(%b, %hq, %l) : tensor<?x?x?xf32>
  %z = linalg.generic {indexing_maps = [#s3, #c3, #s3],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %context_lens : tensor<?x?x?xf32>, tensor<?xi32>)
      outs(%z_init : tensor<?x?x?xf32>)
      attrs = {atrex.ragged = {loop = 2 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%sv: f32, %ctx: i32, %o: f32):
    %il = linalg.index 2 : index
    %ctxi = arith.index_cast %ctx : i32 to index
    %valid = arith.cmpi ult, %il, %ctxi : index
    %v = arith.mulf %sv, %scale : f32
    %r = arith.select %valid, %v, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  // row max: 1 FLOP per valid key.
  %m_init = tensor.empty(%b, %hq) : tensor<?x?xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%m_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %m = linalg.generic {indexing_maps = [#s3, #m3],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%z : tensor<?x?x?xf32>) outs(%m0 : tensor<?x?xf32>)
      attrs = {atrex.ragged = {loop = 2 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%zv: f32, %acc: f32):
    %r = arith.maximumf %acc, %zv : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  // P = exp(z - max): 1 FLOP + 1 exp per valid key; P rounded to bf16.
  %e_init = tensor.empty(%b, %hq, %l) : tensor<?x?x?xf32>
  %p_init = tensor.empty(%b, %hq, %l) : tensor<?x?x?xbf16>
  %e:2 = linalg.generic {indexing_maps = [#s3, #m3, #s3, #s3],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%z, %m : tensor<?x?x?xf32>, tensor<?x?xf32>)
      outs(%e_init, %p_init : tensor<?x?x?xf32>, tensor<?x?x?xbf16>)
      attrs = {atrex.ragged = {loop = 2 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%zv: f32, %mv: f32, %o: f32, %ob: bf16):
    %dz = arith.subf %zv, %mv : f32
    %ev = math.exp %dz : f32
    %eb = arith.truncf %ev : f32 to bf16
    linalg.yield %ev, %eb : f32, bf16
  } -> (tensor<?x?x?xf32>, tensor<?x?x?xbf16>)
  // row sum: 1 FLOP per valid key.
  %sum_init = tensor.empty(%b, %hq) : tensor<?x?xf32>
  %sum0 = linalg.fill ins(%zero : f32) outs(%sum_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#s3, #m3],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e#0 : tensor<?x?x?xf32>) outs(%sum0 : tensor<?x?xf32>)
      attrs = {atrex.ragged = {loop = 2 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%ev: f32, %acc: f32):
    %r = arith.addf %acc, %ev : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  // O = P V: 2 FLOPs per (b, h, d, valid l) on the matrix engine.
  %o_init = tensor.empty(%b, %hq, %d) : tensor<?x?x?xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%o_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_c, #pv_o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e#1, %context_lens : tensor<?x?x?xbf16>, tensor<?xi32>)
      outs(%o0 : tensor<?x?x?xf32>)
      attrs = {atrex.engine = "matrix",
               atrex.ragged = {loop = 3 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%pv: bf16, %ctx: i32, %acc: f32):
    %ib = linalg.index 0 : index
    %ih = linalg.index 1 : index
    %id = linalg.index 2 : index
    %il = linalg.index 3 : index
    %ctxi = arith.index_cast %ctx : i32 to index
    %valid = arith.cmpi ult, %il, %ctxi : index
    %blk = arith.divui %il, %bs : index
    %slot = arith.remui %il, %bs : index
    %page32 = tensor.extract %block_tables[%ib, %blk] : tensor<?x?xi32>
    %page_raw = arith.index_cast %page32 : i32 to index
    %page = arith.select %valid, %page_raw, %c0 : index
    %kvh = arith.divui %ih, %group : index
    %vv = tensor.extract %v_cache[%page, %slot, %kvh, %id] : tensor<?x?x?x?xbf16>
    %pf = arith.extf %pv : bf16 to f32
    %vf = arith.extf %vv : bf16 to f32
    %prod = arith.mulf %pf, %vf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  // normalize: 1 FLOP per output element.
  %out_init = tensor.empty(%b, %hq, %d) : tensor<?x?x?xbf16>
  %out = linalg.generic {indexing_maps = [#o3, #os, #o3],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%o, %sum : tensor<?x?x?xf32>, tensor<?x?xf32>)
      outs(%out_init : tensor<?x?x?xbf16>) {
  ^bb0(%ov: f32, %sv: f32, %ob: bf16):
    %r = arith.divf %ov, %sv : f32
    %rb = arith.truncf %r : f32 to bf16
    linalg.yield %rb : bf16
  } -> tensor<?x?x?xbf16>
  return %out : tensor<?x?x?xbf16>
}
