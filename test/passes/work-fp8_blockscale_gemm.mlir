// Semantic work of fp8_blockscale_gemm (suites/atrex-serve/ops/fp8_blockscale_gemm.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// matrix: 2MNK at e4m3; vector: sx*sw, *partial, +acc = 3 per (m, n, K block).
// bytes: xq MK, sx 4*M*K/128, wq NK, sw 4*(N/128)*(K/128) read; out 2MN written.

// Case 1 (M=2,N=256,K=384)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fp8_blockscale_gemm.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=2,N=256,K=384" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   matrix.f8e4m3 = 2*M*N*K = 393216
//   vector.f32 = 3*M*N*(K//128) = 4608
//   read = M*K + 4*M*(K//128) + N*K + 4*(N//128)*(K//128) = 99120
//   write = 2*M*N = 1024
// S1: atrex.work = {bytes = {read = 99120 : i64, total = 100144 : i64, write = 1024 : i64}, flops = {matrix = {f8e4m3 = 393216 : i64}, vector = {f32 = 4608 : i64}}, special = {}}

// Case 2 (M=128,N=7168,K=2048)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fp8_blockscale_gemm.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=128,N=7168,K=2048" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   matrix.f8e4m3 = 2*M*N*K = 3758096384
//   vector.f32 = 3*M*N*(K//128) = 44040192
//   read = M*K + 4*M*(K//128) + N*K + 4*(N//128)*(K//128) = 14953984
//   write = 2*M*N = 1835008
// S2: atrex.work = {bytes = {read = 14953984 : i64, total = 16788992 : i64, write = 1835008 : i64}, flops = {matrix = {f8e4m3 = 3758096384 : i64}, vector = {f32 = 44040192 : i64}}, special = {}}
