// Semantic work of paged_attention_decode (suites/atrex-serve/ops/paged_attention_decode.mlir) at two or more
// shapes; expected numbers from the counting rules of docs/semantic-work.md.
// P = sum of context_lens (valid query-key pairs per head).
// matrix: QK^T 2*Hq*P*D + PV 2*Hq*P*D at bf16; vector: *scale, max, -max, sum = 4*Hq*P, /sum B*Hq*D;
// exp Hq*P. bytes: query 2*B*Hq*D, the U distinct pages referenced by the first ceil(ctx/BS)
// block-table entries of each sequence, BS*Hk*D*2 bytes each, for key_cache and value_cache,
// block_tables 4*B*MB, context_lens 4B, scale 4 read; out 2*B*Hq*D written.

// Case 1 (B=2,Hq=4,Hk=2,D=8,NB=8,BS=4,MB=4), facts {"context_lens": [5, 16], "block_tables": [[3, 1, 0, 0], [2, 4, 1, 7]]}
// RUN: echo '{"context_lens": [5, 16], "block_tables": [[3, 1, 0, 0], [2, 4, 1, 7]]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/paged_attention_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=2,Hq=4,Hk=2,D=8,NB=8,BS=4,MB=4" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   matrix.bf16 = 4*Hq*P*D = 2688
//   vector.f32 = 4*Hq*P + B*Hq*D = 400
//   special.exp = Hq*P = 84
//   read = 2*B*Hq*D + 2*U*BS*Hk*D*2 + 4*B*MB + 4*B + 4 = 1452
//   write = 2*B*Hq*D = 128
// S1: atrex.work = {bytes = {read = 1452 : i64, total = 1580 : i64, write = 128 : i64}, flops = {matrix = {bf16 = 2688 : i64}, vector = {f32 = 400 : i64}}, special = {exp = 84 : i64}}

// Case 2 (B=3,Hq=8,Hk=1,D=64,NB=10,BS=16,MB=3), facts {"context_lens": [1, 33, 48], "block_tables": [[0, 9, 9], [1, 2, 3], [1, 2, 4]]}
// RUN: echo '{"context_lens": [1, 33, 48], "block_tables": [[0, 9, 9], [1, 2, 3], [1, 2, 4]]}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/paged_attention_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=3,Hq=8,Hk=1,D=64,NB=10,BS=16,MB=3" \
// RUN:   --atrex-semantic-work="facts=%t.S2.json" | FileCheck %s --check-prefix=S2
//   matrix.bf16 = 4*Hq*P*D = 167936
//   vector.f32 = 4*Hq*P + B*Hq*D = 4160
//   special.exp = Hq*P = 656
//   read = 2*B*Hq*D + 2*U*BS*Hk*D*2 + 4*B*MB + 4*B + 4 = 23604
//   write = 2*B*Hq*D = 3072
// S2: atrex.work = {bytes = {read = 23604 : i64, total = 26676 : i64, write = 3072 : i64}, flops = {matrix = {bf16 = 167936 : i64}, vector = {f32 = 4160 : i64}}, special = {exp = 656 : i64}}
