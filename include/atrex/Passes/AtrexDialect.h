//===- AtrexDialect.h - the atrex annotation dialect ------------*- C++ -*-===//
//
// The `atrex` dialect verifies the `atrex.*` annotations of operator
// definitions (AtrexDialect.td). Contexts that parse definitions load it;
// registerAtrexDialect() also loads it whenever the func dialect is loaded,
// so that mlir-opt-style drivers verify definitions as they parse them.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_PASSES_ATREXDIALECT_H
#define ATREX_PASSES_ATREXDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectRegistry.h"

#include "atrex/Passes/AtrexDialect.h.inc"

namespace atrex {

/// Adds the atrex dialect to `registry`, loaded together with the func
/// dialect.
void registerAtrexDialect(mlir::DialectRegistry &registry);

} // namespace atrex

#endif // ATREX_PASSES_ATREXDIALECT_H
