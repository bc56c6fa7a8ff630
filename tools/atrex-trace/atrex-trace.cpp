//===- atrex-trace.cpp - importance weights from profiler traces ----------===//
//
//   atrex-trace ingest <trace.json>... [--map FILE] [--fleet FILE]
//                      [--coverage 0.9] [-o weights.json] [--quiet]
//   atrex-trace kernels <trace.json> [--map FILE]
//   atrex-trace check-map [--map FILE] [--ops DIR]
//   atrex-trace explain <trace>... [--map FILE] [--top N]
//                       [--format text|json]
//
// A trace is Kineto chrome-trace JSON or an Nsight Systems SQLite export.
//
// `ingest` maps the GPU kernels of PyTorch profiler traces to suite
// operators and shapes, splits them by phase and writes importance weights
// (docs/formats/weights.md) with a summary table. `kernels` prints every
// kernel joined to its launching op, shapes, annotations and mapping.
// `explain` lists the largest unmapped kernels with their launch stacks, the
// rules that come closest to mapping them and the candidate operators the
// mapping file names for them.
// See docs/trace.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Support/DataPath.h"
#include "atrex/Trace/Kineto.h"
#include "atrex/Trace/Mapping.h"
#include "atrex/Trace/Weights.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <map>
#include <set>

using namespace llvm;
using namespace atrex::trace;

static cl::OptionCategory ToolCat("atrex-trace options");
static cl::opt<std::string>
    Command(cl::cat(ToolCat), cl::Positional,
            cl::desc("<ingest|kernels|check-map|explain>"));
static cl::list<std::string> Inputs(cl::cat(ToolCat), cl::Positional,
                                    cl::desc("<trace.json>..."));
static cl::opt<std::string>
    MapPath(cl::cat(ToolCat), "map", cl::desc("Operator mapping rules (YAML)"),
            cl::init("suites/atrex-serve/trace-map.yaml"));
static cl::opt<std::string>
    FleetPath(cl::cat(ToolCat), "fleet",
              cl::desc("Fleet description: applications, card-hours "
                       "and their traces (YAML); without it each "
                       "trace is an application of 1 card-hour"));
static cl::opt<double>
    Coverage(cl::cat(ToolCat), "coverage",
             cl::desc("Share of mapped, shaped GPU time the hot problems "
                      "cover"),
             cl::init(0.9));
static cl::opt<std::string> Output(cl::cat(ToolCat), "o",
                                   cl::desc("Write the weights JSON here "
                                            "('-' for stdout)"));
static cl::opt<bool> Quiet(cl::cat(ToolCat), "quiet",
                           cl::desc("No summary table"));
static cl::opt<std::string>
    OpsDir(cl::cat(ToolCat), "ops",
           cl::desc("check-map: folder of operator definitions"),
           cl::init("suites/atrex-serve/ops"));
static cl::opt<unsigned> Top(cl::cat(ToolCat), "top",
                             cl::desc("explain: how many unmapped kernels"),
                             cl::init(10));
static cl::opt<std::string> Format(cl::cat(ToolCat), "format",
                                   cl::desc("explain: text or json"),
                                   cl::init("text"));
static cl::opt<bool>
    PrintFeatures(cl::cat(ToolCat), "print-features",
                  cl::desc("Print the optional input formats built in"),
                  cl::Hidden);

static cl::opt<unsigned>
    Threads(cl::cat(ToolCat), "jobs",
            cl::desc("Threads that read and map a Kineto trace "
                     "(0: every core)"),
            cl::init(0));
// How Kineto JSON is read (tests): the parallel fast path or the reference
// reader that takes one event at a time, and the sizes of its buffers.
static cl::opt<std::string> Reader(cl::cat(ToolCat), "reader",
                                   cl::desc("Kineto reader: fast or reference"),
                                   cl::init("fast"), cl::Hidden);
static cl::opt<unsigned> ChunkSize(cl::cat(ToolCat), "chunk-size",
                                   cl::desc("Read requests (bytes)"),
                                   cl::init(1 << 20), cl::Hidden);
static cl::opt<unsigned>
    WindowSize(cl::cat(ToolCat), "window-size",
               cl::desc("The fast reader's window (bytes)"), cl::init(16 << 20),
               cl::Hidden);
