// --test-print-semantic-work prints the counts of the semantic-work analysis
// as text; the numbers below are worked by hand from the counting rules
// (docs/semantic-work.md, "Per operator").
//
// rms_norm at T=4, H=8: vector 4TH + 2T = 136, rsqrt T = 4,
// bytes read 2TH + 2H + 4 = 84, written 2TH = 64.
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,H=8" --test-print-semantic-work -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=RMS
// RMS:      semantic work of 'rms_norm' at {H = 8, T = 4}
// RMS-NEXT:   vector f32: 136
// RMS-NEXT:   special rsqrt: 4
// RMS-NEXT:   bytes read: 84
// RMS-NEXT:   bytes write: 64
// RMS-NEXT:   argument x (input, bf16, dense): 64 bytes
// RMS-NEXT:   argument w (input, bf16, dense): 16 bytes
// RMS-NEXT:   argument eps (input, f32, dense): 4 bytes
// RMS-NEXT:   argument out (output, bf16, dense): 64 bytes
//
// paged_attention_decode with context lengths 5 and 16 in pages of BS=4:
// P = 21 valid keys, matrix 4*Hq*D*P = 2688, vector 4*Hq*P + B*Hq*D = 400,
// exp Hq*P = 84; the referenced pages are {3, 1} and {2, 4, 1, 7}, 5 distinct
// pages of BS*Hk*D*2 = 128 bytes per cache.
// RUN: echo '{"context_lens": [5, 16], "block_tables": [[3, 1, 0, 0], [2, 4, 1, 7]]}' > %t.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/paged_attention_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=2,Hq=4,Hk=2,D=8,NB=8,BS=4,MB=4" \
// RUN:   --test-print-semantic-work="facts=%t.json" -o /dev/null | FileCheck %s --check-prefix=PAGED
// PAGED:      semantic work of 'paged_attention_decode' at {B = 2, BS = 4, D = 8, Hk = 2, Hq = 4, MB = 4, NB = 8}
// PAGED-NEXT:   matrix bf16: 2688
// PAGED-NEXT:   vector f32: 400
// PAGED-NEXT:   special exp: 84
// PAGED-NEXT:   bytes read: 1452
// PAGED-NEXT:   bytes write: 128
// PAGED-NEXT:   argument query (input, bf16, dense): 128 bytes
// PAGED-NEXT:   argument key_cache (input, bf16, paged): 640 bytes
// PAGED-NEXT:   argument value_cache (input, bf16, paged): 640 bytes
// PAGED-NEXT:   argument block_tables (input, i32, dense): 32 bytes
// PAGED-NEXT:   argument context_lens (input, i32, dense): 8 bytes
// PAGED-NEXT:   argument scale (input, f32, dense): 4 bytes
// PAGED-NEXT:   argument out (output, bf16, dense): 128 bytes
//
// The pass leaves the module alone (no atrex.work attribute).
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,H=8" --test-print-semantic-work \
// RUN:   | FileCheck %s --check-prefix=NOATTR
// NOATTR-NOT: atrex.work
//
// Without its facts a data-dependent operator is an error at the definition.
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/paged_attention_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=2,Hq=4,Hk=2,D=8,NB=8,BS=4,MB=4" \
// RUN:   --test-print-semantic-work -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFACT
// NOFACT: paged_attention_decode.mlir:{{[0-9]+}}:{{[0-9]+}}: error: atrex-semantic-work: operator 'paged_attention_decode' is data-dependent: missing fact
