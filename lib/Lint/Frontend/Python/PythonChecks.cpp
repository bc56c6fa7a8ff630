//===- PythonChecks.cpp - checks only Python submissions need -------------===//

#include "PythonChecks.h"
#include "atrex/Lint/Checks.h"
#include "atrex/Lint/Policy.h"
#include "atrex/Lint/PythonFrontend.h"
#include "llvm/Support/ErrorHandling.h"

#include <set>

#include "PythonPolicy.inc"

using namespace llvm;
using namespace atrex::lint;

namespace {
/// Attributes of the model and module globals written by code the entry
/// reaches keep state between calls; when they can hold tensors (or are
/// containers written by key) they can cache outputs. `__init__` is setup.
class PythonStateCheck : public LintCheck {
public:
  explicit PythonStateCheck(const PythonFacts &Facts) : Facts(Facts) {}
  StringRef name() const override { return checks::EvasionStaticState; }
  void run(CheckContext &Ctx) override {
    for (const FunctionNode *F : Ctx.Reachable) {
      auto It = Facts.Functions.find(F->Key);
      if (It == Facts.Functions.end())
        continue;
      for (const PythonFunctionFacts::StateWrite &W : It->second.StateWrites) {
        Finding Fd;
        Fd.Check = name().str();
        Fd.Pos = W.Pos;
        Fd.Symbol = W.Name;
        Fd.CallPath = Ctx.pathTo(F);
        Fd.Library = "static state";
        if (W.What == "memoised result")
          Fd.Message = "'" + W.Name +
                       "' memoises results between calls of the entry" +
                       (W.Risky ? " and can cache outputs"
                                : " (its arguments hold no input data and "
                                  "no caller returns its result)");
        else
          Fd.Message = W.What + " '" + W.Name +
                       "' is written by the entry and keeps state between "
                       "calls" +
                       (W.Risky ? " and can cache outputs" : "");
        Ctx.report(std::move(Fd), W.Risky ? Severity::Error : Severity::Note);
      }
    }
  }

private:
  const PythonFacts &Facts;
};

/// Work issued on a side stream that the same function never joins back to
/// the current stream escapes the harness's timer.
class PythonSideStreamCheck : public LintCheck {
public:
  explicit PythonSideStreamCheck(const PythonFacts &Facts) : Facts(Facts) {}
  StringRef name() const override { return checks::EvasionSideStream; }
  void run(CheckContext &Ctx) override {
    for (const FunctionNode *F : Ctx.Reachable) {
      auto It = Facts.Functions.find(F->Key);
      if (It == Facts.Functions.end() || It->second.Joins)
        continue;
      for (const PythonFunctionFacts::StreamUse &U : It->second.StreamUses) {
        Finding Fd;
        Fd.Check = name().str();
        Fd.Pos = U.Pos;
        Fd.Symbol = U.Name;
        Fd.CallPath = Ctx.pathTo(F);
        Fd.Library = "side stream";
        Fd.Message = "stream used through '" + U.Name +
                     "' is never joined back (no synchronize, wait_stream or "
                     "wait_event in the same function): its work can escape "
                     "the timer";
        Ctx.report(std::move(Fd));
      }
    }
  }

private:
  const PythonFacts &Facts;
};

/// An entry that overwrites one of its inputs in place and returns
/// something else: the harness computes the expected result from the inputs
/// after the call, so it compares against what the submission wrote there.
class PythonInputWriteCheck : public LintCheck {
public:
  explicit PythonInputWriteCheck(const PythonFacts &Facts) : Facts(Facts) {}
  StringRef name() const override { return checks::EvasionInputWrite; }
  void run(CheckContext &Ctx) override {
    for (const FunctionNode *F : Ctx.Entries) {
      auto It = Facts.Functions.find(F->Key);
      if (It == Facts.Functions.end())
        continue;
      for (const PythonFunctionFacts::InputWrite &W : It->second.InputWrites) {
        Finding Fd;
        Fd.Check = name().str();
        Fd.Pos = W.Pos;
        Fd.Symbol = W.Input;
        Fd.CallPath = Ctx.pathTo(F);
        Fd.Library = "input write";
        Fd.Message = "input '" + W.Input +
                     "' of the entry is overwritten "
                     "in place " +
                     W.How +
                     " and the entry returns something else: the harness "
                     "checks the result against its inputs after the call";
        Ctx.report(std::move(Fd));
      }
    }
  }

private:
  const PythonFacts &Facts;
};

/// A DSL kernel launched from the entry whose body only loads, copies and
/// stores: it does none of an operator's arithmetic. A note (a copy or
/// transpose kernel is honest); beside delegated compute it is the decoy
/// that makes a launch show up.
class PythonKernelNoComputeCheck : public LintCheck {
public:
  explicit PythonKernelNoComputeCheck(const PythonFacts &Facts)
      : Facts(Facts) {}
  StringRef name() const override { return checks::KernelNoCompute; }
  void run(CheckContext &Ctx) override {
    std::set<std::string> Seen;
    for (const ReachedSite &RS : Ctx.Sites) {
      const Site &S = *RS.S;
      if (S.Kind != SiteKind::Launch || S.Dead || !Seen.insert(S.Key).second)
        continue;
      auto It = Facts.Kernels.find(S.Key);
      if (It == Facts.Kernels.end() || !It->second.MovesOnly)
        continue;
      auto K = Ctx.M.Functions.find(S.Key);
      Finding Fd;
      Fd.Check = name().str();
      Fd.Pos = K != Ctx.M.Functions.end() ? K->second.Pos : S.Pos;
      Fd.Symbol = S.Name;
      Fd.CallPath = Ctx.pathTo(RS.Holder);
      Fd.Library = "data movement";
      Fd.Message = "kernel '" + S.Name +
                   "' launched from the entry only "
                   "moves data (" +
                   std::to_string(It->second.Moves) +
                   " load/copy/store operations; no arithmetic, matrix or "
                   "math operation on what it loads): whatever the operator "
                   "computes is computed elsewhere";
      Ctx.report(std::move(Fd));
    }
  }

private:
  const PythonFacts &Facts;
};

} // namespace

