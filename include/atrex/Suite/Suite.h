//===- Suite.h - a benchmark suite: configuration and problems --*- C++ -*-===//
//
// Part of atrex. A suite configuration (suites/<suite>/suite.yaml: models,
// the operators each layer calls at which shapes, applications with their
// batch mixes and card-hours) is expanded into problems (suite.json): one per
// distinct (operator, phase, shape), with the facts the gate's input
// generator implies, visibility, provenance and a weight. See docs/suite.md.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUITE_SUITE_H
#define ATREX_SUITE_SUITE_H

#include "atrex/Roofline/OperatorLibrary.h"
#include "atrex/Roofline/Roofline.h"
#include "atrex/Suite/Expr.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atrex::suite {

using Shape = std::map<std::string, int64_t>;

//===----------------------------------------------------------------------===//
// Configuration (suite.yaml)
//===----------------------------------------------------------------------===//

struct OperatorConfig {
  std::string Name;
  /// Entry-point shape key -> expression over the definition's parameters.
  std::map<std::string, std::string> Entry;
  /// Expressions that must be non-zero for every problem.
  std::vector<std::string> Constraints;
  /// Parameters that may be 0 (all others must be positive).
  std::vector<std::string> NonNegative;
  /// Phases the operator occurs in.
  std::vector<std::string> Phases;
  /// The facts model (data-dependent inputs as the gate generates them):
  /// "" (dense) or one of factsModels().
  std::string Facts;
  /// The model's arguments (argument names of the definition, expressions
  /// over the definition and entry shape) where they differ from its
  /// defaults (FactsModel::Args).
  std::map<std::string, std::string> FactsArgs;
};

/// A facts model: how the gate's generator draws an operator's
/// data-dependent inputs, stated as the facts of the expected inputs and of
/// the inputs with the least work. The one list is factsModels().
struct FactsModel {
  llvm::StringRef Name;
  /// What the gate draws (docs/suite.md's table is checked against it).
  llvm::StringRef Summary;
  /// Argument -> default: input names of the definition, or expressions
  /// over the problem's definition and entry shape.
  std::vector<std::pair<llvm::StringRef, llvm::StringRef>> Args;
};
llvm::ArrayRef<FactsModel> factsModels();
const FactsModel *findFactsModel(llvm::StringRef Name);
/// An operator's `facts` names a model and `facts_args` only its arguments
/// (the one check: suite.yaml's reader and factsFor).
llvm::Error checkFactsConfig(const OperatorConfig &Op);

struct CallConfig {
  std::string Op;
  /// Restricts the call to one phase; empty for both.
  std::string Phase;
  /// Calls per forward pass (expression over the model's vars).
  std::string Calls;
  /// Definition parameter -> expression over the model's vars and the step's
  /// T (tokens), S (sequences) and, in decode, L (maximum KV length).
  std::map<std::string, std::string> Shape;
  /// The upstream kernel the call stands for ("framework:kernel").
  std::string Kernel;
};

struct ModelConfig {
  std::string Name;
  /// "NAME=EXPR", evaluated in order.
  std::vector<std::string> Vars;
  std::vector<CallConfig> Calls;
};

/// One kind of forward step in an application's batch mix.
struct StepConfig {
  int64_t Tokens = 0; ///< T (prefill: the chunk; decode: = S)
  int64_t Seqs = 0;   ///< S
  int64_t KV = 0;     ///< L, decode only
  double Steps = 0;   ///< share of the phase's forward steps
};

struct ApplicationConfig {
  std::string Name;
  std::string Model;
  double CardHours = 0;
  /// Share of the application's GPU time spent in prefill.
  double PrefillShare = 0;
  std::vector<StepConfig> Decode;
  std::vector<StepConfig> Prefill;
};

struct Rewrite {
  std::string From, To;
};

