//===- Config.cpp - read a suite configuration (suite.yaml) ---------------===//
//
// Part of atrex. LLVM YAML I/O through atrex::readYAML; semantic errors name
// the file and the entry (docs/suite.md).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Finding.h"
#include "atrex/Suite/Suite.h"
#include "atrex/Support/YAML.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <set>

using namespace llvm;
using atrex::suite::ApplicationConfig;
using atrex::suite::CallConfig;
using atrex::suite::Config;
using atrex::suite::ModelConfig;
using atrex::suite::OperatorConfig;
using atrex::suite::Rewrite;
using atrex::suite::StepConfig;
using atrex::suite::Track;

LLVM_YAML_IS_SEQUENCE_VECTOR(OperatorConfig)
LLVM_YAML_IS_SEQUENCE_VECTOR(CallConfig)
LLVM_YAML_IS_SEQUENCE_VECTOR(ModelConfig)
LLVM_YAML_IS_SEQUENCE_VECTOR(StepConfig)
LLVM_YAML_IS_SEQUENCE_VECTOR(ApplicationConfig)
LLVM_YAML_IS_SEQUENCE_VECTOR(Rewrite)
LLVM_YAML_IS_SEQUENCE_VECTOR(Track)

namespace llvm::yaml {

template <> struct CustomMappingTraits<std::map<std::string, std::string>> {
  static void inputOne(IO &IO, StringRef Key,
                       std::map<std::string, std::string> &M) {
    IO.mapRequired(Key.str().c_str(), M[Key.str()]);
  }
  static void output(IO &IO, std::map<std::string, std::string> &M) {
    for (auto &Entry : M)
      IO.mapRequired(Entry.first.c_str(), Entry.second);
  }
};

template <> struct MappingTraits<OperatorConfig> {
  static void mapping(IO &IO, OperatorConfig &O) {
    IO.mapRequired("name", O.Name);
    IO.mapRequired("entry", O.Entry);
    IO.mapOptional("constraints", O.Constraints);
    IO.mapOptional("nonnegative", O.NonNegative);
    IO.mapRequired("phases", O.Phases);
    IO.mapOptional("facts", O.Facts);
    IO.mapOptional("facts_args", O.FactsArgs);
  }
};

template <> struct MappingTraits<CallConfig> {
  static void mapping(IO &IO, CallConfig &C) {
    IO.mapRequired("op", C.Op);
    IO.mapOptional("phase", C.Phase);
    IO.mapRequired("calls", C.Calls);
    IO.mapRequired("shape", C.Shape);
    IO.mapRequired("kernel", C.Kernel);
  }
};

template <> struct MappingTraits<ModelConfig> {
  static void mapping(IO &IO, ModelConfig &M) {
    IO.mapRequired("name", M.Name);
    IO.mapRequired("vars", M.Vars);
    IO.mapRequired("calls", M.Calls);
  }
};

template <> struct MappingTraits<StepConfig> {
  static void mapping(IO &IO, StepConfig &S) {
    IO.mapOptional("T", S.Tokens);
    IO.mapRequired("S", S.Seqs);
    IO.mapOptional("L", S.KV);
    IO.mapRequired("steps", S.Steps);
  }
};

template <> struct MappingTraits<ApplicationConfig> {
  static void mapping(IO &IO, ApplicationConfig &A) {
    IO.mapRequired("name", A.Name);
    IO.mapRequired("model", A.Model);
    IO.mapRequired("card_hours", A.CardHours);
    IO.mapRequired("prefill_share", A.PrefillShare);
    IO.mapRequired("decode", A.Decode);
    IO.mapRequired("prefill", A.Prefill);
  }
};

template <> struct MappingTraits<Rewrite> {
  static void mapping(IO &IO, Rewrite &R) {
    IO.mapRequired("from", R.From);
    IO.mapRequired("to", R.To);
  }
};

template <> struct MappingTraits<Track> {
  static void mapping(IO &IO, Track &T) {
    IO.mapRequired("name", T.Name);
    IO.mapOptional("summary", T.Summary);
    IO.mapRequired("dsl", T.Dsl);
    IO.mapRequired("gpu", T.Gpu);
    IO.mapOptional("policy", T.Policy, std::string("default"));
    IO.mapOptional("operators", T.Operators);
  }
};

template <> struct MappingTraits<Config> {
  static void mapping(IO &IO, Config &C) {
    IO.mapRequired("version", C.Version);
    IO.mapRequired("suite", C.Suite);
    IO.mapRequired("ops", C.Ops);
    IO.mapRequired("specs", C.Specs);
    IO.mapRequired("hardware", C.Hardware);
    IO.mapRequired("id_seed", C.IdSeed);
    IO.mapOptional("visible_fraction", C.VisibleFraction);
    IO.mapOptional("weights_gpu", C.WeightsGpu);
    IO.mapOptional("min_kernel_us", C.MinKernelUs);
    IO.mapOptional("hot_share", C.HotShare);
    IO.mapOptional("deny_list", C.DenyList);
    IO.mapOptional("public_rewrites", C.PublicRewrites);
    IO.mapOptional("tracks", C.Tracks);
    IO.mapRequired("operators", C.Operators);
    IO.mapRequired("models", C.Models);
    IO.mapRequired("applications", C.Applications);
  }
};

} // namespace llvm::yaml