static cl::opt<unsigned>
    MinPartSize(cl::cat(ToolCat), "min-part-size",
                cl::desc("The smallest part of the window a thread parses"),
                cl::init(256 << 10), cl::Hidden);

static int fail(const Twine &Msg) {
  errs() << "atrex-trace: error: " << Msg << "\n";
  return 1;
}

static Expected<std::unique_ptr<Trace>> loadTrace(StringRef Path) {
  LoadOptions Opts;
  Opts.FastPath = Reader != "reference";
  Opts.Threads = Threads;
  Opts.ChunkSize = std::max(16u, unsigned(ChunkSize));
  Opts.WindowSize = WindowSize;
  Opts.MinPartSize = MinPartSize;
  return Trace::load(Path, Opts);
}

static std::string appName(StringRef Path) {
  StringRef Stem = sys::path::filename(Path);
  Stem.consume_back(".gz");
  for (StringRef Ext : {".pt.trace.json", ".trace.json", ".json", ".sqlite"})
    if (Stem.consume_back(Ext))
      break;
  return Stem.str();
}

static std::string dimsText(const OpInputs &In) {
  std::string S;
  for (size_t I = 0; I < In.Dims.size(); ++I) {
    S += I ? " (" : "(";
    if (In.IsList[I])
      S += "list";
    for (size_t J = 0; J < In.Dims[I].size(); ++J)
      S += (J ? "," : "") + std::to_string(In.Dims[I][J]);
    S += ")";
  }
  return S;
}

static int runKernels(const Mapping &Map) {
  if (Inputs.size() != 1)
    return fail("'kernels' takes exactly one trace");
  auto T = loadTrace(Inputs[0]);
  if (!T)
    return fail(toString(T.takeError()));
  raw_ostream &OS = outs();
  Composites C = Map.recognize(**T);
  (*T)->forEachKernel([&](const KernelView &K) {
    Match M = Map.match(K, **T, &C);
    OS << formatv("kernel '{0}' ts={1}ns dur={2}ns device={3} stream={4} "
                  "correlation={5}\n",
                  K.Name, K.Ts, K.Dur, K.Device, K.Stream, K.Correlation);
    if (K.Stack.empty())
      OS << "  launch: none\n";
    for (const CpuRange *R : K.Stack) {
      OS << (R->IsOp ? "  op: " : "  annotation: ") << R->Name;
      if (R->Inputs >= 0) {
        const OpInputs &In = (*T)->inputs(R->Inputs);
        OS << " dims=" << dimsText(In);
        if (!In.Types.empty())
          OS << " types=[" << join(In.Types, ", ") << "]";
      }
      OS << "\n";
    }
    if (!K.Annotations.empty())
      OS << "  annotations: " << join(K.Annotations, " < ") << "\n";
    if (!M.Rule) {
      OS << "  -> unmapped\n";
      return;
    }
    OS << "  -> " << M.Rule->Operator;
    if (M.HasShape) {
      OS << " {";
      bool First = true;
      for (auto &[Name, V] : M.Shape) {
        OS << (First ? "" : ",") << Name << "=" << V;
        First = false;
      }
      OS << "}";
    } else
      OS << " (no shapes recorded)";
    OS << " phase=" << phaseName(M.P);
    if (!M.Rule->Name.empty())
      OS << (M.Rule->isComposite() ? " composite='" : " rule='") << M.Rule->Name
         << "'";
    OS << "\n";
  });
  const TraceStats &S = (*T)->stats();
  OS << formatv("{0} events, {1} kernels ({2} without a launching op), {3} "
                "cpu ops, {4} annotations\n",
                S.Events, S.Kernels, S.Unlaunched, S.CpuOps, S.Annotations);
  return 0;
}

