// Semantic work of fused_qk_norm_rope (suites/atrex-serve/ops/fused_qk_norm_rope.mlir) at two
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector, per q or k head (Hq + Hk of them per token): x^2 and sum 2D, mean and +eps 2,
// x*r*w 2D, rotation 3D (per pair 4 products, 1 sub, 1 add): (Hq+Hk)(7D + 2) per token;
// rsqrt once per q or k head.
// bytes: of qkv only the q and k heads, its first (Hq+Hk)D columns, 2T(Hq+Hk)D (atrex.access
// columns; the v heads' 2T*Hk*D are neither read nor written), eps 4, q_weight and k_weight
// 2D each, position_ids 8T and only the U distinct cache rows (f32, D wide) named by
// position_ids read; the same 2T(Hq+Hk)D of qkv_out written.

// Case 1 (T=3,Hq=4,Hk=2,D=8,P=16), facts {"position_ids": [0, 5, 5]}: U = 2
// RUN: echo '{"position_ids": [0, 5, 5]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fused_qk_norm_rope.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,Hq=4,Hk=2,D=8,P=16" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   vector.f32 = T*(Hq+Hk)*(7*D+2) = 3*6*58 = 1044
//   special.rsqrt = T*(Hq+Hk) = 18
//   read = 2*T*(Hq+Hk)*D + 4 + 2*D + 2*D + 4*U*D + 8*T = 288 + 4 + 16 + 16 + 64 + 24 = 412
//   write = 2*T*(Hq+Hk)*D = 2*3*6*8 = 288 (the whole qkv_out would be 2*3*8*8 = 384)
// S1: atrex.work = {bytes = {read = 412 : i64, total = 700 : i64, write = 288 : i64}, flops = {vector = {f32 = 1044 : i64}}, special = {rsqrt = 18 : i64}}

// Case 2 (T=4,Hq=32,Hk=8,D=128,P=40960: Qwen3-8B's heads), facts
// {"position_ids": [7, 8, 9, 40959]}: U = 4
// RUN: echo '{"position_ids": [7, 8, 9, 40959]}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fused_qk_norm_rope.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,Hq=32,Hk=8,D=128,P=40960" \
// RUN:   --test-print-semantic-work="facts=%t.S2.json" -o /dev/null | FileCheck %s --check-prefix=S2
//   vector.f32 = T*(Hq+Hk)*(7*D+2) = 4*40*898 = 143680
//   special.rsqrt = T*(Hq+Hk) = 160
//   read = 2*T*(Hq+Hk)*D + 4 + 4*D + 4*U*D + 8*T = 40960 + 4 + 512 + 2048 + 32 = 43556
//   write = 2*T*(Hq+Hk)*D = 2*4*40*128 = 40960 (the whole qkv_out would be 2*4*48*128 = 49152)
// S2:      semantic work of 'fused_qk_norm_rope' at {D = 128, Hk = 8, Hq = 32, P = 40960, T = 4}
// S2-NEXT:   vector f32: 143680
// S2-NEXT:   special rsqrt: 160
// S2-NEXT:   bytes read: 43556
// S2-NEXT:   bytes write: 40960
// S2-NEXT:   argument qkv (input, bf16, columns): 40960 bytes
// S2-NEXT:   argument eps (input, f32, dense): 4 bytes
// S2-NEXT:   argument q_weight (input, bf16, dense): 256 bytes
// S2-NEXT:   argument k_weight (input, bf16, dense): 256 bytes
// S2-NEXT:   argument cos_sin_cache (input, f32, rows): 2048 bytes
// S2-NEXT:   argument position_ids (input, i64, dense): 32 bytes
// S2-NEXT:   argument qkv_out (output, bf16, columns): 40960 bytes
