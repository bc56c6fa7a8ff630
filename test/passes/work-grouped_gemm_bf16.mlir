// Semantic work of grouped_gemm_bf16 (suites/atrex-serve/ops/grouped_gemm_bf16.mlir) at two
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// matrix: 2TNK at bf16 (every row is multiplied by one expert; the expert of a row is
// integer work, free). bytes: x 2TK, w 2ENK (dense: no access kind names the experts
// that own rows), offs 4E read; out 2TN written. Neither depends on offs: no facts.

// Case 1 (T=6,N=5,K=7,E=3)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=6,N=5,K=7,E=3" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   matrix.bf16 = 2*T*N*K = 420
//   read = 2*T*K + 2*E*N*K + 4*E = 84 + 210 + 12 = 306
//   write = 2*T*N = 60
// S1: atrex.work = {bytes = {read = 306 : i64, total = 366 : i64, write = 60 : i64}, flops = {matrix = {bf16 = 420 : i64}}, special = {}}

// Case 2 (T=512,N=1536,K=2048,E=128: Qwen3-30B-A3B gate_up, 64 tokens x top-8)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=512,N=1536,K=2048,E=128" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   matrix.bf16 = 2*T*N*K = 3221225472
//   read = 2*T*K + 2*E*N*K + 4*E = 2097152 + 805306368 + 512 = 807404032
//   write = 2*T*N = 1572864
// S2: atrex.work = {bytes = {read = 807404032 : i64, total = 808976896 : i64, write = 1572864 : i64}, flops = {matrix = {bf16 = 3221225472 : i64}}, special = {}}
