//===- atrex-trace.cpp - importance weights from profiler traces ----------===//
//
//   atrex-trace ingest <trace.json>... [--map FILE] [--fleet FILE]
//                      [--coverage 0.9] [-o weights.json] [--quiet]
//   atrex-trace kernels <trace.json> [--map FILE]
//   atrex-trace check-map [--map FILE] [--ops DIR]
//
// A trace is Kineto chrome-trace JSON or an Nsight Systems SQLite export.
//
// `ingest` maps the GPU kernels of PyTorch profiler traces to suite
// operators and shapes, splits them by phase and writes importance weights
// (docs/formats/weights.md) with a summary table. `kernels` prints every
// kernel joined to its launching op, shapes, annotations and mapping.
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
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <set>

using namespace llvm;
using namespace atrex::trace;

static cl::OptionCategory ToolCat("atrex-trace options");
static cl::opt<std::string> Command(cl::cat(ToolCat), cl::Positional,
                                    cl::desc("<ingest|kernels|check-map>"));
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
static cl::opt<bool>
    PrintFeatures(cl::cat(ToolCat), "print-features",
                  cl::desc("Print the optional input formats built in"),
                  cl::Hidden);

static int fail(const Twine &Msg) {
  errs() << "atrex-trace: error: " << Msg << "\n";
  return 1;
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
  auto T = Trace::load(Inputs[0]);
  if (!T)
    return fail(toString(T.takeError()));
  raw_ostream &OS = outs();
  (*T)->forEachKernel([&](const KernelView &K) {
    Match M = Map.match(K, **T);
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
      OS << " rule='" << M.Rule->Name << "'";
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
/// parameters (rules without dims give no shape and are not compared).
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
    if (R.Dims.empty())
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
    auto T = Trace::load(Path);
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

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(ToolCat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "atrex-trace: importance weights and hot shapes from profiler traces\n");
  if (PrintFeatures) {
    outs() << "kineto-json\n";
    if (Trace::hasNsysSupport())
      outs() << "nsys-sqlite\n";
    if (Trace::hasGzipSupport())
      outs() << "kineto-json-gz\n";
    return 0;
  }
  if (Command.empty())
    return fail("missing command (expected ingest or kernels)");
  auto Map = Mapping::load(atrex::dataPath(MapPath, ATREX_SOURCE_DIR, argv[0]));
  if (!Map)
    return fail(toString(Map.takeError()));
  if (Command == "ingest")
    return runIngest(*Map);
  if (Command == "kernels")
    return runKernels(*Map);
  if (Command == "check-map")
    return runCheckMap(*Map);
  return fail("unknown command '" + Command +
              "' (expected ingest, kernels or check-map)");
}
