//===- Policy.h - what counts as the DSL and what as delegation -*- C++ -*-===//
//
// Part of atrex. A policy names, per track, which symbols are the target DSL
// or allowed glue, which are delegation to PyTorch or vendor libraries, which
// are evasion, and each check's severity. The built-in default is a YAML
// document (DefaultPolicy.yaml); a YAML or JSON file can extend or replace it.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_POLICY_H
#define ATREX_LINT_POLICY_H

#include "atrex/Lint/Finding.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include <map>
#include <string>
#include <vector>

namespace atrex {
namespace lint {

enum class RuleAction { Allow, Delegate, Evasion };
/// Where a rule applies: host code, device code or both.
enum class RuleContext { Host, Device, Any };

struct SymbolRule {
  std::string Id;
  RuleAction Action = RuleAction::Allow;
  std::string Check;   ///< check the finding is reported under
  std::string Library; ///< "cuBLAS", "PyTorch/ATen", "dlopen", ...
  std::string Message; ///< optional extra explanation
  RuleContext Context = RuleContext::Host;
  std::vector<std::string> Symbols; ///< globs on template-free qualified names
  std::vector<std::string> Headers; ///< globs on the declaring file's path
  std::vector<std::string> Except;  ///< symbol globs the rule never matches
  /// Not a call whose first argument is a non-zero integer constant: an
  /// exit with a failure status (`exit(EXIT_FAILURE)` in an error check)
  /// makes the harness fail the unit, it fakes nothing.
  bool ExceptFailureStatus = false;
  /// Globs on what the call's first argument names: the rule does not match
  /// when one matches (`thrust::host`: a Thrust algorithm run on the CPU).
  std::vector<std::string> ExceptFirstArg;
  /// The call resolves a function by a name given as a string literal
  /// (`cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", ...)`): the rule
  /// applies only when the named function is itself delegation or evasion
  /// under the policy (or the name is not a literal).
  bool JudgeNamedSymbol = false;

  // Compiled patterns (filled by Policy::compile).
  std::vector<llvm::GlobPattern> SymbolPats, HeaderPats, ExceptPats,
      ExceptFirstArgPats;

  /// Whether a call with these facts about its arguments is excepted.
  /// \p Arg0Failure: the first argument is a variable that holds a failure
  /// status where the call is (`if (code != cudaSuccess) exit(code);`).
  bool exceptsCall(std::optional<int64_t> IntArg0, llvm::StringRef Arg0Decl,
                   bool Arg0Failure = false) const;
};

class Policy {
public:
  std::string Name = "default";
  std::string Description;
  std::vector<SymbolRule> Rules; ///< first match wins
  std::map<std::string, Severity> Checks;
  std::vector<std::string> LaunchApis; ///< calls whose kernel arguments launch
  std::vector<std::string> RuntimeSymbols; ///< may not be redefined
  std::vector<std::string> TimingSymbols;  ///< may never be defined
  std::vector<std::string> StreamCreate;   ///< create a side stream
  std::vector<std::string> StreamJoin;     ///< join a side stream back
  /// The analysis mode the policy sets (`mode:`); unset: detected per file.
  std::optional<AnalysisMode> Mode;
  /// The kernel DSLs a track accepts (`dsl:`, names of Dsls.def); empty:
  /// any. A launched kernel in another is atrex-kernel-off-dsl.
  std::vector<std::string> Dsls;

  /// The built-in default policy.
  static const Policy &getDefault();
  /// A built-in policy by name (`default`, `strict`), or nullptr.
  static const Policy *preset(llvm::StringRef Name);
  static bool isPreset(llvm::StringRef Name);
  /// The built-in policies' names, comma-separated.
  static std::string presetNames();
  /// A built-in policy's name, or a policy file.
  static llvm::Expected<Policy> load(llvm::StringRef NameOrPath);
  /// The built-in default policy's YAML text.
  static llvm::StringRef defaultText();

  /// Parses a policy document (YAML or JSON). Unless it says
  /// `inherit: none`, its rules come before those of the policy it inherits
  /// (`inherit: default`, the default, or another built-in such as
  /// `strict`), its check severities override that policy's and its lists
  /// extend it.
  /// Errors name \p BufferName, the line and the key at fault.
  static llvm::Expected<Policy> parse(llvm::StringRef Text,
                                      llvm::StringRef BufferName);
  static llvm::Expected<Policy> loadFile(llvm::StringRef Path);

  /// The first rule matching a symbol, or nullptr.
  const SymbolRule *match(llvm::StringRef QualName, llvm::StringRef DeclFile,
                          bool InDeviceCode) const;
  Severity severity(llvm::StringRef Check) const;
  bool isLaunchApi(llvm::StringRef Name) const;
  bool isRuntimeSymbol(llvm::StringRef Name) const;
  bool isTimingSymbol(llvm::StringRef Name) const;
  bool isStreamCreate(llvm::StringRef Name) const;
  bool isStreamJoin(llvm::StringRef Name) const;

  /// Serialises the policy back to YAML (atrex-lint --dump-policy).
  std::string toYAML() const;

  /// Compiles the glob patterns; errors name the bad pattern.
  llvm::Error compile();

private:
  struct Compiled {
    std::vector<llvm::GlobPattern> Launch, Runtime, Timing, Create, Join;
  };
  std::shared_ptr<Compiled> C;
};

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_POLICY_H
