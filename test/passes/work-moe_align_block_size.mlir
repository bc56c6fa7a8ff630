// Semantic work of moe_align_block_size (suites/atrex-serve/ops/moe_align_block_size.mlir)
// at two shapes; expected numbers from the counting rules of docs/semantic-work.md.
// No FLOPs: counts, prefix sums, ranks and selects are integer work.
// bytes: topk_ids 4TK read; sorted_token_ids 4(TK + E(BS-1)), expert_ids 4MB
// (MB = ceil((TK + E(BS-1)) / BS)) and num_tokens_post_pad 4 written: every entry of the
// buffers vLLM allocates (the padding and the tail are written too).

// Case 1 (T=8,K=2,E=8,BS=4): TK + E(BS-1) = 16 + 24 = 40, MB = 10
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/moe_align_block_size.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=8,K=2,E=8,BS=4,MB=10" --atrex-semantic-work \
// RUN:   | FileCheck %s --check-prefix=S1
//   read = 4*T*K = 64
//   write = 4*40 + 4*10 + 4 = 204
// S1: atrex.work = {bytes = {read = 64 : i64, total = 268 : i64, write = 204 : i64}, flops = {}, special = {}}

// Case 2 (T=8192,K=8,E=256,BS=64: DeepSeek-V3's routing, the prefill example):
// TK + E(BS-1) = 65536 + 16128 = 81664, MB = 1276
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/moe_align_block_size.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=8192,K=8,E=256,BS=64,MB=1276" \
// RUN:   --test-print-semantic-work -o /dev/null | FileCheck %s --check-prefix=S2
//   read = 4*T*K = 262144
//   write = 4*81664 + 4*1276 + 4 = 326656 + 5104 + 4 = 331764
// S2:      semantic work of 'moe_align_block_size' at {BS = 64, E = 256, K = 8, MB = 1276, T = 8192}
// S2-NEXT:   bytes read: 262144
// S2-NEXT:   bytes write: 331764
// S2-NEXT:   argument topk_ids (input, i32, dense): 262144 bytes
// S2-NEXT:   argument sorted_token_ids (output, i32, dense): 326656 bytes
// S2-NEXT:   argument expert_ids (output, i32, dense): 5104 bytes
// S2-NEXT:   argument num_tokens_post_pad (output, i32, dense): 4 bytes
