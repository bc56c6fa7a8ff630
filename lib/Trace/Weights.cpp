//===- Weights.cpp - importance weights from mapped GPU time --------------===//

#include "atrex/Trace/Weights.h"
#include "atrex/Support/JSON.h"
#include "atrex/Support/YAML.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/YAMLTraits.h"
#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <set>
#include <thread>

using namespace llvm;
using namespace atrex::trace;

namespace {
struct FleetDoc {
  int64_t Version = 1;
  std::vector<FleetApp> Apps;
};
} // namespace

LLVM_YAML_IS_SEQUENCE_VECTOR(FleetApp)

namespace llvm {
namespace yaml {
template <> struct MappingTraits<FleetApp> {
  static void mapping(IO &Io, FleetApp &A) {
    Io.mapRequired("name", A.Name);
    Io.mapRequired("card_hours", A.CardHours);
    Io.mapRequired("traces", A.Traces);
  }
};
template <> struct MappingTraits<FleetDoc> {
  static void mapping(IO &Io, FleetDoc &D) {
    Io.mapRequired("version", D.Version);
    Io.mapRequired("applications", D.Apps);
  }
};
} // namespace yaml
} // namespace llvm

namespace atrex {
namespace trace {

Expected<Fleet> Fleet::parse(StringRef Name, StringRef Text) {
  FleetDoc Doc;
  if (std::optional<std::string> Diags = readYAML(Text, "", Doc))
    return createStringError(inconvertibleErrorCode(),
                             "invalid fleet file '" + Name +
                                 "': " + StringRef(*Diags).trim());
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             "fleet file '" + Name + "': " + Msg);
  };
  if (Doc.Version != 1)
    return Fail("unsupported version " + Twine(Doc.Version) + " (expected 1)");
  if (Doc.Apps.empty())
    return Fail("no applications");
  std::set<std::string> Names;
  for (const FleetApp &A : Doc.Apps) {
    if (A.Name.empty() || !Names.insert(A.Name).second)
      return Fail("application names must be unique and non-empty ('" + A.Name +
                  "')");
    if (!(A.CardHours > 0) || !std::isfinite(A.CardHours))
      return Fail("application '" + A.Name +
                  "': card_hours must be a positive number");
    if (A.Traces.empty())
      return Fail("application '" + A.Name + "' lists no traces");
    for (const std::string &T : A.Traces)
      if (auto G = GlobPattern::create(T); !G)
        return Fail("application '" + A.Name + "': " + toString(G.takeError()));
  }
  Fleet F;
  F.Apps = std::move(Doc.Apps);
  return F;
}

Expected<Fleet> Fleet::load(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(inconvertibleErrorCode(),
                             "cannot read fleet file '" + Path +
                                 "': " + Buf.getError().message());
  return parse(Path, (*Buf)->getBuffer());
}

Expected<const FleetApp *> Fleet::appFor(StringRef TracePath) const {
  StringRef File = sys::path::filename(TracePath);
  for (const FleetApp &A : Apps)
    for (const std::string &T : A.Traces) {
      auto G = GlobPattern::create(T);
      if (G && (G->match(TracePath) || G->match(File)))
        return &A;
    }
  return createStringError(inconvertibleErrorCode(),
                           "trace '" + TracePath +
                               "' matches no application of the fleet file");
}

std::string ProblemKey::str() const {
  std::string S = Operator + " {";
  bool First = true;
  for (auto &[K, V] : Shape) {
    S += (First ? "" : ",") + K + "=" + std::to_string(V);
    First = false;
  }
  return S + "} " + phaseName(P).str();
}

