//===- Backend.h - what proposes the next candidate -------------*- C++ -*-===//
//
// Part of atrex. A backend reads the context of one iteration (the problem,
// the best accepted kernel with its measurements, the history of earlier
// iterations since the last dropout) and proposes a candidate source. A
// backend is a command (any CLI agent or script; its contract is in
// docs/agent.md, "The command backend") or the built-in template search.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_BACKEND_H
#define ATREX_AGENT_BACKEND_H

#include "atrex/Agent/Knowledge.h"
#include "atrex/Agent/Problem.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace atrex::agent {

/// A kernel the loop knows with its measurements: the best accepted one, or
/// the starting submission while nothing was accepted.
struct Kernel {
  std::string Source;
  std::string Hash; ///< SHA-256 of Source
  std::string File; ///< candidates/<hash>.cu in the run directory
  unsigned Iteration = 0;
  bool Accepted = false; ///< false: the starting submission, not accepted
  double S = 0;          ///< S_i (0 while not accepted)
  std::optional<double> MedianUs;
  std::string LintVerdict, GateStatus, GateVerdict;
  /// With --profile: the diagnosis of its profile (Profile.h, as JSON), or
  /// why there is none.
  std::optional<llvm::json::Object> Profile;
  std::string ProfileError;
};

/// One earlier iteration, as the next context shows it.
struct HistoryEntry {
  unsigned Iteration = 0;
  std::string Hash;
  bool Accepted = false;
  std::string Kind;      ///< failure kind of a rejection ("" when accepted)
  std::string Diagnosis; ///< one line: why it was accepted or rejected
  std::optional<double> S, MedianUs;
  std::string LintVerdict, GateStatus, GateVerdict;
  /// With --profile (as Kernel's).
  std::optional<llvm::json::Object> Profile;
  std::string ProfileError;
};

/// Everything a backend gets for one iteration, and where its files are.
struct Context {
  Problem Prob;
  unsigned Iteration = 0;
  Kernel Best;
  std::vector<HistoryEntry> History; ///< since the last dropout, oldest first
  /// Every source hash evaluated in the run, across dropouts (not masked:
  /// a backend should not propose a measured source again).
  std::vector<std::string> Explored;
  /// Non-empty right after a dropout: the one line the masked history left.
  std::string DropoutNote;
  unsigned Dropouts = 0;
  bool Measured = true;      ///< false under --no-gate
  std::string Dir;           ///< the iteration's directory
  std::string ContextFile;   ///< context.json (this, written before propose)
  std::string BestFile;      ///< best.cu: the best kernel's source
  std::string CandidateFile; ///< where the backend writes the candidate
  std::string TokensFile;    ///< optional sidecar with token counts
  /// `atrex eval` (Eval.h): the public card of the operator to write, in
  /// place of a suite problem; none in `atrex agent run`.
  std::optional<llvm::json::Object> Card;
  std::string CardFile; ///< card.md: the card as the public bundle has it
  /// With --kb-index: what the knowledge base returned for this iteration
  /// (the context's `retrievals`); none without an index.
  std::optional<std::vector<KbHit>> Retrievals;
};

/// The context document (`atrex-agent-context/1`, docs/agent.md).
llvm::json::Object toJSON(const Context &C);

/// What a backend returned for one iteration.
struct Candidate {
  std::optional<std::string> Source; ///< none when the backend failed
  /// Why there is no candidate (a crash, an exit status, no file written);
  /// "" when there is one.
  std::string Failure;
  std::string Backend;           ///< "command"
  std::string Command;           ///< the command line as run
  std::optional<int> ExitStatus; ///< none: did not exit (signal, timeout)
  double WallS = 0;
  std::optional<int64_t> TokensIn, TokensOut;
  std::string TokensError; ///< a malformed token sidecar (counts stay none)
  /// What the backend chose and why (the search backend: template, family,
  /// parameters, move, templates read); the trail's candidate `detail`.
  llvm::json::Object Detail;
};

class Backend {
public:
  virtual ~Backend();
  virtual llvm::StringRef name() const = 0;
  /// Proposes a candidate for \p C. An Error is a fault of the loop's own
  /// (a file it cannot write) and stops the run; a backend that crashes or
  /// writes nothing gives a Candidate without Source and the loop goes on.
  virtual llvm::Expected<Candidate> propose(const Context &C) = 0;
};

/// Runs `/bin/sh -c COMMAND` with the placeholders {context}, {candidate},
/// {best}, {tokens}, {dir}, {iteration} and {card} replaced by the context's
/// paths, the same in the environment (ATREX_AGENT_CONTEXT,
/// ATREX_AGENT_CANDIDATE, ATREX_AGENT_BEST, ATREX_AGENT_TOKENS,
/// ATREX_AGENT_DIR, ATREX_AGENT_ITERATION, ATREX_AGENT_CARD), stdout and stderr
/// to command.out / command.err in the iteration's directory, and reads the
/// candidate from CandidateFile. TimeoutS 0: no limit.
std::unique_ptr<Backend> createCommandBackend(std::string Command,
                                              unsigned TimeoutS = 0);

/// The built-in search backend (no model): parameterised kernel templates of
/// the problem's operator (Templates.h), explored around the best kernel
/// (docs/agent.md, "The search backend"). Errors: no templates for the
/// operator, a malformed template.
llvm::Expected<std::unique_ptr<Backend>>
createSearchBackend(llvm::StringRef TemplateRoot, llvm::StringRef Operator);

/// \p Text with {context}, {candidate}, ... replaced (shell-quoted).
std::string expandPlaceholders(llvm::StringRef Text, const Context &C);

/// Reads the token sidecar ({"tokens_in": N, "tokens_out": M}); a missing
/// file gives none, a malformed one an error naming it.
llvm::Error readTokens(llvm::StringRef Path, Candidate &Cand);

} // namespace atrex::agent

#endif // ATREX_AGENT_BACKEND_H
