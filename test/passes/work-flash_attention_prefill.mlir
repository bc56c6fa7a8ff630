// Semantic work of flash_attention_prefill (suites/atrex-serve/ops/flash_attention_prefill.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// P = sum_i L_i (L_i + 1) / 2 visible causal pairs, L_i = cu_seqlens[i+1] - cu_seqlens[i].
// matrix: 2*Hq*P*(D + D) at bf16; vector: *scale, max, -max, sum = 4*Hq*P, /sum T*Hq*D; exp Hq*P.
// bytes: q 2*T*Hq*D, k and v 2*T*Hk*D each, cu_seqlens 4(B+1), scale 4 read; out 2*T*Hq*D written.

// Case 1 (T=7,B=2,Hq=4,Hk=2,D=8), facts {"cu_seqlens": [0, 3, 7]}
// RUN: echo '{"cu_seqlens": [0, 3, 7]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/flash_attention_prefill.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=7,B=2,Hq=4,Hk=2,D=8" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   matrix.bf16 = 2*Hq*P*(D + D) = 2048
//   vector.f32 = 4*Hq*P + T*Hq*D = 480
//   special.exp = Hq*P = 64
//   read = 2*T*Hq*D + 4*T*Hk*D + 4*(B+1) + 4 = 912
//   write = 2*T*Hq*D = 448
// S1: atrex.work = {bytes = {read = 912 : i64, total = 1360 : i64, write = 448 : i64}, flops = {matrix = {bf16 = 2048 : i64}, vector = {f32 = 480 : i64}}, special = {exp = 64 : i64}}

// Case 2 (T=10,B=3,Hq=8,Hk=2,D=64), facts {"cu_seqlens": [0, 1, 1, 10]}
// RUN: echo '{"cu_seqlens": [0, 1, 1, 10]}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/flash_attention_prefill.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=10,B=3,Hq=8,Hk=2,D=64" \
// RUN:   --atrex-semantic-work="facts=%t.S2.json" | FileCheck %s --check-prefix=S2
//   matrix.bf16 = 2*Hq*P*(D + D) = 94208
//   vector.f32 = 4*Hq*P + T*Hq*D = 6592
//   special.exp = Hq*P = 368
//   read = 2*T*Hq*D + 4*T*Hk*D + 4*(B+1) + 4 = 15380
//   write = 2*T*Hq*D = 10240
// S2: atrex.work = {bytes = {read = 15380 : i64, total = 25620 : i64, write = 10240 : i64}, flops = {matrix = {bf16 = 94208 : i64}, vector = {f32 = 6592 : i64}}, special = {exp = 368 : i64}}