/// A track: which kernel DSLs a submission must be written in, on which GPU
/// it is judged, for which operators (docs/suite.md, "Tracks"). Public: the
/// release's cards say which DSL each track requires.
struct Track {
  std::string Name;
  std::string Summary;
  /// Kernel DSLs accepted (names of include/atrex/Lint/Dsls.def): what
  /// `atrex-lint --dsl` is given for the track.
  std::vector<std::string> Dsl;
  std::string Gpu; ///< a GPU of the hardware table
  /// atrex-lint's policy for the track (a built-in: default, strict).
  std::string Policy = "default";
  /// Operators of the track; empty: every operator of the suite.
  std::vector<std::string> Operators;
  bool covers(llvm::StringRef Operator) const;
};

struct Config {
  std::string Path; ///< the file it was read from
  int Version = 0;
  std::string Suite;
  std::string Ops;      ///< relative to the configuration's directory
  std::string Specs;    ///< atrex-ref --list-json snapshot, ditto
  std::string Hardware; ///< hardware table, ditto
  std::string IdSeed;
  double VisibleFraction = 1.0 / 3;
  std::string WeightsGpu = "H200";
  double MinKernelUs = 0;
  /// Hot shapes: per (operator, phase), the heaviest problems that carry
  /// this share of the group's weight are kept and carry all of it.
  double HotShare = 1.0;
  std::vector<std::string> DenyList;
  std::vector<Rewrite> PublicRewrites;
  std::vector<Track> Tracks;
  std::vector<OperatorConfig> Operators;
  std::vector<ModelConfig> Models;
  std::vector<ApplicationConfig> Applications;

  /// A path of the configuration made absolute against its directory.
  std::string resolve(llvm::StringRef Relative) const;
};

/// Reads and checks a suite configuration. Errors name the file and entry.
llvm::Expected<Config> loadConfig(llvm::StringRef Path);

//===----------------------------------------------------------------------===//
// Problems (suite.json)
//===----------------------------------------------------------------------===//

struct Source {
  std::string Model, Application, UpstreamKernel;
  /// This source's part of the problem's serving-mix weight.
  double Weight = 0;
};

struct Problem {
  std::string Id;
  std::string Operator;
  std::string Phase;
  Shape DefShape;   ///< "shape": the operator definition's parameters
  Shape EntryShape; ///< "entry_shape": the entry point's (card, gate) keys
  /// Facts of the expected inputs (score ceiling) and of the inputs with the
  /// least work the gate's generator can draw (impossibility floor); null
  /// for operators without data-dependent work.
  llvm::json::Value Facts = nullptr;
  llvm::json::Value FloorFacts = nullptr;
  std::string Visibility;      ///< "public" or "hidden"
  std::vector<Source> Sources; ///< by decreasing weight; [0] is primary
  double Weight = 0;
};

struct Suite {
  std::string Path;    ///< suite.json's path when read from a file
  std::string BaseDir; ///< the directory relative paths resolve against
  std::string Name;
  std::string Ops, Specs, Hardware; ///< relative to suite.json's directory
  std::vector<std::string> DenyList;
  std::vector<Rewrite> PublicRewrites;
  std::vector<Track> Tracks;
  std::vector<OperatorConfig> Operators;
  std::string WeightsSource;
  std::vector<Problem> Problems;

  const OperatorConfig *findOperator(llvm::StringRef Name) const;
  const Problem *findProblem(llvm::StringRef Id) const;
  std::string resolve(llvm::StringRef Relative) const;
  /// Every provenance string (models, applications, upstream kernels).
  std::vector<std::string> provenanceStrings() const;
};

/// "K=V,..." in key order.
std::string shapeString(const Shape &S);

/// Tracks as suite.json and the public bundle write them, and back.
llvm::json::Object toJSON(const Track &T);
llvm::json::Array tracksToJSON(const std::vector<Track> &Tracks);
llvm::Expected<std::vector<Track>> tracksFromJSON(const llvm::json::Array &A);

/// The entry-point shape of a definition shape under `Op`'s mapping.
llvm::Expected<Shape> entryShape(const OperatorConfig &Op, const Shape &Def);