/// The shape parameter names of an operator definition: the keys of the
/// `shape = {K = V, ...}` dictionaries of its atrex.examples.
static Expected<std::set<std::string>> opParams(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(inconvertibleErrorCode(),
                             "cannot read '" + Path +
                                 "': " + Buf.getError().message());
  std::set<std::string> Keys;
  StringRef Text = (*Buf)->getBuffer();
  for (size_t At = Text.find("shape = {"); At != StringRef::npos;
       At = Text.find("shape = {", At + 1)) {
    StringRef Dict = Text.substr(At + 9);
    Dict = Dict.take_front(Dict.find('}'));
    SmallVector<StringRef> Items;
    Dict.split(Items, ',');
    for (StringRef Item : Items)
      if (StringRef Key = Item.split('=').first.trim(); !Key.empty())
        Keys.insert(Key.str());
  }
  if (Keys.empty())
    return createStringError(inconvertibleErrorCode(),
                             "'" + Path + "' has no atrex.examples shapes");
  return Keys;
}

/// Every rule names an operator of the suite and gives exactly its shape
/// parameters (rules without dims give no shape and are not compared;
/// composite rules are).
static int runCheckMap(const Mapping &Map) {
  int Errors = 0;
  std::map<std::string, std::set<std::string>> Cache;
  for (size_t I = 0; I < Map.rules().size(); ++I) {
    const MapRule &R = Map.rules()[I];
    std::string Id = R.Name.empty() ? "rule " + std::to_string(I + 1)
                                    : "rule '" + R.Name + "'";
    SmallString<256> Path(OpsDir);
    sys::path::append(Path, R.Operator + ".mlir");
    if (!Cache.count(R.Operator)) {
      if (!sys::fs::exists(Path)) {
        errs() << "atrex-trace: error: " << Id << ": no operator '"
               << R.Operator << "' in " << OpsDir << "\n";
        ++Errors;
        continue;
      }
      auto Keys = opParams(Path);
      if (!Keys) {
        errs() << "atrex-trace: error: " << toString(Keys.takeError()) << "\n";
        ++Errors;
        continue;
      }
      Cache[R.Operator] = std::move(*Keys);
    }
    if (R.Dims.empty() && !R.isComposite())
      continue;
    std::set<std::string> Given(R.Params.begin(), R.Params.end());
    if (Given != Cache[R.Operator]) {
      errs() << "atrex-trace: error: " << Id << ": operator '" << R.Operator
             << "' has shape parameters {" << join(Cache[R.Operator], ",")
             << "} but the rule gives {" << join(Given, ",") << "}\n";
      ++Errors;
    }
  }
  if (Errors)
    return 1;
  outs() << Map.rules().size() << " rules agree with the operators in "
         << OpsDir << "\n";
  return 0;
}

static int runIngest(const Mapping &Map) {
  if (Inputs.empty())
    return fail("'ingest' needs at least one trace");
  std::optional<Fleet> F;
  if (!FleetPath.empty()) {
    auto FE = Fleet::load(FleetPath);
    if (!FE)
      return fail(toString(FE.takeError()));
    F = std::move(*FE);
  }
  WeightBuilder B(Map);
  B.setThreads(Threads);
  for (const std::string &Path : Inputs) {
    std::string App = appName(Path);
    double CardHours = 1;
    if (F) {
      auto A = F->appFor(Path);
      if (!A)
        return fail(toString(A.takeError()) + " '" + FleetPath + "'");
      App = (*A)->Name;
      CardHours = (*A)->CardHours;
    }
    auto T = loadTrace(Path);
    if (!T)
      return fail(toString(T.takeError()));
    B.addTrace(App, CardHours, **T);
  }
  if (F)
    for (const FleetApp &A : F->Apps)
      if (none_of(B.apps(),
                  [&](const AppStats &S) { return S.Name == A.Name; }))
        errs() << "atrex-trace: warning: application '" << A.Name
               << "' of the fleet file has no trace; its card-hours are left "
                  "out\n";
  auto R = B.compute(Coverage);
  if (!R)
    return fail(toString(R.takeError()));
  if (!Output.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(Output, EC, sys::fs::OF_TextWithCRLF);
    if (EC)
      return fail("cannot write '" + Output + "': " + EC.message());
    WeightBuilder::writeJSON(OS, *R, B.apps());
  }
  if (!Quiet)
    WeightBuilder::printSummary(Output == "-" ? errs() : outs(), *R, B.apps());
  return 0;
}

