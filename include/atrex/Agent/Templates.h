//===- Templates.h - parameterised kernel templates -------------*- C++ -*-===//
//
// Part of atrex. The knowledge base's kernel templates (kb/templates/<op>/
// <family>.cu): a CUDA submission of the operator's entry whose tuning knobs
// are preprocessor names, declared in its header comment:
//
//   // atrex-template: wmma
//   // atrex-summary: one line on what the family does
//   // atrex-order: 2                      (families are tried in this order)
//   // atrex-param: BM 64 128 256          (the values, in search order)
//   // atrex-default: BM=128 ...           (the family's starting point)
//   // atrex-require: BM % (16 * WM) == 0  (integer expressions, Suite/Expr.h)
//   // atrex-focus: compute STAGES BN ...  (params first explored per regime)
//   // atrex-direction: wider-loads VEC+   (knobs, each with the sign that
//                                           answers a diagnosis direction,
//                                           Directions.def; no knob: the
//                                           family as a whole answers it)
//
// An instance is the template with `#define NAME VALUE` lines and a first
// line `// atrex-search: <op>/<family> NAME=VALUE ...` that says where it
// came from (nothing else: equal configurations are equal sources, so the
// lint cache and the gate's compile cache hit). See docs/agent.md, "The search
// backend".
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_TEMPLATES_H
#define ATREX_AGENT_TEMPLATES_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atrex::agent {

/// Parameter values by name.
using Config = std::map<std::string, int64_t>;

struct TemplateParam {
  std::string Name;
  std::vector<int64_t> Values;
};

struct KernelTemplate {
  std::string Operator, Family, Path, Summary;
  int Order = 0;
  std::vector<TemplateParam> Params; ///< declaration order
  Config Defaults;
  std::vector<std::string> Requires;
  /// Regime ("memory", "compute") -> params explored first.
  std::map<std::string, std::vector<std::string>> Focus;
  /// Direction (Directions.def) -> the knob moves that answer it (param,
  /// +1 up its value list or -1 down); an empty list: the family itself.
  std::map<std::string, std::vector<std::pair<std::string, int>>> Directions;
  std::string Body; ///< the file's text

  const TemplateParam *param(llvm::StringRef Name) const;
  /// Whether every `atrex-require` holds for \p C (and each value is one of
  /// its param's). An expression that does not evaluate is an error naming
  /// the template.
  llvm::Expected<bool> admissible(const Config &C) const;
  /// Params in the order the search moves them for \p Regime.
  std::vector<std::string> moveOrder(llvm::StringRef Regime) const;
  /// Every admissible configuration (the space `atrex agent prelint` lints).
  llvm::Expected<std::vector<Config>> space() const;
};

/// Parses one template file; errors name the file and line.
llvm::Expected<KernelTemplate> parseTemplate(llvm::StringRef Path,
                                             llvm::StringRef Text,
                                             llvm::StringRef Operator);

/// The templates of \p Operator under \p Root (Root/<op>/*.cu), by order
/// then family. No directory: none (not an error).
llvm::Expected<std::vector<KernelTemplate>>
loadTemplates(llvm::StringRef Root, llvm::StringRef Operator);

/// "NAME=V NAME=V" in declaration order.
std::string configText(const KernelTemplate &T, const Config &C);

/// The instance's source (header line, #defines, the template's text).
std::string instantiate(const KernelTemplate &T, const Config &C);

/// Where an instance came from, read back from its first line.
struct InstanceInfo {
  std::string Operator, Family;
  Config Params;
};
std::optional<InstanceInfo> parseInstance(llvm::StringRef Source);

} // namespace atrex::agent

#endif // ATREX_AGENT_TEMPLATES_H
