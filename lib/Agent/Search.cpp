//===- Search.cpp - the built-in template-search backend ------------------===//
//
// Part of atrex. No model: the candidates are instances of the operator's
// kernel templates (Templates.h). The search reads only its context, so
// dropout and --resume act on it as on any backend:
//  - configurations already measured (the context's `explored`, every
//    source of the run, never masked) are not proposed again;
//  - the retrieval focus is family (dropouts mod families), and the knob
//    order of the problem's regime is rotated by the focus round
//    (dropouts / families): after a dropout the search leads with other
//    knobs;
//  - the focus family's default configuration when the best kernel is not
//    of that family;
//  - with --profile, the directions of the best kernel's diagnosis, in
//    their order: the knob moves its template ties to each direction
//    (`atrex-direction`, one position, then two, ...), or, where its
//    template has none for a direction, the default of another family that
//    answers it as a whole (`atrex-direction: tensor-cores` of the WMMA
//    family: a SIMT best whose tensor pipe is idle switches family);
//  - else the neighbourhood of the best configuration, nearest first: one
//    knob moved one position in its value list (up before down), then two
//    knobs moved together, then one knob moved 2, 3, ... positions,
//    skipping what atrex-require rules out;
//  - else the other families' defaults; else the neighbourhood is
//    exhausted (no candidate: the loop's stale count goes on to a dropout).
// See docs/agent.md, "The search backend".
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Backend.h"
#include "atrex/Agent/Process.h"
#include "atrex/Agent/Profile.h"
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

    // What the run measured: every explored source (candidates/<hash>.cu)
    // that is an instance of a known template, and the best kernel.
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
    for (const std::string &Hash : C.Explored) {
      SmallString<256> F(RunDir);
      sys::path::append(F, "candidates", Hash + ".cu");
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
    // How many times every family has had the focus before this one.
    const unsigned Round = C.Dropouts / N;
    unsigned Step = 0; // positions of the proposed move (0: a default)
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
          {"step", Step ? json::Value(Step) : json::Value(nullptr)},
          {"round", Round},
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
    // Each knob's position in the best configuration's value list (-1: not
    // in the list).
    auto PosOf = [&](const std::string &PName) {
      const TemplateParam *P = BestT->param(PName);
      int V = BestInfo->Params.count(PName) ? BestInfo->Params.at(PName)
                                            : BestT->Defaults.at(PName);
      auto It = std::find(P->Values.begin(), P->Values.end(), V);
      return It == P->Values.end() ? -1
                                   : static_cast<int>(It - P->Values.begin());
    };
    // The directions of the best kernel's diagnosis, in their order.
    if (BestT && C.Best.Profile) {
      std::vector<std::string> Dirs;
      if (const json::Array *A = C.Best.Profile->getArray("directions"))
        for (const json::Value &V : *A)
          if (auto S = V.getAsString())
            Dirs.push_back(S->str());
      for (const std::string &Dir : Dirs) {
        std::string Because = "the diagnosis of the best kernel (iteration " +
                              std::to_string(C.Best.Iteration) + "): " + Dir +
                              " (" + direction::summary(Dir).str() + ")";
        auto It = BestT->Directions.find(Dir);
        if (It == BestT->Directions.end()) {
          // Another family that answers the direction as a whole.
          for (const KernelTemplate &T : Templates) {
            auto F = T.Directions.find(Dir);
            if (&T == BestT || F == T.Directions.end() || !F->second.empty())
              continue;
            auto Ok = Fresh(T, T.Defaults);
            if (!Ok)
              return Ok.takeError();
            if (*Ok)
              return Emit(T, T.Defaults, "",
                          Because + ": family " + T.Family +
                              " answers it, its default configuration");
          }
          continue;
        }
        size_t MaxSteps = 0;
        for (const auto &[PName, Sign] : It->second)
          MaxSteps = std::max(MaxSteps, BestT->param(PName)->Values.size());
        for (size_t K = 1; K < MaxSteps; ++K)
          for (const auto &[PName, Sign] : It->second) {
            const TemplateParam *P = BestT->param(PName);
            int Pos = PosOf(PName);
            long NewPos = Pos + Sign * long(K);
            if (Pos < 0 || NewPos < 0 || NewPos >= long(P->Values.size()))
              continue;
            Config Cfg = BestInfo->Params;
            Cfg[PName] = P->Values[NewPos];
            auto Ok = Fresh(*BestT, Cfg);
            if (!Ok)
              return Ok.takeError();
            if (!*Ok)
              continue;
            Step = static_cast<unsigned>(K);
            return Emit(*BestT, Cfg, PName + (Sign > 0 ? "+" : "-"),
                        Because + ": move " + PName + " to " +
                            std::to_string(P->Values[NewPos]) +
                            " from the best (" +
                            configText(*BestT, BestInfo->Params) + ")");
          }
      }
    }
    // The neighbourhood of the best configuration, nearest first.
    if (BestT) {
      std::vector<std::string> Order = BestT->moveOrder(C.Prob.Regime);
      if (!Order.empty())
        std::rotate(Order.begin(), Order.begin() + Round % Order.size(),
                    Order.end());
      // Moves: (knob, signed positions) lists.
      using Move = std::vector<std::pair<std::string, int>>;
      std::vector<Move> Moves;
      size_t MaxLen = 0;
      for (const std::string &PName : Order)
        MaxLen = std::max(MaxLen, BestT->param(PName)->Values.size());
      for (const std::string &PName : Order)
        for (int D : {+1, -1})
          Moves.push_back({{PName, D}});
      for (size_t I = 0; I < Order.size(); ++I)
        for (size_t J = I + 1; J < Order.size(); ++J)
          for (int DI : {+1, -1})
            for (int DJ : {+1, -1})
              Moves.push_back({{Order[I], DI}, {Order[J], DJ}});
      for (int K = 2; K < static_cast<int>(MaxLen); ++K)
        for (const std::string &PName : Order)
          for (int D : {+K, -K})
            Moves.push_back({{PName, D}});
      for (const Move &M : Moves) {
        Config Cfg = BestInfo->Params;
        std::string Name, To;
        bool Fits = true;
        unsigned MoveStep = 0;
        for (const auto &[PName, D] : M) {
          const TemplateParam *P = BestT->param(PName);
          int Pos = PosOf(PName);
          int NewPos = Pos + D;
          if (Pos < 0 || NewPos < 0 ||
              NewPos >= static_cast<int>(P->Values.size())) {
            Fits = false;
            break;
          }
          Cfg[PName] = P->Values[NewPos];
          Name += PName + (D > 0 ? "+" : "-");
          To += (To.empty() ? "" : ", ") + PName + " to " +
                std::to_string(P->Values[NewPos]);
          MoveStep = std::max(MoveStep, static_cast<unsigned>(std::abs(D)));
        }
        if (!Fits)
          continue;
        auto Ok = Fresh(*BestT, Cfg);
        if (!Ok)
          return Ok.takeError();
        if (!*Ok)
          continue;
        Step = MoveStep;
        return Emit(
            *BestT, Cfg, Name,
            "move " + To + " from the best (" +
                configText(*BestT, BestInfo->Params) + ")" +
                (C.Prob.Regime.empty()
                     ? std::string()
                     : ", " + C.Prob.Regime + "-bound order") +
                (Round % Order.size()
                     ? " rotated by " + std::to_string(Round % Order.size())
                     : std::string()));
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
                   " configurations measured in the run)";
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
