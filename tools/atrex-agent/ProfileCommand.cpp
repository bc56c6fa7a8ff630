//===- ProfileCommand.cpp - `atrex agent profile|diagnose` ----------------===//
//
// Part of atrex (docs/agent.md, "Profiling and diagnosis"):
//
//   atrex-agent profile (--problem ID | --op OP --shape K=V,...) --source FILE
//                       [--ncu PATH] [--gate PATH] [--gate-worker PATH]
//                       [--gate-settings JSON] [--dir DIR] [--launch-skip N]
//                       [--launch-count N] [--ncu-metrics LIST]
//                       [--suite suite.json] [--gpu H200] [--format text|json]
//   atrex-agent diagnose --csv NCU.csv (--problem ID | --op OP --shape K=V)
//                       [--median-us US] [--kernel REGEX] [--suite ...]
//                       [--gpu H200] [--format text|json]
//   atrex-agent run ... --profile [--ncu PATH] [--profile-launch-skip N]
//                       [--profile-launch-count N] [--ncu-metrics LIST]
//
//===----------------------------------------------------------------------===//

#include "ProfileCommand.h"

#include "atrex/Agent/Evaluate.h"
#include "atrex/Agent/Process.h"
#include "atrex/Agent/Profile.h"
#include "atrex/Support/DataPath.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace llvm;

