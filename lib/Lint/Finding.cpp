//===- Finding.cpp - verdicts from findings -------------------------------===//

#include "atrex/Lint/Finding.h"
#include "atrex/Lint/Checks.h"
#include "llvm/ADT/StringSwitch.h"
#include <set>

using namespace llvm;
using namespace atrex::lint;

StringRef atrex::lint::verdictName(Verdict V) {
  switch (V) {
  case Verdict::Adopted:
    return "adopted";
  case Verdict::NoKernel:
    return "no-kernel";
  case Verdict::Unknown:
    return "unknown";
  case Verdict::Fallback:
    return "fallback";
  case Verdict::Suspicious:
    return "suspicious";
  }
  llvm_unreachable("bad verdict");
}

StringRef atrex::lint::dslDisplayName(StringRef Name) {
#define ATREX_DSL(ID, NAME, DISPLAY, SOURCE)                                   \
  if (Name == NAME)                                                            \
    return DISPLAY;
#include "atrex/Lint/Dsls.def"
  return "";
}

StringRef atrex::lint::dslSourceKind(StringRef Name) {
#define ATREX_DSL(ID, NAME, DISPLAY, SOURCE)                                   \
  if (Name == NAME)                                                            \
    return SOURCE;
#include "atrex/Lint/Dsls.def"
  return "";
}

std::string atrex::lint::knownDslNames() {
  std::string S;
#define ATREX_DSL(ID, NAME, DISPLAY, SOURCE)                                   \
  S += (S.empty() ? "" : ", ") + std::string(NAME);
#include "atrex/Lint/Dsls.def"
  return S;
}

std::optional<Verdict> atrex::lint::parseVerdict(StringRef Name) {
  return StringSwitch<std::optional<Verdict>>(Name)
      .Case("adopted", Verdict::Adopted)
      .Case("no-kernel", Verdict::NoKernel)
      .Case("unknown", Verdict::Unknown)
      .Case("fallback", Verdict::Fallback)
      .Case("suspicious", Verdict::Suspicious)
      .Default(std::nullopt);
}

