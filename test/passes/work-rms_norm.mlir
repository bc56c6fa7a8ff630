// Semantic work of rms_norm (suites/atrex-serve/ops/rms_norm.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: x^2 and sum 2TH, mean and +eps 2T, *rsqrt and *w 2TH; rsqrt T.
// bytes: x 2TH, w 2H, eps 4 read; out 2TH written.

// Case 1 (T=4,H=128)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,H=128" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 4*T*H + 2*T = 2056
//   special.rsqrt = T = 4
//   read = 2*T*H + 2*H + 4 = 1284
//   write = 2*T*H = 1024
// S1: atrex.work = {bytes = {read = 1284 : i64, total = 2308 : i64, write = 1024 : i64}, flops = {vector = {f32 = 2056 : i64}}, special = {rsqrt = 4 : i64}}

// Case 2 (T=7,H=4096)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=7,H=4096" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 4*T*H + 2*T = 114702
//   special.rsqrt = T = 7
//   read = 2*T*H + 2*H + 4 = 65540
//   write = 2*T*H = 57344
// S2: atrex.work = {bytes = {read = 65540 : i64, total = 122884 : i64, write = 57344 : i64}, flops = {vector = {f32 = 114702 : i64}}, special = {rsqrt = 7 : i64}}
