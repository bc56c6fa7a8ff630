//===- atrex-eval.cpp - evaluate external agents over a public bundle -----===//
//
// Part of atrex (`atrex eval ...`, docs/eval.md):
//
//   atrex-eval generate --public PUB --out DIR --agent NAME=KIND:ARG...
//   atrex-eval score    --out DIR --sealed SEALED [--public PUB] [--gate ...]
//   atrex-eval run      (generate, then score)
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Backend.h"
#include "atrex/Agent/Eval.h"
#include "atrex/Agent/OpenAI.h"
#include "atrex/Agent/Process.h"
#include "atrex/Score/Report.h"
#include "atrex/Score/Results.h"
#include "atrex/Score/Sealed.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace llvm;
using namespace atrex::agent;
using namespace atrex::agent::eval;
namespace score = atrex::score;

static cl::OptionCategory Cat("atrex-eval options");
static cl::SubCommand GenerateCmd("generate",
                                  "Let the agents write one submission per "
                                  "card of the public bundle");
static cl::SubCommand ScoreCmd("score", "Lint, gate and score the agents' sets "
                                        "into the leaderboard");
static cl::SubCommand RunCmd("run", "generate, then score");

#define GEN cl::sub(GenerateCmd), cl::sub(RunCmd)
#define SCO cl::sub(ScoreCmd), cl::sub(RunCmd)
#define ALL cl::sub(GenerateCmd), cl::sub(ScoreCmd), cl::sub(RunCmd)

static cl::opt<std::string> OutDir("out", ALL, cl::cat(Cat), cl::Required,
                                   cl::desc("The evaluation's directory"));
static cl::opt<std::string>
    PublicPath("public", ALL, cl::cat(Cat),
               cl::desc("The public bundle (directory or public.json); "
                        "required to generate, checked against --sealed"));
static cl::list<std::string>
    Agents("agent", GEN, cl::cat(Cat),
           cl::desc("NAME=command:SHELL-COMMAND or NAME=openai:MODEL[@URL] "
                    "(repeatable)"));
static cl::list<std::string>
    Ops("ops", ALL, cl::cat(Cat), cl::CommaSeparated,
        cl::desc("Only these operators (default: every card)"));
static cl::opt<unsigned> Turns("turns", GEN, cl::cat(Cat), cl::init(1),
                               cl::desc("Turns per operator: after a turn "
                                        "whose lint verdict is not adopted, "
                                        "the next one gets the findings"));
static cl::opt<std::string>
    Lang("lang", GEN, cl::cat(Cat), cl::init("cuda"),
         cl::desc("What the agents write: cuda (<op>.cu) or python (<op>.py: "
                  "KernelBench, GPU MODE or entry form)"));
static cl::opt<std::string>
    TrackOpt("track", GEN, cl::cat(Cat),
             cl::desc("A track of the public bundle (docs/suite.md): the "
                      "cards name it, the agents write in its DSL (--lang "
                      "from it), turns and the set are linted with its --dsl, "
                      "and the set is gated only on an NVIDIA track GPU"));
static cl::opt<unsigned>
    AgentTimeout("agent-timeout", GEN, cl::cat(Cat), cl::init(0),
                 cl::desc("Seconds per agent turn (0: no limit)"));
static cl::opt<std::string> GpuOpt("gpu", ALL, cl::cat(Cat), cl::init("H200"),
                                   cl::desc("GPU of the hardware table"));
static cl::opt<std::string>
    ApiKeyEnv("api-key-env", GEN, cl::cat(Cat), cl::init("OPENAI_API_KEY"),
              cl::desc("openai agents: the variable holding the key"));
static cl::opt<unsigned>
    MaxTokens("max-tokens", GEN, cl::cat(Cat), cl::init(0),
              cl::desc("openai agents: max_tokens per request (0: unset)"));

