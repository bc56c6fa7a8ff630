// Semantic work of dynamic_per_token_quant_fp8 (suites/atrex-serve/ops/dynamic_per_token_quant_fp8.mlir)
// at two shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: |x| and max 2TH, max(eps) and /448 per token 2T, x/s, clamp low,
// clamp high 3TH.
// bytes: x 2TH, eps 4 read; out_q TH (e4m3), out_s 4T written.

// Case 1 (T=3,H=256)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/dynamic_per_token_quant_fp8.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,H=256" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 5*T*H + 2*T = 3846
//   read = 2*T*H + 4 = 1540
//   write = T*H + 4*T = 780
// S1: atrex.work = {bytes = {read = 1540 : i64, total = 2320 : i64, write = 780 : i64}, flops = {vector = {f32 = 3846 : i64}}, special = {}}

// Case 2 (T=16,H=4096)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/dynamic_per_token_quant_fp8.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=16,H=4096" --test-print-semantic-work -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 5*T*H + 2*T = 327712
//   read = 2*T*H + 4 = 131076
//   write = T*H + 4*T = 65600
// S2:      semantic work of 'dynamic_per_token_quant_fp8' at {H = 4096, T = 16}
// S2-NEXT:   vector f32: 327712
// S2-NEXT:   bytes read: 131076
// S2-NEXT:   bytes write: 65600
// S2-NEXT:   argument x (input, bf16, dense): 131072 bytes
// S2-NEXT:   argument eps (input, f32, dense): 4 bytes
// S2-NEXT:   argument out_q (output, f8e4m3, dense): 65536 bytes
// S2-NEXT:   argument out_s (output, f32, dense): 64 bytes