std::vector<std::unique_ptr<LintCheck>>
atrex::lint::createPythonChecks(const PythonFacts &Facts) {
  std::vector<std::unique_ptr<LintCheck>> V;
  V.push_back(std::make_unique<PythonStateCheck>(Facts));
  V.push_back(std::make_unique<PythonKernelNoComputeCheck>(Facts));
  V.push_back(std::make_unique<PythonSideStreamCheck>(Facts));
  V.push_back(std::make_unique<PythonInputWriteCheck>(Facts));
  return V;
}

/// The Python rules (lib/Lint/Frontend/Python/PythonPolicy.yaml,
/// docs/python-frontend.md): those of every mode and, with \p Program,
/// those of program mode only (ids `python-program-*`).
static std::vector<SymbolRule> pythonRules(bool Program = false) {
  static const std::vector<SymbolRule> All = [] {
    Expected<Policy> P =
        Policy::parse(PythonPolicyText, "<built-in Python rules>");
    if (!P)
      report_fatal_error(P.takeError());
    return P->Rules;
  }();
  std::vector<SymbolRule> Rs;
  for (const SymbolRule &R : All)
    if (StringRef(R.Id).starts_with("python-program-") == Program)
      Rs.push_back(R);
  return Rs;
}

Policy atrex::lint::pythonProgramPolicy(const Policy &PyP) {
  auto It =
      std::find_if(PyP.Rules.begin(), PyP.Rules.end(), [](const SymbolRule &R) {
        return R.Id == "python-torch-glue";
      });
  if (It == PyP.Rules.end())
    return PyP;
  Policy Out = PyP;
  std::vector<SymbolRule> Pr = pythonRules(/*Program=*/true);
  Out.Rules.insert(Out.Rules.begin() + (It - PyP.Rules.begin()), Pr.begin(),
                   Pr.end());
  if (Error E = Out.compile()) {
    consumeError(std::move(E));
    return PyP;
  }
  return Out;
}

Policy atrex::lint::pythonPolicy(const Policy &P) {
  Policy Out = P;
  const std::vector<SymbolRule> &Def = Policy::getDefault().Rules;
  if (Def.empty())
    return Out;
  auto It =
      std::find_if(Out.Rules.begin(), Out.Rules.end(),
                   [&](const SymbolRule &R) { return R.Id == Def.front().Id; });
  if (It == Out.Rules.end())
    return Out; // inherit: none: the file is the whole policy
  std::vector<SymbolRule> Py = pythonRules();
  Out.Rules.insert(It, Py.begin(), Py.end());
  if (Error E = Out.compile()) {
    consumeError(std::move(E)); // the built-in rules are valid
    return P;
  }
  return Out;
}
