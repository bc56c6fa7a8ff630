// mla_decode: multi-head latent attention (MLA) at decode in its absorbed
// form (DeepSeek's, as FlashMLA and vLLM's MLA backends run it): one query token per
// sequence, H query heads sharing one latent KV head. A cache row holds the
// compressed latent c (L values, the keys' no-rope part and the values at
// once) followed by the rotary key part k_pe (R values). Token l of sequence b
// lives in page block_tables[b, l / BS], slot l % BS; positions
// l >= context_lens[b] are masked.
//   s[l] = scale * (q_nope . c[l] + q_pe . k_pe[l]),  out = softmax(s) c
// with P (the unnormalized exp, rounded to bf16 as flash kernels do)
// normalized at the end, as paged_attention_decode.
//   q_nope [B, H, L] bf16 (already multiplied by W_UK), q_pe [B, H, R] bf16,
//   kv_cache [NB, BS, L+R] bf16, block_tables [B, MB] i32, context_lens [B] i32,
//   scale f32 -> out [B, H, L] bf16 (in the latent space, before W_UV)
// Dimensions: B sequences, H query heads, L latent size (kv_lora_rank, 512),
//   R rotary size (qk_rope_head_dim, 64), NB pages in the cache, BS tokens per
//   page, MB block-table width.
// Work: the scores are one contraction over the L+R values of a cache row
// (q_nope and q_pe placed side by side: free data movement), 2*H*P*(L+R)
// matrix FLOPs, P V over the latent part 2*H*P*L, P = sum of context_lens.
// Data-dependent (facts: context_lens, block_tables): every op over the key
// axis l is atrex.ragged (l < context_lens[b]); the cache is read only for the
// pages referenced (atrex.access paged). Examples: 128 heads, kv_lora_rank
// 512, qk_rope_head_dim 64, page size 64 (DeepSeek-V3 with FlashMLA), with
// tensor parallelism 8 (16 heads per GPU) and with all 128 heads on one GPU
// (data-parallel attention).
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
func.func @mla_decode(
    %q_nope: tensor<?x?x?xbf16> {atrex.name = "q_nope", atrex.dims = ["B", "H", "L"]},
    %q_pe: tensor<?x?x?xbf16> {atrex.name = "q_pe", atrex.dims = ["B", "H", "R"]},
    %kv_cache: tensor<?x?x?xbf16> {atrex.name = "kv_cache", atrex.dims = ["NB", "BS", "L+R"],
        atrex.access = {kind = "paged", table = "block_tables", lengths = "context_lens"}},
    %block_tables: tensor<?x?xi32> {atrex.name = "block_tables", atrex.dims = ["B", "MB"]},
    %context_lens: tensor<?xi32> {atrex.name = "context_lens", atrex.dims = ["B"]},
    %scale: f32 {atrex.name = "scale"})
    -> (tensor<?x?x?xbf16> {atrex.name = "out", atrex.dims = ["B", "H", "L"]})
    attributes {atrex.operator = "mla_decode",
    atrex.entry = {summary = "DeepSeek MLA decode over a paged latent cache: one query token per sequence, H heads sharing one latent head; kv_cache [NB, BS, L+R] rows are [c (L) | k_pe (R)], blocks addressed by block_tables [B, ceil(S/BS)]; sequence b attends to its first context_lens[b] tokens; s = scale (q_nope c^T + q_pe k_pe^T), out = softmax(s) c in fp32, bf16 out [B, H, L]. NB = B * ceil(S/BS) + 1",
      keys = ["B", "H", "L", "R", "BS", "S"],
      key_doc = "B sequences, H query heads, L latent size (kv_lora_rank), R rotary size, BS block size, S max context length",
      example = {B = 3, H = 4, L = 64, R = 16, BS = 16, S = 80},
      args = ["out", "q_nope", "q_pe", "kv_cache", "block_tables", "context_lens", "scale"],
      derived = ["MB = (S + BS - 1) / BS", "NB = B * MB + 1"]},
    atrex.examples = [
      {name = "deepseek-v3-tp8-h16-b64-ctx4k", phase = "decode", shape = {B = 64, H = 16, L = 512, R = 64, NB = 4097, BS = 64, MB = 64},
       facts = {context_lens = {fill = 4096}, block_tables = {iota = {}}}},
      {name = "deepseek-v3-dp-h128-b32-ctx32k", phase = "decode", shape = {B = 32, H = 128, L = 512, R = 64, NB = 16385, BS = 64, MB = 512},
       facts = {context_lens = {fill = 32768}, block_tables = {iota = {}}}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %b = tensor.dim %q_nope, %c0 : tensor<?x?x?xbf16>
  %h = tensor.dim %q_nope, %c1 : tensor<?x?x?xbf16>
  %lat = tensor.dim %q_nope, %c2 : tensor<?x?x?xbf16>
  %rope = tensor.dim %q_pe, %c2 : tensor<?x?x?xbf16>
  %bs = tensor.dim %kv_cache, %c1 : tensor<?x?x?xbf16>
  %row = tensor.dim %kv_cache, %c2 : tensor<?x?x?xbf16>
  %mb = tensor.dim %block_tables, %c1 : tensor<?x?xi32>
  %l = arith.muli %mb, %bs : index
  // q = [q_nope | q_pe], laid out as a cache row (free).
  %q_init = tensor.empty(%b, %h, %row) : tensor<?x?x?xbf16>
  %q_a = tensor.insert_slice %q_nope into %q_init[0, 0, 0] [%b, %h, %lat] [1, 1, 1]
      : tensor<?x?x?xbf16> into tensor<?x?x?xbf16>
  %q = tensor.insert_slice %q_pe into %q_a[0, 0, %lat] [%b, %h, %rope] [1, 1, 1]
      : tensor<?x?x?xbf16> into tensor<?x?x?xbf16>
  // S = q [c | k_pe]^T: 2 FLOPs per (b, h, valid l, d < L+R) on the matrix engine.
  %s_init = tensor.empty(%b, %h, %l) : tensor<?x?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %s = linalg.generic {indexing_maps = [#q4, #c4, #s4],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %context_lens : tensor<?x?x?xbf16>, tensor<?xi32>)
      outs(%s0 : tensor<?x?x?xf32>)
      attrs = {atrex.engine = "matrix",
               atrex.ragged = {loop = 2 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%qv: bf16, %ctx: i32, %acc: f32):
    %ib = linalg.index 0 : index
    %il = linalg.index 2 : index
    %id = linalg.index 3 : index
    %ctxi = arith.index_cast %ctx : i32 to index
    %valid = arith.cmpi ult, %il, %ctxi : index
    %blk = arith.divui %il, %bs : index
    %slot = arith.remui %il, %bs : index
    %page32 = tensor.extract %block_tables[%ib, %blk] : tensor<?x?xi32>
    %page_raw = arith.index_cast %page32 : i32 to index
    %page = arith.select %valid, %page_raw, %c0 : index
    %kv = tensor.extract %kv_cache[%page, %slot, %id] : tensor<?x?x?xbf16>
    %qf = arith.extf %qv : bf16 to f32
    %kf = arith.extf %kv : bf16 to f32
    %prod = arith.mulf %qf, %kf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  // z = scale * S on valid keys, -inf elsewhere: 1 FLOP per valid key.
  %z_init = tensor.empty(%b, %h, %l) : tensor<?x?x?xf32>
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
  %m_init = tensor.empty(%b, %h) : tensor<?x?xf32>
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
  %e_init = tensor.empty(%b, %h, %l) : tensor<?x?x?xf32>
  %p_init = tensor.empty(%b, %h, %l) : tensor<?x?x?xbf16>
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
  %sum_init = tensor.empty(%b, %h) : tensor<?x?xf32>
  %sum0 = linalg.fill ins(%zero : f32) outs(%sum_init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#s3, #m3],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e#0 : tensor<?x?x?xf32>) outs(%sum0 : tensor<?x?xf32>)
      attrs = {atrex.ragged = {loop = 2 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%ev: f32, %acc: f32):
    %r = arith.addf %acc, %ev : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  // O = P c: 2 FLOPs per (b, h, d < L, valid l) on the matrix engine.
  %o_init = tensor.empty(%b, %h, %lat) : tensor<?x?x?xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%o_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %o = linalg.generic {indexing_maps = [#pv_p, #pv_c, #pv_o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e#1, %context_lens : tensor<?x?x?xbf16>, tensor<?xi32>)
      outs(%o0 : tensor<?x?x?xf32>)
      attrs = {atrex.engine = "matrix",
               atrex.ragged = {loop = 3 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%pv: bf16, %ctx: i32, %acc: f32):
    %ib = linalg.index 0 : index
    %id = linalg.index 2 : index
    %il = linalg.index 3 : index
    %ctxi = arith.index_cast %ctx : i32 to index
    %valid = arith.cmpi ult, %il, %ctxi : index
    %blk = arith.divui %il, %bs : index
    %slot = arith.remui %il, %bs : index
    %page32 = tensor.extract %block_tables[%ib, %blk] : tensor<?x?xi32>
    %page_raw = arith.index_cast %page32 : i32 to index
    %page = arith.select %valid, %page_raw, %c0 : index
    %cv = tensor.extract %kv_cache[%page, %slot, %id] : tensor<?x?x?xbf16>
    %pf = arith.extf %pv : bf16 to f32
    %cf = arith.extf %cv : bf16 to f32
    %prod = arith.mulf %pf, %cf : f32
    %r = arith.addf %acc, %prod : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  // normalize: 1 FLOP per output element.
  %out_init = tensor.empty(%b, %h, %lat) : tensor<?x?x?xbf16>
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