static cl::opt<std::string> SealedPath("sealed", SCO, cl::cat(Cat),
                                       cl::desc("The sealed bundle"));
static cl::opt<std::string>
    GateMode("gate-mode", SCO, cl::cat(Cat), cl::init("auto"),
             cl::desc("on, off, or auto (on where `atrex-gate --check` "
                      "passes)"));
static cl::opt<std::string> GatePathOpt("gate", SCO, cl::cat(Cat),
                                        cl::desc("atrex-gate"));
static cl::opt<std::string> GateWorker("gate-worker", SCO, cl::cat(Cat),
                                       cl::desc("The gate's --worker"));
static cl::opt<std::string>
    GateSettings("gate-settings", SCO, cl::cat(Cat),
                 cl::desc("JSON object merged into the plans' settings"));
static cl::opt<std::string>
    Visibility("visibility", SCO, cl::cat(Cat), cl::init("all"),
               cl::desc("Problems to gate: all or public (atrex suite plan)"));
static cl::opt<unsigned>
    MaxPerOp("max-per-op", SCO, cl::cat(Cat), cl::init(0),
             cl::desc("Gate only the N heaviest problems per operator"));
static cl::list<std::string>
    ResultsOpt("results", SCO, cl::cat(Cat),
               cl::desc("NAME=results.jsonl[,more]: an agent's gate results "
                        "from elsewhere (e.g. atrex fleet); it is not gated "
                        "here"));
static cl::list<std::string> WithSets(
    "with", SCO, cl::cat(Cat),
    cl::desc("NAME=results.jsonl[,more][:lint.json]: a set beside the agents "
             "(the bundled sets' committed results)"));
static cl::opt<std::string> Baseline("baseline", SCO, cl::cat(Cat),
                                     cl::desc("A --with set scored as the "
                                              "baseline (delegation "
                                              "permitted)"));
static cl::opt<bool> MeasuredOnly(
    "measured-only", SCO, cl::cat(Cat),
    cl::desc("Score only the problems with a result (atrex score)"));
static cl::opt<std::string> Format("format", SCO, cl::cat(Cat),
                                   cl::init("text"),
                                   cl::desc("Leaderboard on stdout: text, md "
                                            "or json"));

static ExitOnError ExitOnErr;

/// A sibling tool (findSiblingTool).
static std::string findTool(StringRef Name, const char *Argv0) {
  return findSiblingTool(Name, sys::fs::getMainExecutable(
                                   Argv0, reinterpret_cast<void *>(&findTool)));
}

static Expected<std::unique_ptr<Backend>> makeBackend(const AgentSpec &A) {
  if (A.Kind == "command")
    return createCommandBackend(A.Command, AgentTimeout);
  if (A.Kind == "openai") {
    OpenAIOptions O;
    O.Model = A.Model;
    // The URL of the spec, else OPENAI_BASE_URL, else the default (as
    // `atrex agent run --backend openai`).
    if (!A.BaseURL.empty())
      O.BaseURL = A.BaseURL;
    else if (std::optional<std::string> Env =
                 sys::Process::GetEnv("OPENAI_BASE_URL");
             Env && !Env->empty())
      O.BaseURL = *Env;
    O.ApiKeyEnv = ApiKeyEnv;
    if (MaxTokens)
      O.MaxTokens = MaxTokens;
    if (AgentTimeout)
      O.RequestTimeoutS = AgentTimeout;
    return createOpenAIBackend(std::move(O));
  }
  return createStringError("agent '" + A.Name + "': backend '" + A.Kind +
                           "' is not available in this build");
}

static std::string agentDir(StringRef Name) {
  SmallString<256> D(OutDir);
  sys::path::append(D, "agents", Name);
  return std::string(D);
}