/// One unmapped (kernel, innermost op) group of `explain`.
struct Unmapped {
  std::string Kernel, Op;
  int64_t Ns = 0;
  uint64_t Calls = 0;
  /// From the first kernel of the group: its launch stack (innermost
  /// first), the closest rules and the candidate operators.
  std::vector<std::pair<std::string, std::string>> Stack; // name, dims
  std::vector<std::string> Types;                         // innermost op
  std::vector<Mapping::NearMiss> Near;
  std::vector<const Candidate *> Cands;
};

static std::string suggestion(const Unmapped &U) {
  if (!U.Near.empty()) {
    const MapRule &R = *U.Near.front().Rule;
    return "closest rule '" + (R.Name.empty() ? R.Operator : R.Name) + "' (" +
           R.Operator + "): " + U.Near.front().Why;
  }
  if (!U.Cands.empty()) {
    std::string S =
        "no rule: candidate operator " + U.Cands.front()->Operator + "?";
    if (!U.Cands.front()->Note.empty())
      S += " (" + U.Cands.front()->Note + ")";
    return S;
  }
  if (U.Op.empty())
    return "no rule and no candidate operator: add a kernel-name rule or a "
           "candidate to the mapping file";
  return "no rule and no candidate operator: add a rule for '" + U.Op +
         "' or a candidate to the mapping file";
}

