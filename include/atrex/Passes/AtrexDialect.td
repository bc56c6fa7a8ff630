//===- AtrexDialect.td - the atrex annotation dialect ------*- tablegen -*-===//
//
// The `atrex` dialect has no operations or types: it owns the `atrex.*`
// annotations of operator definitions and verifies them when a module is
// parsed or verified (docs/semantic-work.md, "Annotations").
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_DIALECT_TD
#define ATREX_DIALECT_TD

include "mlir/IR/DialectBase.td"

def Atrex_Dialect : Dialect {
  let name = "atrex";
  let cppNamespace = "::atrex";
  let summary = "Annotations of atrex operator definitions";
  let description = [{
    Operator definitions (suites/<suite>/ops/*.mlir) are `func.func`s whose
    arguments, results and ops carry `atrex.*` attributes: the operator's name
    and entry point (`atrex.operator`, `atrex.entry`), argument names and
    symbolic dimensions (`atrex.name`, `atrex.dims`), data-dependent access
    (`atrex.access`, `atrex.ragged`, `atrex.causal_varlen`), the engine class
    of a contraction (`atrex.engine`), named constants (`atrex.symbol`),
    dtype parameters, examples and fixed inputs, and what the passes record
    (`atrex.shape`, `atrex.dtypes`, `atrex.work`, `atrex.verdict`). The
    dialect verifies their form, so that a malformed annotation is an error
    at the definition instead of halfway through counting.
  }];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

#endif // ATREX_DIALECT_TD
