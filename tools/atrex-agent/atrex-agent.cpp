//===- atrex-agent.cpp - the measure-revise loop --------------------------===//
//
// Part of atrex (`atrex agent ...`, docs/agent.md):
//
//   atrex-agent run --run-dir DIR (--problem ID | --op OP --shape K=V,...)
//                   --start FILE --command CMD [--gpu H200] [--iterations N]
//                   [--wall-seconds S] [--dropout-after K]
//                   [--dropout-same-kind M] [--min-improvement R]
//                   [--no-gate] [--gate-worker PATH] [--gate-settings JSON]
//                   [--resume]
//   atrex-agent report TRAIL [--format text|md]
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Backend.h"
#include "atrex/Agent/Loop.h"
#include "atrex/Agent/Trail.h"
#include "atrex/Support/DataPath.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace atrex::agent;

static cl::OptionCategory Cat("atrex-agent options");
static cl::SubCommand RunCmd("run", "Run (or resume) the measure-revise loop "
                                    "on one problem");
static cl::SubCommand ReportCmd("report", "Print the trajectory of a trail");

static cl::opt<std::string> RunDir("run-dir", cl::sub(RunCmd), cl::cat(Cat),
                                   cl::desc("Run directory (trail.jsonl, "
                                            "candidates/, iter-NNNN/)"),
                                   cl::Required);
static cl::opt<std::string>
    SuitePath("suite", cl::sub(RunCmd), cl::cat(Cat), cl::desc("suite.json"),
              cl::init("suites/atrex-serve/suite.json"));
static cl::opt<std::string> ProblemId("problem", cl::sub(RunCmd), cl::cat(Cat),
                                      cl::desc("Problem id of the suite"));
static cl::opt<std::string> OpName("op", cl::sub(RunCmd), cl::cat(Cat),
                                   cl::desc("Operator (with --shape)"));
static cl::opt<std::string>
    ShapeOpt("shape", cl::sub(RunCmd), cl::cat(Cat),
             cl::desc("Entry shape K=V,... of the operator's problem"));
static cl::opt<std::string> GpuOpt("gpu", cl::sub(RunCmd), cl::cat(Cat),
                                   cl::desc("GPU of the hardware table"),
                                   cl::init("H200"));
static cl::opt<std::string> StartFile("start", cl::sub(RunCmd), cl::cat(Cat),
                                      cl::desc("Starting submission"));
static cl::opt<std::string>
    BackendOpt("backend", cl::sub(RunCmd), cl::cat(Cat),
               cl::desc("Backend (only 'command' so far)"),
               cl::init("command"));
static cl::opt<std::string>
    CommandOpt("command", cl::sub(RunCmd), cl::cat(Cat),
               cl::desc("The command backend's shell command; placeholders "
                        "{context} {candidate} {best} {tokens} {dir} "
                        "{iteration}"));
static cl::opt<unsigned>
    CommandTimeout("command-timeout", cl::sub(RunCmd), cl::cat(Cat),
                   cl::desc("Seconds per backend command (0: no limit)"),
                   cl::init(0));
static cl::opt<unsigned> Iterations("iterations", cl::sub(RunCmd), cl::cat(Cat),
                                    cl::desc("Candidate iterations in all"),
                                    cl::init(5));
static cl::opt<double>
    WallSeconds("wall-seconds", cl::sub(RunCmd), cl::cat(Cat),
                cl::desc("No new iteration after this many seconds of this "
                         "invocation (0: no limit)"),
                cl::init(0));
static cl::opt<unsigned>
    DropoutAfter("dropout-after", cl::sub(RunCmd), cl::cat(Cat),
                 cl::desc("Dropout after K iterations without improvement "
                          "(0: off)"),
                 cl::init(3));
static cl::opt<unsigned>
    DropoutSameKind("dropout-same-kind", cl::sub(RunCmd), cl::cat(Cat),
                    cl::desc("Dropout after M failures of one kind in a row "
                             "(0: off)"),
                    cl::init(0));
static cl::opt<double>
    MinImprovement("min-improvement", cl::sub(RunCmd), cl::cat(Cat),
                   cl::desc("Minimum relative S_i improvement to accept"),
                   cl::init(0));
static cl::opt<bool> NoGate("no-gate", cl::sub(RunCmd), cl::cat(Cat),
                            cl::desc("Lint only: candidates are not measured "
                                     "and none is accepted"));
static cl::opt<std::string> GateWorker("gate-worker", cl::sub(RunCmd),
                                       cl::cat(Cat),
                                       cl::desc("The gate's --worker"));
static cl::opt<std::string>
    GatePathOpt("gate", cl::sub(RunCmd), cl::cat(Cat),
                cl::desc("atrex-gate (default: beside this tool, the runtime "
                         "build beside it, PATH)"));
static cl::opt<std::string>
    GateSettings("gate-settings", cl::sub(RunCmd), cl::cat(Cat),
                 cl::desc("JSON object merged into the plan's settings"));
static cl::opt<bool> Resume("resume", cl::sub(RunCmd), cl::cat(Cat),
                            cl::desc("Continue the run directory's trail"));

static cl::opt<std::string> TrailPath(cl::Positional, cl::sub(ReportCmd),
                                      cl::desc("TRAIL"), cl::Required);
