// Semantic work of reshape_and_cache (suites/atrex-serve/ops/reshape_and_cache.mlir)
// at two shapes; expected numbers from the counting rules of docs/semantic-work.md.
// No FLOPs: a row copy per token (extract, select, insert are free).
// Bytes: key, value 2*T*Hk*D each and slot_mapping 8T read; the old caches are
// not read (atrex.access carried: 0); key_cache_out, value_cache_out write
// 2*Hk*D per distinct non-negative slot of slot_mapping (atrex.access slots:
// a padding token, -1, and a repeated slot add nothing).

// Case 1 (T=3,Hk=2,D=8,NB=2,BS=4), slots 5, -1 (padding), 7: U_slots = 2
// RUN: echo '{"slot_mapping": [5, -1, 7]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/reshape_and_cache.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,Hk=2,D=8,NB=2,BS=4" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   read = 4*T*Hk*D + 8*T = 192 + 24 = 216
//   write = 2 * 2*U_slots*Hk*D = 2 * 2*2*16 = 128
// S1: atrex.work = {bytes = {read = 216 : i64, total = 344 : i64, write = 128 : i64}, flops = {}, special = {}}

// Case 2 (T=64,Hk=8,D=128,NB=64,BS=16), slots 0..63 (iota): U_slots = T
// RUN: echo '{"slot_mapping": {"iota": {}}}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/reshape_and_cache.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=64,Hk=8,D=128,NB=64,BS=16" \
// RUN:   --test-print-semantic-work="facts=%t.S2.json" -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=S2
//   read = 4*T*Hk*D + 8*T = 262144 + 512 = 262656
//   write = 4*T*Hk*D = 262144
// S2:      semantic work of 'reshape_and_cache' at {BS = 16, D = 128, Hk = 8, NB = 64, T = 64}
// S2-NEXT:   bytes read: 262656
// S2-NEXT:   bytes write: 262144
// S2-NEXT:   argument key (input, bf16, dense): 131072 bytes
// S2-NEXT:   argument value (input, bf16, dense): 131072 bytes
// S2-NEXT:   argument key_cache (input, bf16, carried): 0 bytes
// S2-NEXT:   argument value_cache (input, bf16, carried): 0 bytes
// S2-NEXT:   argument slot_mapping (input, i64, dense): 512 bytes
// S2-NEXT:   argument key_cache_out (output, bf16, slots): 131072 bytes
// S2-NEXT:   argument value_cache_out (output, bf16, slots): 131072 bytes

// A slot outside the cache's NB*BS slots is an error naming the argument.
// RUN: echo '{"slot_mapping": [5, 8, 1]}' > %t.S3.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/reshape_and_cache.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=3,Hk=2,D=8,NB=2,BS=4" \
// RUN:   --atrex-semantic-work="facts=%t.S3.json" 2>&1 | FileCheck %s --check-prefix=S3
// S3: facts reference slot 8 of 'key_cache_out', outside [0, 8)
