//===- Policy.cpp - atrex-lint policies -----------------------------------===//
//
// Part of atrex. Parsing (LLVM YAML I/O: JSON is accepted as YAML), merging
// with the built-in default, matching and serialisation of policies.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Policy.h"
#include "atrex/Lint/Checks.h"
#include "atrex/Lint/Finding.h"
#include "atrex/Support/YAML.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
#include "DefaultPolicy.inc"
#include "StrictPolicy.inc"

/// The document as written in a file: everything optional.
struct PolicyDoc {
  std::string Name;
  std::string Description;
  std::string Inherit = "default";
  std::string Mode;
  std::vector<std::string> Dsl;
  std::map<std::string, std::string> Checks;
  std::vector<std::string> LaunchApis, RuntimeSymbols, TimingSymbols,
      StreamCreate, StreamJoin;
  std::vector<SymbolRule> Rules;
};
} // namespace

LLVM_YAML_IS_SEQUENCE_VECTOR(SymbolRule)
LLVM_YAML_IS_STRING_MAP(std::string)

namespace llvm {
namespace yaml {
template <> struct ScalarEnumerationTraits<RuleAction> {
  static void enumeration(IO &Io, RuleAction &A) {
    Io.enumCase(A, "allow", RuleAction::Allow);
    Io.enumCase(A, "delegate", RuleAction::Delegate);
    Io.enumCase(A, "evasion", RuleAction::Evasion);
  }
};
template <> struct ScalarEnumerationTraits<RuleContext> {
  static void enumeration(IO &Io, RuleContext &C) {
    Io.enumCase(C, "host", RuleContext::Host);
    Io.enumCase(C, "device", RuleContext::Device);
    Io.enumCase(C, "any", RuleContext::Any);
  }
};
template <> struct MappingTraits<SymbolRule> {
  static void mapping(IO &Io, SymbolRule &R) {
    Io.mapRequired("id", R.Id);
    Io.mapRequired("action", R.Action);
    Io.mapOptional("check", R.Check, std::string());
    Io.mapOptional("library", R.Library, std::string());
    Io.mapOptional("message", R.Message, std::string());
    Io.mapOptional("context", R.Context, RuleContext::Host);
    Io.mapRequired("symbols", R.Symbols);
    Io.mapOptional("headers", R.Headers);
    Io.mapOptional("except", R.Except);
    Io.mapOptional("except-failure-status", R.ExceptFailureStatus, false);
    Io.mapOptional("except-first-arg", R.ExceptFirstArg);
    Io.mapOptional("judge-named-symbol", R.JudgeNamedSymbol, false);
  }
  static std::string validate(IO &Io, SymbolRule &R) {
    if (R.Action != RuleAction::Allow && R.Check.empty())
      return "rule '" + R.Id + "' needs a 'check' for action delegate/evasion";
    if (R.Symbols.empty())
      return "rule '" + R.Id + "' has no 'symbols'";
    return "";
  }
};
template <> struct MappingTraits<PolicyDoc> {
  static void mapping(IO &Io, PolicyDoc &P) {
    Io.mapOptional("name", P.Name, std::string());
    Io.mapOptional("description", P.Description, std::string());
    Io.mapOptional("inherit", P.Inherit, std::string("default"));
    Io.mapOptional("mode", P.Mode, std::string());
    Io.mapOptional("dsl", P.Dsl);
    Io.mapOptional("checks", P.Checks);
    Io.mapOptional("launch-apis", P.LaunchApis);
    Io.mapOptional("runtime-symbols", P.RuntimeSymbols);
    Io.mapOptional("timing-symbols", P.TimingSymbols);
    Io.mapOptional("stream-create", P.StreamCreate);
    Io.mapOptional("stream-join", P.StreamJoin);
    Io.mapOptional("rules", P.Rules);
  }
  static std::string validate(IO &Io, PolicyDoc &P) {
    if (P.Inherit != "none" && !Policy::isPreset(P.Inherit))
      return "'inherit' must be 'none' or a built-in policy (" +
             Policy::presetNames() + "), not '" + P.Inherit + "'";
    if (!P.Mode.empty() && !parseMode(P.Mode))
      return "'mode' must be submission, program or library, not '" + P.Mode +
             "'";
    for (const std::string &D : P.Dsl)
      if (atrex::lint::dslDisplayName(D).empty())
        return "'dsl' names '" + D + "'; a kernel DSL is one of " +
               atrex::lint::knownDslNames();
    for (auto &KV : P.Checks)
      if (!parseSeverity(KV.second))
        return "check '" + KV.first + "' has severity '" + KV.second +
               "'; expected off, note, warning or error";
    return "";
  }
};
} // namespace yaml
} // namespace llvm

//===----------------------------------------------------------------------===//
// Parsing and merging
//===----------------------------------------------------------------------===//

static Expected<PolicyDoc> parseDoc(StringRef Text, StringRef BufferName) {
  PolicyDoc Doc;
  if (std::optional<std::string> Diag =
          atrex::readYAML(Text, BufferName, Doc)) {
    if (Diag->empty())
      *Diag = (BufferName + ": invalid policy document").str();
    return createStringError(inconvertibleErrorCode(),
                             "atrex-policy: " + StringRef(*Diag).rtrim());
  }
  return Doc;
}

