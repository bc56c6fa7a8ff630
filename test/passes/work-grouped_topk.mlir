// Semantic work of grouped_topk (suites/atrex-serve/ops/grouped_topk.mlir) at two shapes;
// expected numbers from the counting rules of docs/semantic-work.md.
// vector: sigmoid (negf, addf, divf) and + bias per element 4TE; group score (sum of the
// two largest, found by compares and selects) 1 per group T*G; over the K selected: sum,
// divide, times routed_scaling_factor 3TK. exp TE. The group and expert ranks and the
// selection count nothing.
// bytes: gating_output 4TE, routed_scaling_factor 4, e_score_correction_bias 4E read;
// topk_weights 4TK and topk_ids 4TK written.

// Case 1 (T=3,E=16,G=4,TG=2,K=4)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_topk.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,E=16,G=4,TG=2,K=4" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 4*T*E + T*G + 3*T*K = 192 + 12 + 36 = 240
//   special.exp = T*E = 48
//   read = 4*T*E + 4 + 4*E = 192 + 4 + 64 = 260
//   write = 8*T*K = 96
// S1: atrex.work = {bytes = {read = 260 : i64, total = 356 : i64, write = 96 : i64}, flops = {vector = {f32 = 240 : i64}}, special = {exp = 48 : i64}}

// Case 2 (T=64,E=256,G=8,TG=4,K=8: DeepSeek-V3's routing, the decode example)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_topk.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=64,E=256,G=8,TG=4,K=8" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 4*T*E + T*G + 3*T*K = 65536 + 512 + 1536 = 67584
//   special.exp = T*E = 16384
//   read = 4*T*E + 4 + 4*E = 65536 + 4 + 1024 = 66564
//   write = 8*T*K = 4096
// S2: atrex.work = {bytes = {read = 66564 : i64, total = 70660 : i64, write = 4096 : i64}, flops = {vector = {f32 = 67584 : i64}}, special = {exp = 16384 : i64}}