/// The facts model of `Op` at `Def`/`Entry`: expected and floor facts.
llvm::Expected<std::pair<llvm::json::Value, llvm::json::Value>>
factsFor(const OperatorConfig &Op, const Shape &Def, const Shape &Entry);

/// The lowercase hex SHA-256 of `Data`.
std::string sha256Hex(llvm::StringRef Data);

/// The format a Python submission is called in (docs/gate.md, "Python
/// submissions"), from its source: "kernelbench" when it defines
/// `class ModelNew`, "gpumode" when it defines `def custom_kernel`, else
/// "entry" (a function named like the operator).
std::string pythonSubmissionFormat(llvm::StringRef Source);

/// Expands a configuration: problems, facts, validity checks (errors name the
/// configuration entry), serving-mix weights from rooflines on
/// `Config.WeightsGpu`, ids and visibility.
llvm::Expected<Suite> expandSuite(const Config &C, const OperatorLibrary &Ops,
                                  llvm::ArrayRef<GpuSpec> Gpus);

llvm::json::Value toJSON(const Suite &S);
/// Reads suite.json; its relative paths (ops, specs, hardware) resolve
/// against `BaseDir` (default: the directory of the suite configuration it
/// was expanded from, recorded as the directory of `Path`).
llvm::Expected<Suite> readSuite(llvm::StringRef Path,
                                llvm::StringRef BaseDir = "");

//===----------------------------------------------------------------------===//
// Entry-point specifications (atrex-ref --list-json)
//===----------------------------------------------------------------------===//

struct EntrySpec {
  std::string Name, Summary, KeyDoc, Signature;
  std::vector<std::string> ShapeKeys;
  llvm::json::Value Outputs = nullptr; ///< name -> tolerance
};

llvm::Expected<std::map<std::string, EntrySpec>>
readEntrySpecs(llvm::StringRef Path);

//===----------------------------------------------------------------------===//
// Validity
//===----------------------------------------------------------------------===//

/// The semantic work of a problem under its expected and its floor facts.
struct ProblemWork {
  SemanticWork Expected;
  SemanticWork Floor;
};

/// Checks one problem against its operator's definition, entry spec and
/// constraints: shape parameters complete, values positive, constraints,
/// entry shape, facts as the facts model gives them, the definition
/// instantiates and counts positive work (floor work <= expected work).
llvm::Expected<ProblemWork> checkProblem(const Problem &P,
                                         const OperatorConfig &Op,
                                         const OperatorLibrary &Ops,
                                         const EntrySpec *Spec);

/// Checks every problem of a suite and the suite's invariants (unique ids,
/// weights >= 0 summing to 1). All errors are joined, each naming
/// `suite.json: problems[ID]`.
llvm::Error checkSuite(const Suite &S, const OperatorLibrary &Ops,
                       const std::map<std::string, EntrySpec> &Specs);

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

struct WeightAssignment {
  std::string Source; ///< "serving-mix-model/1" or "trace:<file>"
  std::map<std::string, double> Weights;      ///< id -> weight, sums to 1
  std::vector<std::string> UnmatchedProblems; ///< suite ids with weight 0
  std::vector<std::string> UnmatchedTrace;    ///< "operator phase shape"
};

/// The suite's own (serving-mix) weights.
WeightAssignment suiteWeights(const Suite &S);

/// Weights from an atrex-weights file (docs/formats/weights.md), matched by
/// operator + definition shape + phase. A trace problem of phase "unknown"
/// is split evenly over the suite problems of that operator and shape.
/// Suite problems no trace problem matches get weight 0; trace problems
/// matching no suite problem are reported and left out; the rest is
/// normalised to 1. Fails when nothing matches.
llvm::Expected<WeightAssignment> traceWeights(const Suite &S,
                                              llvm::StringRef File);

} // namespace atrex::suite

#endif // ATREX_SUITE_SUITE_H
