//===- Families.h - operator families (kb/families.yaml) --------*- C++ -*-===//
//
// Part of atrex. The one reader of the operator-families file: the
// knowledge base's middle retrieval layer (docs/agent.md) and atrex-lint's
// family checks (a family that `requires: [multiply-add]` makes
// atrex-kernel-no-multiply-add apply to its operators) both read it here.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUPPORT_FAMILIES_H
#define ATREX_SUPPORT_FAMILIES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace atrex {

struct OperatorFamily {
  std::string Name, Summary;
  std::vector<std::string> Operators;
  /// What every launched kernel set of the family's operators must show in
  /// its device code: `multiply-add` (a GEMM).
  std::vector<std::string> Requires;
};

/// Launched kernels must execute multiply-adds (atrex-kernel-no-multiply-add).
inline constexpr const char *MultiplyAddRequirement = "multiply-add";
/// The requirement names a family may list under `requires`.
inline constexpr const char *FamilyRequirements[] = {MultiplyAddRequirement};

/// Reads \p Path (`families: [{name, summary, operators, requires}]`): an
/// error names the file and what is wrong (a malformed document, an empty
/// name or one with a space or comma, a family defined twice, an unknown
/// requirement). Operators are not checked against a suite here.
llvm::Expected<std::vector<OperatorFamily>> loadFamilies(llvm::StringRef Path);

/// The families of \p Families that list \p Operator.
std::vector<const OperatorFamily *>
familiesOf(const std::vector<OperatorFamily> &Families,
           llvm::StringRef Operator);

} // namespace atrex

#endif
