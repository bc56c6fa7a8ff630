//===- ReplayCheck.cpp - atrex-evasion-replay -----------------------------===//
//
// A result kept in state that outlives a call (a function-local static or a
// global the submission defines) copied back out: `out.copy_(cached)`,
// `cached.clone()`, `cudaMemcpy*(out, cached, ...)`. Typically behind a call
// counter or a flag: the first calls compute and store, later ones replay.
// A store (`cached.copy_(out)`) is static state; the copy out of it is the
// replay, which no honest kernel needs.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"
#include "llvm/ADT/StringMap.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
/// The argument that is the copy's source, or -1 when the callee is no
/// copy. Member calls count the object as argument 0.
int sourceArg(StringRef N) {
  if (N.ends_with("Tensor::clone") || N.ends_with("Tensor::detach") ||
      N == "at::clone" || N == "torch::clone")
    return 0; // cached.clone()
  if (N.ends_with("Tensor::copy_") || N == "at::copy_" || N == "torch::copy_")
    return 1; // out.copy_(cached)
  if (N.starts_with("cudaMemcpy") || N.starts_with("hipMemcpy") ||
      N.starts_with("cuMemcpy") || N == "memcpy" || N == "std::memcpy" ||
      N == "memmove" || N == "std::memmove")
    return 1; // cudaMemcpy(out, cached, ...)
  return -1;
}

class ReplayCheck : public LintCheck {
public:
  StringRef name() const override { return checks::EvasionReplay; }
  void run(CheckContext &Ctx) override {
    StringMap<const StateVar *> State;
    for (const FunctionNode *F : Ctx.Reachable)
      for (const StateVar &V : F->StaticLocals)
        if (!V.Key.empty() && !V.Device)
          State[V.Key] = &V;
    for (auto &KV : Ctx.M.Globals)
      if (!KV.second.State.Name.empty() && !KV.second.State.Device)
        State[KV.first] = &KV.second.State;
    if (State.empty())
      return;
    for (const ReachedSite &RS : Ctx.Sites) {
      const Site &S = *RS.S;
      if (S.Dead || S.Kind == SiteKind::Launch || Ctx.target(S))
        continue;
      int Src = sourceArg(S.Name);
      if (Src < 0 || size_t(Src) >= S.ArgVars.size())
        continue;
      auto It = State.find(S.ArgVars[Src]);
      if (It == State.end())
        continue;
      const StateVar &V = *It->second;
      Finding F;
      F.Check = name().str();
      F.Pos = S.Pos;
      F.Symbol = V.Name;
      F.Library = "replay";
      F.CallPath = Ctx.pathTo(RS.Holder);
      F.Message = "'" + S.Name + "' copies out '" + V.Name +
                  "', state kept from an earlier call of the entry: a result "
                  "replayed instead of computed";
      F.Notes.push_back({V.Pos, "'" + V.Name + "' is declared here"});
      Ctx.report(std::move(F));
    }
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createReplayCheck() {
  return std::make_unique<ReplayCheck>();
}
