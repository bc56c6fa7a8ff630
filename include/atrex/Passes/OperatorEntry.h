//===- OperatorEntry.h - the entry point an operator definition declares -*- C++
//-*-===//
//
// Part of atrex. An operator definition's `atrex.entry` attribute, together
// with its arguments' and results' `atrex.name`/`atrex.dims`, declares the
// entry point submissions implement: argument order, in/out roles, C++
// scalar types, dtypes and shapes in terms of shape keys
// (docs/semantic-work.md, "Entry points"). The atrex dialect verifies it;
// atrex-optable turns it into the runtime's operator table.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_PASSES_OPERATORENTRY_H
#define ATREX_PASSES_OPERATORENTRY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace atrex {

/// One argument of an entry point, in signature order.
struct EntryArgument {
  enum class Kind { Tensor, OutTensor, InOutTensor, Double, Int, Bool };
  std::string Name;
  Kind ArgKind = Kind::Tensor;
  /// Tensor-directory dtype name ("bf16", "f8e4m3", "i32", ...) of tensors.
  std::string Dtype;
  /// The definition's `atrex.dims` expressions (tensors only).
  std::vector<std::string> Dims;
};

/// The entry point of one operator, as declared by its definition.
struct OperatorEntry {
  std::string Name;
  std::string File; ///< the definition's file, as given to the library
  std::string Summary;
  std::vector<std::string> Keys;
  std::string KeyDoc;
  std::vector<std::pair<std::string, int64_t>> Example;
  std::vector<EntryArgument> Arguments;
  /// Definition symbols that are not shape keys, in evaluation order:
  /// (symbol, expression over the keys and earlier symbols).
  std::vector<std::pair<std::string, std::string>> Derived;
  /// (expression that must hold, message when it does not), in order.
  std::vector<std::pair<std::string, std::string>> Constraints;
  std::vector<std::string> NonNegative;
};

/// Reads the entry point of the operator function `Func` (which carries
/// `atrex.entry`) and resolves its argument list against the definition's
/// arguments, results and `atrex.fixed_inputs`. Errors name the operator.
llvm::Expected<OperatorEntry> readOperatorEntry(mlir::func::FuncOp Func);

} // namespace atrex

#endif // ATREX_PASSES_OPERATORENTRY_H
