// Diagnostics of atrex-instantiate-shape and atrex-semantic-work: each case
// must fail with a clear, located message and never crash.
// RUN: split-file %s %t

// Unbound, unknown and malformed bindings; non-divisible dimension expressions.
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4" 2>&1 | FileCheck %s --check-prefix=UNBOUND
// UNBOUND: rms_norm.mlir:{{[0-9]+}}:{{[0-9]+}}: error: atrex-instantiate-shape: dimension 'H' of 'rms_norm' is not bound (pass dims=H=<value>; the operator's dimensions are H, T)
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,H=8,Q=2" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: atrex-instantiate-shape: 'rms_norm' has no dimension 'Q' (its dimensions are H, T)
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=x,H=8" 2>&1 | FileCheck %s --check-prefix=BADBIND
// BADBIND: error: atrex-instantiate-shape: invalid binding 'T=x': expected NAME=VALUE with a non-negative integer
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/per_token_group_quant_fp8.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=2,H=100" 2>&1 | FileCheck %s --check-prefix=NOTDIV
// NOTDIV: error: atrex-instantiate-shape: invalid dimension expression 'H/128': 100 is not divisible by 128 (dimension 1 of 'out_s')
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=4,H=8" --atrex-instantiate-shape="dims=T=4,H=16" \
// RUN:   2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: atrex-instantiate-shape: dimension 'H' of 'x' is fixed to 8 but the binding gives 16
// RUN: atrex-opt %t/nodims.mlir --atrex-instantiate-shape="dims=N=2" -verify-diagnostics
// RUN: atrex-opt %t/fixed.mlir --atrex-instantiate-shape="dims=N=3" -verify-diagnostics
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir \
// RUN:   --atrex-instantiate-shape="function=missing dims=T=2,H=4" 2>&1 | FileCheck %s --check-prefix=NOFUNC

// Counting before the shape is bound.
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/rms_norm.mlir --atrex-semantic-work \
// RUN:   2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: atrex-semantic-work: 'x' has a dynamic shape; bind the shape first (--atrex-instantiate-shape)

// Data-dependent operators without their facts, or with facts that do not fit.
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/paged_attention_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=2,Hq=4,Hk=2,D=8,NB=8,BS=4,MB=4" --atrex-semantic-work \
// RUN:   2>&1 | FileCheck %s --check-prefix=NOFACT
// NOFACT: error: atrex-semantic-work: operator 'paged_attention_decode' is data-dependent: missing fact 'block_tables' (give the concrete values of argument 'block_tables' with facts=<file.json>)
// RUN: echo '{"context_lens": [5, 16], "block_tables": [[3, 1, 0, 0], [2, 4, 1, 8]]}' > %t/page.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/paged_attention_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=2,Hq=4,Hk=2,D=8,NB=8,BS=4,MB=4" \
// RUN:   --atrex-semantic-work="facts=%t/page.json" 2>&1 | FileCheck %s --check-prefix=PAGE
// PAGE: error: atrex-semantic-work: facts reference row 8 of 'key_cache', outside [0, 8)
// RUN: echo '{"context_lens": [5, 17], "block_tables": [[3, 1, 0, 0], [2, 4, 1, 7]]}' > %t/long.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/paged_attention_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=2,Hq=4,Hk=2,D=8,NB=8,BS=4,MB=4" \
// RUN:   --atrex-semantic-work="facts=%t/long.json" 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: error: atrex-semantic-work: context length 17 of sequence 1 needs 5 pages but the block table has 4
// RUN: echo '{"context_lens": [5], "block_tables": [[3, 1, 0, 0], [2, 4, 1, 7]]}' > %t/short.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/paged_attention_decode.mlir \
// RUN:   --atrex-instantiate-shape="dims=B=2,Hq=4,Hk=2,D=8,NB=8,BS=4,MB=4" \
// RUN:   --atrex-semantic-work="facts=%t/short.json" 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: atrex-semantic-work: operator 'paged_attention_decode' is data-dependent: fact 'context_lens' does not match the argument's shape: expected 2 elements along a dimension
// RUN: echo '{"cu_seqlens": [0, 3, 6]}' > %t/cu.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/flash_attention_prefill.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=7,B=2,Hq=4,Hk=2,D=8" \
// RUN:   --atrex-semantic-work="facts=%t/cu.json" 2>&1 | FileCheck %s --check-prefix=CU
// CU: flash_attention_prefill.mlir:{{[0-9]+}}:{{[0-9]+}}: error: atrex-semantic-work: fact 'cu_seqlens' must start at 0 and end at the token count 7
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/fused_moe.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=1,H=16,E=4,I=8,K=2" \
// RUN:   --atrex-semantic-work="facts=%t/missing.json" 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: atrex-semantic-work: cannot read facts file '{{.*}}missing.json'
// RUN: echo '{"topk_ids": {"iota": {"mod": 0}}}' > %t/mod.json
// RUN: not atrex-opt %atrex_src/suites/atrex-serve/ops/fused_moe.mlir \
// RUN:   --atrex-instantiate-shape="dims=T=1,H=16,E=4,I=8,K=2" \
// RUN:   --atrex-semantic-work="facts=%t/mod.json" 2>&1 | FileCheck %s --check-prefix=MOD
// MOD: error: atrex-semantic-work: operator 'fused_moe' is data-dependent: fact 'topk_ids': iota mod must be positive
// Group ends of another length than the grouped argument's dimension 0, and 'rows' naming a
// scalar (grouped_gemm_bf16's other facts checks: test/passes/work-grouped_gemm_bf16.mlir).
// RUN: echo '{"ends": [1, 1, 3]}' > %t/ends.json
// RUN: atrex-opt %t/groups.mlir --atrex-semantic-work="facts=%t/ends.json" -verify-diagnostics
// RUN: atrex-opt %t/groups-rows.mlir --atrex-semantic-work="facts=%t/ends.json" -verify-diagnostics