static int runExplain(const Mapping &Map) {
  if (Inputs.empty())
    return fail("'explain' needs at least one trace");
  if (Format != "text" && Format != "json")
    return fail("--format must be text or json, not '" + Format + "'");
  std::map<std::pair<std::string, std::string>, Unmapped> Groups;
  int64_t TotalNs = 0, UnmappedNs = 0;
  uint64_t Kernels = 0;
  for (const std::string &Path : Inputs) {
    auto T = loadTrace(Path);
    if (!T)
      return fail(toString(T.takeError()));
    Composites C = Map.recognize(**T);
    (*T)->forEachKernel([&](const KernelView &K) {
      ++Kernels;
      TotalNs += K.Dur;
      Match M = Map.match(K, **T, &C);
      if (M.Rule)
        return;
      UnmappedNs += K.Dur;
      const CpuRange *Inner = nullptr;
      for (const CpuRange *R : K.Stack)
        if (R->IsOp) {
          Inner = R;
          break;
        }
      std::string Op = Inner ? Inner->Name.str() : "";
      auto [It, New] = Groups.try_emplace({K.Name.str(), Op});
      Unmapped &U = It->second;
      U.Ns += K.Dur;
      ++U.Calls;
      if (!New)
        return;
      U.Kernel = K.Name.str();
      U.Op = Op;
      for (const CpuRange *R : K.Stack)
        U.Stack.push_back(
            {R->Name.str(),
             R->Inputs >= 0 ? dimsText((*T)->inputs(R->Inputs)) : ""});
      if (Inner && Inner->Inputs >= 0)
        U.Types = (*T)->inputs(Inner->Inputs).Types;
      U.Near = Map.nearMisses(K, **T);
      U.Cands = Map.candidates(K);
    });
  }
  std::vector<const Unmapped *> Sorted;
  for (auto &KV : Groups)
    Sorted.push_back(&KV.second);
  std::stable_sort(
      Sorted.begin(), Sorted.end(),
      [](const Unmapped *L, const Unmapped *R) { return L->Ns > R->Ns; });
  if (Sorted.size() > Top)
    Sorted.resize(Top);
  double Total = TotalNs > 0 ? double(TotalNs) : 1.0;
  raw_ostream &OS = outs();
  if (Format == "json") {
    json::Array Rows;
    for (const Unmapped *U : Sorted) {
      json::Array Stack, Near, Cands;
      for (auto &[Name, Dims] : U->Stack)
        Stack.push_back(json::Object{{"op", Name}, {"dims", Dims}});
      for (const Mapping::NearMiss &N : U->Near)
        Near.push_back(json::Object{{"rule", N.Rule->Name},
                                    {"operator", N.Rule->Operator},
                                    {"composite", N.Rule->isComposite()},
                                    {"why", N.Why}});
      for (const Candidate *C : U->Cands)
        Cands.push_back(
            json::Object{{"operator", C->Operator}, {"note", C->Note}});
      json::Array Types;
      for (const std::string &T : U->Types)
        Types.push_back(T);
      Rows.push_back(
          json::Object{{"kernel", U->Kernel},
                       {"op", U->Op},
                       {"share", std::round(U->Ns / Total * 1e6) / 1e6},
                       {"kernel_time_us", std::round(U->Ns / 1e3 * 1e3) / 1e3},
                       {"calls", int64_t(U->Calls)},
                       {"stack", std::move(Stack)},
                       {"types", std::move(Types)},
                       {"near_misses", std::move(Near)},
                       {"candidates", std::move(Cands)},
                       {"suggestion", suggestion(*U)}});
    }
    json::Array Traces;
    for (const std::string &P : Inputs)
      Traces.push_back(sys::path::filename(P).str());
    json::Value Doc = json::Object{
        {"format", "atrex-trace-explain"},
        {"version", 1},
        {"traces", std::move(Traces)},
        {"kernels", int64_t(Kernels)},
        {"kernel_time_us", std::round(TotalNs / 1e3 * 1e3) / 1e3},
        {"unmapped_share", std::round(UnmappedNs / Total * 1e6) / 1e6},
        {"unmapped_groups", int64_t(Groups.size())},
        {"unmapped", std::move(Rows)}};
    OS << formatv("{0:2}", Doc) << "\n";
    return 0;
  }
  OS << formatv("{0} kernels, {1:F3} ms kernel time, {2:F1}% unmapped in {3} "
                "(kernel, op) groups; the largest {4}:\n",
                Kernels, TotalNs / 1e6, UnmappedNs / Total * 100.0,
                Groups.size(), Sorted.size());
  unsigned N = 0;
  for (const Unmapped *U : Sorted) {
    StringRef Name = U->Kernel;
    std::string Short =
        Name.size() > 140 ? Name.take_front(137).str() + "..." : Name.str();
    OS << formatv("\n{0,2}. {1,5:F1}% {2,6} calls  {3}\n", ++N,
                  U->Ns / Total * 100.0, U->Calls, Short);
    if (U->Stack.empty())
      OS << "    launched by: (no launching op)\n";
    else {
      OS << "    launched by:";
      for (size_t I = 0; I < U->Stack.size() && I < 4; ++I)
        OS << (I ? " < " : " ") << U->Stack[I].first
           << (U->Stack[I].second.empty() ? "" : " " + U->Stack[I].second);
      OS << "\n";
    }
    if (!U->Types.empty())
      OS << "    types: [" << join(U->Types, ", ") << "]\n";
    for (size_t I = 1; I < U->Near.size() && I < 3; ++I) {
      const MapRule &R = *U->Near[I].Rule;
      OS << "    also near: '" << (R.Name.empty() ? R.Operator : R.Name)
         << "' (" << R.Operator << "): " << U->Near[I].Why << "\n";
    }
    OS << "    -> " << suggestion(*U) << "\n";
  }
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(ToolCat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "atrex-trace: importance weights and hot shapes from profiler traces\n");
  if (Reader != "fast" && Reader != "reference")
    return fail("--reader must be fast or reference, not '" + Reader + "'");
  if (PrintFeatures) {
    outs() << "kineto-json\n";
    if (Trace::hasNsysSupport())
      outs() << "nsys-sqlite\n";
    if (Trace::hasGzipSupport())
      outs() << "kineto-json-gz\n";
    return 0;
  }
  if (Command.empty())
    return fail("missing command (expected ingest, kernels, check-map or "
                "explain)");
  auto Map = Mapping::load(atrex::dataPath(MapPath, ATREX_SOURCE_DIR, argv[0]));
  if (!Map)
    return fail(toString(Map.takeError()));
  if (Command == "ingest")
    return runIngest(*Map);
  if (Command == "kernels")
    return runKernels(*Map);
  if (Command == "check-map")
    return runCheckMap(*Map);
  if (Command == "explain")
    return runExplain(*Map);
  return fail("unknown command '" + Command +
              "' (expected ingest, kernels, check-map or explain)");
}