static void generateAll(const char *Argv0) {
  if (PublicPath.empty())
    ExitOnErr(createStringError("generate needs --public"));
  if (Agents.empty())
    ExitOnErr(createStringError("generate needs at least one --agent"));
  PublicBundle B = ExitOnErr(loadPublicBundle(PublicPath));
  GenerateOptions O;
  O.OutDir = OutDir;
  O.Turns = Turns;
  O.Operators.assign(Ops.begin(), Ops.end());
  O.Gpu = GpuOpt;
  O.Lang = Lang;
  if (!TrackOpt.empty()) {
    const atrex::suite::Track *T = ExitOnErr(findTrack(B, TrackOpt));
    std::string TL = ExitOnErr(trackLanguage(*T));
    if (Lang.getNumOccurrences() && Lang != TL)
      ExitOnErr(createStringError("--lang " + Lang + ": track '" + T->Name +
                                  "' is written in " + TL));
    O.Lang = TL;
    O.Track = T->Name;
    if (!GpuOpt.getNumOccurrences() && !T->Gpu.empty())
      O.Gpu = T->Gpu;
  }
  O.Lint.LintPath = findTool("atrex-lint", Argv0);
  std::vector<AgentSpec> Specs;
  for (const std::string &S : Agents) {
    AgentSpec A = ExitOnErr(parseAgentSpec(S));
    if (any_of(Specs, [&](const AgentSpec &X) { return X.Name == A.Name; }))
      ExitOnErr(createStringError("--agent: the name '" + A.Name +
                                  "' is given twice"));
    Specs.push_back(std::move(A));
  }
  for (const AgentSpec &A : Specs) {
    std::unique_ptr<Backend> Back = ExitOnErr(makeBackend(A));
    AgentOutcome R = ExitOnErr(generate(B, A, *Back, O, errs()));
    errs() << formatv("atrex-eval: {0}: {1} of {2} operators written, {3} "
                      "adopted by atrex-lint\n",
                      A.Name, R.withFile(), R.Operators.size(),
                      R.staticAdopted());
  }
}

/// Runs a tool; an Error names it and the tail of its stderr.
/// \p Output: a file the tool must have written; atrex-lint's exit status
/// says which verdicts it gave, so for it (\p AnyStatus) every status but a
/// usage error (64) or a signal is a run.
static Error runTool(StringRef Path, ArrayRef<std::string> Args,
                     StringRef ErrFile, StringRef What, StringRef Output,
                     bool AnyStatus = false) {
  if (Path.empty())
    return createStringError(What + ": the tool was not found");
  sys::fs::remove(Output);
  ProcessResult R = runProcess(Path, Args, {}, "", ErrFile, 0);
  bool Ran = R.ExitStatus &&
             (*R.ExitStatus == 0 || (AnyStatus && *R.ExitStatus != 64));
  if (Ran && sys::fs::exists(Output))
    return Error::success();
  std::string Why = !R.ExitStatus ? R.Error
                    : Ran ? "no '" + Output.str() + "' written"
                          : "exit status " + std::to_string(*R.ExitStatus);
  if (auto T = readFile(ErrFile))
    Why += ": " + tail(*T, 3, 400);
  else
    consumeError(T.takeError());
  return createStringError(What + " failed (" + Why + ")");
}

static bool gateWanted(StringRef Gate) {
  if (GateMode == "on")
    return true;
  if (GateMode == "off" || Gate.empty())
    return false;
  ProcessResult R = runProcess(Gate, {"atrex-gate", "--check"}, {}, "/dev/null",
                               "/dev/null", 120);
  return R.ExitStatus && *R.ExitStatus == 0;
}