static void append(std::vector<std::string> &To,
                   const std::vector<std::string> &From) {
  To.insert(To.end(), From.begin(), From.end());
}

Error Policy::compile() {
  auto Compile = [](const std::vector<std::string> &Globs,
                    std::vector<GlobPattern> &Out, StringRef What) -> Error {
    Out.clear();
    for (const std::string &G : Globs) {
      Expected<GlobPattern> P = GlobPattern::create(G);
      if (!P)
        return createStringError(inconvertibleErrorCode(),
                                 "atrex-policy: bad pattern '%s' in %s: %s",
                                 G.c_str(), What.str().c_str(),
                                 toString(P.takeError()).c_str());
      Out.push_back(std::move(*P));
    }
    return Error::success();
  };
  for (SymbolRule &R : Rules) {
    std::string Where = "rule '" + R.Id + "'";
    if (Error E = Compile(R.Symbols, R.SymbolPats, Where))
      return E;
    if (Error E = Compile(R.Headers, R.HeaderPats, Where))
      return E;
    if (Error E = Compile(R.Except, R.ExceptPats, Where))
      return E;
    if (Error E = Compile(R.ExceptFirstArg, R.ExceptFirstArgPats, Where))
      return E;
  }
  C = std::make_shared<Compiled>();
  if (Error E = Compile(LaunchApis, C->Launch, "launch-apis"))
    return E;
  if (Error E = Compile(RuntimeSymbols, C->Runtime, "runtime-symbols"))
    return E;
  if (Error E = Compile(TimingSymbols, C->Timing, "timing-symbols"))
    return E;
  if (Error E = Compile(StreamCreate, C->Create, "stream-create"))
    return E;
  return Compile(StreamJoin, C->Join, "stream-join");
}

static Expected<Policy> fromDoc(PolicyDoc &Doc, const Policy *Base) {
  Policy P;
  if (Base)
    P = *Base;
  if (!Doc.Name.empty())
    P.Name = Doc.Name;
  if (!Doc.Description.empty())
    P.Description = Doc.Description;
  // The file's rules come first: they refine the base's.
  std::vector<SymbolRule> Rules = Doc.Rules;
  append(P.LaunchApis, Doc.LaunchApis);
  append(P.RuntimeSymbols, Doc.RuntimeSymbols);
  append(P.TimingSymbols, Doc.TimingSymbols);
  append(P.StreamCreate, Doc.StreamCreate);
  append(P.StreamJoin, Doc.StreamJoin);
  Rules.insert(Rules.end(), P.Rules.begin(), P.Rules.end());
  P.Rules = std::move(Rules);
  for (auto &KV : Doc.Checks) {
    if (!findCheck(KV.first))
      return createStringError(
          inconvertibleErrorCode(),
          "atrex-policy: unknown check '%s' under 'checks'", KV.first.c_str());
    P.Checks[KV.first] = *parseSeverity(KV.second);
  }
  if (!Doc.Mode.empty())
    P.Mode = parseMode(Doc.Mode);
  if (!Doc.Dsl.empty()) // a restriction: replaces the base's
    P.Dsls = Doc.Dsl;
  // Rules can only report under the checks that are lists of symbols.
  for (const SymbolRule &R : P.Rules) {
    if (R.Check.empty())
      continue;
    const CheckInfo *C = findCheck(R.Check);
    if (!C || !C->Rule) {
      std::string Allowed;
      for (const CheckInfo &I : allChecks())
        if (I.Rule)
          Allowed += (Allowed.empty() ? "" : ", ") + I.Name.str();
      return createStringError(inconvertibleErrorCode(),
                               "atrex-policy: rule '%s' names check '%s'; a "
                               "rule can report under %s",
                               R.Id.c_str(), R.Check.c_str(), Allowed.c_str());
    }
  }
  if (Error E = P.compile())
    return std::move(E);
  return P;
}

StringRef Policy::defaultText() { return DefaultPolicyText; }

namespace {
/// The built-in policies: the default, and presets that inherit from it.
struct Preset {
  const char *Name;
  const char *Text;
};
const Preset Presets[] = {{"default", DefaultPolicyText},
                          {"strict", StrictPolicyText}};

/// Built once, in order: a preset inherits from one listed before it.
const std::vector<std::pair<std::string, Policy>> &builtins() {
  static const std::vector<std::pair<std::string, Policy>> B = [] {
    std::vector<std::pair<std::string, Policy>> V;
    for (const Preset &Pre : Presets) {
      std::string Buffer = std::string("<built-in policy '") + Pre.Name + "'>";
      Expected<PolicyDoc> Doc = parseDoc(Pre.Text, Buffer);
      if (!Doc)
        report_fatal_error(Doc.takeError());
      const Policy *Base = nullptr;
      if (Doc->Inherit != "none" && Doc->Inherit != Pre.Name) {
        auto It = llvm::find_if(
            V, [&](const auto &KV) { return KV.first == Doc->Inherit; });
        if (It == V.end())
          report_fatal_error(Twine(Buffer) + ": 'inherit' names no earlier "
                                             "built-in policy");
        Base = &It->second;
      }
      Expected<Policy> P = fromDoc(*Doc, Base);
      if (!P)
        report_fatal_error(P.takeError());
      V.emplace_back(Pre.Name, std::move(*P));
    }
    return V;
  }();
  return B;
}

const Policy *findPreset(StringRef Name) {
  for (const auto &KV : builtins())
    if (KV.first == Name)
      return &KV.second;
  return nullptr;
}
} // namespace