void WeightBuilder::addTrace(StringRef App, double CardHours, const Trace &T) {
  auto It = find_if(Apps, [&](const AppStats &A) { return A.Name == App; });
  if (It == Apps.end()) {
    Apps.emplace_back();
    Apps.back().Name = App.str();
    Apps.back().CardHours = CardHours;
    It = std::prev(Apps.end());
  }
  AppStats &A = *It;
  A.Traces.push_back(T.path().str());
  bool TwoThreads =
      llvm::hardware_concurrency(Threads).compute_thread_count() > 1;
  // The GPU busy time, on a second thread while the composites are
  // recognised (neither changes the trace).
  int64_t BusyNs = 0;
  std::thread Busy;
  if (TwoThreads)
    Busy = std::thread([&] { BusyNs = T.busyTime(); });
  else
    BusyNs = T.busyTime();

  // Every kernel keeps a small record until its phase is decided.
  struct Rec {
    uint64_t Device;
    int64_t Ts, Dur;
    int64_t PrevTs; // the previous decided kernel on the device
    int32_t Key;    // index into Keys, -1 for kernels without a problem
    Phase P, PrevP;
  };
  std::vector<ProblemKey> Keys;
  std::map<ProblemKey, int32_t> KeyIndex;
  Composites C = Map.recognize(T);
  if (Busy.joinable())
    Busy.join();
  A.BusyNs += BusyNs;

  // What a kernel maps to depends only on its name, its launch stack's op
  // names, recorded inputs and composites, and its annotations: its
  // signature (names are interned: their addresses identify them). Kernels
  // repeat those (every layer, every step), so the outcome is kept per
  // distinct signature (up to MaxOutcomes of them; a kernel with another
  // one is mapped on its own) and the times are summed per outcome before
  // they go into the application's maps.
  struct Outcome {
    const MapRule *Rule = nullptr;
    bool HasShape = false;
    Phase P = Phase::Unknown;
    int32_t Key = -1;       // into Keys, shaped kernels
    std::string Kernel, Op; // unmapped kernels
    TimeAndCalls Sum;       // unmapped and unshaped kernels
  };
  constexpr size_t MaxOutcomes = 1 << 16;
  auto Classify = [&](const KernelView &K, Outcome &O) {
    Match M = Map.match(K, T, &C);
    O.Rule = M.Rule;
    O.HasShape = M.HasShape;
    O.P = M.P;
    if (!M.Rule) {
      StringRef Op;
      for (const CpuRange *R : K.Stack)
        if (R->IsOp) {
          Op = R->Name;
          break;
        }
      O.Kernel = K.Name.str();
      O.Op = Op.str();
    } else if (M.HasShape) {
      ProblemKey PK{M.Rule->Operator, std::move(M.Shape), Phase::Unknown};
      auto [KI, New] = KeyIndex.try_emplace(PK, int32_t(Keys.size()));
      if (New)
        Keys.push_back(std::move(PK));
      O.Key = KI->second;
    }
  };
  auto Flush = [&](Outcome &O) {
    if (!O.Rule) {
      auto &U = A.Unmapped[{O.Kernel, O.Op}];
      U.Ns += O.Sum.Ns;
      U.Calls += O.Sum.Calls;
    } else if (!O.HasShape) {
      auto &U = A.Unshaped[O.Rule->Operator];
      U.Ns += O.Sum.Ns;
      U.Calls += O.Sum.Calls;
    }
    O.Sum = TimeAndCalls();
  };
  auto SignatureOf = [&C](const KernelView &K, SmallVectorImpl<uint64_t> &Sig) {
    auto Str = [&](StringRef S) {
      Sig.push_back(reinterpret_cast<uintptr_t>(S.data()));
      Sig.push_back(S.size());
    };
    Sig.clear();
    Str(K.Name);
    for (const CpuRange *R : K.Stack) {
      Str(R->Name);
      Sig.push_back(uint64_t(uint32_t(R->Inputs)) | uint64_t(R->IsOp) << 32 |
                    uint64_t(R->IsAnnotation) << 33);
      Sig.push_back(reinterpret_cast<uintptr_t>(C.of(R)));
    }
    Sig.push_back(~uint64_t(0));
    for (StringRef An : K.Annotations)
      Str(An);
    return StringRef(reinterpret_cast<const char *>(Sig.data()),
                     Sig.size() * sizeof(uint64_t));
  };

  // The kernels' signatures, numbered in order of first appearance; on two
  // threads (each half of the kernels its own numbering) when there are
  // many. Recs[I].Key holds kernel I's number for now (-1: none, its
  // table was full).
  size_t NumKernels = T.numKernels();
  std::deque<Rec> Recs(NumKernels);
  struct SigTable {
    StringMap<uint32_t> Index;
    std::vector<StringRef> Sigs; // by number
    std::vector<size_t> First;   // the first kernel with each
  };
  size_t Half =
      TwoThreads && NumKernels >= (1u << 16) ? NumKernels / 2 : NumKernels;
  // Each table holds its share of the MaxOutcomes signatures kept.
  size_t TableLimit = Half < NumKernels ? MaxOutcomes / 2 : MaxOutcomes;
  auto Scan = [&](size_t From, size_t To, SigTable &Tab) {
    SmallVector<uint64_t, 64> Sig;
    size_t I = From;
    T.forEachKernel(
        [&](const KernelView &K) {
          StringRef S = SignatureOf(K, Sig);
          int32_t Id = -1;
          auto It = Tab.Index.find(S);
          if (It != Tab.Index.end()) {
            Id = int32_t(It->second);
          } else if (Tab.Sigs.size() < TableLimit) {
            auto New = Tab.Index.try_emplace(S, uint32_t(Tab.Sigs.size()));
            Tab.Sigs.push_back(New.first->first());
            Tab.First.push_back(I);
            Id = int32_t(New.first->second);
          }
          Recs[I] =
              Rec{K.Device, K.Ts, K.Dur, 0, Id, Phase::Unknown, Phase::Unknown};
          ++I;
        },
        From, To);
  };
  SigTable Tabs[2];
  {
    std::thread Second;
    if (Half < NumKernels)
      Second = std::thread(Scan, Half, NumKernels, std::ref(Tabs[1]));
    Scan(0, Half, Tabs[0]);
    if (Second.joinable())
      Second.join();
  }
  // One numbering: the first half's, then the second half's signatures
  // that the first half did not have (the order of a single pass).
  std::vector<size_t> First = std::move(Tabs[0].First);
  std::vector<int32_t> Remap(Tabs[1].Sigs.size(), -1);
  for (size_t J = 0; J < Tabs[1].Sigs.size(); ++J) {
    auto It = Tabs[0].Index.find(Tabs[1].Sigs[J]);
    if (It != Tabs[0].Index.end()) {
      Remap[J] = int32_t(It->second);
    } else if (First.size() < MaxOutcomes) {
      Remap[J] = int32_t(First.size());
      First.push_back(Tabs[1].First[J]);
    }
  }
  // Each distinct signature is mapped once, at its first kernel.
  std::vector<Outcome> Outcomes(First.size());
  for (size_t O = 0; O < First.size(); ++O)
    T.forEachKernel([&](const KernelView &K) { Classify(K, Outcomes[O]); },
                    First[O], First[O] + 1);

  for (size_t I = 0; I < NumKernels; ++I) {
    Rec &R = Recs[I];
    int32_t Id = R.Key;
    if (I >= Half && Id >= 0)
      Id = Remap[Id];
    ++A.Kernels;
    A.KernelNs += R.Dur;
    Outcome Single;
    Outcome *O = &Single;
    if (Id >= 0)
      O = &Outcomes[Id];
    else
      T.forEachKernel([&](const KernelView &K) { Classify(K, Single); }, I,
                      I + 1);
    if (!O->Rule) {
      A.UnmappedNs += R.Dur;
    } else if (!O->HasShape) {
      A.UnshapedNs += R.Dur;
    }
    if (O->Key < 0) {
      O->Sum.Ns += R.Dur;
      ++O->Sum.Calls;
    }
    if (O == &Single)
      Flush(Single);
    R.Key = O->Key;
    R.P = O->P;
  }
  for (Outcome &O : Outcomes)
    Flush(O);

  // Undecided phases: the phase of the nearest decided kernel (in time) on
  // the same device.
  auto ByDeviceTs = [](const Rec &L, const Rec &R) {
    return std::tie(L.Device, L.Ts) < std::tie(R.Device, R.Ts);
  };
  if (!std::is_sorted(Recs.begin(), Recs.end(), ByDeviceTs))
    std::stable_sort(Recs.begin(), Recs.end(), ByDeviceTs);
  {
    Phase P = Phase::Unknown;
    int64_t Ts = 0;
    uint64_t Dev = ~0ull;
    for (Rec &R : Recs) {
      if (R.Device != Dev) {
        Dev = R.Device;
        P = Phase::Unknown;
      }
      if (R.P != Phase::Unknown) {
        P = R.P;
        Ts = R.Ts;
      }
      R.PrevP = P;
      R.PrevTs = Ts;
    }
    P = Phase::Unknown;
    Dev = ~0ull;
    for (auto It = Recs.rbegin(); It != Recs.rend(); ++It) {
      Rec &R = *It;
      if (R.Device != Dev) {
        Dev = R.Device;
        P = Phase::Unknown;
      }
      if (R.P != Phase::Unknown) {
        P = R.P;
        Ts = R.Ts;
        continue;
      }
      // P / Ts: the next decided kernel.
      if (R.PrevP == Phase::Unknown)
        R.P = P;
      else if (P == Phase::Unknown)
        R.P = R.PrevP;
      else
        R.P = R.Ts - R.PrevTs <= Ts - R.Ts ? R.PrevP : P;
    }
  }
  // Per problem and phase, summed before they go into the map.
  std::vector<TimeAndCalls> ByKeyPhase(Keys.size() * 3);
  std::vector<bool> Seen(Keys.size() * 3);
  for (const Rec &R : Recs) {
    A.PhaseNs[static_cast<int>(R.P)] += R.Dur;
    if (R.Key < 0)
      continue;
    size_t I = size_t(R.Key) * 3 + static_cast<int>(R.P);
    ByKeyPhase[I].Ns += R.Dur;
    ++ByKeyPhase[I].Calls;
    Seen[I] = true;
  }
  for (size_t I = 0; I < ByKeyPhase.size(); ++I) {
    if (!Seen[I])
      continue;
    ProblemKey PK = Keys[I / 3];
    PK.P = static_cast<Phase>(I % 3);
    TimeAndCalls &TC = A.Problems[PK];
    TC.Ns += ByKeyPhase[I].Ns;
    TC.Calls += ByKeyPhase[I].Calls;
  }
}

