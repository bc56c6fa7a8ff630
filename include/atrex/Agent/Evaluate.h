//===- Evaluate.h - lint, gate and S_i of one candidate ---------*- C++ -*-===//
//
// Part of atrex. A candidate is linted (atrex-lint --format=json, the static
// verdict), then run by atrex-gate on a one-submission, one-problem plan
// written to the iteration's directory (status, dynamic verdict, median),
// and scored: S_i = min(1, T_roofline / T_measured) (atrex/Score/Score.h).
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_EVALUATE_H
#define ATREX_AGENT_EVALUATE_H

#include "atrex-rt/Protocol.h"
#include "atrex/Agent/Problem.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace atrex::agent {

struct EvalOptions {
  std::string LintPath;   ///< atrex-lint
  std::string GatePath;   ///< atrex-gate
  std::string GateWorker; ///< --worker of the gate ("" its default)
  std::string GateCache;  ///< --cache of the gate
  /// Lint reports by source hash and entry (lintCacheFile); "" none. A hit
  /// needs no atrex-lint (e.g. on a GPU node without LLVM); a miss is
  /// linted and stored.
  std::string LintCache;
  /// atrex-lint --dsl (a track's kernel DSLs); empty: any DSL.
  std::vector<std::string> LintDsl;
  /// Merged into the plan's settings (after "gpu": the problem's GPU).
  llvm::json::Object GateSettings;
  bool NoGate = false;
  unsigned LintTimeoutS = 600, GateTimeoutS = 3600;
};

struct Evaluation {
  // Static side.
  std::string LintVerdict; ///< adopted, fallback, ... or "error"
  std::vector<std::string> LintReasons;
  std::vector<std::string> LintErrors; ///< compiler errors (first few)
  std::string LintError;               ///< the linter could not give a verdict
  bool LintCached = false;             ///< the report came from the cache
  // Dynamic side.
  bool Measured = false; ///< the gate ran (false under --no-gate)
  std::string GateStatus, GateStage, GateReason, GateVerdict;
  std::string GateError; ///< the gate gave no result line
  std::optional<double> MedianUs;
  std::string PlanFile, ResultsFile;
  // Score.
  std::optional<double> S;     ///< S_i as scoring gives it (0 on failures)
  std::optional<double> STime; ///< min(1, T_roofline/T_measured), any verdict

  /// Passing and adopted by both verdicts: S_i counts.
  bool adopted() const {
    return Measured && GateStatus == atrex::rt::protocol::kPass &&
           LintVerdict == atrex::rt::protocol::kAdopted &&
           GateVerdict == atrex::rt::protocol::kAdopted;
  }
};

/// Lints and (unless NoGate) gates the candidate at \p SourceFile, writing
/// lint.json, plan.json and results.jsonl in \p Dir. Errors of the tools are
/// recorded in the Evaluation; an llvm::Error only when \p Dir is unusable.
llvm::Expected<Evaluation> evaluate(const Problem &P,
                                    llvm::StringRef SourceFile,
                                    llvm::StringRef Dir, llvm::StringRef Name,
                                    const EvalOptions &O);

/// The failure kind of an evaluation that cannot be accepted, for dropout
/// ("" when it is adopted): compile, wrong-output, fallback, error,
/// unmeasured. "slower" and "backend" are the loop's.
std::string failureKind(const Evaluation &E);

/// The failure kinds (the trail's `failure_kind`, dropout's "same kind"),
/// spelled once.
namespace failure {
inline constexpr const char *kError = atrex::rt::protocol::kError;
inline constexpr const char *kCompile = "compile";
inline constexpr const char *kSuspicious = atrex::rt::protocol::kSuspicious;
inline constexpr const char *kWrongOutput = "wrong-output";
inline constexpr const char *kFailed = "failed";
inline constexpr const char *kFallback = atrex::rt::protocol::kFallback;
inline constexpr const char *kUnmeasured = "unmeasured";
inline constexpr const char *kSlower = "slower";
inline constexpr const char *kBackend = "backend";
} // namespace failure

/// One line for the history: what the gate and the linter said.
std::string diagnosis(const Evaluation &E);

llvm::json::Object toJSON(const Evaluation &E);
llvm::Expected<Evaluation> evaluationFromJSON(const llvm::json::Object &O);

/// The lint cache's file for \p Source linted as a submission of
/// \p Operator: CacheDir/<sha256>.<operator>.json (atrex-lint's report).
std::string lintCacheFile(llvm::StringRef CacheDir, llvm::StringRef Source,
                          llvm::StringRef Operator);
/// Stores \p Report as \p CacheFile (written whole, then renamed).
llvm::Error storeLintCache(llvm::StringRef CacheFile, llvm::StringRef Report);

/// Parses atrex-lint's JSON report into \p E (verdict, reasons, errors).
llvm::Error parseLintReport(llvm::StringRef Text, Evaluation &E);
/// Parses the gate's first result line into \p E.
llvm::Error parseGateResult(llvm::StringRef Line, Evaluation &E);

} // namespace atrex::agent

#endif // ATREX_AGENT_EVALUATE_H
