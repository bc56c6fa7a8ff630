// The atrex dialect verifies the form of every atrex.* annotation when a
// definition is parsed, before any pass runs (docs/semantic-work.md,
// "Annotations"). One malformed annotation per case.
// RUN: atrex-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{atrex-verify: 'atrex.dims' has 2 entries for a tensor of rank 1}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = ["T", "H"]}) -> tensor<?xf32>
    attributes {atrex.operator = "f"} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.dims' invalid dimension expression 'T+'}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = ["T+"]}) -> tensor<?xf32>
    attributes {atrex.operator = "f"} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.dims' entry -1 is negative}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = [-1]}) -> tensor<?xf32>
    attributes {atrex.operator = "f"} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.name' must be a string naming the argument (letters, digits, '_')}}
func.func @f(%x: tensor<4xf32> {atrex.name = 3 : i64}) -> tensor<4xf32>
    attributes {atrex.operator = "f"} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' has an unknown kind 'pages' (expected "rows", "paged", "slots", "groups", "carried" or "columns")}}
func.func @f(%x: tensor<4x4xf32> {atrex.name = "x", atrex.dims = [4, 4],
                                  atrex.access = {kind = "pages", table = "t", lengths = "l"}})
    -> tensor<4x4xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' 'index' names 'ids', which is no argument of 'f'}}
func.func @f(%x: tensor<4x4xf32> {atrex.name = "x", atrex.dims = [4, 4],
                                  atrex.access = {kind = "rows", index = "ids"}})
    -> tensor<4x4xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x4xf32>
}

// -----

// A slot mapping names its index; a carried destination takes nothing else.
// expected-error @+1 {{atrex-verify: 'atrex.access' needs 'index'}}
func.func @f(%x: tensor<4x4xf32> {atrex.name = "x", atrex.dims = [4, 4],
                                  atrex.access = {kind = "slots"}})
    -> tensor<4x4xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' has an unknown key 'index'}}
func.func @f(%x: tensor<4x4xf32> {atrex.name = "x", atrex.dims = [4, 4],
                                  atrex.access = {kind = "carried", index = "x"}})
    -> tensor<4x4xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x4xf32>
}

// -----

// Grouped slices name their cumulative row ends, and optionally the rows they group.
// expected-error @+1 {{atrex-verify: 'atrex.access' needs 'ends'}}
func.func @f(%x: tensor<4x4xf32> {atrex.name = "x", atrex.dims = [4, 4],
                                  atrex.access = {kind = "groups", rows = "x"}})
    -> tensor<4x4xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' 'rows' names 'y', which is no argument of 'f'}}
func.func @f(%x: tensor<4x4xf32> {atrex.name = "x", atrex.dims = [4, 4],
                                  atrex.access = {kind = "groups", ends = "offs", rows = "y"}},
             %offs: tensor<4xi32> {atrex.name = "offs", atrex.dims = [4]})
    -> tensor<4x4xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' has an unknown key 'index' (expected kind, ends, rows)}}
func.func @f(%x: tensor<4x4xf32> {atrex.name = "x", atrex.dims = [4, 4],
                                  atrex.access = {kind = "groups", ends = "offs", index = "offs"}},
             %offs: tensor<4xi32> {atrex.name = "offs", atrex.dims = [4]})
    -> tensor<4x4xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' needs a tensor of rank >= 2}}
func.func @f(%x: tensor<4xf32> {atrex.name = "x", atrex.dims = [4],
                               atrex.access = {kind = "rows", index = "x"}})
    -> tensor<4xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4xf32>
}

// -----

// A column range names how many leading columns of the last dimension are
// touched: a dimension expression (its value is checked by the pass).
// expected-error @+1 {{atrex-verify: 'atrex.access' needs 'count'}}
func.func @f(%x: tensor<4x8xf32> {atrex.name = "x", atrex.dims = [4, 8],
                                  atrex.access = {kind = "columns"}})
    -> tensor<4x8xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' needs 'count'}}
