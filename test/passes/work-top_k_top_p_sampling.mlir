// Semantic work of top_k_top_p_sampling (suites/atrex-serve/ops/top_k_top_p_sampling.mlir) at
// two shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: three passes over the vocabulary, one addf per token each (the top-k mass S_k,
// the prefix masses in probability order, the cumulative kept mass in index order) = 3BV,
// plus top_p * S_k and uniform * S_n = 2B. The order (ranks, sorted probabilities), the
// comparisons and the selections are free. Both scans are scf.for loops with static trip
// counts (V per row, B rows). bytes: probs 4BV, top_k, top_p, uniform 4B each read;
// samples 4B written.

// Case 1 (B=3,V=8)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/top_k_top_p_sampling.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=3,V=8" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 3*B*V + 2*B = 72 + 6 = 78
//   read = 4*B*V + 12*B = 96 + 36 = 132
//   write = 4*B = 12
// S1: atrex.work = {bytes = {read = 132 : i64, total = 144 : i64, write = 12 : i64}, flops = {vector = {f32 = 78 : i64}}, special = {}}

// Case 2 (B=64,V=151936: Qwen3's vocabulary, 64 sequences)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/top_k_top_p_sampling.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=64,V=151936" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 3*B*V + 2*B = 29171712 + 128 = 29171840
//   read = 4*B*V + 12*B = 38895616 + 768 = 38896384
//   write = 4*B = 256
// S2: atrex.work = {bytes = {read = 38896384 : i64, total = 38896640 : i64, write = 256 : i64}, flops = {vector = {f32 = 29171840 : i64}}, special = {}}
