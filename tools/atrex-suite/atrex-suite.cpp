//===- atrex-suite.cpp - build, check and plan a benchmark suite ----------===//
//
// Part of atrex (`atrex suite ...`, docs/suite.md):
//
//   atrex-suite build [--config suites/atrex-serve/suite.yaml] [-o FILE]
//                     [--weights W.json]
//   atrex-suite check [--suite suites/atrex-serve/suite.json]
//                     [--suite-dir DIR] [--ref-list FILE]
//   atrex-suite plan --set DIR --sealed sealed.json --gpu H200
//                    [--visibility all|public] [--max-per-op N]
//                    [--weights FILE] [--seed random|N] -o plan.json
//
//===----------------------------------------------------------------------===//

#include "atrex-rt/Protocol.h"
#include "atrex/Roofline/OperatorLibrary.h"
#include "atrex/Roofline/Roofline.h"
#include "atrex/Suite/Suite.h"
#include "atrex/Support/DataPath.h"
#include "atrex/Support/JSON.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace atrex;
using namespace atrex::suite;

static cl::OptionCategory ToolCat("atrex-suite options");
static cl::SubCommand BuildCmd("build", "Expand a suite configuration into "
                                        "suite.json");
static cl::SubCommand CheckCmd("check", "Check every problem of suite.json");
static cl::SubCommand PlanCmd("plan", "Write an atrex-gate plan for a "
                                      "submission set");

static cl::opt<std::string>
    ConfigPath(cl::cat(ToolCat), "config", cl::sub(BuildCmd),
               cl::desc("Suite configuration"),
               cl::init("suites/atrex-serve/suite.yaml"));
static cl::opt<std::string>
    Output(cl::cat(ToolCat), "o", cl::sub(BuildCmd), cl::sub(PlanCmd),
           cl::desc("Output file (build: default suite.json next to the "
                    "configuration; '-' for stdout)"));
static cl::opt<std::string>
    Weights(cl::cat(ToolCat), "weights", cl::sub(BuildCmd), cl::sub(PlanCmd),
            cl::desc("build: atrex-weights file (trace-derived) instead of "
                     "the serving-mix model; plan: sealed weights.json "
                     "(default: next to --sealed)"));
static cl::opt<std::string>
    SuitePath(cl::cat(ToolCat), "suite", cl::sub(CheckCmd),
              cl::desc("suite.json"),
              cl::init("suites/atrex-serve/suite.json"));
static cl::opt<std::string>
    SuiteDir(cl::cat(ToolCat), "suite-dir", cl::sub(CheckCmd),
             cl::desc("Directory the suite's relative paths resolve against "
                      "(default: the directory of --suite)"));
static cl::opt<std::string>
    RefList(cl::cat(ToolCat), "ref-list", cl::sub(CheckCmd),
            cl::desc("Write the problems for the reference checks of "
                     "atrex-ref (all-zero / constant outputs) to this file"));
static cl::list<std::string> NvccFlags(
    cl::cat(ToolCat), "nvcc-flag", cl::sub(PlanCmd),
    cl::desc("A flag for every C++ submission's compile (the plan's "
             "nvcc_flags; repeatable). A relative -I<dir> is rewritten "
             "relative to the plan's directory, which the gate resolves it "
             "against"),
    cl::value_desc("flag"));
static cl::opt<std::string> SetDir(cl::cat(ToolCat), "set", cl::sub(PlanCmd),
                                   cl::desc("Submission set: <operator>.cu "
                                            "per operator"));
static cl::opt<std::string> SealedPath(cl::cat(ToolCat), "sealed",
                                       cl::sub(PlanCmd),
                                       cl::desc("sealed.json"));
static cl::opt<std::string> Gpu(cl::cat(ToolCat), "gpu", cl::sub(PlanCmd),
                                cl::desc("GPU of the floors"),
                                cl::init("H200"));
