// Semantic work of static_scaled_fp8_quant (suites/atrex-serve/ops/static_scaled_fp8_quant.mlir)
// at two shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: x/s, clamp low, clamp high = 3 per element.
// bytes: x 2TH, scale 4 read; out TH (e4m3) written.

// Case 1 (T=3,H=256)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/static_scaled_fp8_quant.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,H=256" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 3*T*H = 2304
//   read = 2*T*H + 4 = 1540
//   write = T*H = 768
// S1: atrex.work = {bytes = {read = 1540 : i64, total = 2308 : i64, write = 768 : i64}, flops = {vector = {f32 = 2304 : i64}}, special = {}}

// Case 2 (T=16,H=4096)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/static_scaled_fp8_quant.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=16,H=4096" --test-print-semantic-work -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 3*T*H = 196608
//   read = 2*T*H + 4 = 131076
//   write = T*H = 65536
// S2:      semantic work of 'static_scaled_fp8_quant' at {H = 4096, T = 16}
// S2-NEXT:   vector f32: 196608
// S2-NEXT:   bytes read: 131076
// S2-NEXT:   bytes write: 65536
// S2-NEXT:   argument x (input, bf16, dense): 131072 bytes
// S2-NEXT:   argument scale (input, f32, dense): 4 bytes
// S2-NEXT:   argument out (output, f8e4m3, dense): 65536 bytes
