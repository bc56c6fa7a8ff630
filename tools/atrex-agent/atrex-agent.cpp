//===- atrex-agent.cpp - the measure-revise loop --------------------------===//
//
// Part of atrex (`atrex agent ...`, docs/agent.md):
//
//   atrex-agent run --run-dir DIR (--problem ID | --op OP --shape K=V,...)
//                   --start FILE (--command CMD | --backend search |
//                   --backend openai --model M [--base-url URL]
//                   [--api-key-env NAME] [--max-tokens N] [--temperature T]
//                   [--request-timeout S]) [--gpu H200] [--iterations N]
//                   [--wall-seconds S] [--token-budget N] [--dropout-after K]
//                   [--dropout-same-kind M] [--min-improvement R]
//                   [--no-gate] [--gate-worker PATH] [--gate-settings JSON]
//                   [--resume]
//   atrex-agent report TRAIL [--format text|md]
//   atrex-agent kb build|query|isa ... (KbCommand.cpp)
//   atrex-agent profile|diagnose ... and run --profile (ProfileCommand.cpp)
//   atrex-agent prompt CONTEXT
//
//===----------------------------------------------------------------------===//

#include "KbCommand.h"
#include "ProfileCommand.h"
#include "atrex/Agent/Backend.h"
#include "atrex/Agent/Loop.h"
#include "atrex/Agent/OpenAI.h"
#include "atrex/Agent/Process.h"
#include "atrex/Agent/Templates.h"
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

#include <cstdlib>

using namespace llvm;
using namespace atrex::agent;

static cl::OptionCategory Cat("atrex-agent options");
static cl::SubCommand RunCmd("run", "Run (or resume) the measure-revise loop "
                                    "on one problem");
static cl::SubCommand ReportCmd("report", "Print the trajectory of a trail");
static cl::SubCommand PromptCmd("prompt",
                                "Print the messages the openai backend sends "
                                "for a context document (context.json)");
static cl::SubCommand PrelintCmd("prelint",
                                 "Lint every configuration of an operator's "
                                 "templates (and FILEs) into a lint cache");

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
               cl::desc("Backend: command (--command), search (the "
                        "built-in template search) or openai (an "
                        "OpenAI-compatible chat-completions endpoint)"),
               cl::init("command"));
static cl::opt<std::string>
    TemplatesOpt("templates", cl::sub(RunCmd), cl::sub(PrelintCmd),
                 cl::cat(Cat),
                 cl::desc("Kernel templates of the search backend "
                          "(<dir>/<operator>/*.cu)"),
                 cl::init("kb/templates"));
static cl::opt<std::string>
    LintCacheOpt("lint-cache", cl::sub(RunCmd), cl::sub(PrelintCmd),
                 cl::cat(Cat),
                 cl::desc("Lint reports by source hash: read before running "
                          "atrex-lint, written after (a hit needs no "
                          "atrex-lint)"));
static cl::opt<std::string> PrelintOp("op", cl::sub(PrelintCmd), cl::cat(Cat),
                                      cl::desc("Operator"), cl::Required);
static cl::list<std::string> PrelintFiles(cl::Positional, cl::sub(PrelintCmd),
                                          cl::desc("[FILE...]"));
static cl::opt<std::string>
    CommandOpt("command", cl::sub(RunCmd), cl::cat(Cat),
               cl::desc("The command backend's shell command; placeholders "
                        "{context} {candidate} {best} {tokens} {dir} "
                        "{iteration}"));
static cl::opt<unsigned>
    CommandTimeout("command-timeout", cl::sub(RunCmd), cl::cat(Cat),
                   cl::desc("Seconds per backend command (0: no limit)"),
                   cl::init(0));
static cl::opt<std::string>
    BaseURL("base-url", cl::sub(RunCmd), cl::cat(Cat),
            cl::desc("openai: the API's base URL (default: $OPENAI_BASE_URL, "
                     "else https://api.openai.com/v1)"));