Expected<WeightsResult> WeightBuilder::compute(double Coverage) const {
  if (!(Coverage > 0 && Coverage <= 1))
    return createStringError(inconvertibleErrorCode(),
                             "coverage must be in (0, 1], not " +
                                 formatv("{0}", Coverage).str());
  WeightsResult R;
  R.CoverageTarget = Coverage;
  double TotalCH = 0;
  for (const AppStats &A : Apps) {
    if (A.KernelNs <= 0)
      R.Warnings.push_back("application '" + A.Name +
                           "' has no GPU kernel time in its traces; its "
                           "card-hours are left out");
    else
      TotalCH += A.CardHours;
  }
  if (TotalCH <= 0)
    return createStringError(inconvertibleErrorCode(),
                             "no GPU kernel time in any trace");
  std::map<ProblemKey, WeightedProblem> Problems;
  std::map<std::string, double> Ops, UnshapedOps;
  std::map<std::pair<std::string, std::string>, WeightsResult::UnmappedRow>
      Unmapped;
  for (const AppStats &A : Apps) {
    if (A.KernelNs <= 0)
      continue;
    double Scale = A.CardHours / TotalCH / double(A.KernelNs);
    R.UnshapedShare += A.UnshapedNs * Scale;
    R.UnmappedShare += A.UnmappedNs * Scale;
    for (auto &[K, TC] : A.Problems) {
      WeightedProblem &P = Problems[K];
      P.Key = K;
      P.FleetShare += TC.Ns * Scale;
      P.Ns += TC.Ns;
      P.Calls += TC.Calls;
      P.AppShare[A.Name] = double(TC.Ns) / double(A.KernelNs);
      Ops[K.Operator] += TC.Ns * Scale;
    }
    for (auto &[Op, TC] : A.Unshaped) {
      Ops[Op] += TC.Ns * Scale;
      UnshapedOps[Op] += TC.Ns * Scale;
    }
    for (auto &[K, TC] : A.Unmapped) {
      auto &U = Unmapped[K];
      U.Kernel = K.first;
      U.Op = K.second;
      U.FleetShare += TC.Ns * Scale;
      U.Calls += TC.Calls;
    }
  }
  R.MappedShare = 1.0 - R.UnmappedShare;
  std::vector<WeightedProblem> All;
  double Shaped = 0;
  for (auto &KV : Problems) {
    Shaped += KV.second.FleetShare;
    All.push_back(std::move(KV.second));
  }
  R.ShapedProblems = All.size();
  std::stable_sort(All.begin(), All.end(),
                   [](const WeightedProblem &L, const WeightedProblem &R) {
                     return L.FleetShare > R.FleetShare;
                   });
  double Cum = 0;
  for (WeightedProblem &P : All) {
    if (Shaped > 0 && Cum >= Coverage * Shaped * (1 - 1e-12))
      break;
    Cum += P.FleetShare;
    R.Hot.push_back(std::move(P));
  }
  R.Coverage = Shaped > 0 ? Cum / Shaped : 0;
  for (WeightedProblem &P : R.Hot)
    P.Weight = P.FleetShare / Cum;
  if (R.Hot.empty())
    R.Warnings.push_back("no GPU time maps to a shaped problem: the weights "
                         "are empty");
  auto SortDesc = [](std::map<std::string, double> &M) {
    std::vector<std::pair<std::string, double>> V(M.begin(), M.end());
    std::stable_sort(V.begin(), V.end(),
                     [](auto &L, auto &R) { return L.second > R.second; });
    return V;
  };
  R.Operators = SortDesc(Ops);
  R.UnshapedOps = SortDesc(UnshapedOps);
  for (size_t I = 0; I < R.Operators.size() && I < 5; ++I)
    R.Top5OperatorShare += R.Operators[I].second;
  for (auto &KV : Unmapped)
    R.Unmapped.push_back(KV.second);
  std::stable_sort(R.Unmapped.begin(), R.Unmapped.end(), [](auto &L, auto &R) {
    return L.FleetShare > R.FleetShare;
  });
  return R;
}