func.func @f(%x: tensor<4x8xf32> {atrex.name = "x", atrex.dims = [4, 8]})
    -> (tensor<4x8xf32> {atrex.name = "x_out", atrex.dims = [4, 8],
                         atrex.access = {kind = "columns"}})
    attributes {atrex.operator = "f"} {
  return %x : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' 'count': invalid dimension expression 'N+': unexpected end}}
func.func @f(%x: tensor<4x8xf32> {atrex.name = "x", atrex.dims = [4, 8],
                                  atrex.access = {kind = "columns", count = "N+"}})
    -> tensor<4x8xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' 'count' must be a string}}
func.func @f(%x: tensor<4x8xf32> {atrex.name = "x", atrex.dims = [4, 8],
                                  atrex.access = {kind = "columns", count = 4 : i64}})
    -> tensor<4x8xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' has an unknown key 'start' (expected kind, count)}}
func.func @f(%x: tensor<4x8xf32> {atrex.name = "x", atrex.dims = [4, 8],
                                  atrex.access = {kind = "columns", count = "4", start = "2"}})
    -> tensor<4x8xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.access' needs a tensor of rank >= 2}}
func.func @f(%x: tensor<8xf32> {atrex.name = "x", atrex.dims = [8],
                               atrex.access = {kind = "columns", count = "4"}})
    -> tensor<8xf32> attributes {atrex.operator = "f"} {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.nmae' is not an annotation of results (expected atrex.name, atrex.dims, atrex.access)}}
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32> {atrex.nmae = "y"})
    attributes {atrex.operator = "f"} {
  return %x : tensor<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @f(%x: tensor<4xf32> {atrex.name = "x", atrex.dims = [4]})
    -> (tensor<4xf32> {atrex.name = "y", atrex.dims = [4]}) attributes {atrex.operator = "f"} {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{atrex-verify: 'atrex.engine' must be "matrix" or "vector"}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) attrs = {atrex.engine = "tensor"} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @f(%x: tensor<4xf32> {atrex.name = "x", atrex.dims = [4]},
             %lens: tensor<4xi32> {atrex.name = "lens", atrex.dims = [4]})
    -> (tensor<4xf32> {atrex.name = "y", atrex.dims = [4]}) attributes {atrex.operator = "f"} {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{atrex-verify: 'atrex.ragged' 'loop' = 1 names no loop (the op has 1)}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>)
      attrs = {atrex.ragged = {loop = 1 : i64, by = 0 : i64, lengths = "lens"}} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @f(%x: tensor<4xf32> {atrex.name = "x", atrex.dims = [4]})
    -> (tensor<4xf32> {atrex.name = "y", atrex.dims = [4]}) attributes {atrex.operator = "f"} {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{atrex-verify: 'atrex.ragged' 'lengths' names 'context_lens', which is no argument of 'f'}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>)
      attrs = {atrex.ragged = {loop = 0 : i64, by = 0 : i64, lengths = "context_lens"}} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @f(%x: tensor<4xf32> {atrex.name = "x", atrex.dims = [4]})
    -> (tensor<4xf32> {atrex.name = "y", atrex.dims = [4]}) attributes {atrex.operator = "f"} {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{atrex-verify: 'atrex.causal_varlen' needs 'cu_seqlens'}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>)
      attrs = {atrex.causal_varlen = {q = 0 : i64, k = 0 : i64}} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @f() attributes {atrex.operator = "f"} {
  // expected-error @+1 {{atrex-verify: 'atrex.symbol' must be a string naming a shape parameter}}
  %c = arith.constant {atrex.symbol = "2R"} 1 : index
  return
}

// -----

// expected-error @+1 {{atrex-verify: unknown annotation 'atrex.operater'}}
func.func @f() attributes {atrex.operater = "f"} {
  return
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.operator' must be on a func.func (an operator definition)}}
module attributes {atrex.operator = "f"} {
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.examples' entry needs a 'shape'}}
func.func @f() attributes {atrex.operator = "f", atrex.examples = [{name = "a", phase = "decode"}]} {
  return
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.dtype_params' must map parameter names to their default element types}}
func.func @f() attributes {atrex.operator = "f", atrex.dtype_params = {act = "bf16"}} {
  return
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.entry' operator 'f': argument 'w' is missing from the entry's args}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = ["T"]},
             %w: tensor<?xf32> {atrex.name = "w", atrex.dims = ["T"]})
    -> (tensor<?xf32> {atrex.name = "out", atrex.dims = ["T"]})
    attributes {atrex.operator = "f",
                atrex.entry = {summary = "s", keys = ["T"], key_doc = "T tokens", example = {T = 2},
                               args = ["out", "x"]}} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.entry' operator 'f': result 'out' is missing from the entry's args (list it, or name it '<input>_out' for an in-place input)}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = ["T"]})
    -> (tensor<?xf32> {atrex.name = "out", atrex.dims = ["T"]})
    attributes {atrex.operator = "f",
                atrex.entry = {summary = "s", keys = ["T"], key_doc = "T tokens", example = {T = 2},
                               args = ["x"]}} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.entry' operator 'f': fixed input 'n' needs its C++ type ('n: int64_t', 'double' or 'bool')}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = ["T"]})
    -> (tensor<?xf32> {atrex.name = "out", atrex.dims = ["T"]})
    attributes {atrex.operator = "f", atrex.fixed_inputs = {n = "T"},
                atrex.entry = {summary = "s", keys = ["T"], key_doc = "T tokens", example = {T = 2},
                               args = ["out", "x", "n"]}} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.entry' operator 'f': unknown atrex.entry key 'example_shape' (known: summary, keys, key_doc, example, args, derived, constraints, nonnegative)}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = ["T"]})
    -> (tensor<?xf32> {atrex.name = "out", atrex.dims = ["T"]})
    attributes {atrex.operator = "f",
                atrex.entry = {summary = "s", keys = ["T"], key_doc = "T tokens", example_shape = {T = 2},
                               args = ["out", "x"]}} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.entry' operator 'f': entry argument 'eps: float': the type must be double, int64_t or bool}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = ["T"]}, %eps: f32 {atrex.name = "eps"})
    -> (tensor<?xf32> {atrex.name = "out", atrex.dims = ["T"]})
    attributes {atrex.operator = "f",
                atrex.entry = {summary = "s", keys = ["T"], key_doc = "T tokens", example = {T = 2},
                               args = ["out", "x", "eps: float"]}} {
  return %x : tensor<?xf32>
}

// -----

// expected-error @+1 {{atrex-verify: 'atrex.entry' operator 'f': in-place result 'x_out' must have the type and dimensions of 'x'}}
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = ["T"]})
    -> (tensor<?xbf16> {atrex.name = "x_out", atrex.dims = ["T"]})
    attributes {atrex.operator = "f",
                atrex.entry = {summary = "s", keys = ["T"], key_doc = "T tokens", example = {T = 2},
                               args = ["x"]}} {
  %y = arith.truncf %x : tensor<?xf32> to tensor<?xbf16>
  return %y : tensor<?xbf16>
}

// -----

// A well-formed definition: no diagnostic.
func.func @f(%x: tensor<?xf32> {atrex.name = "x", atrex.dims = ["T"]}, %n: i64 {atrex.name = "n"})
    -> (tensor<?xf32> {atrex.name = "x_out", atrex.dims = ["T"]})
    attributes {atrex.operator = "f", atrex.fixed_inputs = {flag = 1 : i64},
                atrex.entry = {summary = "s", keys = ["T"], key_doc = "T tokens", example = {T = 2},
                               args = ["x", "n", "flag: bool"], nonnegative = ["T"]}} {
  return %x : tensor<?xf32>
}
