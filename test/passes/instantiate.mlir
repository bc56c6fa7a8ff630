// atrex-instantiate-shape makes every tensor of a definition static: the
// signature from atrex.dims (expressions included), the body by upstream
// canonicalization, atrex.symbol constants (K and R of topk_softmax) from the
// bindings; scf.for loops with R = 0 or 1 iterations fold away.

// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/topk_softmax.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,E=8,K=2,R=1" | FileCheck %s --check-prefix=TOPK
// TOPK: func.func @topk_softmax(%{{.*}}: tensor<3x8xf32> {{.*}}) -> (tensor<3x2xf32> {{.*}}, tensor<3x2xi32> {{.*}})
// TOPK-SAME: atrex.shape = {E = 8 : i64, K = 2 : i64, R = 1 : i64, T = 3 : i64}
// TOPK-NOT: ?x
// TOPK-NOT: scf.for
// TOPK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x2xf32>)
// TOPK: return {{.*}} : tensor<3x2xf32>, tensor<3x2xi32>

// Expressions in atrex.dims: silu_and_mul's input is [T, 2*D], fp8 block
// scales are [N/128, K/128], packed sequences have B+1 offsets.
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/silu_and_mul.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=5,D=96" | FileCheck %s --check-prefix=SILU
// SILU: func.func @silu_and_mul(%{{.*}}: tensor<5x192xbf16> {{.*}}) -> (tensor<5x96xbf16>
// SILU: tensor.extract_slice %{{.*}}[0, 96] [5, 96] [1, 1] : tensor<5x192xbf16> to tensor<5x96xbf16>
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/fp8_blockscale_gemm.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=2,N=256,K=384" | FileCheck %s --check-prefix=FP8
// FP8: func.func @fp8_blockscale_gemm(%{{.*}}: tensor<2x384xf8E4M3FN> {{.*}}, %{{.*}}: tensor<2x3xf32> {{.*}}, %{{.*}}: tensor<256x384xf8E4M3FN> {{.*}}, %{{.*}}: tensor<2x3xf32> {{.*}}) -> (tensor<2x256xbf16>
// FP8: tensor.expand_shape {{.*}} output_shape [2, 3, 128] : tensor<2x384xf8E4M3FN> into tensor<2x3x128xf8E4M3FN>
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/flash_attention_prefill.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=7,B=2,Hq=4,Hk=2,D=8" | FileCheck %s --check-prefix=FA
// FA: %{{.*}}: tensor<3xi32> {atrex.dims = ["B+1"], atrex.name = "cu_seqlens"}
// FA: tensor.empty() : tensor<7x2x2x7xf32>
// FA-NOT: ?x
