// Semantic work of merge_attn_states (suites/atrex-serve/ops/merge_attn_states.mlir)
// at two shapes; expected numbers from the counting rules of docs/semantic-work.md.
// vector: per (head, token) max, p-m, s-m, wp+ws, wp/sum, ws/sum, log+m = 7;
// per element po*wp, so*ws, + = 3. exp 2 and log 1 per (head, token); the
// +-inf handling is compares and selects (free).
// bytes: prefix_output, suffix_output 2*T*Hq*D each, prefix_lse, suffix_lse
// 4*Hq*T each read; output 2*T*Hq*D, output_lse 4*Hq*T written.

// Case 1 (T=3,Hq=2,D=8)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/merge_attn_states.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,Hq=2,D=8" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   vector.f32 = 3*T*Hq*D + 7*T*Hq = 144 + 42 = 186
//   special.exp = 2*T*Hq = 12, special.log = T*Hq = 6
//   read = 4*T*Hq*D + 8*Hq*T = 192 + 48 = 240
//   write = 2*T*Hq*D + 4*Hq*T = 96 + 24 = 120
// S1: atrex.work = {bytes = {read = 240 : i64, total = 360 : i64, write = 120 : i64}, flops = {vector = {f32 = 186 : i64}}, special = {exp = 12 : i64, log = 6 : i64}}

// Case 2 (T=64,Hq=32,D=128)
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/merge_attn_states.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=64,Hq=32,D=128" --test-print-semantic-work -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=S2
//   vector.f32 = 3*T*Hq*D + 7*T*Hq = 786432 + 14336 = 800768
//   special.exp = 2*T*Hq = 4096, special.log = T*Hq = 2048
//   read = 4*T*Hq*D + 8*Hq*T = 1048576 + 16384 = 1064960
//   write = 2*T*Hq*D + 4*Hq*T = 524288 + 8192 = 532480
// S2:      semantic work of 'merge_attn_states' at {D = 128, Hq = 32, T = 64}
// S2-NEXT:   vector f32: 800768
// S2-NEXT:   special exp: 4096
// S2-NEXT:   special log: 2048
// S2-NEXT:   bytes read: 1064960
// S2-NEXT:   bytes write: 532480
// S2-NEXT:   argument prefix_output (input, bf16, dense): 524288 bytes
// S2-NEXT:   argument prefix_lse (input, f32, dense): 8192 bytes
// S2-NEXT:   argument suffix_output (input, bf16, dense): 524288 bytes
// S2-NEXT:   argument suffix_lse (input, f32, dense): 8192 bytes
// S2-NEXT:   argument output (output, bf16, dense): 524288 bytes
// S2-NEXT:   argument output_lse (output, f32, dense): 8192 bytes