static double round6(double V) { return std::round(V * 1e6) / 1e6; }

/// Writes \p V with sorted keys and short decimal numbers (llvm::json
/// prints 17 significant digits).
static void emit(json::OStream &J, const json::Value &V) {
  switch (V.kind()) {
  case json::Value::Object: {
    const json::Object &O = *V.getAsObject();
    std::vector<StringRef> Keys;
    for (const auto &KV : O)
      Keys.push_back(KV.first);
    llvm::sort(Keys);
    J.object([&] {
      for (StringRef K : Keys)
        J.attributeBegin(K), emit(J, *O.get(K)), J.attributeEnd();
    });
    return;
  }
  case json::Value::Array:
    J.array([&] {
      for (const json::Value &E : *V.getAsArray())
        emit(J, E);
    });
    return;
  case json::Value::Number:
    if (auto I = atrex::getInteger(V))
      J.value(*I);
    else
      J.rawValue(formatv("{0}", format("%.10g", *V.getAsNumber())).str());
    return;
  default:
    J.value(V);
  }
}

void WeightBuilder::writeJSON(raw_ostream &OS, const WeightsResult &R,
                              const std::vector<AppStats> &Apps) {
  json::OStream J(OS, 2);
  emit(J, toJSON(R, Apps));
  OS << "\n";
}

