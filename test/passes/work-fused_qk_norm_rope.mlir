// Semantic work of fused_qk_norm_rope (suites/atrex-serve/ops/fused_qk_norm_rope.mlir) at two
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector, per q or k head (Hq + Hk of them per token): x^2 and sum 2D, mean and +eps 2,
// x*r*w 2D, rotation 3D (per pair 4 products, 1 sub, 1 add): (Hq+Hk)(7D + 2) per token;
// rsqrt once per q or k head.
// bytes: qkv 2T(Hq+2Hk)D (whole, v heads included), eps 4, q_weight and k_weight 2D each,
// position_ids 8T and only the U distinct cache rows (f32, D wide) named by position_ids
// read; qkv_out 2T(Hq+2Hk)D written.

// Case 1 (T=3,Hq=4,Hk=2,D=8,P=16), facts {"position_ids": [0, 5, 5]}: U = 2
// RUN: echo '{"position_ids": [0, 5, 5]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fused_qk_norm_rope.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,Hq=4,Hk=2,D=8,P=16" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   vector.f32 = T*(Hq+Hk)*(7*D+2) = 3*6*58 = 1044
//   special.rsqrt = T*(Hq+Hk) = 18
//   read = 2*T*(Hq+2*Hk)*D + 4 + 2*D + 2*D + 4*U*D + 8*T = 384 + 4 + 16 + 16 + 64 + 24 = 508
//   write = 2*T*(Hq+2*Hk)*D = 384
// S1: atrex.work = {bytes = {read = 508 : i64, total = 892 : i64, write = 384 : i64}, flops = {vector = {f32 = 1044 : i64}}, special = {rsqrt = 18 : i64}}

// Case 2 (T=4,Hq=32,Hk=8,D=128,P=40960: Qwen3-8B's heads), facts
// {"position_ids": [7, 8, 9, 40959]}: U = 4
// RUN: echo '{"position_ids": [7, 8, 9, 40959]}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fused_qk_norm_rope.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,Hq=32,Hk=8,D=128,P=40960" \
// RUN:   --test-print-semantic-work="facts=%t.S2.json" -o /dev/null | FileCheck %s --check-prefix=S2
//   vector.f32 = T*(Hq+Hk)*(7*D+2) = 4*40*898 = 143680
//   special.rsqrt = T*(Hq+Hk) = 160
//   read = 2*T*(Hq+2*Hk)*D + 4 + 4*D + 4*U*D + 8*T = 49152 + 4 + 512 + 2048 + 32 = 51748
//   write = 2*T*(Hq+2*Hk)*D = 49152
// S2:      semantic work of 'fused_qk_norm_rope' at {D = 128, Hk = 8, Hq = 32, P = 40960, T = 4}
// S2-NEXT:   vector f32: 143680
// S2-NEXT:   special rsqrt: 160
// S2-NEXT:   bytes read: 51748
// S2-NEXT:   bytes write: 49152
// S2-NEXT:   argument qkv (input, bf16, dense): 49152 bytes
// S2-NEXT:   argument eps (input, f32, dense): 4 bytes
// S2-NEXT:   argument q_weight (input, bf16, dense): 256 bytes
// S2-NEXT:   argument k_weight (input, bf16, dense): 256 bytes
// S2-NEXT:   argument cos_sin_cache (input, f32, rows): 2048 bytes
// S2-NEXT:   argument position_ids (input, i64, dense): 32 bytes
// S2-NEXT:   argument qkv_out (output, bf16, dense): 49152 bytes
