// Semantic work of grouped_gemm_bf16 (suites/atrex-serve/ops/grouped_gemm_bf16.mlir) at
// three shapes; expected numbers from the counting rules of docs/semantic-work.md.
// matrix: 2TNK at bf16 (every row is multiplied by one expert; the expert of a row is
// integer work, free). bytes: x 2TK, offs 4E read; w 2NK per expert that owns rows
// (atrex.access groups: expert e when offs[e] > offs[e-1], offs[-1] = 0: U_groups);
// out 2TN written.

// Case 1 (T=6,N=5,K=7,E=3), offs 0, 4, 6: expert 0 owns no rows, U_groups = 2
// RUN: echo '{"offs": [0, 4, 6]}' > %t.S1.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=6,N=5,K=7,E=3" \
// RUN:   --atrex-semantic-work="facts=%t.S1.json" | FileCheck %s --check-prefix=S1
//   matrix.bf16 = 2*T*N*K = 420
//   read = 2*T*K + 2*U_groups*N*K + 4*E = 84 + 140 + 12 = 236
//   write = 2*T*N = 60
// S1: atrex.work = {bytes = {read = 236 : i64, total = 296 : i64, write = 60 : i64}, flops = {matrix = {bf16 = 420 : i64}}, special = {}}

// Case 2 (T=512,N=1536,K=2048,E=128: Qwen3-30B-A3B gate_up, 64 tokens x top-8), every
// offs 512 (a fill): expert 0 owns all the rows, U_groups = 1
// RUN: echo '{"offs": {"fill": 512}}' > %t.S2.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=512,N=1536,K=2048,E=128" \
// RUN:   --test-print-semantic-work="facts=%t.S2.json" -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=S2
//   matrix.bf16 = 2*T*N*K = 3221225472
//   read = 2*T*K + 2*U_groups*N*K + 4*E = 2097152 + 6291456 + 512 = 8389120
//   write = 2*T*N = 1572864
// S2:      semantic work of 'grouped_gemm_bf16' at {E = 128, K = 2048, N = 1536, T = 512}
// S2-NEXT:   matrix bf16: 3221225472
// S2-NEXT:   bytes read: 8389120
// S2-NEXT:   bytes write: 1572864
// S2-NEXT:   argument x (input, bf16, dense): 2097152 bytes
// S2-NEXT:   argument w (input, bf16, groups): 6291456 bytes
// S2-NEXT:   argument offs (input, i32, dense): 512 bytes
// S2-NEXT:   argument out (output, bf16, dense): 1572864 bytes

// Case 3 (T=8,N=2,K=3,E=4), offs 1, 3, 6, 8: every expert owns rows, U_groups = E (the
// dense count)
// RUN: echo '{"offs": [1, 3, 6, 8]}' > %t.S3.json
// RUN: atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=8,N=2,K=3,E=4" \
// RUN:   --atrex-semantic-work="facts=%t.S3.json" | FileCheck %s --check-prefix=S3
//   matrix.bf16 = 2*T*N*K = 96
//   read = 2*T*K + 2*E*N*K + 4*E = 48 + 48 + 16 = 112
//   write = 2*T*N = 32
// S3: atrex.work = {bytes = {read = 112 : i64, total = 144 : i64, write = 32 : i64}, flops = {matrix = {bf16 = 96 : i64}}, special = {}}

// Facts that are not cumulative row ends of the T rows of x are errors naming offs.
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=6,N=5,K=7,E=3" --atrex-semantic-work \
// RUN:   2>&1 | FileCheck %s --check-prefix=NOFACT
// NOFACT: grouped_gemm_bf16.mlir:{{[0-9]+}}:{{[0-9]+}}: error: atrex-semantic-work: operator 'grouped_gemm_bf16' is data-dependent: missing fact 'offs' (give the concrete values of argument 'offs' with facts=<file.json>)
// RUN: echo '{"offs": [0, 4, 3]}' > %t.E1.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=6,N=5,K=7,E=3" \
// RUN:   --atrex-semantic-work="facts=%t.E1.json" 2>&1 | FileCheck %s --check-prefix=E1
// E1: error: atrex-semantic-work: fact 'offs' decreases at group 2 (4 to 3): group ends must be non-decreasing
// RUN: echo '{"offs": [-1, 4, 6]}' > %t.E2.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=6,N=5,K=7,E=3" \
// RUN:   --atrex-semantic-work="facts=%t.E2.json" 2>&1 | FileCheck %s --check-prefix=E2
// E2: error: atrex-semantic-work: fact 'offs' holds -1 at group 0: group ends must be non-negative
// RUN: echo '{"offs": [0, 4, 5]}' > %t.E3.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=6,N=5,K=7,E=3" \
// RUN:   --atrex-semantic-work="facts=%t.E3.json" 2>&1 | FileCheck %s --check-prefix=E3
// E3: error: atrex-semantic-work: fact 'offs' ends at 5 but 'x' has 6 rows: the last group end must equal the row count
// RUN: echo '{"offs": [0, 4, 7]}' > %t.E4.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/grouped_gemm_bf16.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=6,N=5,K=7,E=3" \
// RUN:   --atrex-semantic-work="facts=%t.E4.json" 2>&1 | FileCheck %s --check-prefix=E4
// E4: error: atrex-semantic-work: fact 'offs' ends at 7 but 'x' has 6 rows: the last group end must equal the row count
