// Semantic work of topk_softmax (suites/atrex-serve/ops/topk_softmax.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: max, x-max, sum, /sum = 4TE; renormalize (R = 1): sum and / over the K
// selected = 2TK*R; exp TE. The selection by rank counts nothing.
// bytes: gating_output 4TE read; topk_weights 4TK and topk_ids 4TK written.

// Case 1 (T=3,E=8,K=2,R=1)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/topk_softmax.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,E=8,K=2,R=1" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 4*T*E + 2*T*K*R = 108
//   special.exp = T*E = 24
//   read = 4*T*E = 96
//   write = 8*T*K = 48
// S1: atrex.work = {bytes = {read = 96 : i64, total = 144 : i64, write = 48 : i64}, flops = {vector = {f32 = 108 : i64}}, special = {exp = 24 : i64}}

// Case 2 (T=64,E=128,K=8,R=0)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/topk_softmax.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=64,E=128,K=8,R=0" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 4*T*E + 2*T*K*R = 32768
//   special.exp = T*E = 8192
//   read = 4*T*E = 32768
//   write = 8*T*K = 4096
// S2: atrex.work = {bytes = {read = 32768 : i64, total = 36864 : i64, write = 4096 : i64}, flops = {vector = {f32 = 32768 : i64}}, special = {exp = 8192 : i64}}
