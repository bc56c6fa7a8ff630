// Semantic work of mla_decode (suites/atrex-serve/ops/mla_decode.mlir) at two shapes;
// expected numbers from the counting rules of docs/semantic-work.md.
// P = sum of context_lens (valid query-key pairs per head).
// matrix: scores 2*H*P*(L+R) + P c 2*H*P*L at bf16; vector: *scale, max, -max, sum = 4*H*P,
// /sum B*H*L; exp H*P. bytes: q_nope 2*B*H*L, q_pe 2*B*H*R, the U distinct pages referenced
// by the first ceil(ctx/BS) block-table entries of each sequence, BS*(L+R)*2 bytes each,
// block_tables 4*B*MB, context_lens 4B, scale 4 read; out 2*B*H*L written.

// Case 1 (B=2,H=4,L=8,R=4,NB=8,BS=4,MB=4), facts {"context_lens": [5, 16], "block_tables": [[3, 1, 0, 0], [2, 4, 1, 7]]}
// P = 21; pages 3, 1 (5 tokens) and 2, 4, 1, 7 (16 tokens): U = 5.
// RUN: echo '{"context_lens": [5, 16], "block_tables": [[3, 1, 0, 0], [2, 4, 1, 7]]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/mla_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=2,H=4,L=8,R=4,NB=8,BS=4,MB=4" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   matrix.bf16 = 2*H*P*(L+R) + 2*H*P*L = 2016 + 1344 = 3360
//   vector.f32 = 4*H*P + B*H*L = 336 + 64 = 400
//   special.exp = H*P = 84
//   read = 2*B*H*L + 2*B*H*R + 2*U*BS*(L+R) + 4*B*MB + 4*B + 4 = 128 + 64 + 480 + 32 + 8 + 4 = 716
//   write = 2*B*H*L = 128
// S1: atrex.work = {bytes = {read = 716 : i64, total = 844 : i64, write = 128 : i64}, flops = {matrix = {bf16 = 3360 : i64}, vector = {f32 = 400 : i64}}, special = {exp = 84 : i64}}

// Case 2 (B=3,H=16,L=512,R=64,NB=10,BS=64,MB=3: DeepSeek-V3's MLA dims, 16 heads per GPU at TP 8),
// facts {"context_lens": [1, 65, 128], "block_tables": [[0, 9, 9], [1, 2, 3], [1, 2, 4]]}
// P = 194; pages 0 (1 token), 1, 2 (65 tokens), 1, 2 (128 tokens, shared): U = 3.
// RUN: echo '{"context_lens": [1, 65, 128], "block_tables": [[0, 9, 9], [1, 2, 3], [1, 2, 4]]}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/mla_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=3,H=16,L=512,R=64,NB=10,BS=64,MB=3" \
// RUN:   --atrex-semantic-work="facts=%t.S2.json" | FileCheck %s --check-prefix=S2
//   matrix.bf16 = 2*H*P*(L+R) + 2*H*P*L = 3575808 + 3178496 = 6754304
//   vector.f32 = 4*H*P + B*H*L = 12416 + 24576 = 36992
//   special.exp = H*P = 3104
//   read = 2*B*H*L + 2*B*H*R + 2*U*BS*(L+R) + 4*B*MB + 4*B + 4 = 49152 + 6144 + 221184 + 36 + 12 + 4 = 276532
//   write = 2*B*H*L = 49152
// S2: atrex.work = {bytes = {read = 276532 : i64, total = 325684 : i64, write = 49152 : i64}, flops = {matrix = {bf16 = 6754304 : i64}, vector = {f32 = 36992 : i64}}, special = {exp = 3104 : i64}}