namespace atrex::agent {

static cl::OptionCategory ProfCat("atrex-agent profile options");
static cl::SubCommand ProfCmd("profile",
                              "Gate a candidate on one problem, profile its "
                              "own kernels with Nsight Compute and diagnose "
                              "them");
static cl::SubCommand DiagCmd("diagnose", "Diagnose a saved Nsight Compute "
                                          "CSV (--csv --page raw) against a "
                                          "problem's roofline");

static cl::opt<std::string> PSuite("suite", cl::sub(ProfCmd), cl::sub(DiagCmd),
                                   cl::cat(ProfCat), cl::desc("suite.json"),
                                   cl::init("suites/atrex-serve/suite.json"));
static cl::opt<std::string> PProblem("problem", cl::sub(ProfCmd),
                                     cl::sub(DiagCmd), cl::cat(ProfCat),
                                     cl::desc("Problem id of the suite"));
static cl::opt<std::string> POp("op", cl::sub(ProfCmd), cl::sub(DiagCmd),
                                cl::cat(ProfCat),
                                cl::desc("Operator (with --shape)"));
static cl::opt<std::string>
    PShape("shape", cl::sub(ProfCmd), cl::sub(DiagCmd), cl::cat(ProfCat),
           cl::desc("Entry shape K=V,... of the operator's problem"));
static cl::opt<std::string> PGpu("gpu", cl::sub(ProfCmd), cl::sub(DiagCmd),
                                 cl::cat(ProfCat),
                                 cl::desc("GPU of the hardware table"),
                                 cl::init("H200"));
static cl::opt<std::string> PFormat("format", cl::sub(ProfCmd),
                                    cl::sub(DiagCmd), cl::cat(ProfCat),
                                    cl::desc("text or json"), cl::init("text"));
static cl::opt<std::string> PSource("source", cl::sub(ProfCmd),
                                    cl::cat(ProfCat),
                                    cl::desc("The candidate submission"));
static cl::opt<std::string>
    PNcu("ncu", cl::sub(ProfCmd), cl::cat(ProfCat),
         cl::desc("Nsight Compute's ncu (default: $ATREX_NCU, "
                  "$CUDA_PATH/bin, /usr/local/cuda/bin, PATH)"));
static cl::opt<std::string> PGate("gate", cl::sub(ProfCmd), cl::cat(ProfCat),
                                  cl::desc("atrex-gate (default: beside this "
                                           "tool, ../runtime/bin, PATH)"));
static cl::opt<std::string> PGateWorker("gate-worker", cl::sub(ProfCmd),
                                        cl::cat(ProfCat),
                                        cl::desc("The gate's --worker"));
static cl::opt<std::string>
    PGateSettings("gate-settings", cl::sub(ProfCmd), cl::cat(ProfCat),
                  cl::desc("JSON object merged into the plan's settings"));
static cl::opt<std::string>
    PDir("dir", cl::sub(ProfCmd), cl::cat(ProfCat),
         cl::desc("Directory for the plan, results and profile (default: a "
                  "new temporary directory)"));
static cl::opt<unsigned> PSkip("launch-skip", cl::sub(ProfCmd),
                               cl::cat(ProfCat),
                               cl::desc("ncu --launch-skip (own kernels)"),
                               cl::init(1));
static cl::opt<unsigned> PCount("launch-count", cl::sub(ProfCmd),
                                cl::cat(ProfCat),
                                cl::desc("ncu --launch-count (own kernels)"),
                                cl::init(4));
static cl::opt<std::string>
    PMetrics("ncu-metrics", cl::sub(ProfCmd), cl::cat(ProfCat),
             cl::desc("Comma-separated metrics instead of the default set"));
static cl::opt<unsigned> PTimeout("ncu-timeout", cl::sub(ProfCmd),
                                  cl::cat(ProfCat),
                                  cl::desc("Seconds for the profiled gate run"),
                                  cl::init(1800));
static cl::opt<std::string> DCsv("csv", cl::sub(DiagCmd), cl::cat(ProfCat),
                                 cl::desc("ncu's CSV (--csv --page raw)"));
static cl::opt<double>
    DMedian("median-us", cl::sub(DiagCmd), cl::cat(ProfCat),
            cl::desc("The gate's median of the same candidate (host gaps)"));
static cl::opt<std::string>
    DKernel("kernel", cl::sub(DiagCmd), cl::cat(ProfCat),
            cl::desc("Only kernels whose name matches this regex are the "
                     "candidate's (default: every kernel of the CSV)"));

// `run`'s options, registered on its subcommand by prepareProfileCommand.
static std::unique_ptr<cl::opt<bool>> RunProfile;
static std::unique_ptr<cl::opt<std::string>> RunNcu, RunMetrics;
static std::unique_ptr<cl::opt<unsigned>> RunSkip, RunCount, RunTimeout;

static ExitOnError ProfExit("atrex-agent: error: ");

void prepareProfileCommand(cl::SubCommand &Run) {
  RunProfile = std::make_unique<cl::opt<bool>>(
      "profile", cl::sub(Run),
      cl::desc("Profile every candidate whose gate passed with Nsight "
               "Compute and diagnose it (docs/agent.md)"));
  RunNcu = std::make_unique<cl::opt<std::string>>(
      "ncu", cl::sub(Run),
      cl::desc("--profile: ncu (default: $ATREX_NCU, $CUDA_PATH/bin, "
               "/usr/local/cuda/bin, PATH)"));
  RunMetrics = std::make_unique<cl::opt<std::string>>(
      "ncu-metrics", cl::sub(Run),
      cl::desc("--profile: comma-separated metrics instead of the default "
               "set"));
  RunSkip = std::make_unique<cl::opt<unsigned>>(
      "profile-launch-skip", cl::sub(Run),
      cl::desc("--profile: ncu --launch-skip"), cl::init(1));
  RunCount = std::make_unique<cl::opt<unsigned>>(
      "profile-launch-count", cl::sub(Run),
      cl::desc("--profile: ncu --launch-count"), cl::init(4));
  RunTimeout = std::make_unique<cl::opt<unsigned>>(
      "profile-timeout", cl::sub(Run),
      cl::desc("--profile: seconds for one profiled gate run"), cl::init(1800));
  cl::HideUnrelatedOptions(ProfCat, ProfCmd);
  cl::HideUnrelatedOptions(ProfCat, DiagCmd);
}

static std::vector<std::string> metricList(StringRef Text) {
  std::vector<std::string> Out;
  SmallVector<StringRef> Parts;
  Text.split(Parts, ',', -1, false);
  for (StringRef P : Parts)
    if (!P.trim().empty())
      Out.push_back(P.trim().str());
  return Out;
}

void applyRunProfileOptions(RunOptions &O) {
  if (!RunProfile || !*RunProfile)
    return;
  if (O.Eval.NoGate)
    ProfExit(createStringError("--profile profiles the gate's run: it cannot "
                               "be combined with --no-gate"));
  O.Profile = true;
  // No ncu is not a usage error: every profile records it (profile_error).
  O.Prof.Ncu = ProfExit(findNcu(*RunNcu));
  O.Prof.GatePath = O.Eval.GatePath;
  O.Prof.GateWorker = O.Eval.GateWorker;
  O.Prof.GateCache = O.Eval.GateCache;
  O.Prof.LaunchSkip = *RunSkip;
  O.Prof.LaunchCount = *RunCount;
  O.Prof.TimeoutS = *RunTimeout;
  O.Prof.Metrics = metricList(*RunMetrics);
  if (O.Prof.LaunchCount == 0)
    ProfExit(createStringError("--profile-launch-count must be > 0"));
  if (O.Prof.Ncu.empty())
    errs() << "atrex-agent: warning: --profile: ncu not found; every profile "
              "will be recorded as failed (give --ncu PATH)\n";
}

static Problem problem(const char *Argv0) {
  ProblemQuery Q;
  Q.SuitePath = atrex::dataPath(PSuite, ATREX_SOURCE_DIR, Argv0);
  Q.Id = PProblem;
  Q.Operator = POp;
  Q.Shape = PShape;
  Q.Gpu = PGpu;
  return ProfExit(loadProblem(Q));
}

static std::string absolute(StringRef Path) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, true);
  return std::string(Abs);
}