const Policy &Policy::getDefault() { return *findPreset("default"); }

const Policy *Policy::preset(StringRef Name) { return findPreset(Name); }

bool Policy::isPreset(StringRef Name) {
  return llvm::any_of(Presets, [&](const Preset &P) { return Name == P.Name; });
}

std::string Policy::presetNames() {
  std::string S;
  for (const Preset &P : Presets)
    S += (S.empty() ? "" : ", ") + std::string(P.Name);
  return S;
}

Expected<Policy> Policy::parse(StringRef Text, StringRef BufferName) {
  Expected<PolicyDoc> Doc = parseDoc(Text, BufferName);
  if (!Doc)
    return Doc.takeError();
  const Policy *Base = Doc->Inherit == "none" ? nullptr : preset(Doc->Inherit);
  Expected<Policy> P = fromDoc(*Doc, Base);
  if (!P)
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             BufferName.str().c_str(),
                             toString(P.takeError()).c_str());
  return P;
}

Expected<Policy> Policy::load(StringRef NameOrPath) {
  // A built-in name wins unless a file of that name exists.
  if (const Policy *P = preset(NameOrPath))
    if (!sys::fs::exists(NameOrPath))
      return *P;
  return loadFile(NameOrPath);
}

Expected<Policy> Policy::loadFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(
        Buf.getError(), "atrex-policy: cannot read policy file '%s': %s",
        Path.str().c_str(), Buf.getError().message().c_str());
  return parse((*Buf)->getBuffer(), Path);
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

static bool anyMatch(const std::vector<GlobPattern> &Pats, StringRef S) {
  for (const GlobPattern &P : Pats)
    if (P.match(S))
      return true;
  return false;
}

bool SymbolRule::exceptsCall(std::optional<int64_t> IntArg0, StringRef Arg0Decl,
                             bool Arg0Failure) const {
  if (ExceptFailureStatus && ((IntArg0 && *IntArg0 != 0) || Arg0Failure))
    return true;
  if (!Arg0Decl.empty())
    for (const GlobPattern &G : ExceptFirstArgPats)
      if (G.match(Arg0Decl))
        return true;
  return false;
}

const SymbolRule *Policy::match(StringRef QualName, StringRef DeclFile,
                                bool InDeviceCode) const {
  for (const SymbolRule &R : Rules) {
    if (R.Context == RuleContext::Host && InDeviceCode)
      continue;
    if (R.Context == RuleContext::Device && !InDeviceCode)
      continue;
    if (!anyMatch(R.SymbolPats, QualName))
      continue;
    if (anyMatch(R.ExceptPats, QualName))
      continue;
    if (!R.HeaderPats.empty() && !anyMatch(R.HeaderPats, DeclFile))
      continue;
    return &R;
  }
  return nullptr;
}

Severity Policy::severity(StringRef Check) const {
  auto It = Checks.find(Check.str());
  if (It != Checks.end())
    return It->second;
  const CheckInfo *C = findCheck(Check);
  return C ? C->Default : Severity::Warning;
}

bool Policy::isLaunchApi(StringRef N) const { return anyMatch(C->Launch, N); }
bool Policy::isRuntimeSymbol(StringRef N) const {
  return anyMatch(C->Runtime, N);
}
bool Policy::isTimingSymbol(StringRef N) const {
  return anyMatch(C->Timing, N);
}
bool Policy::isStreamCreate(StringRef N) const {
  return anyMatch(C->Create, N);
}
bool Policy::isStreamJoin(StringRef N) const { return anyMatch(C->Join, N); }

std::string Policy::toYAML() const {
  PolicyDoc Doc;
  Doc.Name = Name;
  Doc.Description = Description;
  Doc.Inherit = "none";
  for (const CheckInfo &C : allChecks())
    Doc.Checks[C.Name.str()] = severityName(severity(C.Name)).str();
  if (Mode)
    Doc.Mode = modeName(*Mode).str();
  Doc.Dsl = Dsls;
  Doc.LaunchApis = LaunchApis;
  Doc.RuntimeSymbols = RuntimeSymbols;
  Doc.TimingSymbols = TimingSymbols;
  Doc.StreamCreate = StreamCreate;
  Doc.StreamJoin = StreamJoin;
  Doc.Rules = Rules;
  std::string S;
  raw_string_ostream OS(S);
  yaml::Output Out(OS);
  Out << Doc;
  return S;
}
