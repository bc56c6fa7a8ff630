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
#include "atrex/Support/JSON.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
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
static cl::opt<std::string> TrackOpt(
    "track", cl::sub(RunCmd), cl::cat(Cat),
    cl::desc("Operators (comma-separated, or 'all'): the loop on each one's "
             "--per-op heaviest problems, RUN-DIR/<operator>-<id> each, "
             "summed up in RUN-DIR/track.json"));
static cl::opt<unsigned> PerOp("per-op", cl::sub(RunCmd), cl::cat(Cat),
                               cl::desc("--track: problems per operator"),
                               cl::init(1));
static cl::opt<bool>
    VisibleOnly("visible-only", cl::sub(RunCmd), cl::cat(Cat),
                cl::desc("--track: the public bundle's problems only"));
static cl::opt<std::string>
    StartSetOpt("start-set", cl::sub(RunCmd), cl::cat(Cat),
                cl::desc("--track: the starting submissions, "
                         "<dir>/<operator>.cu"),
                cl::init("examples/sets/naive"));
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

/// One loop: \p Dir the run directory, \p Id the problem (else --op and
/// --shape), \p Start the starting submission. A setup error ends the tool;
/// the loop's own error is returned.
static Error runOne(const char *Argv0, const std::string &Dir,
                    const std::string &Id, const std::string &Start,
                    bool DoResume) {
  if (BackendOpt != "command" && BackendOpt != "search" &&
      BackendOpt != "openai")
    ExitOnErr(createStringError("--backend '" + BackendOpt +
                                "': 'command', 'search' or 'openai'"));
  RunOptions O;
  O.RunDir = Dir;
  O.StartFile = Start;
  O.Resume = DoResume;
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
  if (DoResume) {
    auto Records = ExitOnErr(readTrail(Dir + "/trail.jsonl"));
    Restored R = ExitOnErr(replayTrail(Dir + "/trail.jsonl", Records, Dir));
    P = R.Prob;
    if (O.Command.empty())
      O.Command = R.Command;
    if (O.KbIndex.empty())
      O.KbIndex = R.KbIndex;
  } else {
    if (Start.empty())
      ExitOnErr(createStringError("give --start FILE (the starting "
                                  "submission)"));
    if (!sys::fs::exists(Start))
      ExitOnErr(createStringError("--start '" + Start + "': no such file"));
    ProblemQuery Q;
    Q.SuitePath = atrex::dataPath(SuitePath, ATREX_SOURCE_DIR, Argv0);
    Q.Id = Id;
    Q.Operator = OpName;
    Q.Shape = ShapeOpt;
    Q.Gpu = GpuOpt;
    P = ExitOnErr(loadProblem(Q));
  }
  if (O.Command.empty() && BackendOpt == "command")
    ExitOnErr(createStringError("give --command (the command backend's "
                                "command)"));
  if (!Start.empty()) {
    SmallString<256> Abs(Start);
    sys::fs::make_absolute(Abs);
    O.StartFile = std::string(Abs);
  }
  if (!O.KbIndex.empty()) {
    SmallString<256> Abs(O.KbIndex);
    sys::fs::make_absolute(Abs);
    O.KbIndex = std::string(Abs);
  }
  SmallString<256> AbsRun(Dir);
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
  return runLoop(P, *B, O, errs());
}

/// The summary of one track run directory's trail: the start's S_i, the
/// best's, the accepted iterations and dropouts.
static json::Object trackRow(StringRef Dir, StringRef Id, StringRef Op) {
  json::Object Row{
      {"problem", Id.str()}, {"operator", Op.str()}, {"run_dir", Dir.str()}};
  auto Records = readTrail((Dir + "/trail.jsonl").str());
  if (!Records) {
    Row["error"] = toString(Records.takeError());
    return Row;
  }
  std::optional<double> StartS, BestS;
  int64_t Accepted = 0, Dropouts = 0, Iterations = 0, BestIter = -1;
  std::string StartLint, StartGate;
  for (const TrailRecord &R : *Records) {
    auto I = atrex::getInteger(R.Data, "iteration").value_or(-1);
    if (R.Event == "evaluation" && I == 0) {
      StartS = R.Data.getNumber("s");
      if (const json::Object *L = R.Data.getObject("lint"))
        StartLint = L->getString("verdict").value_or("").str();
      if (const json::Object *G = R.Data.getObject("gate"))
        StartGate = G->getString("verdict").value_or("").str();
    } else if (R.Event == "accept") {
      ++Accepted;
      BestS = R.Data.getNumber("s");
      BestIter = I;
    } else if (R.Event == "dropout") {
      ++Dropouts;
    }
    if ((R.Event == "accept" || R.Event == "reject") && I > Iterations)
      Iterations = I;
  }
  auto Opt = [](std::optional<double> V) {
    return V ? json::Value(*V) : json::Value(nullptr);
  };
  Row["start_s"] = Opt(StartS);
  Row["start_lint_verdict"] = StartLint;
  Row["start_gate_verdict"] = StartGate;
  Row["best_s"] = Opt(BestS);
  Row["best_iteration"] = BestIter < 0 ? json::Value(nullptr) : BestIter;
  Row["accepted"] = Accepted;
  Row["dropouts"] = Dropouts;
  Row["iterations"] = Iterations;
  return Row;
}