StringRef atrex::lint::severityName(Severity S) {
  switch (S) {
  case Severity::Off:
    return "off";
  case Severity::Note:
    return "note";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  llvm_unreachable("bad severity");
}

std::optional<Severity> atrex::lint::parseSeverity(StringRef Name) {
  return StringSwitch<std::optional<Severity>>(Name)
      .Case("off", Severity::Off)
      .Case("note", Severity::Note)
      .Case("warning", Severity::Warning)
      .Case("error", Severity::Error)
      .Default(std::nullopt);
}

std::string SourcePos::str() const {
  if (!isValid())
    return File;
  return File + ":" + std::to_string(Line) + ":" + std::to_string(Column);
}

StringRef atrex::lint::modeName(AnalysisMode M) {
  switch (M) {
  case AnalysisMode::Submission:
    return "submission";
  case AnalysisMode::Program:
    return "program";
  case AnalysisMode::Library:
    return "library";
  }
  llvm_unreachable("bad mode");
}

std::optional<AnalysisMode> atrex::lint::parseMode(StringRef Name) {
  return StringSwitch<std::optional<AnalysisMode>>(Name)
      .Case("submission", AnalysisMode::Submission)
      .Case("program", AnalysisMode::Program)
      .Case("library", AnalysisMode::Library)
      .Default(std::nullopt);
}

std::string atrex::lint::modeNote(const SubmissionResult &R) {
  return "analysed as a " + modeName(R.Mode).str() + ": " + R.ModeReason +
         " (--mode=submission|program|library overrides) [atrex-mode]";
}

Verdict Finding::implied() const {
  const CheckInfo *C = findCheck(Check);
  return C ? C->Implies : Verdict::Adopted;
}

void atrex::lint::decideVerdict(SubmissionResult &R) {
  R.Reasons.clear();
  bool Suspicious = false, Fallback = false, NoKernel = false;
  std::set<std::string> Seen;
  // Reasons are listed by precedence: suspicious, fallback, unknown,
  // no-kernel; within one kind, in source order.
  std::vector<std::string> BySeverity[3];
  for (const Finding &F : R.Findings) {
    if (F.Sev < Severity::Warning)
      continue;
    Verdict V = F.implied();
    std::string Reason;
    unsigned Rank;
    if (V == Verdict::Suspicious) {
      Suspicious = true;
      Reason = "suspicious: " + F.Check + " (" + F.Symbol + ")";
      Rank = 0;
    } else if (V == Verdict::Fallback) {
      Fallback = true;
      Reason = "fallback: " + F.Library + " (" + F.Symbol + ")";
      Rank = 1;
    } else if (V == Verdict::NoKernel) {
      NoKernel = true;
      Reason = "no-kernel: " + F.Message;
      Rank = 2;
    } else {
      continue;
    }
    if (Seen.insert(Reason).second)
      BySeverity[Rank].push_back(Reason);
  }
  R.Reasons = BySeverity[0];
  R.Reasons.insert(R.Reasons.end(), BySeverity[1].begin(), BySeverity[1].end());
  if (!R.Errors.empty()) {
    std::string Reason = "unknown: " + R.Errors.front();
    if (R.Errors.size() > 1)
      Reason += " (and " + std::to_string(R.Errors.size() - 1) + " more)";
    R.Reasons.push_back(Reason);
  }
  R.Reasons.insert(R.Reasons.end(), BySeverity[2].begin(), BySeverity[2].end());
  if (Suspicious)
    R.V = Verdict::Suspicious;
  else if (Fallback)
    R.V = Verdict::Fallback;
  else if (!R.Errors.empty())
    R.V = Verdict::Unknown;
  else if (NoKernel)
    R.V = Verdict::NoKernel;
  else
    R.V = Verdict::Adopted;
  if (R.V == Verdict::Adopted && !R.LaunchesVisible) {
    R.Reasons.push_back("adopted: " + std::to_string(R.Kernels.size()) +
                        " own kernel(s) defined in device code, no delegation "
                        "(launches are host-side: lint the host IR or source "
                        "to prove them)");
    return;
  }
  // Library code is not asked to launch its kernels, but a file that defines
  // none (a host helper, a binding of kernels defined elsewhere) has no GPU
  // code of its own: no-kernel, as for the other modes (a verdict, not a
  // finding, so that a compiler plugin does not diagnose every host file).
  if (R.V == Verdict::Adopted && R.Mode == AnalysisMode::Library &&
      R.LaunchesVisible && R.Kernels.empty()) {
    R.V = Verdict::NoKernel;
    R.Reasons.push_back("no-kernel: library code that defines no kernel");
    return;
  }
  if (R.V == Verdict::Adopted && R.Mode == AnalysisMode::Library) {
    R.Reasons.push_back(
        "adopted: library code: " + std::to_string(R.Kernels.size()) +
        " own kernel(s) defined, no delegation or evasion "
        "(launches are not required in library mode)");
    return;
  }
  if (R.V == Verdict::Adopted) {
    unsigned Launched = 0;
    for (const KernelInfo &K : R.Kernels)
      Launched += K.Launched;
    R.Reasons.push_back("adopted: " + std::to_string(Launched) + " own kernel" +
                        (Launched == 1 ? "" : "s") +
                        (R.Mode == AnalysisMode::Program
                             ? " launched from 'main', no delegation"
                             : " launched from the entry, no delegation"));
  }
}

int atrex::lint::exitCodeFor(Verdict V) {
  switch (V) {
  case Verdict::Adopted:
    return 0;
  case Verdict::NoKernel:
    return 1;
  case Verdict::Fallback:
    return 2;
  case Verdict::Suspicious:
    return 3;
  case Verdict::Unknown:
    return 4;
  }
  llvm_unreachable("bad verdict");
}