static void printHead(raw_ostream &OS, const Problem &P) {
  OS << formatv("atrex-agent: {0} {1} ({2}) on {3}: T_roofline {4:F3} us "
                "({5}-bound, {6} ceiling)\n",
                P.Operator, P.Id, shapeText(P.Shape), P.Gpu, P.TRooflineS * 1e6,
                P.Regime, P.Ceiling);
}

static int profile(const char *Argv0) {
  if (PFormat != "text" && PFormat != "json")
    ProfExit(createStringError("--format must be text or json"));
  if (PSource.empty())
    ProfExit(createStringError("profile: give --source FILE (the candidate)"));
  if (!sys::fs::exists(PSource))
    ProfExit(createStringError("--source '" + PSource + "': no such file"));
  if (PCount == 0)
    ProfExit(createStringError("--launch-count must be > 0"));
  Problem P = problem(Argv0);
  std::string SelfExe = sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&prepareProfileCommand));
  ProfileOptions PO;
  PO.Ncu = ProfExit(findNcu(PNcu));
  if (PO.Ncu.empty())
    ProfExit(createStringError("ncu not found (give --ncu PATH or set "
                               "ATREX_NCU; looked in $CUDA_PATH/bin, "
                               "/usr/local/cuda/bin and PATH)"));
  std::string Dir;
  if (PDir.empty()) {
    SmallString<128> Tmp;
    ProfExit(
        errorCodeToError(sys::fs::createUniqueDirectory("atrex-profile", Tmp)));
    Dir = std::string(Tmp);
  } else {
    Dir = absolute(PDir);
    if (std::error_code EC = sys::fs::create_directories(Dir))
      ProfExit(createStringError(EC, "cannot create '" + Dir +
                                         "': " + EC.message()));
  }
  EvalOptions EO;
  EO.LintPath = findSiblingTool("atrex-lint", SelfExe);
  EO.GatePath =
      PGate.empty() ? findSiblingTool("atrex-gate", SelfExe) : PGate.getValue();
  if (EO.GatePath.empty())
    ProfExit(createStringError("atrex-gate not found (beside atrex-agent, in "
                               "../runtime/bin, on PATH): give --gate PATH"));
  EO.GateWorker = PGateWorker;
  EO.GateCache = Dir + "/gate-cache";
  if (!PGateSettings.empty()) {
    auto V = json::parse(PGateSettings);
    if (!V)
      ProfExit(
          createStringError("--gate-settings: " + toString(V.takeError())));
    if (!V->getAsObject())
      ProfExit(createStringError("--gate-settings: not a JSON object"));
    EO.GateSettings = std::move(*V->getAsObject());
  }
  std::string Source = absolute(PSource);
  // The gate's own run first: its verdict, its median and the attribution
  // that names the own kernels.
  Evaluation E = ProfExit(evaluate(P, Source, Dir, "agent/profile", EO));
  errs() << "atrex-agent: " << diagnosis(E) << "\n";
  if (E.GateStatus != atrex::rt::protocol::kPass) {
    errs() << "atrex-agent: error: the gate did not pass: nothing to profile "
              "(files in "
           << Dir << ")\n";
    return 1;
  }
  PO.GatePath = EO.GatePath;
  PO.GateWorker = EO.GateWorker;
  PO.GateCache = EO.GateCache;
  PO.LaunchSkip = PSkip;
  PO.LaunchCount = PCount;
  PO.TimeoutS = PTimeout;
  PO.Metrics = metricList(PMetrics);
  ProfileRecord R = profileIteration(P, E, Source, Dir, PO);
  if (!R.Diag) {
    errs() << "atrex-agent: error: profile: " << R.Error << "\n";
    return 1;
  }
  if (PFormat == "json") {
    outs() << formatv(
                  "{0:2}",
                  json::Value(json::Object{
                      {"problem", toJSON(P)},
                      {"evaluation", toJSON(E)},
                      {"profile", toJSON(*R.Prof)},
                      {"diagnosis", toJSON(*R.Diag)},
                      {"files", json::Object{{"dir", Dir},
                                             {"csv", R.Prof->CsvFile},
                                             {"profile", R.ProfileFile},
                                             {"diagnosis", R.DiagnosisFile}}}}))
           << "\n";
    return 0;
  }
  printHead(outs(), P);
  outs() << "kernels (" << R.Prof->OwnRule
         << " rule): " << join(R.Prof->OwnNames, ", ") << "\n";
  for (const std::string &N : R.Prof->Notes)
    outs() << "note: " << N << "\n";
  outs() << renderDiagnosis(*R.Diag);
  outs() << "files: " << R.Prof->CsvFile << " " << R.ProfileFile << " "
         << R.DiagnosisFile << "\n";
  return 0;
}

