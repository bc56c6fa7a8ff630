//===- MLIRModel.h - the lint model from an MLIR module ---------*- C++ -*-===//
//
// Part of atrex. The MLIR front end of atrex-lint: a module of the gpu, func
// and llvm dialects (what a DSL such as FlyDSL lowers to before codegen)
// reduced to the lint model that every front end builds and the checks run
// on (include/atrex/Lint/Model.h). The `atrex-lint` pass
// (lib/Passes/Lint.cpp) runs it inside an MLIR pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_MLIRMODEL_H
#define ATREX_LINT_MLIRMODEL_H

#include "atrex/Lint/Model.h"
#include "mlir/IR/BuiltinOps.h"

namespace atrex::lint {

/// The position of an MLIR location (the innermost file:line:col it holds).
SourcePos sourcePosOf(mlir::Location L);

/// The lint model of \p Module: one function node per function-like op
/// (public host functions are entry candidates, kernels are `gpu.func`s
/// with the kernel attribute or `nvvm.kernel`/`rocdl.kernel` functions),
/// with its launches (`gpu.launch_func`, an inline `gpu.launch` region as
/// a kernel of its own), calls, address-taken functions and calls through
/// values.
Model buildModelFromMLIR(mlir::ModuleOp Module);

} // namespace atrex::lint

#endif