// A column range (atrex.access columns) wider than the last dimension, empty, or
// naming a symbol that is not bound.
// RUN: atrex-opt %t/columns-wide.mlir --atrex-semantic-work -verify-diagnostics
// RUN: atrex-opt %t/columns-empty.mlir --atrex-instantiate-shape="dims=T=2,N=4" \
// RUN:   --atrex-semantic-work -verify-diagnostics
// RUN: atrex-opt %t/columns-unbound.mlir --atrex-semantic-work -verify-diagnostics

// Ops the pass does not understand, and a wrong matrix-engine annotation.
// RUN: atrex-opt %t/unknown.mlir --atrex-semantic-work -verify-diagnostics
// RUN: atrex-opt %t/body.mlir --atrex-semantic-work -verify-diagnostics
// RUN: atrex-opt %t/matrix.mlir --atrex-semantic-work -verify-diagnostics

// NOFUNC: error: atrex-instantiate-shape: no operator function named 'missing' (a func.func with an atrex.operator attribute)

//--- nodims.mlir
// expected-error @+1 {{atrex-instantiate-shape: argument 'x' has no atrex.dims naming its dimensions}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x"}) -> tensor<?xf32>
    attributes {atrex.operator = "f"} {
  return %x : tensor<?xf32>
}

//--- fixed.mlir
// expected-error @+1 {{atrex-instantiate-shape: dimension 'N' of 'x' is fixed to 4 but the binding gives 3}}
func.func @f(%x: tensor<4xf32> {atrex.name = "x", atrex.dims = ["N"]})
    -> (tensor<4xf32> {atrex.name = "y", atrex.dims = [4]})
    attributes {atrex.operator = "f"} {
  return %x : tensor<4xf32>
}

//--- groups.mlir
// expected-error @+1 {{atrex-semantic-work: fact 'ends' has 3 group ends for the 4 groups of 'w' (its dimension 0)}}
func.func @f(%w: tensor<4x2xf32> {atrex.name = "w", atrex.dims = [4, 2],
                                  atrex.access = {kind = "groups", ends = "ends"}},
             %ends: tensor<3xi32> {atrex.name = "ends", atrex.dims = [3]})
    -> (tensor<4x2xf32> {atrex.name = "y", atrex.dims = [4, 2]})
    attributes {atrex.operator = "f"} {
  return %w : tensor<4x2xf32>
}

