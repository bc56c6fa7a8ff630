//===- SemanticWork.h - semantic work of operator definitions ---*- C++ -*-===//
//
// Library interface of the shape instantiation and semantic-work counting
// used by the passes, by atrex-roofline and by atrex-exec.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_PASSES_SEMANTICWORK_H
#define ATREX_PASSES_SEMANTICWORK_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace atrex {

/// An error attached to a location in the IR. Passes turn it into an MLIR
/// diagnostic at that location; other clients print its message.
class LocatedError : public llvm::ErrorInfo<LocatedError> {
public:
  static char ID;
  LocatedError(mlir::Location loc, std::string message)
      : loc(loc), message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  mlir::Location getLocation() const { return loc; }
  const std::string &getMessage() const { return message; }

private:
  mlir::Location loc;
  std::string message;
};

/// Creates a LocatedError; `message` should start with the pass name
/// ("atrex-semantic-work: ...").
llvm::Error makeLocatedError(mlir::Location loc, const llvm::Twine &message);

/// Emits every LocatedError of `err` as an MLIR error diagnostic and any other
/// error as a diagnostic at `fallback`.
void emitErrorAsDiagnostic(llvm::Error err, mlir::Location fallback);

//===----------------------------------------------------------------------===//
// Dimension expressions
//===----------------------------------------------------------------------===//

/// Evaluates a dimension expression of `atrex.dims` ("T", "2*D", "B+1",
/// "H/128"): integers, symbols, + - * and exact /, left to right with the
/// usual precedence, parentheses allowed. Unbound symbols are an error.
llvm::Expected<int64_t> evaluateDimExpr(llvm::StringRef expr,
                                        const llvm::StringMap<int64_t> &dims);

/// Appends the symbols referenced by `expr` to `symbols`.
llvm::Error collectDimSymbols(llvm::StringRef expr,
                              llvm::SmallVectorImpl<std::string> &symbols);

/// Parses "K=V" bindings.
llvm::Expected<llvm::StringMap<int64_t>>
parseDimBindings(llvm::ArrayRef<std::string> bindings);

//===----------------------------------------------------------------------===//
// Shape instantiation
//===----------------------------------------------------------------------===//

/// Binds the symbolic dimensions of the operator function `func` to `dims`,
/// rewrites its type to static shapes and propagates the shapes through its
/// body. Fails (with a LocatedError) on unbound or unknown symbols,
/// inconsistent sizes, or shapes that do not become static.
///
/// `dtypes` binds the dtype parameters the definition declares with
/// `atrex.dtype_params = {act = bf16}` (name -> default element type): every
/// use of the default type in the function becomes the bound type
/// ("bf16", "f16", "f32", "f64", "f8e4m3", "f8e5m2").
llvm::Error instantiateShape(mlir::func::FuncOp func,
                             const llvm::StringMap<int64_t> &dims,
                             const llvm::StringMap<std::string> &dtypes =
                                 llvm::StringMap<std::string>());

/// Parses "NAME=DTYPE" bindings.
llvm::Expected<llvm::StringMap<std::string>>
parseDtypeBindings(llvm::ArrayRef<std::string> bindings);

//===----------------------------------------------------------------------===//
// Facts of data-dependent operators
//===----------------------------------------------------------------------===//

/// A concrete integer tensor (context lengths, block table, expert ids...).
struct Fact {
  std::vector<int64_t> shape;
  std::vector<int64_t> values;
};

/// Facts by argument name, as read from JSON. A fact is either an explicit
/// (nested) array of integers or a generator object materialized at the
/// argument's bound shape: {"fill": V}, {"iota": {}} or
/// {"iota": {"start": S, "mod": M}}.
class Facts {
public:
  static llvm::Expected<Facts> fromJSON(llvm::StringRef text);
  /// Reads a JSON facts file, or, for a directory, the integer input tensors
  /// of a tensor directory (docs/formats/tensor-dir.md), i.e. the concrete
  /// inputs the gate or atrex-ref generated.
  static llvm::Expected<Facts> fromFile(llvm::StringRef path);