static int diagnoseCsv(const char *Argv0) {
  if (PFormat != "text" && PFormat != "json")
    ProfExit(createStringError("--format must be text or json"));
  if (DCsv.empty())
    ProfExit(createStringError("diagnose: give --csv FILE (ncu --csv --page "
                               "raw)"));
  Problem P = problem(Argv0);
  std::string Text = ProfExit(readFile(DCsv));
  std::vector<NcuLaunch> Launches = ProfExit(parseNcuCsv(Text, DCsv));
  Profile Prof;
  Prof.CsvFile = DCsv;
  Prof.OwnRule = ownrule::kCsv;
  std::optional<Regex> Own;
  if (!DKernel.empty()) {
    Own.emplace(DKernel);
    std::string Why;
    if (!Own->isValid(Why))
      ProfExit(createStringError("--kernel '" + DKernel + "': " + Why));
    Prof.OwnNames.push_back(DKernel);
  }
  for (KernelMetrics &K : aggregateLaunches(Launches)) {
    if (!Own || Own->match(K.Name))
      Prof.Kernels.push_back(std::move(K));
    else
      Prof.Ignored.push_back(K.Name);
  }
  if (Prof.Kernels.empty())
    ProfExit(createStringError(
        DCsv + ": no kernel launch" +
        (Own ? " of a kernel matching '" + DKernel + "'" : std::string()) +
        (Prof.Ignored.empty()
             ? ""
             : " (kernels: " + join(Prof.Ignored, ", ") + ")")));
  llvm::stable_sort(Prof.Kernels,
                    [](const KernelMetrics &A, const KernelMetrics &B) {
                      return A.get("gpu__time_duration.sum").value_or(0) >
                             B.get("gpu__time_duration.sum").value_or(0);
                    });
  for (const std::string &M : defaultMetrics(P.GpuFullName))
    if (none_of(Prof.Kernels,
                [&](const KernelMetrics &K) { return K.Metrics.count(M); }))
      Prof.Missing.push_back(M);
  std::optional<double> Median;
  if (DMedian.getNumOccurrences())
    Median = DMedian;
  Diagnosis D = diagnose(P, Prof, Median);
  if (PFormat == "json") {
    outs() << formatv("{0:2}",
                      json::Value(json::Object{{"problem", toJSON(P)},
                                               {"profile", toJSON(Prof)},
                                               {"diagnosis", toJSON(D)}}))
           << "\n";
    return 0;
  }
  printHead(outs(), P);
  outs() << renderDiagnosis(D);
  return 0;
}

bool runProfileCommand(const char *Argv0, int &ExitStatus) {
  if (ProfCmd)
    ExitStatus = profile(Argv0);
  else if (DiagCmd)
    ExitStatus = diagnoseCsv(Argv0);
  else
    return false;
  return true;
}

} // namespace atrex::agent
