//===- Passes.h - atrex semantic passes -------------------------*- C++ -*-===//
//
// Declarations of the TableGen'd atrex passes and their registration.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_PASSES_PASSES_H
#define ATREX_PASSES_PASSES_H

#include "atrex/Passes/AtrexDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace atrex {

#define GEN_PASS_DECL
#include "atrex/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "atrex/Passes/Passes.h.inc"

} // namespace atrex

#endif // ATREX_PASSES_PASSES_H
