//===- Search.cpp - the built-in template-search backend ------------------===//
//
// Part of atrex. No model: the candidates are instances of the operator's
// kernel templates (Templates.h). The search reads only its context, so
// dropout's masking and --resume act on it as on any backend:
//  - the retrieval focus is family (dropouts mod families);
//  - the focus family's default configuration when the best kernel is not
//    of that family and the default was not tried since the last dropout;
//  - else a move of one parameter of the best configuration by STEP
//    positions in its value list (STEP = 1 + dropouts / families: a wider
//    step once every family has had the focus), params in the template's
//    order for the problem's regime, up before down, skipping what the
//    history since the last dropout tried and
//    configurations an atrex-require rules out;
//  - else the other families' defaults; else the neighbourhood is
//    exhausted (no candidate: the loop's stale count goes on to a dropout).
// See docs/agent.md, "The search backend".
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Backend.h"
#include "atrex/Agent/Process.h"
#include "atrex/Agent/Templates.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <set>

using namespace llvm;

namespace atrex::agent {

namespace {
class SearchBackend : public Backend {
public:
  SearchBackend(std::vector<KernelTemplate> T) : Templates(std::move(T)) {}
  StringRef name() const override { return "search"; }

  Expected<Candidate> propose(const Context &C) override {
    auto T0 = std::chrono::steady_clock::now();
    Candidate Cand;
    Cand.Backend = "search";
    Cand.TokensIn = 0; // no model
    Cand.TokensOut = 0;
    SmallString<256> RunDir(C.Dir);
    sys::path::remove_filename(RunDir);

    // What the history since the last dropout tried (instances read back
    // from the run directory's candidates/).
    std::set<std::string> Tried;
    auto Key = [](const KernelTemplate &T, const Config &Cfg) {
      return T.Family + " " + configText(T, Cfg);
    };
    auto Known = [&](const InstanceInfo &I) -> const KernelTemplate * {
      for (const KernelTemplate &T : Templates)
        if (T.Family == I.Family && I.Operator == T.Operator)
          return &T;
      return nullptr;
    };
    for (const HistoryEntry &H : C.History) {
      SmallString<256> F(RunDir);
      sys::path::append(F, "candidates", H.Hash + ".cu");
      auto Src = readFile(F);
      if (!Src) {
        consumeError(Src.takeError());
        continue;
      }
      if (auto I = parseInstance(*Src))
        if (const KernelTemplate *T = Known(*I))
          Tried.insert(Key(*T, I->Params));
    }
    std::optional<InstanceInfo> BestInfo = parseInstance(C.Best.Source);
    const KernelTemplate *BestT = BestInfo ? Known(*BestInfo) : nullptr;
    if (BestT)
      Tried.insert(Key(*BestT, BestInfo->Params));

    const size_t N = Templates.size();
    const KernelTemplate &Focus = Templates[C.Dropouts % N];
    const unsigned Step = 1 + C.Dropouts / N;
    json::Array Retrieved;
    for (const KernelTemplate &T : Templates)
      Retrieved.push_back(T.Path);

    auto Emit = [&](const KernelTemplate &T, const Config &Cfg,
                    std::string Move, std::string Why) {
      Cand.Source = instantiate(T, Cfg);
      Cand.Command = T.Operator + "/" + T.Family + " " + configText(T, Cfg) +
                     (Move.empty() ? "" : " (move " + Move + ")");
      json::Object Params;
      for (const auto &[K, V] : Cfg)
        Params[K] = V;
      Cand.Detail = json::Object{
          {"template", T.Path},
          {"family", T.Family},
          {"params", std::move(Params)},
          {"move", Move.empty() ? json::Value(nullptr) : json::Value(Move)},
          {"step", Step},
          {"focus", Focus.Family},
          {"why", Why},
          {"tried", Tried.size()},
          {"retrieved", std::move(Retrieved)}};
      // As with every backend, the iteration's candidate.cu holds it.
      if (Error E = writeFile(C.CandidateFile, *Cand.Source))
        return Expected<Candidate>(std::move(E));
      Cand.WallS =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
              .count();
      return Expected<Candidate>(std::move(Cand));
    };
    auto Fresh = [&](const KernelTemplate &T,
                     const Config &Cfg) -> Expected<bool> {
      if (Tried.count(Key(T, Cfg)))
        return false;
      return T.admissible(Cfg);
    };

    // The focus family's starting point.
    if (!BestT || BestT != &Focus) {
      auto Ok = Fresh(Focus, Focus.Defaults);
      if (!Ok)
        return Ok.takeError();
      if (*Ok)
        return Emit(Focus, Focus.Defaults, "",
                    BestT ? "retrieval focus " + Focus.Family + " (dropout " +
                                std::to_string(C.Dropouts) +
                                "): its default configuration"
                          : "no template kernel yet: the focus family's "
                            "default configuration");
    }
    // One parameter of the best configuration moved.
    if (BestT) {
      std::vector<std::string> Order = BestT->moveOrder(C.Prob.Regime);
      for (const std::string &PName : Order) {
        const TemplateParam *P = BestT->param(PName);
        auto Cur = std::find(P->Values.begin(), P->Values.end(),
                             BestInfo->Params.count(PName)
                                 ? BestInfo->Params.at(PName)
                                 : BestT->Defaults.at(PName));
        if (Cur == P->Values.end())
          continue;
        int Pos = static_cast<int>(Cur - P->Values.begin());
        for (int D : {+1, -1}) {
          int NewPos = Pos + D * static_cast<int>(Step);
          if (NewPos < 0 || NewPos >= static_cast<int>(P->Values.size()))
            continue;
          Config Cfg = BestInfo->Params;
          Cfg[PName] = P->Values[NewPos];
          auto Ok = Fresh(*BestT, Cfg);
          if (!Ok)
            return Ok.takeError();
          if (*Ok)
            return Emit(*BestT, Cfg, PName + (D > 0 ? "+" : "-"),
                        "move " + PName + " of the best (" +
                            configText(*BestT, BestInfo->Params) + ") to " +
                            std::to_string(P->Values[NewPos]) +
                            (C.Prob.Regime.empty()
                                 ? std::string()
                                 : ", " + C.Prob.Regime + "-bound order"));
        }
      }
    }
    // Another family's starting point.
    for (size_t I = 1; I <= N; ++I) {
      const KernelTemplate &T = Templates[(C.Dropouts + I) % N];
      auto Ok = Fresh(T, T.Defaults);
      if (!Ok)
        return Ok.takeError();
      if (*Ok)
        return Emit(T, T.Defaults, "",
                    "the neighbourhood of the best is tried: family " +
                        T.Family + "'s default configuration");
    }
    Cand.Command = "search";
    Cand.Failure = "the search space around the best kernel is exhausted (" +
                   std::to_string(Tried.size()) +
                   " configurations tried since the last dropout, step " +
                   std::to_string(Step) + ")";
    return Cand;
  }

private:
  std::vector<KernelTemplate> Templates;
};
} // namespace

Expected<std::unique_ptr<Backend>> createSearchBackend(StringRef TemplateRoot,
                                                       StringRef Operator) {
  auto T = loadTemplates(TemplateRoot, Operator);
  if (!T)
    return T.takeError();
  if (T->empty())
    return createStringError("the search backend has no templates for '" +
                             Operator + "' under '" + TemplateRoot +
                             "' (kb/templates/<operator>/*.cu)");
  return std::make_unique<SearchBackend>(std::move(*T));
}

} // namespace atrex::agent