namespace atrex::suite {

std::string Config::resolve(StringRef Relative) const {
  if (sys::path::is_absolute(Relative))
    return Relative.str();
  SmallString<256> P(sys::path::parent_path(Path));
  sys::path::append(P, Relative);
  return std::string(P);
}

static Error entryError(StringRef File, const Twine &Entry,
                        const Twine &Message) {
  return createStringError(File + ": " + Entry + ": " + Message);
}

Expected<Config> loadConfig(StringRef Path) {
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return createStringError("cannot read '" + Path +
                             "': " + Buffer.getError().message());
  Config C;
  if (auto Diags = readYAML((*Buffer)->getBuffer(), Path, C))
    return createStringError(StringRef(*Diags).trim().empty()
                                 ? ("'" + Path +
                                    "' is not a valid suite "
                                    "configuration")
                                       .str()
                                 : StringRef(*Diags).trim().str());
  C.Path = Path.str();
  if (C.Version != 1)
    return entryError(Path, "version", "must be 1, got " + Twine(C.Version));
  if (C.VisibleFraction <= 0 || C.VisibleFraction > 1)
    return entryError(Path, "visible_fraction", "must be in (0, 1]");
  if (C.MinKernelUs < 0)
    return entryError(Path, "min_kernel_us", "must not be negative");
  if (!(C.HotShare > 0 && C.HotShare <= 1))
    return entryError(Path, "hot_share", "must be in (0, 1]");

  std::set<std::string> OpNames;
  for (const OperatorConfig &O : C.Operators) {
    std::string Entry = "operators[" + O.Name + "]";
    if (!OpNames.insert(O.Name).second)
      return entryError(Path, Entry, "defined twice");
    if (Error E = checkFactsConfig(O))
      return entryError(Path, Entry, toString(std::move(E)));
    if (O.Phases.empty())
      return entryError(Path, Entry, "'phases' is empty");
    for (const std::string &Phase : O.Phases)
      if (Phase != "prefill" && Phase != "decode")
        return entryError(Path, Entry,
                          "unknown phase '" + Phase + "' (prefill or decode)");
  }
  std::set<std::string> TrackNames;
  for (const Track &T : C.Tracks) {
    std::string Entry = "tracks[" + T.Name + "]";
    if (T.Name.empty() || !TrackNames.insert(T.Name).second)
      return entryError(Path, Entry, "empty or defined twice");
    if (T.Dsl.empty())
      return entryError(Path, Entry, "'dsl' is empty");
    for (const std::string &D : T.Dsl)
      if (atrex::lint::dslDisplayName(D).empty())
        return entryError(Path, Entry,
                          "unknown kernel DSL '" + D + "' (known: " +
                              atrex::lint::knownDslNames() + ")");
    if (T.Policy != "default" && T.Policy != "strict")
      return entryError(Path, Entry,
                        "policy '" + T.Policy +
                            "' is not a built-in "
                            "atrex-lint policy (default, strict)");
    for (const std::string &Op : T.Operators)
      if (!OpNames.count(Op))
        return entryError(Path, Entry,
                          "'" + Op + "' is not an operator of the suite");
  }
  std::set<std::string> ModelNames;
  for (const ModelConfig &M : C.Models) {
    std::string Entry = "models[" + M.Name + "]";
    if (!ModelNames.insert(M.Name).second)
      return entryError(Path, Entry, "defined twice");
    Vars V;
    for (const std::string &Binding : M.Vars) {
      auto [Name, Expr] = StringRef(Binding).split('=');
      Name = Name.trim();
      if (Name.empty() || Expr.trim().empty())
        return entryError(Path, Entry + ".vars",
                          "'" + Binding + "' is not NAME=EXPR");
      auto Value = evaluate(Expr, V);
      if (!Value)
        return entryError(Path, Entry + ".vars", toString(Value.takeError()));
      V[Name.str()] = *Value;
    }
    for (size_t I = 0; I < M.Calls.size(); ++I) {
      const CallConfig &Call = M.Calls[I];
      std::string CallEntry =
          Entry + ".calls[" + std::to_string(I) + "] (" + Call.Op + ")";
      if (!OpNames.count(Call.Op))
        return entryError(Path, CallEntry,
                          "operator '" + Call.Op + "' is not in 'operators'");
      if (!Call.Phase.empty() && Call.Phase != "prefill" &&
          Call.Phase != "decode")
        return entryError(Path, CallEntry,
                          "unknown phase '" + Call.Phase +
                              "' (prefill or decode)");
      auto Calls = evaluate(Call.Calls, V);
      if (!Calls)
        return entryError(Path, CallEntry + ".calls",
                          toString(Calls.takeError()));
      if (*Calls <= 0)
        return entryError(Path, CallEntry + ".calls",
                          "must be positive, got " + Twine(*Calls));
    }
  }
  std::set<std::string> AppNames;
  for (const ApplicationConfig &A : C.Applications) {
    std::string Entry = "applications[" + A.Name + "]";
    if (!AppNames.insert(A.Name).second)
      return entryError(Path, Entry, "defined twice");
    if (!ModelNames.count(A.Model))
      return entryError(Path, Entry,
                        "model '" + A.Model + "' is not in 'models'");
    if (A.CardHours <= 0)
      return entryError(Path, Entry, "card_hours must be positive");
    if (A.PrefillShare < 0 || A.PrefillShare > 1)
      return entryError(Path, Entry, "prefill_share must be in [0, 1]");
    for (bool Decode : {true, false}) {
      const auto &Steps = Decode ? A.Decode : A.Prefill;
      double Sum = 0;
      for (size_t I = 0; I < Steps.size(); ++I) {
        const StepConfig &S = Steps[I];
        std::string StepEntry = Entry + (Decode ? ".decode[" : ".prefill[") +
                                std::to_string(I) + "]";
        if (S.Seqs <= 0)
          return entryError(Path, StepEntry, "S must be positive");
        if (Decode && (S.KV <= 0 || S.Tokens != 0))
          return entryError(Path, StepEntry,
                            "a decode step needs L > 0 and no T (T = S)");
        if (!Decode && (S.Tokens < S.Seqs || S.KV != 0))
          return entryError(Path, StepEntry,
                            "a prefill step needs T >= S and no L");
        if (S.Steps <= 0)
          return entryError(Path, StepEntry, "steps must be positive");
        Sum += S.Steps;
      }
      double Share = Decode ? 1 - A.PrefillShare : A.PrefillShare;
      if (Share > 0 && Steps.empty())
        return entryError(Path, Entry,
                          Twine(Decode ? "decode" : "prefill") +
                              " has a time share but no steps");
      if (!Steps.empty() && std::abs(Sum - 1) > 1e-6)
        return entryError(Path, Entry + (Decode ? ".decode" : ".prefill"),
                          "steps must sum to 1, got " + std::to_string(Sum));
    }
  }
  if (C.Applications.empty())
    return entryError(Path, "applications", "is empty");
  return C;
}

} // namespace atrex::suite
