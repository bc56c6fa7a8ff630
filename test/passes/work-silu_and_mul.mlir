// Semantic work of silu_and_mul (suites/atrex-serve/ops/silu_and_mul.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: -g, 1+e, g/den, *up = 4 per output; exp 1 per output.
// bytes: x [T, 2D] bf16 read, out [T, D] bf16 written.

// Case 1 (T=3,D=8)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/silu_and_mul.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,D=8" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 4*T*D = 96
//   special.exp = T*D = 24
//   read = 2*T*2*D = 96
//   write = 2*T*D = 48
// S1: atrex.work = {bytes = {read = 96 : i64, total = 144 : i64, write = 48 : i64}, flops = {vector = {f32 = 96 : i64}}, special = {exp = 24 : i64}}

// Case 2 (T=256,D=14336)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/silu_and_mul.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=256,D=14336" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 4*T*D = 14680064
//   special.exp = T*D = 3670016
//   read = 2*T*2*D = 14680064
//   write = 2*T*D = 7340032
// S2: atrex.work = {bytes = {read = 14680064 : i64, total = 22020096 : i64, write = 7340032 : i64}, flops = {vector = {f32 = 14680064 : i64}}, special = {exp = 3670016 : i64}}
