// Semantic work of rotary_embedding (suites/atrex-serve/ops/rotary_embedding.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: per rotated pair 2 products + 1 sub, 2 products + 1 add: 3 per element of q and k.
// bytes: positions 8T, query 2T*Hq*D, key 2T*Hk*D, and only the U distinct cache rows
// (f32, D wide) named by positions; query_out, key_out written.

// Case 1 (T=3,Hq=4,Hk=2,D=8,P=16), facts {"positions": [0, 5, 5]}
// RUN: echo '{"positions": [0, 5, 5]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/rotary_embedding.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,Hq=4,Hk=2,D=8,P=16" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   vector.f32 = 3*T*(Hq+Hk)*D = 432
//   read = 8*T + 2*T*Hq*D + 2*T*Hk*D + 4*U*D = 376
//   write = 2*T*(Hq+Hk)*D = 288
// S1: atrex.work = {bytes = {read = 376 : i64, total = 664 : i64, write = 288 : i64}, flops = {vector = {f32 = 432 : i64}}, special = {}}

// Case 2 (T=4,Hq=32,Hk=8,D=128,P=4096), facts {"positions": [7, 8, 9, 4095]}
// RUN: echo '{"positions": [7, 8, 9, 4095]}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/rotary_embedding.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,Hq=32,Hk=8,D=128,P=4096" \
// RUN:   --atrex-semantic-work="facts=%t.S2.json" | FileCheck %s --check-prefix=S2
//   vector.f32 = 3*T*(Hq+Hk)*D = 61440
//   read = 8*T + 2*T*Hq*D + 2*T*Hk*D + 4*U*D = 43040
//   write = 2*T*(Hq+Hk)*D = 40960
// S2: atrex.work = {bytes = {read = 43040 : i64, total = 84000 : i64, write = 40960 : i64}, flops = {vector = {f32 = 61440 : i64}}, special = {}}