json::Value WeightBuilder::toJSON(const WeightsResult &R,
                                  const std::vector<AppStats> &Apps) {
  json::Array AppsJ;
  for (const AppStats &A : Apps) {
    double K = A.KernelNs > 0 ? double(A.KernelNs) : 1.0;
    json::Array Traces;
    for (const std::string &T : A.Traces)
      Traces.push_back(sys::path::filename(T).str());
    AppsJ.push_back(json::Object{
        {"name", A.Name},
        {"card_hours", A.CardHours},
        {"traces", std::move(Traces)},
        {"kernels", int64_t(A.Kernels)},
        {"kernel_time_us", round6(A.KernelNs / 1e3)},
        {"busy_time_us", round6(A.BusyNs / 1e3)},
        {"unmapped_share", round6(A.UnmappedNs / K)},
        {"unshaped_share", round6(A.UnshapedNs / K)},
        {"phase_share", json::Object{{"prefill", round6(A.PhaseNs[0] / K)},
                                     {"decode", round6(A.PhaseNs[1] / K)},
                                     {"unknown", round6(A.PhaseNs[2] / K)}}}});
  }
  json::Array Problems;
  for (const WeightedProblem &P : R.Hot) {
    json::Object Shape;
    for (auto &[K, V] : P.Key.Shape)
      Shape[K] = V;
    json::Object AppShare;
    for (auto &[K, V] : P.AppShare)
      AppShare[K] = round6(V);
    Problems.push_back(json::Object{{"operator", P.Key.Operator},
                                    {"shape", std::move(Shape)},
                                    {"phase", phaseName(P.Key.P)},
                                    {"weight", round6(P.Weight)},
                                    {"fleet_share", round6(P.FleetShare)},
                                    {"kernel_time_us", round6(P.Ns / 1e3)},
                                    {"calls", int64_t(P.Calls)},
                                    {"app_share", std::move(AppShare)}});
  }
  json::Array Ops, Unshaped, Unmapped;
  for (auto &[Op, S] : R.Operators)
    Ops.push_back(json::Object{{"operator", Op}, {"fleet_share", round6(S)}});
  for (auto &[Op, S] : R.UnshapedOps)
    Unshaped.push_back(
        json::Object{{"operator", Op}, {"fleet_share", round6(S)}});
  for (size_t I = 0; I < R.Unmapped.size() && I < 100; ++I)
    Unmapped.push_back(
        json::Object{{"kernel", R.Unmapped[I].Kernel},
                     {"op", R.Unmapped[I].Op},
                     {"fleet_share", round6(R.Unmapped[I].FleetShare)},
                     {"calls", int64_t(R.Unmapped[I].Calls)}});
  json::Array Warnings;
  for (const std::string &W : R.Warnings)
    Warnings.push_back(W);
  return json::Object{{"format", "atrex-weights"},
                      {"version", 1},
                      {"generator", "atrex-trace"},
                      {"coverage_target", R.CoverageTarget},
                      {"coverage", round6(R.Coverage)},
                      {"shaped_problems", int64_t(R.ShapedProblems)},
                      {"unmapped_share", round6(R.UnmappedShare)},
                      {"unshaped_share", round6(R.UnshapedShare)},
                      {"top5_operator_share", round6(R.Top5OperatorShare)},
                      {"applications", std::move(AppsJ)},
                      {"problems", std::move(Problems)},
                      {"operators", std::move(Ops)},
                      {"unshaped", std::move(Unshaped)},
                      {"unmapped", std::move(Unmapped)},
                      {"warnings", std::move(Warnings)}};
}

