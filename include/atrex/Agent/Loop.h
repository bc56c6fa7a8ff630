//===- Loop.h - the measure-revise loop -------------------------*- C++ -*-===//
//
// Part of atrex. `atrex agent run`: iteration 0 evaluates the starting
// submission, every later iteration builds a context from the best accepted
// kernel (revert-to-best) and the history since the last dropout, asks the
// backend for a candidate, evaluates it (Evaluate.h) and accepts it only if
// the gate passed, both verdicts are `adopted` and S_i beats the best's.
// After k iterations without improvement (or m failures of one kind in a
// row) the history is masked: optimization dropout. Every event goes to the
// audit trail (Trail.h). See docs/agent.md.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_LOOP_H
#define ATREX_AGENT_LOOP_H

#include "atrex/Agent/Backend.h"
#include "atrex/Agent/Evaluate.h"
#include "atrex/Agent/Problem.h"
#include "atrex/Agent/Profile.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace atrex::agent {

struct LoopOptions {
  unsigned Iterations = 5;   ///< candidate iterations in all (resume included)
  double WallSeconds = 0;    ///< of this invocation; 0: no limit
  unsigned DropoutAfter = 3; ///< k: iterations without improvement; 0: off
  /// m: the last m iterations without improvement failed the same way;
  /// 0: off.
  unsigned DropoutSameKind = 0;
  /// An accepted S_i must exceed best * (1 + MinImprovement).
  double MinImprovement = 0;
  bool Measured = true; ///< false under --no-gate
  /// No new iteration once the run's tokens (in + out, as the backend
  /// reported them, resume included) reach this; 0: no limit.
  uint64_t TokenBudget = 0;
};

/// What one iteration came to.
struct Outcome {
  bool Accepted = false;
  std::string Kind;      ///< failure kind of a rejection
  std::string Diagnosis; ///< one line
};

/// Why a dropout is due.
struct DropoutDue {
  std::string Trigger; ///< "stale" or "same-kind"
  unsigned Stale = 0;
  std::vector<std::string> Kinds;
};

/// The loop's memory: the best kernel, the history since the last dropout
/// and the counters. Pure (no files): the loop, --resume's replay of the
/// trail and the unit tests drive it the same way.
class LoopState {
public:
  Kernel Best;
  bool HaveAccepted = false;
  std::vector<HistoryEntry> History; ///< since the last dropout
  /// Every source hash evaluated in the run, first time order; never masked
  /// (the audit trail's): the context's `explored`.
  std::vector<std::string> Explored;
  std::vector<std::string> StaleKinds; ///< kinds since the last improvement
  std::string DropoutNote;
  unsigned Dropouts = 0;
  unsigned LastIteration = 0; ///< last completed iteration
  bool Started = false;       ///< iteration 0 is complete

  /// The accept rule, without changing the state.
  Outcome decide(const Evaluation &E, const LoopOptions &O) const;
  /// Records an iteration's evaluated candidate as decided.
  void recordEvaluated(unsigned Iteration, const Kernel &K, const Evaluation &E,
                       const Outcome &Out);
  /// Attaches iteration \p Iteration's profile diagnosis (a Diagnosis as
  /// JSON) or profile error to its history entry, and to the best kernel
  /// when it is that iteration's.
  void recordProfile(unsigned Iteration,
                     std::optional<llvm::json::Object> Diagnosis,
                     const std::string &Error);
  /// Records an iteration whose backend gave no candidate.
  void recordBackendFailure(unsigned Iteration, const std::string &Why);
  /// Whether a dropout is due now.
  std::optional<DropoutDue> dropoutDue(const LoopOptions &O) const;
  /// Masks the history: only the best kernel and a note remain; the
  /// counters restart. Returns the masked iterations.
  std::vector<unsigned> dropout(unsigned AfterIteration, const DropoutDue &Why);
};

struct RunOptions {
  std::string RunDir;
  std::string StartFile; ///< the starting submission (not needed to resume)
  bool Resume = false;
  std::string BackendName; ///< "command"
  std::string Command;     ///< the command backend's command
  LoopOptions Loop;
  EvalOptions Eval;
  /// The knowledge-base index (`atrex agent kb build`) queried before every
  /// backend call; "" none.
  std::string KbIndex;
  unsigned KbLimit = 6; ///< hits per retrieval
  /// --profile: ncu on every candidate whose gate passed (Profile.h).
  bool Profile = false;
  ProfileOptions Prof;
};

/// What an iteration asks the knowledge base (docs/agent.md, "The knowledge
/// base"): the operator, phase and regime, the best kernel's verdicts and
/// gate status where they are not adopted and pass, the last two history
/// entries' failure kinds and the words of their diagnoses.
std::vector<std::string> retrievalTerms(const Context &C);

/// Runs (or resumes) the loop on \p P (ignored when resuming: the trail's
/// problem is used). Progress lines go to \p Log.
llvm::Error runLoop(const Problem &P, Backend &B, const RunOptions &O,
                    llvm::raw_ostream &Log);

} // namespace atrex::agent

#endif // ATREX_AGENT_LOOP_H
