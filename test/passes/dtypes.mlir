// Dtype parameters: rms_norm declares atrex.dtype_params = {act = bf16};
// binding act replaces every bf16 of the definition (arguments, results,
// intermediates) and drops conversions that became identities.
// T=4, H=128; vector 4*T*H + 2*T = 2056 FLOPs (in f32) whatever act is.

// act = f16: 2-byte elements as with bf16: read 2*T*H + 2*H + 4 = 1284, write 1024.
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,H=128 dtypes=act=f16" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=F16
// F16: func.func @rms_norm(%{{.*}}: tensor<4x128xf16> {{.*}}, %{{.*}}: tensor<128xf16> {{.*}}) -> (tensor<4x128xf16>
// F16-SAME: atrex.dtypes = {act = f16}
// F16-SAME: atrex.work = {bytes = {read = 1284 : i64, total = 2308 : i64, write = 1024 : i64}, flops = {vector = {f32 = 2056 : i64}}, special = {rsqrt = 4 : i64}}
// F16-NOT: bf16

// act = f32: 4-byte elements, read 4*T*H + 4*H + 4 = 2564, write 4*T*H = 2048;
// the extf/truncf between act and f32 disappear.
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,H=128 dtypes=act=f32" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=F32
// F32: atrex.work = {bytes = {read = 2564 : i64, total = 4612 : i64, write = 2048 : i64}, flops = {vector = {f32 = 2056 : i64}}, special = {rsqrt = 4 : i64}}
// F32-NOT: arith.extf
// F32-NOT: arith.truncf

// Unbound parameters keep their default and are recorded.
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/silu_and_mul.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=2,D=8" | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: atrex.dtypes = {act = bf16}

// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=1,N=2,K=3 dtypes=act=f16" 2>&1 | FileCheck %s --check-prefix=NOPARAM
// NOPARAM: error: atrex-instantiate-shape: 'gemm_bf16' has no dtype parameter 'act'
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=1,H=2 dtypes=act=f12" 2>&1 | FileCheck %s --check-prefix=BADTYPE
// BADTYPE: error: atrex-instantiate-shape: unknown dtype 'f12' for parameter 'act'
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=1,H=2 dtypes=act" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: error: atrex-instantiate-shape: invalid dtype binding 'act': expected NAME=DTYPE