static cl::opt<std::string>
    Visibility(cl::cat(ToolCat), "visibility", cl::sub(PlanCmd),
               cl::desc("all (evaluation) or public (visible problems)"),
               cl::init("all"));
static cl::opt<unsigned>
    MaxPerOp(cl::cat(ToolCat), "max-per-op", cl::sub(PlanCmd),
             cl::desc("At most N problems per operator, heaviest first "
                      "(0: all)"),
             cl::init(0));
static cl::opt<std::string>
    Arch(cl::cat(ToolCat), "arch", cl::sub(PlanCmd),
         cl::desc("settings.arch: the compile target of every submission "
                  "(sm_90, sm_90a, sm_100a, ...; default: the gate's, sm_90). "
                  "Arch-specific targets (a suffix) are needed for Hopper "
                  "wgmma/TMA kernels such as FlashAttention-3 or CUTLASS 3.x "
                  "sm90 GEMMs"),
         cl::value_desc("sm_XY[a]"));
static cl::opt<std::string>
    Seed(cl::cat(ToolCat), "seed", cl::sub(PlanCmd),
         cl::desc("settings.seed: random, sealed (the sealed bundle's "
                  "evaluation seed) or an integer"),
         cl::init("random"));

/// argv[0], for finding the installed share/atrex.
static const char *Argv0 = "";

static ExitOnError ExitOnErr("atrex-suite: error: ");

static Expected<json::Value> readJSON(StringRef Path) {
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return createStringError("cannot read '" + Path +
                             "': " + Buffer.getError().message());
  auto V = json::parse((*Buffer)->getBuffer());
  if (!V)
    return createStringError("'" + Path +
                             "' is not valid JSON: " + toString(V.takeError()));
  return V;
}

static void writeOut(StringRef Path, const json::Value &V) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC)
    ExitOnErr(
        createStringError("cannot write '" + Path + "': " + EC.message()));
  OS << formatv("{0:2}", V) << "\n";
}

static int build() {
  std::string Path = atrex::dataPath(ConfigPath, ATREX_SOURCE_DIR, Argv0);
  Config C = ExitOnErr(loadConfig(Path));
  auto Ops = ExitOnErr(OperatorLibrary::load(C.resolve(C.Ops)));
  auto Gpus = ExitOnErr(loadHardwareTable(C.resolve(C.Hardware)));
  Suite S = ExitOnErr(expandSuite(C, *Ops, Gpus));
  if (!Weights.empty()) {
    WeightAssignment W = ExitOnErr(traceWeights(S, Weights));
    for (Problem &P : S.Problems) {
      P.Weight = W.Weights[P.Id];
      for (Source &Src : P.Sources)
        Src.Weight = 0;
    }
    S.WeightsSource = W.Source;
    if (!W.UnmatchedTrace.empty())
      errs() << "atrex-suite: note: " << W.UnmatchedTrace.size()
             << " trace problem(s) match no suite problem: "
             << join(W.UnmatchedTrace, "; ") << "\n";
    errs() << "atrex-suite: note: " << W.UnmatchedProblems.size()
           << " suite problem(s) have no trace weight (weight 0)\n";
  }
  std::string Out = Output;
  if (Out.empty()) {
    SmallString<256> P(sys::path::parent_path(Path));
    sys::path::append(P, "suite.json");
    Out = std::string(P);
  }
  json::Value V = toJSON(S);
  if (Out == "-")
    outs() << formatv("{0:2}", V) << "\n";
  else
    writeOut(Out, V);
  std::map<std::string, std::pair<int, int>> PerPhase;
  for (const Problem &P : S.Problems)
    (P.Phase == "decode" ? PerPhase[P.Operator].first
                         : PerPhase[P.Operator].second)++;
  errs() << "atrex-suite: " << S.Problems.size() << " problems ("
         << count_if(S.Problems,
                     [](const Problem &P) { return P.Phase == "decode"; })
         << " decode, "
         << count_if(S.Problems,
                     [](const Problem &P) { return P.Phase == "prefill"; })
         << " prefill, "
         << count_if(S.Problems,
                     [](const Problem &P) { return P.Visibility == "public"; })
         << " public) over " << PerPhase.size() << " operators";
  if (Out != "-")
    errs() << " -> " << Out;
  errs() << "\n";
  return 0;
}

