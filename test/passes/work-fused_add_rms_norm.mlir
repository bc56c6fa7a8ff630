// Semantic work of fused_add_rms_norm (suites/atrex-serve/ops/fused_add_rms_norm.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: x+residual TH, then rms_norm 4TH + 2T; rsqrt T.
// bytes: x, residual 2TH each, w 2H, eps 4 read; x_out, residual_out 2TH each.

// Case 1 (T=3,H=16)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fused_add_rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,H=16" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 5*T*H + 2*T = 246
//   special.rsqrt = T = 3
//   read = 4*T*H + 2*H + 4 = 228
//   write = 4*T*H = 192
// S1: atrex.work = {bytes = {read = 228 : i64, total = 420 : i64, write = 192 : i64}, flops = {vector = {f32 = 246 : i64}}, special = {rsqrt = 3 : i64}}

// Case 2 (T=32,H=8192)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fused_add_rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=32,H=8192" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 5*T*H + 2*T = 1310784
//   special.rsqrt = T = 32
//   read = 4*T*H + 2*H + 4 = 1064964
//   write = 4*T*H = 1048576
// S2: atrex.work = {bytes = {read = 1064964 : i64, total = 2113540 : i64, write = 1048576 : i64}, flops = {vector = {f32 = 1310784 : i64}}, special = {rsqrt = 32 : i64}}
