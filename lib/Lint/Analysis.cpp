//===- Analysis.cpp - reachability and the check registry -----------------===//

#include "atrex/Lint/Analysis.h"
#include "atrex/Lint/Check.h"
#include "atrex/Lint/Checks.h"
#include "atrex/Lint/Policy.h"
#include "llvm/ADT/StringSet.h"
#include <algorithm>
#include <deque>

using namespace llvm;
using namespace atrex::lint;

const FunctionNode *CheckContext::target(const Site &S) const {
  if (S.Key.empty())
    return nullptr;
  auto It = M.Functions.find(S.Key);
  if (It == M.Functions.end())
    return nullptr;
  const FunctionNode &F = It->second;
  if (!F.HasBody && F.Sites.empty())
    return nullptr;
  return &F;
}

std::vector<std::string> CheckContext::pathTo(const FunctionNode *F) const {
  std::vector<std::string> Path;
  StringSet<> Seen;
  while (F && Seen.insert(F->Key).second) {
    Path.push_back(F->Name);
    auto It = Parent.find(F->Key);
    F = It == Parent.end() ? nullptr : It->second;
  }
  std::reverse(Path.begin(), Path.end());
  return Path;
}

void CheckContext::report(Finding F, Severity Cap) {
  if (const CheckInfo *C = findCheck(F.Check))
    if (!C->appliesIn(Mode))
      return;
  Severity S = P.severity(F.Check);
  if (S == Severity::Off)
    return;
  F.Sev = std::min(S, Cap);
  Findings.push_back(std::move(F));
}

static bool followed(SiteKind K) {
  switch (K) {
  case SiteKind::Call:
  case SiteKind::Construct:
  case SiteKind::Ref:
  case SiteKind::Indirect:
  case SiteKind::Launch:
    return true;
  case SiteKind::VarRef:
  case SiteKind::Unresolved:
    return false;
  }
  return false;
}

static bool matchesEntry(const FunctionNode &F, StringRef Name) {
  if (F.Name == Name)
    return true;
  StringRef Simple = StringRef(F.Name).rsplit("::").second;
  if (Simple.empty())
    Simple = F.Name;
  return Simple == Name;
}

/// A function the mode takes as an entry when none is named.
/// \p AnyInMain: some host function is defined in the linted file itself.
static bool isModeEntry(const FunctionNode &F, AnalysisMode Mode,
                        bool AnyInMain) {
  switch (Mode) {
  case AnalysisMode::Submission:
    return F.IsEntryCandidate;
  case AnalysisMode::Program:
    return F.Name == "main";
  case AnalysisMode::Library:
    // Every host function of the file is reported on its own; functions of
    // the headers it includes count only through the file's calls (a
    // project header's inline cuBLAS helper is not this file's code).
    return !F.IsKernel && !F.IsDeviceOnly && (F.InMainFile || !AnyInMain);
  }
  return false;
}

void CheckContext::computeReachability(const std::vector<std::string> &Names,
                                       std::vector<std::string> &Errors) {
  bool AnyInMain = llvm::any_of(M.Functions, [](const auto &KV) {
    const FunctionNode &F = KV.second;
    return F.HasBody && F.InMainFile && !F.IsKernel && !F.IsDeviceOnly;
  });
  for (auto &KV : M.Functions) {
    const FunctionNode &F = KV.second;
    if (F.Key == staticInitKey()) {
      Entries.push_back(&F);
      continue;
    }
    if (!F.HasBody)
      continue;
    if (Names.empty() ? (M.EntriesChosen ? F.IsEntryCandidate
                                         : isModeEntry(F, Mode, AnyInMain))
                      : llvm::any_of(Names, [&](const std::string &N) {
                          return matchesEntry(F, N);
                        }))
      Entries.push_back(&F);
  }
  for (const std::string &N : Names)
    if (!llvm::any_of(Entries, [&](const FunctionNode *F) {
          return matchesEntry(*F, N);
        }))
      Errors.push_back("atrex-lint: entry point '" + N +
                       "' is not defined in the submission");

  std::deque<const FunctionNode *> Work(Entries.begin(), Entries.end());
  StringSet<> Visited;
  for (const FunctionNode *E : Entries)
    Visited.insert(E->Key);
  auto Visit = [&](const Site &S, const FunctionNode *Holder) {
    Sites.push_back({&S, Holder});
    if (S.Dead || !followed(S.Kind))
      return;
    if (S.Kind == SiteKind::Launch) {
      Launched.insert(S.Key);
      auto It = M.Functions.find(S.Key);
      if (It != M.Functions.end() && !It->second.PatternKey.empty())
        Launched.insert(It->second.PatternKey);
    }
    const FunctionNode *T = target(S);
    if (T && Visited.insert(T->Key).second) {
      Parent[T->Key] = Holder;
      Work.push_back(T);
    }
  };
  while (!Work.empty()) {
    const FunctionNode *F = Work.front();
    Work.pop_front();
    Reachable.push_back(F);
    for (const Site &S : F->Sites)
      Visit(S, F);
    // Globals used by a reachable function: their initialisers' function
    // references (pointer tables) become reachable through it.
    for (const std::string &G : F->GlobalRefs) {
      auto It = M.Globals.find(G);
      if (It == M.Globals.end())
        continue;
      for (const Site &S : It->second.InitSites)
        if (S.Kind == SiteKind::Ref || S.Kind == SiteKind::Launch)
          Visit(S, F);
    }
  }
}

