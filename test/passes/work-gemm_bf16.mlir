// Semantic work of gemm_bf16 (suites/atrex-serve/ops/gemm_bf16.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// matrix: 2MNK at bf16. bytes: x 2MK, w 2NK read; out 2MN written.

// Case 1 (M=3,N=5,K=7)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=3,N=5,K=7" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   matrix.bf16 = 2*M*N*K = 210
//   read = 2*M*K + 2*N*K = 112
//   write = 2*M*N = 30
// S1: atrex.work = {bytes = {read = 112 : i64, total = 142 : i64, write = 30 : i64}, flops = {matrix = {bf16 = 210 : i64}}, special = {}}

// Case 2 (M=4096,N=14336,K=4096)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=4096,N=14336,K=4096" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   matrix.bf16 = 2*M*N*K = 481036337152
//   read = 2*M*K + 2*N*K = 150994944
//   write = 2*M*N = 117440512
// S2: atrex.work = {bytes = {read = 150994944 : i64, total = 268435456 : i64, write = 117440512 : i64}, flops = {matrix = {bf16 = 481036337152 : i64}}, special = {}}

// Case 3 (M=1,N=28672,K=8192)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=1,N=28672,K=8192" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S3
//   matrix.bf16 = 2*M*N*K = 469762048
//   read = 2*M*K + 2*N*K = 469778432
//   write = 2*M*N = 57344
// S3: atrex.work = {bytes = {read = 469778432 : i64, total = 469835776 : i64, write = 57344 : i64}, flops = {matrix = {bf16 = 469762048 : i64}}, special = {}}