/// --track: the loop on each problem of the track, one run directory each
/// (RUN-DIR/<operator>-<id>), started from --start-set/<operator>.cu; a
/// problem whose loop fails is recorded and the others go on. Writes
/// RUN-DIR/track.json and prints a summary.
static int runTrack(const char *Argv0) {
  std::vector<std::string> Ops;
  if (TrackOpt != "all")
    for (StringRef Op : split(StringRef(TrackOpt), ','))
      if (!Op.trim().empty())
        Ops.push_back(Op.trim().str());
  std::string Suite = atrex::dataPath(SuitePath, ATREX_SOURCE_DIR, Argv0);
  std::vector<std::string> Ids =
      ExitOnErr(trackProblems(Suite, Ops, PerOp, VisibleOnly));
  std::string StartSet = atrex::dataPath(StartSetOpt, ATREX_SOURCE_DIR, Argv0);
  ExitOnErr(errorCodeToError(sys::fs::create_directories(RunDir)));
  json::Array Rows;
  unsigned Failed = 0;
  for (const std::string &Id : Ids) {
    ProblemQuery Q;
    Q.SuitePath = Suite;
    Q.Id = Id;
    Q.Gpu = GpuOpt;
    Problem P = ExitOnErr(loadProblem(Q));
    std::string Dir = RunDir + "/" + P.Operator + "-" + Id;
    SmallString<256> Start(StartSet);
    sys::path::append(Start, P.Operator + ".cu");
    errs() << "== " << P.Operator << " " << Id << " (" << shapeText(P.Shape)
           << ") in " << Dir << "\n";
    bool Again = Resume && sys::fs::exists(Dir + "/trail.jsonl");
    if (!Again && !sys::fs::exists(Start)) {
      errs() << "atrex-agent: note: no starting submission '" << Start
             << "': " << Id << " skipped\n";
      Rows.push_back(json::Object{{"problem", Id},
                                  {"operator", P.Operator},
                                  {"error", "no starting submission"}});
      ++Failed;
      continue;
    }
    if (Error E = runOne(Argv0, Dir, Id, std::string(Start), Again)) {
      std::string Why = toString(std::move(E));
      WithColor::error(errs(), "atrex-agent") << Id << ": " << Why << "\n";
      json::Object Row = trackRow(Dir, Id, P.Operator);
      Row["error"] = Why;
      Rows.push_back(std::move(Row));
      ++Failed;
      continue;
    }
    Rows.push_back(trackRow(Dir, Id, P.Operator));
  }
  outs() << formatv("{0,-24} {1,-6} {2,8} {3,8} {4,6} {5,8} {6,9}\n",
                    "operator", "id", "start S", "best S", "iter", "accepted",
                    "dropouts");
  for (const json::Value &V : Rows) {
    const json::Object &R = *V.getAsObject();
    auto Num = [&](StringRef K) {
      auto N = R.getNumber(K);
      return N ? formatv("{0:F4}", *N).str() : std::string("-");
    };
    auto Int = [&](StringRef K) {
      auto N = atrex::getInteger(R, K);
      return N ? std::to_string(*N) : std::string("-");
    };
    outs() << formatv(
        "{0,-24} {1,-6} {2,8} {3,8} {4,6} {5,8} {6,9}{7}\n",
        R.getString("operator").value_or(""),
        R.getString("problem").value_or(""), Num("start_s"), Num("best_s"),
        Int("iterations"), Int("accepted"), Int("dropouts"),
        R.getString("error") ? "  error: " + R.getString("error")->str()
                             : std::string());
  }
  json::Object Track{
      {"schema", "atrex-agent-track/1"},        {"suite", Suite},
      {"operators", TrackOpt.getValue()},       {"per_op", PerOp.getValue()},
      {"visible_only", VisibleOnly.getValue()}, {"start_set", StartSet},
      {"backend", BackendOpt.getValue()},       {"problems", std::move(Rows)}};
  ExitOnErr(writeFile(RunDir + "/track.json",
                      formatv("{0:2}", json::Value(std::move(Track))).str()));
  return Failed ? 1 : 0;
}

static int run(const char *Argv0) {
  if (!TrackOpt.empty()) {
    if (!ProblemId.empty() || !OpName.empty() || !StartFile.empty())
      ExitOnErr(createStringError("--track takes its problems from the suite "
                                  "and its starts from --start-set: no "
                                  "--problem, --op or --start"));
    return runTrack(Argv0);
  }
  ExitOnErr(runOne(Argv0, RunDir, ProblemId, StartFile, Resume));
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
