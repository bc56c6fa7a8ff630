// The passes loaded into upstream mlir-opt (LLVM 22) as a pass plugin, with
// the counts written as JSON: gemm_bf16 at M=2, N=3, K=4.
// RUN: mlir-opt --load-pass-plugin=%atrex_plugin \
// RUN:   %atrex_src/suites/atrex-serve/ops/gemm_bf16.mlir \
// RUN:   --pass-pipeline='builtin.module(atrex-instantiate-shape{dims=M=2,N=3,K=4},atrex-semantic-work{json=-})' \
// RUN:   -o /dev/null | FileCheck %s
// x: 2*M*K = 16 bytes, w: 2*N*K = 24, out: 2*M*N = 12; 2*M*N*K = 48 matrix FLOPs.
// CHECK:      "bytes": 16,
// CHECK-NEXT: "dtype": "bf16",
// CHECK-NEXT: "name": "x",
// CHECK-NEXT: "role": "input"
// CHECK:      "bytes": 24,
// CHECK-NEXT: "dtype": "bf16",
// CHECK-NEXT: "name": "w",
// CHECK:      "bytes": 12,
// CHECK-NEXT: "dtype": "bf16",
// CHECK-NEXT: "name": "out",
// CHECK-NEXT: "role": "output"
// CHECK:      "read": 40,
// CHECK-NEXT: "total": 52,
// CHECK-NEXT: "write": 12
// CHECK:      "flops": {
// CHECK-NEXT:   "matrix": {
// CHECK-NEXT:     "bf16": 48
// CHECK-NEXT:   },
// CHECK-NEXT:   "total": 48
// CHECK:      "operator": "gemm_bf16",
// CHECK-NEXT: "shape": {
// CHECK-NEXT:   "K": 4,
// CHECK-NEXT:   "M": 2,
// CHECK-NEXT:   "N": 3
// CHECK:      "special": {}

// The same through atrex-opt, JSON written to a file.
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=M=2,N=3,K=4" --atrex-semantic-work="json=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=FILE
// FILE: "total": 48