static int check() {
  std::string Path = atrex::dataPath(SuitePath, ATREX_SOURCE_DIR, Argv0);
  Suite S = ExitOnErr(readSuite(Path, SuiteDir));
  auto Ops = ExitOnErr(OperatorLibrary::load(S.resolve(S.Ops)));
  auto Specs = ExitOnErr(readEntrySpecs(S.resolve(S.Specs)));
  ExitOnErr(checkSuite(S, *Ops, Specs));
  if (!RefList.empty()) {
    json::Array Problems;
    for (const Problem &P : S.Problems) {
      json::Object Shape;
      for (const auto &[K, V] : P.EntryShape)
        Shape[K] = V;
      Problems.push_back(
          json::Object{{"id", P.Id},
                       {"operator", P.Operator},
                       {"shape", std::move(Shape)},
                       {"shape_arg", shapeString(P.EntryShape)}});
    }
    writeOut(RefList, json::Object{{"format", "atrex-ref-checklist"},
                                   {"version", 1},
                                   {"suite", S.Name},
                                   {"problems", std::move(Problems)}});
  }
  outs() << Path << ": " << S.Problems.size() << " problems valid\n";
  return 0;
}

/// The Python submission format of \p File (suite::pythonSubmissionFormat).
/// \p Path (absolute, without dots) relative to the directory \p Base
/// (absolute, without dots): "sets/naive/x.cu", "../../examples/x.cu".
static std::string relativeTo(StringRef Path, StringRef Base) {
  SmallVector<StringRef> P, B;
  for (auto I = sys::path::begin(Path), E = sys::path::end(Path); I != E; ++I)
    P.push_back(*I);
  for (auto I = sys::path::begin(Base), E = sys::path::end(Base); I != E; ++I)
    B.push_back(*I);
  size_t Common = 0;
  while (Common < P.size() && Common < B.size() && P[Common] == B[Common])
    ++Common;
  if (Common == 0) // nothing shared (another root): keep it absolute
    return Path.str();
  SmallString<256> Out;
  for (size_t I = Common; I < B.size(); ++I)
    sys::path::append(Out, "..");
  for (size_t I = Common; I < P.size(); ++I)
    sys::path::append(Out, P[I]);
  return Out.empty() ? std::string(".") : std::string(Out);
}

static std::string pythonFormat(StringRef File) {
  auto Buf = MemoryBuffer::getFile(File);
  if (!Buf)
    ExitOnErr(createStringError("cannot read '" + File +
                                "': " + Buf.getError().message()));
  return atrex::suite::pythonSubmissionFormat((*Buf)->getBuffer());
}

