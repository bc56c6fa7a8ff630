// Semantic work of per_token_group_quant_fp8 (suites/atrex-serve/ops/per_token_group_quant_fp8.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: |x| and max 2TH, max(eps) and /448 per group 2*T*H/128,
// x/s, clamp low, clamp high 3TH.
// bytes: x 2TH, eps 4 read; out_q TH (e4m3), out_s 4*T*H/128 written.

// Case 1 (T=3,H=256)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/per_token_group_quant_fp8.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,H=256" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 5*T*H + 2*T*H//128 = 3852
//   read = 2*T*H + 4 = 1540
//   write = T*H + 4*T*H//128 = 792
// S1: atrex.work = {bytes = {read = 1540 : i64, total = 2332 : i64, write = 792 : i64}, flops = {vector = {f32 = 3852 : i64}}, special = {}}

// Case 2 (T=16,H=7168)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/per_token_group_quant_fp8.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=16,H=7168" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 5*T*H + 2*T*H//128 = 575232
//   read = 2*T*H + 4 = 229380
//   write = T*H + 4*T*H//128 = 118272
// S2: atrex.work = {bytes = {read = 229380 : i64, total = 347652 : i64, write = 118272 : i64}, flops = {vector = {f32 = 575232 : i64}}, special = {}}