static cl::opt<std::string> ModelOpt("model", cl::sub(RunCmd), cl::cat(Cat),
                                     cl::desc("openai: the model"));
static cl::opt<std::string>
    ApiKeyEnv("api-key-env", cl::sub(RunCmd), cl::cat(Cat),
              cl::desc("openai: the environment variable holding the API "
                       "key (unset or empty: no Authorization header)"),
              cl::init("OPENAI_API_KEY"));
static cl::opt<unsigned> MaxTokensOpt("max-tokens", cl::sub(RunCmd),
                                      cl::cat(Cat),
                                      cl::desc("openai: max_tokens of a reply "
                                               "(default: the server's)"));
static cl::opt<double>
    TemperatureOpt("temperature", cl::sub(RunCmd), cl::cat(Cat),
                   cl::desc("openai: sampling temperature (default: the "
                            "server's)"));
static cl::opt<unsigned>
    RequestTimeout("request-timeout", cl::sub(RunCmd), cl::cat(Cat),
                   cl::desc("openai: seconds per request attempt"),
                   cl::init(600));
static cl::opt<unsigned>
    RequestAttempts("request-attempts", cl::sub(RunCmd), cl::cat(Cat),
                    cl::desc("openai: attempts per request (connection "
                             "errors, 429 and 5xx are retried)"),
                    cl::init(4));
static cl::opt<double>
    RetryBackoff("retry-backoff", cl::sub(RunCmd), cl::cat(Cat),
                 cl::desc("openai: seconds before the first retry, doubled "
                          "each time (a Retry-After header overrides)"),
                 cl::init(2));
