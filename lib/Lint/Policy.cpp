//===- Policy.cpp - atrex-lint policies -----------------------------------===//
//
// Part of atrex. Parsing (LLVM YAML I/O: JSON is accepted as YAML), merging
// with the built-in default, matching and serialisation of policies.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Policy.h"
#include "atrex/Support/YAML.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
#include "DefaultPolicy.inc"

/// The document as written in a file: everything optional.
struct PolicyDoc {
  std::string Name;
  std::string Description;
  std::string Inherit = "default";
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
    Io.mapOptional("checks", P.Checks);
    Io.mapOptional("launch-apis", P.LaunchApis);
    Io.mapOptional("runtime-symbols", P.RuntimeSymbols);
    Io.mapOptional("timing-symbols", P.TimingSymbols);
    Io.mapOptional("stream-create", P.StreamCreate);
    Io.mapOptional("stream-join", P.StreamJoin);
    Io.mapOptional("rules", P.Rules);
  }
  static std::string validate(IO &Io, PolicyDoc &P) {
    if (P.Inherit != "default" && P.Inherit != "none")
      return "'inherit' must be 'default' or 'none', not '" + P.Inherit + "'";
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
// Checks
//===----------------------------------------------------------------------===//

static const CheckDescription Checks[] = {
    {"atrex-no-kernel", "no kernel of the submission is launched from the "
                        "entry point"},
    {"atrex-kernel-unlaunched", "a kernel is defined but never launched from "
                                "the entry point"},
    {"atrex-launch-dead", "a kernel launch can never execute (constant-false "
                          "condition or unreachable code)"},
    {"atrex-delegation-torch", "the entry delegates compute to PyTorch/ATen"},
    {"atrex-delegation-vendor", "the entry delegates compute to a vendor "
                                "library or a host-launched library "
                                "algorithm"},
    {"atrex-evasion-dynamic-load", "dlopen/dlsym or driver entry-point "
                                   "lookup loads code behind the analysis"},
    {"atrex-evasion-module-load", "a GPU module or library image is loaded at "
                                  "run time"},
    {"atrex-evasion-runtime-compile", "code is compiled at run time (NVRTC, "
                                      "hipRTC, nvJitLink)"},
    {"atrex-evasion-process", "a process or thread is started"},
    {"atrex-evasion-file-env", "files or environment variables are accessed"},
    {"atrex-evasion-harness-io", "the entry writes to raw file descriptors or "
                                 "ends the process (the harness's channels)"},
    {"atrex-evasion-runtime-override", "a CUDA/HIP runtime or timing symbol is "
                                       "redefined"},
    {"atrex-evasion-static-state", "state survives between calls of the entry "
                                   "(output caching)"},
    {"atrex-evasion-side-stream", "work is queued on a stream that is never "
                                  "joined back"},
    {"atrex-evasion-indirect-call", "a call through a pointer whose target "
                                    "cannot be resolved"},
};

ArrayRef<CheckDescription> atrex::lint::allChecks() { return Checks; }

//===----------------------------------------------------------------------===//
// Parsing and merging
//===----------------------------------------------------------------------===//

static Expected<PolicyDoc> parseDoc(StringRef Text, StringRef BufferName) {
  PolicyDoc Doc;
  if (std::optional<std::string> Diag = atrex::readYAML(Text, BufferName, Doc)) {
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
    bool Known = false;
    for (const CheckDescription &D : allChecks())
      Known |= D.Name == KV.first;
    if (!Known)
      return createStringError(inconvertibleErrorCode(),
                               "atrex-policy: unknown check '%s' under 'checks'",
                               KV.first.c_str());
    P.Checks[KV.first] = *parseSeverity(KV.second);
  }
  // Rules can only report under the checks that are lists of symbols.
  static const char *RuleChecks[] = {
      "atrex-delegation-torch",        "atrex-delegation-vendor",
      "atrex-evasion-dynamic-load",    "atrex-evasion-module-load",
      "atrex-evasion-runtime-compile", "atrex-evasion-process",
      "atrex-evasion-file-env",        "atrex-evasion-harness-io"};
  for (const SymbolRule &R : P.Rules) {
    if (R.Check.empty())
      continue;
    if (!llvm::is_contained(RuleChecks, StringRef(R.Check))) {
      std::string Allowed;
      for (const char *C : RuleChecks)
        Allowed += (Allowed.empty() ? "" : ", ") + std::string(C);
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

const Policy &Policy::getDefault() {
  static const Policy Default = [] {
    Expected<PolicyDoc> Doc = parseDoc(DefaultPolicyText, "<default policy>");
    if (!Doc)
      report_fatal_error(Doc.takeError());
    Expected<Policy> P = fromDoc(*Doc, nullptr);
    if (!P)
      report_fatal_error(P.takeError());
    return std::move(*P);
  }();
  return Default;
}

Expected<Policy> Policy::parse(StringRef Text, StringRef BufferName) {
  Expected<PolicyDoc> Doc = parseDoc(Text, BufferName);
  if (!Doc)
    return Doc.takeError();
  const Policy *Base = Doc->Inherit == "none" ? nullptr : &getDefault();
  Expected<Policy> P = fromDoc(*Doc, Base);
  if (!P)
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             BufferName.str().c_str(),
                             toString(P.takeError()).c_str());
  return P;
}

Expected<Policy> Policy::loadFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(),
                             "atrex-policy: cannot read policy file '%s': %s",
                             Path.str().c_str(),
                             Buf.getError().message().c_str());
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
  return It == Checks.end() ? Severity::Warning : It->second;
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
  for (auto &KV : Checks)
    Doc.Checks[KV.first] = severityName(KV.second).str();
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
