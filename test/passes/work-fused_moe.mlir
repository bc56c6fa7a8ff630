// Semantic work of fused_moe (suites/atrex-serve/ops/fused_moe.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// matrix: gate_up 2*T*K*2I*H + down 2*T*K*H*I at bf16; vector: silu_and_mul 4*T*K*I,
// weighted sum 2*T*K*H; exp T*K*I. bytes: x 2TH, w1 2*2I*H and w2 2*H*I per distinct routed
// expert (U), topk_weights 4TK, topk_ids 4TK read; out 2TH written.

// Case 1 (T=3,H=16,E=4,I=8,K=2), facts {"topk_ids": [[0, 2], [2, 3], [0, 3]]}
// RUN: echo '{"topk_ids": [[0, 2], [2, 3], [0, 3]]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fused_moe.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,H=16,E=4,I=8,K=2" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   matrix.bf16 = 2*T*K*2*I*H + 2*T*K*H*I = 4608
//   vector.f32 = 4*T*K*I + 2*T*K*H = 384
//   special.exp = T*K*I = 48
//   read = 2*T*H + U*2*2*I*H + U*2*H*I + 8*T*K = 2448
//   write = 2*T*H = 96
// S1: atrex.work = {bytes = {read = 2448 : i64, total = 2544 : i64, write = 96 : i64}, flops = {matrix = {bf16 = 4608 : i64}, vector = {f32 = 384 : i64}}, special = {exp = 48 : i64}}

// Case 2 (T=2,H=64,E=16,I=32,K=4), facts {"topk_ids": [[0, 1, 2, 3], [3, 4, 5, 6]]}
// RUN: echo '{"topk_ids": [[0, 1, 2, 3], [3, 4, 5, 6]]}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fused_moe.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=2,H=64,E=16,I=32,K=4" \
// RUN:   --atrex-semantic-work="facts=%t.S2.json" | FileCheck %s --check-prefix=S2
//   matrix.bf16 = 2*T*K*2*I*H + 2*T*K*H*I = 98304
//   vector.f32 = 4*T*K*I + 2*T*K*H = 2048
//   special.exp = T*K*I = 256
//   read = 2*T*H + U*2*2*I*H + U*2*H*I + 8*T*K = 86336
//   write = 2*T*H = 256
// S2: atrex.work = {bytes = {read = 86336 : i64, total = 86592 : i64, write = 256 : i64}, flops = {matrix = {bf16 = 98304 : i64}, vector = {f32 = 2048 : i64}}, special = {exp = 256 : i64}}
