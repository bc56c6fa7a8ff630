// softmax: the sampler's probabilities over the vocabulary, row-wise and
// numerically stable: p[t, v] = exp(x[t, v] - m[t]) / sum_v' exp(x[t, v'] - m[t]),
// m[t] = max_v x[t, v].
//   logits [T, V] f32 -> probs [T, V] f32
// Dimensions: T sampled rows (one per sequence sampled in the step), V vocabulary size.
// fp32 in, fp32 out: a serving sampler (vLLM's) casts the lm_head's logits to fp32 first
// (`logits.to(torch.float32)`), applies temperature and penalties in fp32, and
// computes `logits.softmax(dim=-1, dtype=torch.float32)`; the softmax kernel
// therefore reads fp32 logits and writes fp32 probabilities.
// The sampler sees one row per sequence whatever the phase: a prefill step
// samples the last prompt token of each request, so T is the number of requests.
#tv = affine_map<(t, v) -> (t, v)>
#t = affine_map<(t, v) -> (t)>
func.func @softmax(
    %logits: tensor<?x?xf32> {atrex.name = "logits", atrex.dims = ["T", "V"]})
    -> (tensor<?x?xf32> {atrex.name = "probs", atrex.dims = ["T", "V"]})
    attributes {atrex.operator = "softmax",
    atrex.entry = {summary = "probs = softmax(logits, -1) in fp32, numerically stable (max subtracted); fp32 in/out",
      keys = ["T", "V"], key_doc = "T rows (sequences sampled), V vocabulary size", example = {T = 4, V = 1024},
      args = ["probs", "logits"]},
    atrex.examples = [
      {name = "decode-t64", phase = "decode", shape = {T = 64, V = 128256}},
      {name = "prefill-t32", phase = "prefill", shape = {T = 32, V = 128256}}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %t = tensor.dim %logits, %c0 : tensor<?x?xf32>
  %v = tensor.dim %logits, %c1 : tensor<?x?xf32>
  // maximumf, subf, addf, divf = 4 FLOPs + 1 exp per element.
  %m_init = tensor.empty(%t) : tensor<?xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%m_init : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#tv, #t],
                       iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<?x?xf32>) outs(%m0 : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %ex_init = tensor.empty(%t, %v) : tensor<?x?xf32>
  %ex = linalg.generic {indexing_maps = [#tv, #t, #tv],
                        iterator_types = ["parallel", "parallel"]}
      ins(%logits, %m : tensor<?x?xf32>, tensor<?xf32>)
      outs(%ex_init : tensor<?x?xf32>) {
  ^bb0(%x: f32, %mx: f32, %o: f32):
    %d = arith.subf %x, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %s_init = tensor.empty(%t) : tensor<?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#tv, #t],
                       iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<?x?xf32>) outs(%s0 : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %p_init = tensor.empty(%t, %v) : tensor<?x?xf32>
  %p = linalg.generic {indexing_maps = [#tv, #t, #tv],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<?x?xf32>, tensor<?xf32>)
      outs(%p_init : tensor<?x?xf32>) {
  ^bb0(%x: f32, %sum: f32, %o: f32):
    %r = arith.divf %x, %sum : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