static int plan() {
  if (SetDir.empty() || SealedPath.empty() || Output.empty())
    ExitOnErr(createStringError("plan needs --set, --sealed and -o"));
  if (Visibility != "all" && Visibility != "public")
    ExitOnErr(createStringError("--visibility must be all or public"));
  json::Value Sealed = ExitOnErr(readJSON(SealedPath));
  const json::Object *Root = Sealed.getAsObject();
  if (!Root || Root->getString("format") != "atrex-sealed")
    ExitOnErr(createStringError(SealedPath + ": not an atrex-sealed file"));
  std::string WeightsPath = Weights;
  if (WeightsPath.empty()) {
    SmallString<256> P(sys::path::parent_path(SealedPath));
    sys::path::append(P, "weights.json");
    if (sys::fs::exists(P))
      WeightsPath = std::string(P);
  }
  std::map<std::string, double> W;
  if (!WeightsPath.empty()) {
    json::Value WV = ExitOnErr(readJSON(WeightsPath));
    const json::Object *WO = WV.getAsObject();
    if (const json::Object *Map = WO ? WO->getObject("weights") : nullptr)
      for (const auto &E : *Map)
        W[E.first.str()] = E.second.getAsNumber().value_or(0);
  }
  json::Value SeedJSON = "random";
  if (Seed == "sealed") {
    const json::Object *Seeds = Root->getObject("seeds");
    auto N = Seeds ? atrex::getInteger(*Seeds, "evaluation") : std::nullopt;
    if (!N)
      ExitOnErr(createStringError(SealedPath + ": no seeds.evaluation"));
    SeedJSON = *N;
  } else if (Seed != "random") {
    int64_t N = 0;
    if (StringRef(Seed).getAsInteger(10, N) || N < 0)
      ExitOnErr(createStringError("--seed must be random, sealed or a "
                                  "non-negative integer"));
    SeedJSON = N;
  }
  if (!Arch.empty() && !atrex::rt::protocol::isCudaArch(Arch))
    ExitOnErr(createStringError(
        "--arch '" + Arch + "' is not a CUDA target such as sm_90 or sm_90a"));

  struct Entry {
    std::string Id;
    double Weight;
    json::Object Problem;
  };
  std::map<std::string, std::vector<Entry>> ByOp;
  const json::Array *Problems = Root->getArray("problems");
  if (!Problems)
    ExitOnErr(createStringError(SealedPath + ": missing 'problems'"));
  for (const json::Value &PV : *Problems) {
    const json::Object *P = PV.getAsObject();
    std::string Id = P->getString("id").value_or("").str();
    if (Visibility == "public" && P->getString("visibility") != "public")
      continue;
    const json::Object *Roof = P->getObject("roofline");
    const json::Object *R = Roof ? Roof->getObject(Gpu) : nullptr;
    if (!R)
      ExitOnErr(createStringError(SealedPath + ": problems[" + Id +
                                  "]: no roofline for GPU '" + Gpu + "'"));
    auto Floor = R->getNumber("t_floor_s");
    if (!Floor)
      Floor = R->getNumber("t_roofline_datasheet_s");
    if (!Floor)
      ExitOnErr(createStringError(SealedPath + ": problems[" + Id +
                                  "].roofline." + Gpu + ": no floor"));
    const json::Value *Shape = P->get("shape");
    if (!Shape)
      ExitOnErr(
          createStringError(SealedPath + ": problems[" + Id + "]: no shape"));
    json::Object Extra{{"phase", P->getString("phase").value_or("")}};
    if (W.count(Id))
      Extra["weight"] = W[Id];
    ByOp[P->getString("operator").value_or("").str()].push_back(
        Entry{Id, W.count(Id) ? W[Id] : 0.0,
              json::Object{{"id", Id},
                           {"shape", *Shape},
                           {"floor_s", *Floor},
                           {"extra", std::move(Extra)}}});
  }

  SmallString<256> PlanDir(Output);
  sys::fs::make_absolute(PlanDir);
  sys::path::remove_filename(PlanDir);
  SmallString<256> SetAbs(SetDir);
  sys::fs::make_absolute(SetAbs);
  sys::path::remove_dots(SetAbs, /*remove_dot_dot=*/true);
  sys::path::remove_dots(PlanDir, /*remove_dot_dot=*/true);
  std::string SetName = sys::path::filename(SetAbs).str();
  json::Array Submissions;
  std::vector<std::string> Missing;
  for (auto &[Op, Entries] : ByOp) {
    // <op>.cu, <op>.hip or <op>.py: the language is the file's; two of them
    // for one operator are ambiguous.
    SmallString<256> Source;
    std::string Lang;
    for (auto [Ext, L] : {std::pair<StringRef, StringRef>{".cu", "cuda"},
                          {".hip", "hip"},
                          {".py", "python"}}) {
      SmallString<256> F(SetAbs);
      sys::path::append(F, Op + Ext);
      if (!sys::fs::exists(F))
        continue;
      if (!Source.empty())
        ExitOnErr(createStringError("'" + SetDir +
                                    "' has two submissions "
                                    "for '" +
                                    Op + "': " + sys::path::filename(Source) +
                                    " and " + sys::path::filename(F)));
      Source = F;
      Lang = L.str();
    }
    if (Source.empty()) {
      Missing.push_back(Op);
      continue;
    }
    json::Object Sub{
        {"name", SetName + "/" + Op}, {"operator", Op}, {"lang", Lang}};
    if (Lang == "python")
      Sub["format"] = pythonFormat(Source);
    // Relative to the plan's directory (the gate resolves it there): the plan
    // and the set travel together (to the GPU machine, a fleet node).
    std::string Rel = relativeTo(Source, PlanDir);
    llvm::stable_sort(Entries, [](const Entry &A, const Entry &B) {
      return A.Weight != B.Weight ? A.Weight > B.Weight : A.Id < B.Id;
    });
    if (MaxPerOp && Entries.size() > MaxPerOp)
      Entries.resize(MaxPerOp);
    llvm::sort(Entries,
               [](const Entry &A, const Entry &B) { return A.Id < B.Id; });
    json::Array List;
    for (Entry &E : Entries)
      List.push_back(std::move(E.Problem));
    Sub["source"] = Rel;
    if (Lang != "python" && !NvccFlags.empty()) {
      // Include directories (-I<dir>, -isystem<dir>, or the flag and the
      // directory as two flags) relative to the plan's directory.
      auto Rebase = [&](StringRef Dir) -> std::string {
        if (sys::path::is_absolute(Dir))
          return Dir.str();
        SmallString<256> Abs(Dir);
        sys::fs::make_absolute(Abs);
        sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
        return relativeTo(Abs, PlanDir);
      };
      json::Array Flags;
      bool DirNext = false;
      for (StringRef F : NvccFlags) {
        if (DirNext) {
          Flags.push_back(Rebase(F));
          DirNext = false;
          continue;
        }
        DirNext = F == "-I" || F == "-isystem";
        StringRef Opt = F.starts_with("-isystem") ? "-isystem"
                        : F.starts_with("-I")     ? "-I"
                                                  : "";
        if (!Opt.empty() && F.size() > Opt.size())
          Flags.push_back((Opt + Rebase(F.drop_front(Opt.size()))).str());
        else
          Flags.push_back(F.str());
      }
      Sub["nvcc_flags"] = std::move(Flags);
    }
    Sub["problems"] = std::move(List);
    Submissions.push_back(std::move(Sub));
  }
  if (Submissions.empty())
    ExitOnErr(createStringError(
        "no <operator>.cu, .hip or .py of the suite in '" + SetDir + "'"));
  if (!Missing.empty())
    errs() << "atrex-suite: note: no submission in '" << SetDir
           << "' for: " << join(Missing, ", ") << "\n";
  json::Object Settings{{"gpu", Gpu.getValue()}, {"seed", SeedJSON}};
  if (!Arch.empty())
    Settings["arch"] = Arch.getValue();
  writeOut(Output, json::Object{{"schema", atrex::rt::protocol::kPlanSchema},
                                {"settings", std::move(Settings)},
                                {"submissions", std::move(Submissions)}});
  return 0;
}

int main(int argc, char **argv) {
  Argv0 = argv[0];
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(ToolCat);
  cl::HideUnrelatedOptions(ToolCat, BuildCmd);
  cl::HideUnrelatedOptions(ToolCat, CheckCmd);
  cl::HideUnrelatedOptions(ToolCat, PlanCmd);
  cl::ParseCommandLineOptions(argc, argv,
                              "atrex suite: build, check and plan a "
                              "benchmark suite (docs/suite.md)\n");
  if (BuildCmd)
    return build();
  if (CheckCmd)
    return check();
  if (PlanCmd)
    return plan();
  errs() << "atrex-suite: error: give a command: build, check or plan "
            "(--help)\n";
  return 1;
}
