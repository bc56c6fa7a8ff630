// Semantic work of gelu_tanh_and_mul (suites/atrex-serve/ops/gelu_tanh_and_mul.mlir) at two
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: a*a, *a, kappa*, a+, beta*, 1+, 0.5*a, *, *up = 9 per output; tanh 1 per output.
// bytes: x [T, 2D] bf16 read, out [T, D] bf16 written.

// Case 1 (T=3,D=8)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/gelu_tanh_and_mul.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,D=8" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 9*T*D = 216
//   special.tanh = T*D = 24
//   read = 2*T*2*D = 96
//   write = 2*T*D = 48
// S1: atrex.work = {bytes = {read = 96 : i64, total = 144 : i64, write = 48 : i64}, flops = {vector = {f32 = 216 : i64}}, special = {tanh = 24 : i64}}

// Case 2 (T=256,D=14336)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/gelu_tanh_and_mul.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=256,D=14336" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 9*T*D = 33030144
//   special.tanh = T*D = 3670016
//   read = 2*T*2*D = 14680064
//   write = 2*T*D = 7340032
// S2: atrex.work = {bytes = {read = 14680064 : i64, total = 22020096 : i64, write = 7340032 : i64}, flops = {vector = {f32 = 33030144 : i64}}, special = {tanh = 3670016 : i64}}
