// Semantic work of w4a16_gemm (suites/atrex-serve/ops/w4a16_gemm.mlir) at two shapes;
// expected numbers from the counting rules of docs/semantic-work.md.
// matrix: 2MNK at bf16 (the weights are dequantized to bf16 for the product);
// vector: dequantization (q - 8) * scale = NK (the nibble extraction is integer work, free).
// bytes: x 2MK, w_packed 4*N*K/8 = NK/2, scales 2*N*K/128 read; out 2MN written.

// Case 1 (M=3,N=5,K=256)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/w4a16_gemm.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=3,N=5,K=256" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   matrix.bf16 = 2*M*N*K = 7680
//   vector.f32 = N*K = 1280
//   read = 2*M*K + N*K/2 + 2*N*K/128 = 1536 + 640 + 20 = 2196
//   write = 2*M*N = 30
// S1: atrex.work = {bytes = {read = 2196 : i64, total = 2226 : i64, write = 30 : i64}, flops = {matrix = {bf16 = 7680 : i64}, vector = {f32 = 1280 : i64}}, special = {}}

// Case 2 (M=64,N=28672,K=4096: Llama-3.1-8B gate_up_proj at decode)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/w4a16_gemm.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=64,N=28672,K=4096" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   matrix.bf16 = 2*M*N*K = 15032385536
//   vector.f32 = N*K = 117440512
//   read = 2*M*K + N*K/2 + 2*N*K/128 = 524288 + 58720256 + 1835008 = 61079552
//   write = 2*M*N = 3670016
// S2: atrex.work = {bytes = {read = 61079552 : i64, total = 64749568 : i64, write = 3670016 : i64}, flops = {matrix = {bf16 = 15032385536 : i64}, vector = {f32 = 117440512 : i64}}, special = {}}