//--- groups-rows.mlir
// expected-error @+1 {{atrex-semantic-work: atrex.access 'groups' of 'w': 'rows' names 's', which is no tensor argument of static dimension 0}}
func.func @f(%w: tensor<3x2xf32> {atrex.name = "w", atrex.dims = [3, 2],
                                  atrex.access = {kind = "groups", ends = "ends", rows = "s"}},
             %ends: tensor<3xi32> {atrex.name = "ends", atrex.dims = [3]},
             %s: f32 {atrex.name = "s"})
    -> (tensor<3x2xf32> {atrex.name = "y", atrex.dims = [3, 2]})
    attributes {atrex.operator = "f"} {
  return %w : tensor<3x2xf32>
}

//--- columns-wide.mlir
// expected-error @+1 {{atrex-semantic-work: atrex.access 'columns' of 'x': count '2*4+1' is 9, outside [1, 8] (the last dimension of 'x')}}
func.func @f(%x: tensor<4x8xf32> {atrex.name = "x", atrex.dims = [4, 8],
                                  atrex.access = {kind = "columns", count = "2*4+1"}})
    -> (tensor<4x8xf32> {atrex.name = "y", atrex.dims = [4, 8]})
    attributes {atrex.operator = "f"} {
  return %x : tensor<4x8xf32>
}

//--- columns-empty.mlir
// expected-error @+1 {{atrex-semantic-work: atrex.access 'columns' of 'x_out': count 'N-4' is 0, outside [1, 4] (the last dimension of 'x_out')}}
func.func @f(%x: tensor<?x?xf32> {atrex.name = "x", atrex.dims = ["T", "N"]})
    -> (tensor<?x?xf32> {atrex.name = "x_out", atrex.dims = ["T", "N"],
                         atrex.access = {kind = "columns", count = "N-4"}})
    attributes {atrex.operator = "f"} {
  return %x : tensor<?x?xf32>
}

//--- columns-unbound.mlir
// expected-error @+1 {{atrex-semantic-work: dimension 'K' is not bound (count of atrex.access 'columns' of 'x')}}
func.func @f(%x: tensor<4x8xf32> {atrex.name = "x", atrex.dims = [4, 8],
                                  atrex.access = {kind = "columns", count = "K"}})
    -> (tensor<4x8xf32> {atrex.name = "y", atrex.dims = [4, 8]})
    attributes {atrex.operator = "f"} {
  return %x : tensor<4x8xf32>
}

//--- unknown.mlir
func.func @f(%x: tensor<4xf32> {atrex.name = "x", atrex.dims = [4]})
    -> (tensor<4xf32> {atrex.name = "y", atrex.dims = [4]})
    attributes {atrex.operator = "f"} {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{atrex-semantic-work: unsupported operation 'linalg.softmax': the pass counts linalg structured ops, tensor ops, scf.for and scalar arith/math}}
  %y = linalg.softmax dimension(0) ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- body.mlir
#id = affine_map<(i) -> (i)>
func.func @f(%x: tensor<4xi32> {atrex.name = "x", atrex.dims = [4]})
    -> (tensor<4xi32> {atrex.name = "y", atrex.dims = [4]})
    attributes {atrex.operator = "f"} {
  %e = tensor.empty() : tensor<4xi32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xi32>) outs(%e : tensor<4xi32>) {
  ^bb0(%a: i32, %o: i32):
    // expected-error @+1 {{atrex-semantic-work: unsupported operation 'math.ctpop' in the body of 'linalg.generic'}}
    %c = math.ctpop %a : i32
    linalg.yield %c : i32
  } -> tensor<4xi32>
  return %y : tensor<4xi32>
}

//--- matrix.mlir
#in = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (i)>
func.func @f(%x: tensor<4x8xf32> {atrex.name = "x", atrex.dims = [4, 8]})
    -> (tensor<4xf32> {atrex.name = "y", atrex.dims = [4]})
    attributes {atrex.operator = "f"} {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{atrex-semantic-work: op marked for the matrix engine does not accumulate a product of two values (acc + a * b)}}
  %y = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4xf32>) attrs = {atrex.engine = "matrix"} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