/// NAME=a,b[:lint] -> (name, files, lint).
struct SetArg {
  std::string Name, Lint;
  std::vector<std::string> Files;
};
static Expected<SetArg> parseSetArg(StringRef Opt, StringRef Text,
                                    bool WithLint) {
  auto [Name, Rest] = Text.split('=');
  if (Name.empty() || Rest.empty())
    return createStringError("--" + Opt + " '" + Text +
                             "': expected NAME=FILE[,FILE]" +
                             (WithLint ? "[:lint.json]" : ""));
  SetArg S;
  S.Name = Name.str();
  if (WithLint) {
    auto [Files, Lint] = Rest.rsplit(':');
    if (Rest.contains(':')) {
      S.Lint = Lint.str();
      Rest = Files;
    }
  }
  SmallVector<StringRef> Parts;
  Rest.split(Parts, ',', -1, false);
  for (StringRef P : Parts)
    S.Files.push_back(P.str());
  return S;
}

static void scoreAll(const char *Argv0) {
  if (SealedPath.empty())
    ExitOnErr(createStringError("score needs --sealed"));
  std::error_code EC;
  SmallString<256> SealedJson(SealedPath);
  if (sys::fs::is_directory(SealedPath))
    sys::path::append(SealedJson, "sealed.json");
  // The agents: every outcome under <out>/agents (generation order is kept
  // by name order; --ops narrows the leaderboard's operators).
  std::vector<AgentOutcome> Outcomes;
  SmallString<256> AgentsDir(OutDir);
  sys::path::append(AgentsDir, "agents");
  std::vector<std::string> Names;
  for (sys::fs::directory_iterator It(AgentsDir, EC), End; !EC && It != End;
       It.increment(EC))
    Names.push_back(sys::path::filename(It->path()).str());
  llvm::sort(Names);
  for (const std::string &N : Names) {
    std::string F = agentDir(N) + "/outcome.json";
    if (!sys::fs::exists(F))
      continue;
    std::string Text = ExitOnErr(readFile(F));
    auto V = json::parse(Text);
    if (!V)
      ExitOnErr(
          createStringError(F + ": not JSON: " + toString(V.takeError())));
    auto O = outcomeFromJSON(*V);
    if (!O)
      ExitOnErr(createStringError(F + ": " + toString(O.takeError())));
    Outcomes.push_back(std::move(*O));
  }
  if (Outcomes.empty() && WithSets.empty())
    ExitOnErr(createStringError("nothing to score: no agent under '" +
                                AgentsDir + "' and no --with set"));

  // A track's GPU that atrex-gate cannot run on: its vendor ("" when the
  // agent has no track or the GPU is NVIDIA's), from the sealed hardware.
  json::Value SealedDoc = nullptr;
  if (any_of(Outcomes,
             [](const AgentOutcome &A) { return !A.TrackGpu.empty(); })) {
    std::string Text = ExitOnErr(readFile(SealedJson));
    auto V = json::parse(Text);
    if (!V)
      ExitOnErr(createStringError(SealedJson +
                                  ": not JSON: " + toString(V.takeError())));
    SealedDoc = std::move(*V);
  }
  auto gatedVendor = [&](const AgentOutcome &A) -> std::string {
    if (A.TrackGpu.empty())
      return "";
    const json::Object *Root = SealedDoc.getAsObject();
    const json::Object *Hw = Root ? Root->getObject("hardware") : nullptr;
    const json::Object *G = Hw ? Hw->getObject(A.TrackGpu) : nullptr;
    if (!G)
      ExitOnErr(createStringError(SealedJson + ": no GPU '" + A.TrackGpu +
                                  "' (track '" + A.Track + "' of agent '" +
                                  A.Name + "')"));
    std::string V = G->getString("vendor").value_or("nvidia").str();
    return V == "nvidia" ? "" : V;
  };

  std::map<std::string, SetArg> Given;
  for (const std::string &R : ResultsOpt) {
    SetArg S = ExitOnErr(parseSetArg("results", R, false));
    Given[S.Name] = S;
  }
  for (const auto &[Name, S] : Given)
    if (none_of(Outcomes, [&, &Name = Name](const AgentOutcome &A) {
          return A.Name == Name;
        }))
      ExitOnErr(createStringError("--results " + Name + "=...: no agent '" +
                                  Name + "' under '" + AgentsDir + "'"));
  std::string Lint = findTool("atrex-lint", Argv0);
  std::string Suite = findTool("atrex-suite", Argv0);
  std::string Gate = GatePathOpt.empty() ? findTool("atrex-gate", Argv0)
                                         : std::string(GatePathOpt);
  bool DoGate = gateWanted(Gate);
  if (GateMode == "on" && Gate.empty())
    ExitOnErr(createStringError("--gate-mode on: atrex-gate not found"));
  std::optional<json::Object> Settings;
  if (!GateSettings.empty()) {
    auto V = json::parse(GateSettings);
    if (!V || !V->getAsObject())
      ExitOnErr(createStringError("--gate-settings: not a JSON object"));
    Settings = *V->getAsObject();
  }

  std::vector<score::SubmissionSet> Sets;
  std::vector<std::string> InputErrors;
  std::map<std::string, std::pair<unsigned, unsigned>> StaticCounts;
  for (AgentOutcome &A : Outcomes) {
    std::string Dir = agentDir(A.Name);
    std::vector<std::string> Files;
    for (const OperatorOutcome &O : A.Operators)
      if (!O.File.empty() && (Ops.empty() || is_contained(Ops, O.Operator)))
        Files.push_back(O.File);
    std::string LintFile = Dir + "/lint.json";
    if (!Files.empty()) {
      std::vector<std::string> Args = {
          "atrex-lint",
          "-j",
          std::to_string(std::max(
              1u, llvm::hardware_concurrency().compute_thread_count())),
          "--mode=submission",
          "--format=json",
          "-o",
          LintFile};
      if (!A.TrackDsl.empty())
        Args.push_back("--dsl=" + join(A.TrackDsl, ","));
      Args.insert(Args.end(), Files.begin(), Files.end());
      ExitOnErr(runTool(Lint, Args, Dir + "/lint.err",
                        "atrex-lint on " + A.Name + "'s set", LintFile,
                        /*AnyStatus=*/true));
    }
    score::SubmissionSet S;
    S.Name = A.Name;
    if (auto It = Given.find(A.Name); It != Given.end()) {
      S.ResultFiles = It->second.Files;
    } else if (DoGate && !Files.empty() && !gatedVendor(A).empty()) {
      WithColor::note(errs(), "atrex-eval")
          << A.Name << ": not gated: track '" << A.Track << "' is judged on "
          << A.TrackGpu << " (" << gatedVendor(A)
          << "), and atrex-gate runs CUDA and HIP on NVIDIA GPUs; its "
             "verdicts are static\n";
    } else if (DoGate && !Files.empty()) {
      std::string Plan = Dir + "/plan.json", Results = Dir + "/results.jsonl";
      std::string PlanGpu =
          A.TrackGpu.empty() ? std::string(GpuOpt) : A.TrackGpu;
      std::vector<std::string> Args = {
          "atrex-suite", "plan",     "--set",
          A.SetDir,      "--sealed", SealedJson.str().str(),
          "--gpu",       PlanGpu,    "--visibility",
          Visibility,    "-o",       Plan};
      if (MaxPerOp)
        Args.insert(Args.end(), {"--max-per-op", std::to_string(MaxPerOp)});
      ExitOnErr(runTool(Suite, Args, Dir + "/plan.err",
                        "atrex suite plan for " + A.Name, Plan));
      if (Settings) {
        std::string Text = ExitOnErr(readFile(Plan));
        auto V = json::parse(Text);
        json::Object *P = V ? V->getAsObject() : nullptr;
        if (!P)
          ExitOnErr(createStringError(Plan + ": not a JSON object"));
        json::Object *St = P->getObject("settings");
        if (!St) {
          (*P)["settings"] = json::Object();
          St = P->getObject("settings");
        }
        for (const auto &[K, V2] : *Settings)
          (*St)[K] = V2;
        ExitOnErr(writeFile(
            Plan, formatv("{0:2}", json::Value(std::move(*P))).str()));
      }
      sys::fs::remove(Results);
      std::vector<std::string> GArgs = {
          "atrex-gate", "--plan",           Plan, "--out", Results,
          "--cache",    Dir + "/gate-cache"};
      if (!GateWorker.empty())
        GArgs.insert(GArgs.end(), {"--worker", GateWorker});
      ExitOnErr(runTool(Gate, GArgs, Dir + "/gate.err",
                        "atrex-gate on " + A.Name + "'s set", Results,
                        /*AnyStatus=*/true));
      S.ResultFiles = {Results};
    }
    if (!S.ResultFiles.empty()) {
      std::vector<std::string> Files = std::move(S.ResultFiles);
      S.ResultFiles.clear();
      for (const std::string &F : Files)
        ExitOnErr(score::addResultsFile(S, F, InputErrors));
      if (sys::fs::exists(LintFile)) {
        S.LintFile = LintFile;
        ExitOnErr(score::addLintReport(S, LintFile));
      }
      Sets.push_back(std::move(S));
    }
  }
  for (const std::string &W : WithSets) {
    SetArg A = ExitOnErr(parseSetArg("with", W, true));
    score::SubmissionSet S;
    S.Name = A.Name;
    S.Baseline = A.Name == Baseline;
    for (const std::string &F : A.Files)
      ExitOnErr(score::addResultsFile(S, F, InputErrors));
    if (!A.Lint.empty()) {
      S.LintFile = A.Lint;
      ExitOnErr(score::addLintReport(S, A.Lint));
      unsigned Files = 0, Adopted = 0;
      std::set<std::string> Seen;
      for (const score::LintSubmission &L : *S.Lint) {
        std::string Op = sys::path::stem(L.Path).str();
        if ((!Ops.empty() && !is_contained(Ops, Op)) || !Seen.insert(Op).second)
          continue;
        ++Files;
        Adopted += L.Verdict == "adopted";
      }
      StaticCounts[A.Name] = {Files, Adopted};
    }
    Sets.push_back(std::move(S));
  }
  for (const score::SubmissionSet &S : Sets)
    if (count_if(Sets, [&](const score::SubmissionSet &X) {
          return X.Name == S.Name;
        }) > 1)
      ExitOnErr(
          createStringError("the set name '" + S.Name + "' is given twice"));

  // Malformed result lines are reported (file and line) before anything is
  // scored; the other lines are scored, and the exit status says so.
  for (const std::string &E : InputErrors)
    WithColor::error(errs(), "atrex-eval") << E << "\n";
  std::optional<score::ScoreReport> Report;
  if (!Sets.empty()) {
    score::SealedBundle SB = ExitOnErr(score::loadSealedBundle(SealedPath));
    if (!PublicPath.empty())
      ExitOnErr(score::verifyPublicCommitment(SB, PublicPath));
    score::ScoreOptions SO;
    SO.Gpu = GpuOpt;
    SO.MeasuredOnly = MeasuredOnly;
    Report = ExitOnErr(score::computeScores(SB, Sets, SO));
    Report->InputErrors = InputErrors;
    if (!PublicPath.empty())
      Report->PublicPath = PublicPath;
  }

  Leaderboard L;
  // The operators evaluated: the cards (of --ops), else those of the agents.
  if (!PublicPath.empty()) {
    PublicBundle B = ExitOnErr(loadPublicBundle(PublicPath));
    for (const Card &C : B.Cards)
      L.Operators += Ops.empty() || is_contained(Ops, C.Operator);
  } else if (!Outcomes.empty()) {
    L.Operators = Outcomes.front().Operators.size();
  }
  L.Report = Report ? &*Report : nullptr;
  auto ScoreOf = [&](StringRef Name) -> const score::SetScore * {
    if (!Report)
      return nullptr;
    for (const score::SetScore &S : Report->Sets)
      if (S.Name == Name)
        return &S;
    return nullptr;
  };
  for (const AgentOutcome &A : Outcomes) {
    Row R;
    R.Name = A.Name;
    R.IsAgent = true;
    R.Agent = &A;
    R.Score = ScoreOf(A.Name);
    unsigned Files = 0, Adopted = 0;
    for (const OperatorOutcome &O : A.Operators)
      if (Ops.empty() || is_contained(Ops, O.Operator)) {
        Files += !O.File.empty();
        Adopted += !O.File.empty() && O.LintVerdict == "adopted";
      }
    R.Files = Files;
    R.StaticAdopted = Adopted;
    std::string LintFile = agentDir(A.Name) + "/lint.json";
    if (sys::fs::exists(LintFile))
      R.AdoptedByDsl =
          adoptedByDsl(ExitOnErr(score::loadLintReport(LintFile)),
                       std::vector<std::string>(Ops.begin(), Ops.end()));
    L.Rows.push_back(std::move(R));
  }
  for (const std::string &W : WithSets) {
    SetArg A = ExitOnErr(parseSetArg("with", W, true));
    Row R;
    R.Name = A.Name;
    R.Score = ScoreOf(A.Name);
    if (auto It = StaticCounts.find(A.Name); It != StaticCounts.end()) {
      R.Files = It->second.first;
      R.StaticAdopted = It->second.second;
    }
    if (!A.Lint.empty())
      R.AdoptedByDsl =
          adoptedByDsl(ExitOnErr(score::loadLintReport(A.Lint)),
                       std::vector<std::string>(Ops.begin(), Ops.end()));
    L.Rows.push_back(std::move(R));
  }

  auto Write = [&](StringRef Name, auto Print) {
    SmallString<256> P(OutDir);
    sys::path::append(P, Name);
    raw_fd_ostream OS(P, EC);
    if (EC)
      ExitOnErr(createStringError(EC, "cannot write '" + P + "'"));
    Print(OS);
  };
  Write("leaderboard.txt",
        [&](raw_ostream &OS) { printLeaderboardText(OS, L); });
  Write("leaderboard.md",
        [&](raw_ostream &OS) { printLeaderboardMarkdown(OS, L); });
  Write("leaderboard.json",
        [&](raw_ostream &OS) { OS << formatv("{0:2}", toJSON(L)) << "\n"; });
  if (Report) {
    Write("report.md",
          [&](raw_ostream &OS) { score::printMarkdown(OS, *Report); });
    Write("report.json", [&](raw_ostream &OS) {
      OS << formatv("{0:2}", score::toJSON(*Report)) << "\n";
    });
    Write("report.html",
          [&](raw_ostream &OS) { score::printHTML(OS, *Report); });
  }
  if (Format == "json")
    outs() << formatv("{0:2}", toJSON(L)) << "\n";
  else if (Format == "md")
    printLeaderboardMarkdown(outs(), L);
  else
    printLeaderboardText(outs(), L);
  if (!InputErrors.empty())
    exit(1);
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  ExitOnErr.setBanner("atrex-eval: error: ");
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "atrex eval: external agents over a public bundle, linted, gated and "
      "scored into a leaderboard (docs/eval.md)\n");
  if (GateMode != "on" && GateMode != "off" && GateMode != "auto")
    ExitOnErr(createStringError("--gate-mode: on, off or auto"));
  if (Format != "text" && Format != "md" && Format != "json")
    ExitOnErr(createStringError("--format: text, md or json"));
  if (GenerateCmd || RunCmd)
    generateAll(argv[0]);
  if (ScoreCmd || RunCmd)
    scoreAll(argv[0]);
  if (!GenerateCmd && !ScoreCmd && !RunCmd) {
    errs() << "atrex-eval: give a command: generate, score or run (--help)\n";
    return 64;
  }
  return 0;
}
