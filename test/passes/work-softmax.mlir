// Semantic work of softmax (suites/atrex-serve/ops/softmax.mlir) at two shapes; expected
// numbers from the counting rules of docs/semantic-work.md.
// vector: max, x-max, sum, /sum = 4 per element; exp 1 per element.
// bytes: logits [T, V] f32 read, probs [T, V] f32 written.

// Case 1 (T=3,V=8)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/softmax.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,V=8" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 4*T*V = 96
//   special.exp = T*V = 24
//   read = 4*T*V = 96
//   write = 4*T*V = 96
// S1: atrex.work = {bytes = {read = 96 : i64, total = 192 : i64, write = 96 : i64}, flops = {vector = {f32 = 96 : i64}}, special = {exp = 24 : i64}}

// Case 2 (T=64,V=128256)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/softmax.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=64,V=128256" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 4*T*V = 32833536
//   special.exp = T*V = 8208384
//   read = 4*T*V = 32833536
//   write = 4*T*V = 32833536
// S2: atrex.work = {bytes = {read = 32833536 : i64, total = 65667072 : i64, write = 32833536 : i64}, flops = {vector = {f32 = 32833536 : i64}}, special = {exp = 8208384 : i64}}
