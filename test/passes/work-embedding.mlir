// Semantic work of embedding (suites/atrex-serve/ops/embedding.mlir) at three shapes;
// expected numbers from the counting rules of docs/semantic-work.md.
// No FLOPs (a gather). bytes: ids 4T read; weight 2H per distinct id (U, atrex.access rows),
// not 2VH; out 2TH written.

// Case 1 (T=4,V=8,H=16), facts {"ids": [0, 5, 5, 7]}: U = 3
// RUN: echo '{"ids": [0, 5, 5, 7]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/embedding.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,V=8,H=16" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   read = 4*T + 2*U*H = 16 + 96 = 112
//   write = 2*T*H = 128
// S1: atrex.work = {bytes = {read = 112 : i64, total = 240 : i64, write = 128 : i64}, flops = {}, special = {}}

// Case 2 (T=6,V=128256,H=4096), facts {"ids": [0, 128255, 17, 17, 0, 42]}: U = 4
// RUN: echo '{"ids": [0, 128255, 17, 17, 0, 42]}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/embedding.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=6,V=128256,H=4096" \
// RUN:   --atrex-semantic-work="facts=%t.S2.json" | FileCheck %s --check-prefix=S2
//   read = 4*T + 2*U*H = 24 + 32768 = 32792
//   write = 2*T*H = 49152
// S2: atrex.work = {bytes = {read = 32792 : i64, total = 81944 : i64, write = 49152 : i64}, flops = {}, special = {}}

// Case 3 (T=64,V=128256,H=4096), facts {"ids": {"iota": {"start": 1000}}}: U = T = 64,
// the decode example: 2*T*H bytes of the 1 GB table are read.
// RUN: echo '{"ids": {"iota": {"start": 1000}}}' > %t.S3.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/embedding.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=64,V=128256,H=4096" \
// RUN:   --test-print-semantic-work="facts=%t.S3.json" -o /dev/null | FileCheck %s --check-prefix=S3
//   read = 4*T + 2*T*H = 256 + 524288 = 524544
//   write = 2*T*H = 524288
// S3: bytes read: 524544
// S3-NEXT: bytes write: 524288
// S3-NEXT: argument ids (input, i32, dense): 256 bytes
// S3-NEXT: argument weight (input, bf16, rows): 524288 bytes
// S3-NEXT: argument out (output, bf16, dense): 524288 bytes
