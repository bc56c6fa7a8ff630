//===- IRModel.h - the lint model from LLVM IR ------------------*- C++ -*-===//
//
// Part of atrex. Builds the same model as the AST builder from an LLVM IR
// module (host or device IR of a clang CUDA/HIP compile, or any IR), so the
// same checks, policy and verdicts apply to IR. See docs/ir-and-plugins.md for
// what IR can and cannot show.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_IRMODEL_H
#define ATREX_LINT_IRMODEL_H

#include "atrex/Lint/Model.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Module;
}

namespace atrex {
namespace lint {
class Policy;

/// Reduces \p M to the lint model.
Model buildModelFromIR(const llvm::Module &M, const Policy &P);

/// Parses a .ll or .bc file and builds its model; parse errors are returned
/// in Model::Errors with the file, line and column.
Model buildModelFromIRFile(llvm::StringRef Path, const Policy &P);

/// Qualified name of a (possibly mangled) symbol, without parameters and
/// template arguments: `_ZN2at6matmulERKNS_6TensorES3_` -> `at::matmul`.
std::string demangledQualifiedName(llvm::StringRef Symbol);

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_IRMODEL_H
