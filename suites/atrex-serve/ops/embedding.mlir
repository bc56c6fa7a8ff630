// embedding: token embedding lookup (vLLM's VocabParallelEmbedding on one GPU,
// F.embedding): out[t, :] = weight[ids[t], :].
//   ids [T] i32 in [0, V), weight [V, H] bf16 -> out [T, H] bf16
// Dimensions: T tokens, V vocabulary size, H hidden size.
// ids are i32 (as vLLM's model runner keeps its input_ids buffer in int32).
// A pure gather: no FLOPs. Data-dependent bytes (fact: ids): only the weight
// rows named by ids are read, each distinct row once (atrex.access rows), so a
// step reads 2*H bytes per distinct token, not the whole V x H table.
#t = affine_map<(t, h) -> (t)>
#th = affine_map<(t, h) -> (t, h)>
func.func @embedding(
    %ids: tensor<?xi32> {atrex.name = "ids", atrex.dims = ["T"]},
    %weight: tensor<?x?xbf16> {atrex.name = "weight", atrex.dims = ["V", "H"],
                               atrex.access = {kind = "rows", index = "ids"}})
    -> (tensor<?x?xbf16> {atrex.name = "out", atrex.dims = ["T", "H"]})
    attributes {atrex.operator = "embedding",
    atrex.entry = {summary = "out[t, :] = weight[ids[t], :]; ids [T] int32 in [0, V), weight [V, H] bf16, out [T, H] bf16",
      keys = ["T", "V", "H"], key_doc = "T tokens, V vocabulary size, H hidden size",
      example = {T = 4, V = 512, H = 128},
      args = ["out", "ids", "weight"]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, V = 128256, H = 4096},
       facts = {ids = {iota = {start = 1000}}}},
      {name = "prefill-t8192", phase = "prefill", shape = {T = 8192, V = 128256, H = 4096},
       facts = {ids = {iota = {}}}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.dim %ids, %c0 : tensor<?xi32>
  %h = tensor.dim %weight, %c1 : tensor<?x?xbf16>
  %out_init = tensor.empty(%t, %h) : tensor<?x?xbf16>
  %out = linalg.generic {indexing_maps = [#t, #th],
                         iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi32>) outs(%out_init : tensor<?x?xbf16>) {
  ^bb0(%id: i32, %o: bf16):
    %hi = linalg.index 1 : index
    %row = arith.index_cast %id : i32 to index
    %w = tensor.extract %weight[%row, %hi] : tensor<?x?xbf16>
    linalg.yield %w : bf16
  } -> tensor<?x?xbf16>
  return %out : tensor<?x?xbf16>
}