static cl::opt<uint64_t>
    TokenBudget("token-budget", cl::sub(RunCmd), cl::cat(Cat),
                cl::desc("No new iteration once the run's tokens in + out "
                         "reach N (resume included; 0: no limit)"),
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
static cl::opt<std::string>
    KbIndexOpt("kb-index", cl::sub(RunCmd), cl::cat(Cat),
               cl::desc("Knowledge-base index (atrex agent kb build), queried "
                        "before every backend call (resume: the trail's)"));
static cl::opt<unsigned> KbLimitOpt("kb-limit", cl::sub(RunCmd), cl::cat(Cat),
                                    cl::desc("Hits per retrieval"),
                                    cl::init(6));

static cl::opt<std::string> TrailPath(cl::Positional, cl::sub(ReportCmd),
                                      cl::desc("TRAIL"), cl::Required);
static cl::opt<std::string> Format("format", cl::sub(ReportCmd), cl::cat(Cat),
                                   cl::desc("text, md or html"),
                                   cl::init("text"));

static cl::opt<std::string> PromptContext(cl::Positional, cl::sub(PromptCmd),
                                          cl::desc("CONTEXT"), cl::Required);

static ExitOnError ExitOnErr;

/// A sibling tool (findSiblingTool).
static std::string findTool(StringRef Name, const char *Argv0) {
  return findSiblingTool(Name, sys::fs::getMainExecutable(
                                   Argv0, reinterpret_cast<void *>(&findTool)));
}

/// The openai backend's options; the key stays in its variable.
static OpenAIOptions openAIOptions() {
  OpenAIOptions O;
  if (!BaseURL.empty())
    O.BaseURL = BaseURL;
  else if (const char *Env = std::getenv("OPENAI_BASE_URL"); Env && *Env)
    O.BaseURL = Env;
  O.Model = ModelOpt;
  O.ApiKeyEnv = ApiKeyEnv;
  if (O.ApiKeyEnv.empty())
    ExitOnErr(createStringError("--api-key-env: give a variable name"));
  if (MaxTokensOpt.getNumOccurrences())
    O.MaxTokens = MaxTokensOpt;
  if (TemperatureOpt.getNumOccurrences()) {
    if (TemperatureOpt < 0)
      ExitOnErr(createStringError("--temperature must be >= 0"));
    O.Temperature = TemperatureOpt;
  }
  if (RequestTimeout == 0)
    ExitOnErr(createStringError("--request-timeout must be > 0"));
  if (RequestAttempts == 0)
    ExitOnErr(createStringError("--request-attempts must be > 0"));
  if (RetryBackoff < 0)
    ExitOnErr(createStringError("--retry-backoff must be >= 0"));
  O.RequestTimeoutS = RequestTimeout;
  O.Attempts = RequestAttempts;
  O.BackoffS = RetryBackoff;
  return O;
}

static int run(const char *Argv0) {
  if (BackendOpt != "command" && BackendOpt != "search" &&
      BackendOpt != "openai")
    ExitOnErr(createStringError("--backend '" + BackendOpt +
                                "': 'command', 'search' or 'openai'"));
  RunOptions O;
  O.RunDir = RunDir;
  O.StartFile = StartFile;
  O.Resume = Resume;
  O.BackendName = BackendOpt;
  O.Command = CommandOpt;
  O.KbIndex = KbIndexOpt;
  O.KbLimit = KbLimitOpt;
  O.Loop.Iterations = Iterations;
  O.Loop.WallSeconds = WallSeconds;
  O.Loop.DropoutAfter = DropoutAfter;
  O.Loop.DropoutSameKind = DropoutSameKind;
  O.Loop.MinImprovement = MinImprovement;
  O.Loop.Measured = !NoGate;
  O.Loop.TokenBudget = TokenBudget;
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
    if (O.KbIndex.empty())
      O.KbIndex = R.KbIndex;
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
  if (O.Command.empty() && BackendOpt == "command")
    ExitOnErr(createStringError("give --command (the command backend's "
                                "command)"));
  if (!StartFile.empty()) {
    SmallString<256> Abs(StartFile);
    sys::fs::make_absolute(Abs);
    O.StartFile = std::string(Abs);
  }
  if (!O.KbIndex.empty()) {
    SmallString<256> Abs(O.KbIndex);
    sys::fs::make_absolute(Abs);
    O.KbIndex = std::string(Abs);
  }
  SmallString<256> AbsRun(RunDir);
  sys::fs::make_absolute(AbsRun);
  sys::path::remove_dots(AbsRun, true);
  O.RunDir = std::string(AbsRun);

  O.Eval.NoGate = NoGate;
  O.Eval.LintPath = findTool("atrex-lint", Argv0);
  O.Eval.LintCache = LintCacheOpt;
  if (O.Eval.LintPath.empty() && LintCacheOpt.empty())
    ExitOnErr(createStringError("atrex-lint not found beside atrex-agent nor "
                                "on PATH (or give --lint-cache DIR with "
                                "the candidates' reports)"));
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
  applyRunProfileOptions(O); // --profile (ProfileCommand.cpp)
  std::unique_ptr<Backend> B;
  if (BackendOpt == "search")
    B = ExitOnErr(createSearchBackend(
        atrex::dataPath(TemplatesOpt, ATREX_SOURCE_DIR, Argv0), P.Operator));
  else if (BackendOpt == "openai")
    B = ExitOnErr(createOpenAIBackend(openAIOptions()));
  else
    B = createCommandBackend(O.Command, CommandTimeout);
  ExitOnErr(runLoop(P, *B, O, errs()));
  return 0;
}

/// Lints every admissible configuration of the operator's templates and the
/// FILEs into the lint cache (what `run --lint-cache` reads where no
/// atrex-lint is installed).
static int prelint(const char *Argv0) {
  if (LintCacheOpt.empty())
    ExitOnErr(createStringError("give --lint-cache DIR"));
  std::string Lint = findTool("atrex-lint", Argv0);
  if (Lint.empty())
    ExitOnErr(createStringError("atrex-lint not found beside atrex-agent nor "
                                "on PATH"));
  std::vector<std::pair<std::string, std::string>> Sources; // name, text
  for (const std::string &F : PrelintFiles)
    Sources.emplace_back(F, ExitOnErr(readFile(F)));
  auto Templates = ExitOnErr(loadTemplates(
      atrex::dataPath(TemplatesOpt, ATREX_SOURCE_DIR, Argv0), PrelintOp));
  for (const KernelTemplate &T : Templates)
    for (const Config &C : ExitOnErr(T.space()))
      Sources.emplace_back(T.Family + " " + configText(T, C),
                           instantiate(T, C));
  SmallString<128> Tmp;
  ExitOnErr(
      errorCodeToError(sys::fs::createUniqueDirectory("atrex-prelint", Tmp)));
  unsigned Cached = 0, Linted = 0, Failed = 0;
  for (size_t I = 0; I < Sources.size(); ++I) {
    const auto &[Name, Text] = Sources[I];
    std::string CacheFile = lintCacheFile(LintCacheOpt, Text, PrelintOp);
    if (sys::fs::exists(CacheFile)) {
      ++Cached;
      continue;
    }
    std::string Src = (Tmp + "/candidate-" + Twine(I) + ".cu").str();
    ExitOnErr(writeFile(Src, Text));
    std::string Out = Src + ".json", Err = Src + ".err";
    ProcessResult R =
        runProcess(Lint,
                   {"atrex-lint", "--format=json", "--mode=submission",
                    "--entry=" + PrelintOp, Src},
                   {}, Out, Err, 600);
    Evaluation E;
    auto Report = readFile(Out);
    if (!R.ExitStatus || *R.ExitStatus == 64 || !Report) {
      if (!Report)
        consumeError(Report.takeError());
      errs() << "atrex-agent: prelint: " << Name << ": atrex-lint gave no "
             << "report (see " << Err << ")\n";
      ++Failed;
      continue;
    }
    if (Error X = parseLintReport(*Report, E)) {
      errs() << "atrex-agent: prelint: " << Name << ": "
             << toString(std::move(X)) << "\n";
      ++Failed;
      continue;
    }
    ExitOnErr(storeLintCache(CacheFile, *Report));
    ++Linted;
    outs() << E.LintVerdict << "  " << Name << "\n";
  }
  outs() << "atrex-agent: prelint " << PrelintOp << ": " << Linted
         << " linted, " << Cached << " already cached, " << Failed
         << " without a report, into " << LintCacheOpt << "\n";
  if (!Failed)
    sys::fs::remove_directories(Tmp);
  return Failed ? 1 : 0;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  ExitOnErr.setBanner("atrex-agent: error: ");
  cl::HideUnrelatedOptions(Cat);
  cl::HideUnrelatedOptions(Cat, RunCmd);
  cl::HideUnrelatedOptions(Cat, ReportCmd);
  cl::HideUnrelatedOptions(Cat, PrelintCmd);
  cl::HideUnrelatedOptions(Cat, PromptCmd);
  prepareKbCommand();
  prepareProfileCommand(RunCmd);
  cl::ParseCommandLineOptions(argc, argv,
                              "atrex agent: the measure-revise loop "
                              "(docs/agent.md)\n");
  if (RunCmd)
    return run(argv[0]);
  if (PrelintCmd)
    return prelint(argv[0]);
  if (int Status; runProfileCommand(argv[0], Status))
    return Status;
  if (kbCommandGiven())
    return runKbCommand(argv[0]);
  if (PromptCmd) {
    auto V = json::parse(ExitOnErr(readFile(PromptContext)));
    if (!V)
      ExitOnErr(createStringError(PromptContext +
                                  ": not JSON: " + toString(V.takeError())));
    if (!V->getAsObject())
      ExitOnErr(createStringError(PromptContext + ": not a JSON object"));
    for (const ChatMessage &M : renderPrompt(*V->getAsObject()))
      outs() << "=== " << M.Role << " ===\n" << M.Content << "\n";
    return 0;
  }
  if (ReportCmd) {
    auto Records = ExitOnErr(readTrail(TrailPath));
    ExitOnErr(writeReport(TrailPath, Records, Format, outs()));
    return 0;
  }
  errs() << "atrex-agent: error: give a command: run, report, prelint, "
            "prompt, kb, profile or diagnose (--help)\n";
  return 1;
}
