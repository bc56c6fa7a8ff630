// Semantic work of fp8_per_tensor_gemm (suites/atrex-serve/ops/fp8_per_tensor_gemm.mlir) at two
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// matrix: 2MNK at f8e4m3; vector: epilogue * scale_a * scale_b = 2MN.
// bytes: a MK, b NK, scale_a 4, scale_b 4 read; out 2MN written.

// Case 1 (M=3,N=5,K=7)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fp8_per_tensor_gemm.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=3,N=5,K=7" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   matrix.f8e4m3 = 2*M*N*K = 210
//   vector.f32 = 2*M*N = 30
//   read = M*K + N*K + 8 = 21 + 35 + 8 = 64
//   write = 2*M*N = 30
// S1: atrex.work = {bytes = {read = 64 : i64, total = 94 : i64, write = 30 : i64}, flops = {matrix = {f8e4m3 = 210 : i64}, vector = {f32 = 30 : i64}}, special = {}}

// Case 2 (M=64,N=6144,K=4096: Llama-3.1-8B qkv_proj at decode)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fp8_per_tensor_gemm.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=64,N=6144,K=4096" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   matrix.f8e4m3 = 2*M*N*K = 3221225472
//   vector.f32 = 2*M*N = 786432
//   read = M*K + N*K + 8 = 262144 + 25165824 + 8 = 25427976
//   write = 2*M*N = 786432
// S2: atrex.work = {bytes = {read = 25427976 : i64, total = 26214408 : i64, write = 786432 : i64}, flops = {matrix = {f8e4m3 = 3221225472 : i64}, vector = {f32 = 786432 : i64}}, special = {}}
