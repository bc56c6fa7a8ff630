//===- Eval.h - evaluating external agents over a public bundle -*- C++ -*-===//
//
// Part of atrex (`atrex eval`, docs/eval.md). An external agent (any
// backend of Backend.h: a command, an OpenAI-compatible endpoint) is given
// the cards of a public bundle, one operator at a time, and writes one
// submission per operator; each turn is linted and, with several turns, the
// lint's findings go back to it. The files form a submission set
// (`<operator>.cu`), which is then linted, gated on the sealed problems and
// scored like the bundled sets, into a leaderboard.
//
// Generation reads the public bundle only: nothing of the sealed bundle (the
// hidden problems, rooflines, weights, provenance) is ever written where the
// agent reads or passed to it.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_EVAL_H
#define ATREX_AGENT_EVAL_H

#include "atrex/Agent/Backend.h"
#include "atrex/Agent/Evaluate.h"
#include "atrex/Score/Score.h"
#include "atrex/Suite/Suite.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atrex::agent::eval {

/// One operator's card of a public bundle (`public.json`'s `cards[]`, and
/// `cards/<operator>.md` beside it when present).
struct Card {
  std::string Operator;
  llvm::json::Object Json;
  std::string Markdown; ///< "" when the bundle has no cards/<op>.md
};

struct PublicBundle {
  std::string File; ///< public.json
  std::string Suite;
  std::string Commitment; ///< sealed_commitment
  std::vector<Card> Cards;
  std::vector<suite::Track> Tracks; ///< the suite's tracks (docs/suite.md)
};

/// The track \p Name of \p B; an error lists the bundle's tracks.
llvm::Expected<const suite::Track *> findTrack(const PublicBundle &B,
                                               llvm::StringRef Name);
/// What `atrex eval` has agents write for track \p T ("cuda" or "python",
/// from its DSLs' source kind, include/atrex/Lint/Dsls.def); an error when
/// its DSLs are written in neither or in both.
llvm::Expected<std::string> trackLanguage(const suite::Track &T);

/// Reads a public bundle (its directory or its public.json). Errors name the
/// file and what is wrong.
llvm::Expected<PublicBundle> loadPublicBundle(llvm::StringRef Path);

/// The Problem a backend sees for \p C: suite, operator, signature, summary,
/// shape keys' meaning and the GPU; no problem id, shape or roofline.
Problem cardProblem(const PublicBundle &B, const Card &C, llvm::StringRef Gpu);

/// The file extension of a submission language ("cuda": ".cu", "python":
/// ".py"); none for another language.
std::optional<llvm::StringRef> languageExtension(llvm::StringRef Lang);

/// An agent as given on the command line: NAME=command:SHELL-COMMAND, or
/// NAME=openai:MODEL[@BASE-URL].
struct AgentSpec {
  std::string Name;
  std::string Kind; ///< "command" or "openai"
  std::string Command;
  std::string Model, BaseURL;
};
llvm::Expected<AgentSpec> parseAgentSpec(llvm::StringRef Text);

/// One turn of one operator.
struct Turn {
  unsigned N = 0;          ///< 1-based
  std::string Hash;        ///< SHA-256 of the candidate ("" without one)
  std::string Failure;     ///< the backend gave no candidate: why
  std::string LintVerdict; ///< "" when there was no candidate
  std::string Diagnosis;   ///< the lint's reasons and errors, one line
  std::optional<int64_t> TokensIn, TokensOut;
  double WallS = 0;
};

struct OperatorOutcome {
  std::string Operator;
  std::vector<Turn> Turns;
  std::string File;        ///< <out>/sets/<name>/<operator>.cu ("" if none)
  std::string LintVerdict; ///< of the file ("" when none)
};

struct AgentOutcome {
  std::string Name;
  std::string Backend;
  std::vector<OperatorOutcome> Operators;
  std::optional<int64_t> TokensIn, TokensOut; ///< none: no turn reported any
  double WallS = 0;
  std::string SetDir; ///< <out>/sets/<name>
  /// The track generated for ("" none) and its kernel DSLs: scoring lints
  /// the set with `--dsl` of them and gates only on the track's GPU vendor.
  std::string Track;
  std::vector<std::string> TrackDsl;
  std::string TrackGpu;
  unsigned withFile() const;
  unsigned staticAdopted() const;
};

struct GenerateOptions {
  std::string OutDir;
  unsigned Turns = 1;
  std::vector<std::string> Operators; ///< empty: every card
  std::string Gpu = "H200";
  /// The submissions' language: "cuda" (<op>.cu, the C++ form) or "python"
  /// (<op>.py: KernelBench, GPU MODE or entry form;
  /// docs/submission-contract.md).
  std::string Lang = "cuda";
  /// The track (a name of the bundle's tracks; "" none): each card names it
  /// and its DSLs, and every turn is linted with `--dsl` of the track.
  std::string Track;
  /// How each turn is linted (NoGate is forced: generation never gates).
  EvalOptions Lint;
};

/// Runs \p A (through \p Backend) over the cards of \p B: for each operator
/// and turn a directory <out>/agents/<name>/<operator>/turn-N with card.md,
/// context.json, candidate.cu (.py), tokens.json and the lint report; the
/// last candidate of each operator is copied to <out>/sets/<name>/<op>.cu
/// (.py).
/// Every turn is a line of <out>/agents/<name>/turns.jsonl
/// (`atrex-eval-turn/1`), the outcome <out>/agents/<name>/outcome.json.
/// Errors: a directory or file that cannot be written, an unknown operator or
/// language.
llvm::Expected<AgentOutcome> generate(const PublicBundle &B, const AgentSpec &A,
                                      Backend &Backend,
                                      const GenerateOptions &O,
                                      llvm::raw_ostream &Log);

llvm::json::Object toJSON(const AgentOutcome &A);
llvm::Expected<AgentOutcome> outcomeFromJSON(const llvm::json::Value &V);

/// A row of the leaderboard: an evaluated agent or a bundled set.
struct Row {
  std::string Name;
  bool IsAgent = false;
  const AgentOutcome *Agent = nullptr;           ///< agents only
  const atrex::score::SetScore *Score = nullptr; ///< none: not gated
  /// Operators of the bundle with a file, and of those the static verdict
  /// adopted; from the agent's outcome or the set's lint report.
  std::optional<unsigned> Files, StaticAdopted;
  /// Of the statically adopted files, how many launch kernels in each DSL
  /// (atrex-lint's kernels[].dsl; FlyDSL adoption for a FlyDSL track); none
  /// without a lint report.
  std::optional<std::map<std::string, unsigned>> AdoptedByDsl;
};

/// Counts, per kernel DSL, the adopted submissions of \p Lint (each once per
/// operator: the file's stem), restricted to \p Ops when not empty.
std::map<std::string, unsigned>
adoptedByDsl(const std::vector<atrex::score::LintSubmission> &Lint,
             const std::vector<std::string> &Ops);

struct Leaderboard {
  unsigned Operators = 0; ///< cards of the public bundle evaluated
  std::vector<Row> Rows;  ///< agents first, in command-line order
  const atrex::score::ScoreReport *Report = nullptr; ///< none: nothing gated
};

void printLeaderboardText(llvm::raw_ostream &OS, const Leaderboard &L);
void printLeaderboardMarkdown(llvm::raw_ostream &OS, const Leaderboard &L);
llvm::json::Value toJSON(const Leaderboard &L);

} // namespace atrex::agent::eval

#endif // ATREX_AGENT_EVAL_H