  /// Returns the fact named `name` shaped like `shape` (generators are
  /// materialized, explicit arrays checked against `shape`).
  llvm::Expected<Fact> get(llvm::StringRef name,
                           llvm::ArrayRef<int64_t> shape) const;
  bool contains(llvm::StringRef name) const {
    return raw.count(name) || tensors.count(name);
  }

private:
  llvm::StringMap<llvm::json::Value> raw;
  llvm::StringMap<Fact> tensors;
};

//===----------------------------------------------------------------------===//
// Semantic work
//===----------------------------------------------------------------------===//

/// The kinds of `atrex.access` (docs/semantic-work.md), spelled once: the
/// dialect's verifier and the byte counting both read them here.
namespace access {
/// Dimension 0 indexed by the values of `index` (expert ids, positions).
inline constexpr const char *kRows = "rows";
/// Pages of a paged cache: `table` rows, the first ceil(`lengths` / BS).
inline constexpr const char *kPaged = "paged";
/// Dimensions 0 and 1 as one slot axis (page * BS + offset) indexed by the
/// non-negative values of `index` (a KV-cache write's slot mapping; -1
/// marks a padding token, which touches nothing).
inline constexpr const char *kSlots = "slots";
/// Dimension 0 is the group axis (experts of a grouped GEMM) and `ends` the
/// groups' cumulative row ends (torch._grouped_mm's offs: group e owns rows
/// [ends[e-1], ends[e]), ends[-1] = 0): only the groups that own rows are
/// read. Optional `rows` names the argument whose dimension 0 holds the
/// grouped rows; the last end must then equal that row count.
inline constexpr const char *kGroups = "groups";
/// An in-place destination whose old contents the operator does not read
/// (only the part it updates is written, counted on the result): 0 bytes.
inline constexpr const char *kCarried = "carried";
/// Only the first `count` columns of the last dimension of every row are read
/// (on an argument) or written (on a result); `count` is a dimension
/// expression over the definition's symbols ("(Hq+Hk)*D": the q and k heads
/// of a packed qkv updated in place, its v heads untouched).
inline constexpr const char *kColumns = "columns";
} // namespace access

struct ArgumentBytes {
  std::string name;
  std::string role; // "input" or "output"
  std::string dtype;
  uint64_t bytes = 0;
  /// "dense", or how the referenced part was determined (access::k...).
  std::string access = "dense";
};

struct SemanticWork {
  std::string operatorName;
  std::map<std::string, int64_t> shape;
  /// engine ("matrix" or "vector") -> dtype -> FLOPs.
  std::map<std::string, std::map<std::string, uint64_t>> flops;
  /// special function ("exp", "rsqrt", ...) -> evaluations.
  std::map<std::string, uint64_t> special;
  std::vector<ArgumentBytes> arguments;
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;

  uint64_t totalFlops() const;
  uint64_t totalBytes() const { return bytesRead + bytesWritten; }
};

/// Counts the semantic work of an instantiated operator function.
llvm::Expected<SemanticWork> countSemanticWork(mlir::func::FuncOp func,
                                               const Facts &facts);

/// JSON form (documented in docs/semantic-work.md).
llvm::json::Value toJSON(const SemanticWork &work);

/// Attribute form attached to the function as `atrex.work`.
mlir::DictionaryAttr toAttribute(mlir::MLIRContext *ctx,
                                 const SemanticWork &work);

/// The dtype name used in counts and tables ("bf16", "f32", "f8e4m3", ...).
std::string dtypeName(mlir::Type type);

/// Reads and checks the index (`tensors.json`) of a tensor directory
/// (docs/formats/tensor-dir.md): an object with a "tensors" array; errors name
/// the file.
llvm::Expected<llvm::json::Value> readTensorDirIndex(llvm::StringRef dir);

} // namespace atrex

#endif // ATREX_PASSES_SEMANTICWORK_H
