// Semantic work of fp8_blockscale_fused_moe (suites/atrex-serve/ops/fp8_blockscale_fused_moe.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// matrix: gate_up 2*T*K*2I*H + down 2*T*K*H*I at e4m3. vector: quantize x 5TH + 2TH/128,
// gate_up block scaling 3 per (t, k, n, H block), silu_and_mul 4TKI, quantize a 5TKI + 2TKI/128,
// down block scaling 3 per (t, k, h, I block), weighted sum 2TKH; exp TKI. bytes: x 2TH, per distinct
// routed expert (U) w1q 2IH, w1s 4*(2I/128)*(H/128), w2q HI, w2s 4*(H/128)*(I/128), topk_weights and
// topk_ids 4TK each read; out 2TH written.

// Case 1 (T=2,H=256,E=4,I=128,K=2), facts {"topk_ids": [[0, 2], [2, 3]]}
// RUN: echo '{"topk_ids": [[0, 2], [2, 3]]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fp8_blockscale_fused_moe.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=2,H=256,E=4,I=128,K=2" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   matrix.f8e4m3 = 2*T*K*2*I*H + 2*T*K*H*I = 786432
//   vector.f32 = (5*T*H + 2*T*H//128) + 3*T*K*2*I*(H//128) + 4*T*K*I + (5*T*K*I + 2*T*K*I//128) + 3*T*K*H*(I//128) + 2*T*K*H = 18448
//   special.exp = T*K*I = 512
//   read = 2*T*H + U*(2*I*H + 4*(2*I//128)*(H//128) + H*I + 4*(H//128)*(I//128)) + 8*T*K = 296040
//   write = 2*T*H = 1024
// S1: atrex.work = {bytes = {read = 296040 : i64, total = 297064 : i64, write = 1024 : i64}, flops = {matrix = {f8e4m3 = 786432 : i64}, vector = {f32 = 18448 : i64}}, special = {exp = 512 : i64}}

// Case 2 (T=1,H=7168,E=256,I=2048,K=8), facts {"topk_ids": {"iota": {}}}
// RUN: echo '{"topk_ids": {"iota": {}}}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fp8_blockscale_fused_moe.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=1,H=7168,E=256,I=2048,K=8" \
// RUN:   --atrex-semantic-work="facts=%t.S2.json" | FileCheck %s --check-prefix=S2
//   matrix.f8e4m3 = 2*T*K*2*I*H + 2*T*K*H*I = 704643072
//   vector.f32 = (5*T*H + 2*T*H//128) + 3*T*K*2*I*(H//128) + 4*T*K*I + (5*T*K*I + 2*T*K*I//128) + 3*T*K*H*(I//128) + 2*T*K*H = 8555888
//   special.exp = T*K*I = 16384
//   read = 2*T*H + U*(2*I*H + 4*(2*I//128)*(H//128) + H*I + 4*(H//128)*(I//128)) + 8*T*K = 352421952
//   write = 2*T*H = 14336
// S2: atrex.work = {bytes = {read = 352421952 : i64, total = 352436288 : i64, write = 14336 : i64}, flops = {matrix = {f8e4m3 = 704643072 : i64}, vector = {f32 = 8555888 : i64}}, special = {exp = 16384 : i64}}
