//===- PythonSyntax.h - tree-sitter Python syntax trees ---------*- C++ -*-===//
//
// Part of atrex. A thin C++ view of tree-sitter's C API for the Python
// grammar: parsing, node navigation, positions, and the decoding of string
// literals with the Python position of every decoded character.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LIB_LINT_PYTHON_PYTHONSYNTAX_H
#define ATREX_LIB_LINT_PYTHON_PYTHONSYNTAX_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>
#include <tree_sitter/api.h>
#include <vector>

namespace atrex {
namespace lint {
namespace python {

/// A node of a parsed tree; the tree and the source outlive it.
class PyNode {
public:
  PyNode() = default;
  PyNode(TSNode N, llvm::StringRef Src) : N(N), Src(Src) {}

  bool isNull() const { return !Src.data() || ts_node_is_null(N); }
  explicit operator bool() const { return !isNull(); }
  llvm::StringRef type() const {
    return isNull() ? llvm::StringRef() : ts_node_type(N);
  }
  bool is(llvm::StringRef T) const { return type() == T; }
  llvm::StringRef text() const {
    if (isNull())
      return {};
    return Src.slice(ts_node_start_byte(N), ts_node_end_byte(N));
  }
  unsigned startByte() const { return ts_node_start_byte(N); }
  unsigned endByte() const { return ts_node_end_byte(N); }
  /// 1-based line and (byte) column, as clang counts them.
  unsigned line() const { return ts_node_start_point(N).row + 1; }
  unsigned column() const { return ts_node_start_point(N).column + 1; }
  PyNode field(llvm::StringRef Name) const {
    if (isNull())
      return {};
    return {ts_node_child_by_field_name(N, Name.data(), Name.size()), Src};
  }
  unsigned numChildren() const { return isNull() ? 0 : ts_node_child_count(N); }
  PyNode child(unsigned I) const { return {ts_node_child(N, I), Src}; }
  unsigned numNamed() const {
    return isNull() ? 0 : ts_node_named_child_count(N);
  }
  PyNode named(unsigned I) const { return {ts_node_named_child(N, I), Src}; }
  std::vector<PyNode> namedChildren() const {
    std::vector<PyNode> V;
    for (unsigned I = 0, E = numNamed(); I < E; ++I)
      V.push_back(named(I));
    return V;
  }
  PyNode parent() const { return {ts_node_parent(N), Src}; }
  bool isNamed() const { return !isNull() && ts_node_is_named(N); }
  bool hasError() const { return !isNull() && ts_node_has_error(N); }
  bool isMissing() const { return !isNull() && ts_node_is_missing(N); }
  bool operator==(const PyNode &O) const { return ts_node_eq(N, O.N); }

private:
  TSNode N{};
  llvm::StringRef Src;
};

/// A parsed Python file.
class PySyntaxTree {
public:
  static llvm::Expected<std::unique_ptr<PySyntaxTree>>
  parse(std::string Source);
  ~PySyntaxTree();

  PyNode root() const;
  llvm::StringRef source() const { return Source; }

  /// Syntax errors (ERROR and MISSING nodes), outermost first, at most \p Max.
  struct SyntaxError {
    unsigned Line, Column;
    std::string Message;
  };
  std::vector<SyntaxError> errors(unsigned Max = 5) const;

private:
  PySyntaxTree() = default;
  std::string Source;
  TSParser *Parser = nullptr;
  TSTree *Tree = nullptr;
};

/// A string value reconstructed from literals, with the Python position of
/// every character (line, 1-based byte column).
struct PyString {
  std::string Text;
  std::vector<std::pair<unsigned, unsigned>> Pos;
  void append(const PyString &O) {
    Text += O.Text;
    Pos.insert(Pos.end(), O.Pos.begin(), O.Pos.end());
  }
};

/// Decodes a `string` node. std::nullopt for f-strings with placeholders and
/// byte strings; an unterminated string is decoded up to the end of the file.
std::optional<PyString> decodeStringLiteral(PyNode N);

} // namespace python
} // namespace lint
} // namespace atrex

#endif