/// The mode of a model when neither the caller nor the policy sets one.
static AnalysisMode detectMode(const Model &M, const AnalysisOptions &Opts,
                               std::string &Why) {
  if (!Opts.Entries.empty()) {
    Why = "the entry is named with --entry";
    return AnalysisMode::Submission;
  }
  if (M.DeviceModule) {
    Why = "device code: its kernels are what a harness launches";
    return AnalysisMode::Submission;
  }
  const FunctionNode *Main = nullptr, *Module = nullptr, *Harness = nullptr;
  for (auto &KV : M.Functions) {
    const FunctionNode &F = KV.second;
    if (!F.HasBody || F.IsKernel || F.IsDeviceOnly)
      continue;
    if (F.Name == "main")
      Main = &F;
    else if (StringRef(F.Name).starts_with("PyInit_"))
      Module = &F;
    else if (F.Name == "custom_kernel" && F.IsEntryCandidate)
      Harness = &F;
  }
  if (Module) {
    Why = "it defines a Python extension module ('" + Module->Name +
          "'): a harness calls its functions";
    return AnalysisMode::Submission;
  }
  if (Harness && !Main) {
    Why = "it defines 'custom_kernel', the entry GPU MODE's harness calls";
    return AnalysisMode::Submission;
  }
  if (Main) {
    Why = "it defines 'main': a stand-alone program, judged from 'main'";
    return AnalysisMode::Program;
  }
  if (M.UsesTorch) {
    Why = "a torch extension: its externally visible host functions are "
          "entries a harness calls";
    return AnalysisMode::Submission;
  }
  if (!M.FromSource) {
    Why = "IR or MLIR: its externally visible host functions are entries a "
          "harness calls";
    return AnalysisMode::Submission;
  }
  // extern "C" is no sign of a harness: C-style projects link their .cu
  // files to the rest with it (cuda-samples' computeGold, initMergeSort).
  Why = "no 'main', no Python binding and no PyTorch: library code, each "
        "function on its own";
  return AnalysisMode::Library;
}

AnalysisMode atrex::lint::chooseMode(const Model &M, const Policy &P,
                                     const AnalysisOptions &Opts,
                                     std::string &Why) {
  if (Opts.Mode) {
    Why = Opts.ModeReason.empty() ? "set with --mode" : Opts.ModeReason;
    return *Opts.Mode;
  }
  if (P.Mode) {
    Why = "set by policy '" + P.Name + "'";
    return *P.Mode;
  }
  return detectMode(M, Opts, Why);
}

SubmissionResult atrex::lint::analyze(const Model &M, const Policy &P,
                                      const AnalysisOptions &Opts) {
  SubmissionResult R;
  R.Mode = chooseMode(M, P, Opts, R.ModeReason);
  R.Files = M.Files;
  R.Path = M.Files.empty() ? std::string() : M.Files.front();
  R.Errors = M.Errors;
  R.LaunchesVisible = !M.DeviceModule;

  CheckContext Ctx(M, P, R.Mode);
  Ctx.computeReachability(Opts.Entries, R.Errors);

  for (auto &C : createAllChecks())
    C->run(Ctx);

  // Deduplicate (template instances repeat their sites) and sort.
  std::vector<Finding> &Out = R.Findings;
  std::set<
      std::tuple<std::string, std::string, unsigned, unsigned, std::string>>
      Seen;
  for (Finding &F : Ctx.Findings)
    if (Seen.insert({F.Check, F.Pos.File, F.Pos.Line, F.Pos.Column, F.Symbol})
            .second)
      Out.push_back(std::move(F));
  std::stable_sort(Out.begin(), Out.end(),
                   [](const Finding &A, const Finding &B) {
                     return std::tie(A.Pos.File, A.Pos.Line, A.Pos.Column) <
                            std::tie(B.Pos.File, B.Pos.Line, B.Pos.Column);
                   });

  for (const FunctionNode *E : Ctx.Entries)
    if (E->Key != staticInitKey())
      R.Entries.push_back(E->Name);
  std::set<std::string> Instantiated;
  for (auto &KV : M.Functions)
    if (!KV.second.PatternKey.empty())
      Instantiated.insert(KV.second.PatternKey);
  for (auto &KV : M.Functions) {
    const FunctionNode &F = KV.second;
    if (!F.IsKernel || !F.HasBody)
      continue;
    // A template is listed through its instances, or alone if it has none.
    if (F.IsTemplatePattern && Instantiated.count(F.Key))
      continue;
    KernelInfo K;
    K.Name = F.Display.empty() ? F.Name : F.Display;
    K.Pos = F.Pos;
    K.Launched = Ctx.Launched.count(F.Key);
    K.TemplateInstance = F.IsTemplateInstance;
    K.Dsl = F.Dsl;
    if (F.IsTemplatePattern)
      K.Name += "<>";
    R.Kernels.push_back(K);
  }
  std::stable_sort(R.Kernels.begin(), R.Kernels.end(),
                   [](const KernelInfo &A, const KernelInfo &B) {
                     return std::tie(A.Pos.File, A.Pos.Line, A.Name) <
                            std::tie(B.Pos.File, B.Pos.Line, B.Name);
                   });
  decideVerdict(R);
  return R;
}
