// Semantic work of silu_and_mul_fp8_quant (suites/atrex-serve/ops/silu_and_mul_fp8_quant.mlir)
// at two shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: -g, 1+e, g/den, *up (silu_and_mul) and y/s, clamp low, clamp high
// (quantize) = 7 per output; exp 1 per output.
// bytes: x [T, 2D] bf16, scale 4 read; out [T, D] e4m3 written.

// Case 1 (T=3,D=8)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/silu_and_mul_fp8_quant.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,D=8" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 7*T*D = 168
//   special.exp = T*D = 24
//   read = 2*T*2*D + 4 = 100
//   write = T*D = 24
// S1: atrex.work = {bytes = {read = 100 : i64, total = 124 : i64, write = 24 : i64}, flops = {vector = {f32 = 168 : i64}}, special = {exp = 24 : i64}}

// Case 2 (T=256,D=14336)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/silu_and_mul_fp8_quant.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=256,D=14336" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 7*T*D = 25690112
//   special.exp = T*D = 3670016
//   read = 2*T*2*D + 4 = 14680068
//   write = T*D = 3670016
// S2: atrex.work = {bytes = {read = 14680068 : i64, total = 18350084 : i64, write = 3670016 : i64}, flops = {vector = {f32 = 25690112 : i64}}, special = {exp = 3670016 : i64}}
