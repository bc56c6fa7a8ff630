//===- OperatorLibrary.h - a suite's operator definitions -------*- C++ -*-===//
//
// Part of atrex. The MLIR definitions of a suite's operators
// (suites/<suite>/ops/*.mlir, docs/semantic-work.md), parsed once, and the
// semantic work of a problem (operator, shape, dtypes, facts) counted on a
// copy of its definition. Used by atrex-roofline and the suite tools.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_ROOFLINE_OPERATORLIBRARY_H
#define ATREX_ROOFLINE_OPERATORLIBRARY_H

#include "atrex/Passes/SemanticWork.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace atrex {

class OperatorLibrary {
public:
  /// Parses every `*.mlir` file of `Dir` and collects the functions marked
  /// `atrex.operator`. Errors name the file.
  static llvm::Expected<std::unique_ptr<OperatorLibrary>>
  load(llvm::StringRef Dir);

  ~OperatorLibrary();

  /// Operator names, sorted.
  std::vector<std::string> operators() const;
  bool contains(llvm::StringRef Op) const { return Defs.count(Op); }

  /// The definition of `Op` (the function in its parsed module), or null.
  mlir::func::FuncOp definition(llvm::StringRef Op) const;
  /// The file `Op` was read from.
  llvm::StringRef file(llvm::StringRef Op) const;
  /// The comment block at the top of the file, without the `//` markers.
  llvm::StringRef headerComment(llvm::StringRef Op) const;
  /// The shape parameters of `Op`: every symbol of its `atrex.dims` entries
  /// and `atrex.symbol` constants, in order of first appearance.
  std::vector<std::string> shapeParameters(llvm::StringRef Op) const;

  /// Instantiates `Op` at `Dims`/`Dtypes` on a copy of its module and counts
  /// its semantic work with `Facts`. Errors carry "FILE:LINE:COL: " where the
  /// IR names a location.
  llvm::Expected<SemanticWork>
  count(llvm::StringRef Op, const llvm::StringMap<int64_t> &Dims,
        const Facts &Facts,
        const llvm::StringMap<std::string> &Dtypes = {}) const;

  mlir::MLIRContext &context() { return *Context; }

private:
  struct Definition {
    std::string File;
    std::string Header;
    mlir::OwningOpRef<mlir::ModuleOp> Module;
    std::string FuncName;
  };
  OperatorLibrary();
  std::unique_ptr<mlir::MLIRContext> Context;
  llvm::StringMap<Definition> Defs;
};

/// Renders an error, located ones as "FILE:LINE:COL: MESSAGE".
std::string locatedErrorToString(llvm::Error Err);

} // namespace atrex

#endif // ATREX_ROOFLINE_OPERATORLIBRARY_H