static cl::opt<std::string> Format("format", cl::sub(ReportCmd), cl::cat(Cat),
                                   cl::desc("text or md"), cl::init("text"));

static ExitOnError ExitOnErr;

/// A sibling tool: beside this executable, then the runtime's build beside
/// it (build/runtime/bin next to build/bin), then PATH.
static std::string findTool(StringRef Name, const char *Argv0) {
  SmallString<256> Dir(
      sys::fs::getMainExecutable(Argv0, reinterpret_cast<void *>(&findTool)));
  sys::path::remove_filename(Dir);
  SmallString<256> Here(Dir);
  sys::path::append(Here, Name);
  if (sys::fs::can_execute(Here))
    return std::string(Here);
  SmallString<256> Runtime(Dir);
  sys::path::append(Runtime, "..", "runtime", "bin", Name);
  if (sys::fs::can_execute(Runtime))
    return std::string(Runtime);
  if (auto Found = sys::findProgramByName(Name))
    return *Found;
  return "";
}

static int run(const char *Argv0) {
  if (BackendOpt != "command")
    ExitOnErr(createStringError("--backend '" + BackendOpt +
                                "': only 'command' is implemented"));
  RunOptions O;
  O.RunDir = RunDir;
  O.StartFile = StartFile;
  O.Resume = Resume;
  O.BackendName = BackendOpt;
  O.Command = CommandOpt;
  O.Loop.Iterations = Iterations;
  O.Loop.WallSeconds = WallSeconds;
  O.Loop.DropoutAfter = DropoutAfter;
  O.Loop.DropoutSameKind = DropoutSameKind;
  O.Loop.MinImprovement = MinImprovement;
  O.Loop.Measured = !NoGate;
  if (MinImprovement < 0)
    ExitOnErr(createStringError("--min-improvement must be >= 0"));

  Problem P;
  if (Resume) {
    auto Records = ExitOnErr(readTrail(RunDir + "/trail.jsonl"));
    Restored R =
        ExitOnErr(replayTrail(RunDir + "/trail.jsonl", Records, RunDir));
    P = R.Prob;
    if (O.Command.empty())
      O.Command = R.Command;
  } else {
    if (StartFile.empty())
      ExitOnErr(createStringError("give --start FILE (the starting "
                                  "submission)"));
    if (!sys::fs::exists(StartFile))
      ExitOnErr(createStringError("--start '" + StartFile + "': no such file"));
    ProblemQuery Q;
    Q.SuitePath = atrex::dataPath(SuitePath, ATREX_SOURCE_DIR, Argv0);
    Q.Id = ProblemId;
    Q.Operator = OpName;
    Q.Shape = ShapeOpt;
    Q.Gpu = GpuOpt;
    P = ExitOnErr(loadProblem(Q));
  }
  if (O.Command.empty())
    ExitOnErr(createStringError("give --command (the command backend's "
                                "command)"));
  if (!StartFile.empty()) {
    SmallString<256> Abs(StartFile);
    sys::fs::make_absolute(Abs);
    O.StartFile = std::string(Abs);
  }
  SmallString<256> AbsRun(RunDir);
  sys::fs::make_absolute(AbsRun);
  sys::path::remove_dots(AbsRun, true);
  O.RunDir = std::string(AbsRun);

  O.Eval.NoGate = NoGate;
  O.Eval.LintPath = findTool("atrex-lint", Argv0);
  if (O.Eval.LintPath.empty())
    ExitOnErr(createStringError("atrex-lint not found beside atrex-agent nor "
                                "on PATH"));
  if (!NoGate) {
    O.Eval.GatePath =
        GatePathOpt.empty() ? findTool("atrex-gate", Argv0) : GatePathOpt;
    if (O.Eval.GatePath.empty())
      ExitOnErr(createStringError("atrex-gate not found (beside atrex-agent, "
                                  "in ../runtime/bin, on PATH): give --gate "
                                  "PATH or --no-gate"));
    O.Eval.GateWorker = GateWorker;
    O.Eval.GateCache = O.RunDir + "/gate-cache";
    if (!GateSettings.empty()) {
      auto V = json::parse(GateSettings);
      if (!V)
        ExitOnErr(
            createStringError("--gate-settings: " + toString(V.takeError())));
      if (!V->getAsObject())
        ExitOnErr(createStringError("--gate-settings: not a JSON object"));
      O.Eval.GateSettings = std::move(*V->getAsObject());
    }
  }
  auto B = createCommandBackend(O.Command, CommandTimeout);
  ExitOnErr(runLoop(P, *B, O, errs()));
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  ExitOnErr.setBanner("atrex-agent: error: ");
  cl::HideUnrelatedOptions(Cat);
  cl::HideUnrelatedOptions(Cat, RunCmd);
  cl::HideUnrelatedOptions(Cat, ReportCmd);
  cl::ParseCommandLineOptions(argc, argv,
                              "atrex agent: the measure-revise loop "
                              "(docs/agent.md)\n");
  if (RunCmd)
    return run(argv[0]);
  if (ReportCmd) {
    auto Records = ExitOnErr(readTrail(TrailPath));
    ExitOnErr(writeReport(TrailPath, Records, Format, outs()));
    return 0;
  }
  errs() << "atrex-agent: error: give a command: run or report (--help)\n";
  return 1;
}