void WeightBuilder::printSummary(raw_ostream &OS, const WeightsResult &R,
                                 const std::vector<AppStats> &Apps) {
  auto Pct = [](double V) { return formatv("{0,6:F1}%", V * 100.0).str(); };
  OS << formatv("{0,-24} {1,12} {2,9} {3,13} {4,8} {5,8} {6,8} {7,8}\n",
                "application", "card-hours", "kernels", "kernel ms", "unmapped",
                "unshaped", "prefill", "decode");
  for (const AppStats &A : Apps) {
    double K = A.KernelNs > 0 ? double(A.KernelNs) : 1.0;
    OS << formatv("{0,-24} {1,12:F1} {2,9} {3,13:F3} {4,8} {5,8} {6,8} "
                  "{7,8}\n",
                  A.Name, A.CardHours, A.Kernels, A.KernelNs / 1e6,
                  Pct(A.UnmappedNs / K), Pct(A.UnshapedNs / K),
                  Pct(A.PhaseNs[0] / K), Pct(A.PhaseNs[1] / K));
  }
  OS << "\noperator                 fleet GPU time\n";
  for (size_t I = 0; I < R.Operators.size() && I < 5; ++I)
    OS << formatv("{0,-24} {1}\n", R.Operators[I].first,
                  Pct(R.Operators[I].second));
  OS << formatv("{0,-24} {1}\n", "(unmapped)", Pct(R.UnmappedShare));
  OS << "top-5 operator share: " << Pct(R.Top5OperatorShare).substr(1)
     << ", unmapped share: " << Pct(R.UnmappedShare).substr(1)
     << ", unshaped share: " << Pct(R.UnshapedShare).substr(1) << "\n";
  OS << formatv("hot problems: {0} of {1} cover {2} of the shaped time "
                "(target {3})\n",
                R.Hot.size(), R.ShapedProblems, Pct(R.Coverage).substr(1),
                Pct(R.CoverageTarget).substr(1));
  for (size_t I = 0; I < R.Unmapped.size() && I < 5; ++I)
    OS << formatv("unmapped: {0} {1} ({2}{3})\n", Pct(R.Unmapped[I].FleetShare),
                  R.Unmapped[I].Kernel,
                  R.Unmapped[I].Op.empty() ? "no launching op" : "op ",
                  R.Unmapped[I].Op);
  for (const std::string &W : R.Warnings)
    OS << "warning: " << W << "\n";
}

} // namespace trace
} // namespace atrex
