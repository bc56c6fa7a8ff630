// Semantic work of concat_and_cache_mla (suites/atrex-serve/ops/concat_and_cache_mla.mlir)
// at two shapes; expected numbers from the counting rules of docs/semantic-work.md.
// No FLOPs: a row copy per token (extract, select, insert are free).
// Bytes: kv_c 2TL, k_pe 2TR and slot_mapping 8T read; the old cache is not read
// (atrex.access carried: 0); kv_cache_out writes 2(L+R) per distinct non-negative slot of
// slot_mapping (atrex.access slots: a padding token, -1, adds nothing).

// Case 1 (T=3,L=8,R=4,NB=2,BS=4), slots 5, -1 (padding), 7: U_slots = 2
// RUN: echo '{"slot_mapping": [5, -1, 7]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/concat_and_cache_mla.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,L=8,R=4,NB=2,BS=4" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   read = 2*T*(L+R) + 8*T = 72 + 24 = 96
//   write = 2*U_slots*(L+R) = 2*2*12 = 48
// S1: atrex.work = {bytes = {read = 96 : i64, total = 144 : i64, write = 48 : i64}, flops = {}, special = {}}

// Case 2 (T=64,L=512,R=64,NB=64,BS=64: DeepSeek-V3's latent and RoPE widths), slots
// 0..63 (iota): U_slots = T
// RUN: echo '{"slot_mapping": {"iota": {}}}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/concat_and_cache_mla.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=64,L=512,R=64,NB=64,BS=64" \
// RUN:   --test-print-semantic-work="facts=%t.S2.json" -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=S2
//   read = 2*T*(L+R) + 8*T = 73728 + 512 = 74240
//   write = 2*T*(L+R) = 73728
// S2:      semantic work of 'concat_and_cache_mla' at {BS = 64, L = 512, NB = 64, R = 64, T = 64}
// S2-NEXT:   bytes read: 74240
// S2-NEXT:   bytes write: 73728
// S2-NEXT:   argument kv_c (input, bf16, dense): 65536 bytes
// S2-NEXT:   argument k_pe (input, bf16, dense): 8192 bytes
// S2-NEXT:   argument kv_cache (input, bf16, carried): 0 bytes
// S2-NEXT:   argument slot_mapping (input, i64, dense): 512 bytes
// S2-NEXT:   argument kv_cache_out (output, bf16, slots): 73728 bytes

// A slot outside the cache's NB*BS slots is an error naming the argument.
// RUN: echo '{"slot_mapping": [5, 8, 1]}' > %t.S3.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/concat_and_cache_mla.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,L=8,R=4,NB=2,BS=4" \
// RUN:   --atrex-semantic-work="facts=%t.S3.json" 2>&1 | FileCheck %s --check-prefix=S3
// S3: facts reference slot 8 of 'kv_cache_out', outside [0, 8)
