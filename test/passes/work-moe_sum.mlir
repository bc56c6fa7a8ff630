// Semantic work of moe_sum (suites/atrex-serve/ops/moe_sum.mlir) at two shapes; expected
// numbers from the counting rules of docs/semantic-work.md.
// vector: one addf per (t, k, h) (the fp32 accumulation from 0) = T*K*H.
// bytes: input [T, K, H] bf16 read, out [T, H] bf16 written.

// Case 1 (T=3,K=4,H=8)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/moe_sum.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,K=4,H=8" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = T*K*H = 96
//   read = 2*T*K*H = 192
//   write = 2*T*H = 48
// S1: atrex.work = {bytes = {read = 192 : i64, total = 240 : i64, write = 48 : i64}, flops = {vector = {f32 = 96 : i64}}, special = {}}

// Case 2 (T=64,K=8,H=2048)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/moe_sum.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=64,K=8,H=2048" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = T*K*H = 1048576
//   read = 2*T*K*H = 2097152
//   write = 2*T*H = 262144
// S2: atrex.work = {bytes = {read = 2097152 : i64, total = 2359296 : i64, write = 262144 : i64}, flops = {vector = {f32 = 1048576 : i64}}, special = {}}
