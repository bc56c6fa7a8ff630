//===- atrex-score.cpp - score submission sets against a sealed bundle ----===//
//
//   atrex-score SEALED [--weights FILE] [--public PUBLIC]
//               --set NAME=results.jsonl[,more.jsonl] [--set ...]
//               [--lint NAME=lint.json[,...]] [--baseline NAME] [--gpu H200]
//               [--format text|md|json|html] [-o FILE]
//
// SEALED is a sealed bundle directory (sealed.json + weights.json) or its
// sealed.json. With --public (the public bundle directory or its
// public.json) the commitment is verified first and a mismatch refuses to
// score. See docs/scoring.md and docs/reports.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Score/Report.h"
#include "atrex/Score/Results.h"
#include "atrex/Score/Score.h"
#include "atrex/Score/Sealed.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace llvm;
using namespace atrex::score;

namespace {
enum class Format { Text, Markdown, JSON, HTML };

cl::OptionCategory Category("atrex-score options");

cl::opt<std::string> SealedPath(cl::Positional, cl::Required,
                                cl::desc("<sealed bundle dir | sealed.json>"),
                                cl::cat(Category));
cl::opt<std::string>
    WeightsPath("weights",
                cl::desc("weights.json (default: next to sealed.json)"),
                cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string>
    PublicPath("public",
               cl::desc("Public bundle (dir or public.json): verify its "
                        "commitment to the sealed bundle before scoring"),
               cl::value_desc("path"), cl::cat(Category));
cl::list<std::string>
    SetArgs("set",
            cl::desc("A submission set: NAME=results.jsonl[,more.jsonl]"),
            cl::value_desc("name=files"), cl::cat(Category));
cl::list<std::string>
    LintArgs("lint",
             cl::desc("atrex-lint JSON report(s) of a set's sources: "
                      "NAME=lint.json[,more.json] (static adoption)"),
             cl::value_desc("name=file"), cl::cat(Category));
cl::list<std::string>
    BaselineArgs("baseline",
                 cl::desc("Score set NAME as a baseline: delegation "
                          "(fallback, no-kernel) permitted, labelled so"),
                 cl::value_desc("name"), cl::cat(Category));
cl::list<std::string>
    FillArgs("fill",
             cl::desc("NAME=FROM: the problems set NAME has no result for "
                      "are scored with set FROM's results (library kernels "
                      "for some operators completed by a baseline); the "
                      "report says how many"),
             cl::value_desc("name=from"), cl::cat(Category));
cl::opt<bool> MeasuredOnly(
    "measured-only",
    cl::desc("Score only the problems some set has a result for (a partial "
             "run), weights renormalised over them; reports state the scope"),
    cl::cat(Category));
cl::opt<std::string> Gpu("gpu",
                         cl::desc("Hardware entry whose rooflines are used "
                                  "(default: from the results' env.gpu)"),
                         cl::value_desc("name"), cl::cat(Category));
cl::opt<Format> OutFormat(
    "format", cl::desc("Report format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "plain text (default)"),
               clEnumValN(Format::Markdown, "md", "Markdown"),
               clEnumValN(Format::JSON, "json", "JSON, schema atrex-score/1"),
               clEnumValN(Format::HTML, "html",
                          "one self-contained HTML page with a roofline "
                          "plot")),
    cl::cat(Category));
cl::opt<std::string> OutputPath("o", cl::desc("Output file (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(Category));
} // namespace

static ExitOnError ExitOnErr;

static void warn(const Twine &Msg) {
  errs() << "atrex-score: warning: " << Msg << "\n";
}
static void error(const Twine &Msg) {
  errs() << "atrex-score: error: " << Msg << "\n";
}

static Error err(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// Splits NAME=VALUE.
static Expected<std::pair<std::string, std::string>>
nameValue(StringRef Arg, StringRef Option) {
  auto [Name, Value] = Arg.split('=');
  if (Name.empty() || Value.empty() || !Arg.contains('='))
    return err("--" + Option + " expects NAME=" +
               (Option == "fill" ? "SET" : "FILE") + ", got '" + Arg + "'");
  return std::make_pair(Name.str(), Value.str());
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  ExitOnErr.setBanner("atrex-score: error: ");
  cl::HideUnrelatedOptions(Category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "atrex-score: S_i, per-operator medians and S_agg of submission sets "
      "against a sealed bundle\n");

  if (SetArgs.empty())
    ExitOnErr(err("no submission set (use --set NAME=results.jsonl)"));

  SealedBundle Bundle = ExitOnErr(loadSealedBundle(SealedPath, WeightsPath));
  if (!PublicPath.empty())
    ExitOnErr(verifyPublicCommitment(Bundle, PublicPath));

  std::vector<std::string> InputErrors;
  std::vector<SubmissionSet> Sets;
  std::map<std::string, size_t> Index;
  for (const std::string &Arg : SetArgs) {
    auto [Name, Files] = ExitOnErr(nameValue(Arg, "set"));
    if (Index.count(Name))
      ExitOnErr(err("submission set '" + Name + "' is given twice"));
    SubmissionSet S;
    S.Name = Name;
    SmallVector<StringRef> Paths;
    StringRef(Files).split(Paths, ',', -1, /*KeepEmpty=*/false);
    for (StringRef Path : Paths) {
      size_t Before = InputErrors.size();
      ExitOnErr(addResultsFile(S, Path, InputErrors));
      for (size_t I = Before; I < InputErrors.size(); ++I)
        error(InputErrors[I]);
    }
    Index[Name] = Sets.size();
    Sets.push_back(std::move(S));
  }
  for (const std::string &Arg : LintArgs) {
    auto [Name, File] = ExitOnErr(nameValue(Arg, "lint"));
    auto It = Index.find(Name);
    if (It == Index.end())
      ExitOnErr(err("--lint names set '" + Name + "', which no --set gives"));
    SubmissionSet &S = Sets[It->second];
    if (S.Lint)
      ExitOnErr(err("set '" + Name +
                    "' has two --lint options (give several "
                    "reports as NAME=a.json,b.json)"));
    S.Lint.emplace();
    SmallVector<StringRef> Paths;
    StringRef(File).split(Paths, ',', -1, /*KeepEmpty=*/false);
    for (StringRef Path : Paths)
      ExitOnErr(addLintReport(S, Path));
    S.LintFile = File;
  }
  for (const std::string &Name : BaselineArgs) {
    auto It = Index.find(Name);
    if (It == Index.end())
      ExitOnErr(
          err("--baseline names set '" + Name + "', which no --set gives"));
    Sets[It->second].Baseline = true;
  }

  for (const std::string &Arg : FillArgs) {
    auto [Name, From] = ExitOnErr(nameValue(Arg, "fill"));
    auto Into = Index.find(Name), Src = Index.find(From);
    if (Into == Index.end() || Src == Index.end())
      ExitOnErr(err("--fill " + Arg + ": set '" +
                    (Into == Index.end() ? Name : From) +
                    "' is given by no --set"));
    ExitOnErr(fillMissing(Sets[Into->second], Sets[Src->second]).takeError());
  }

  ScoreOptions Opts;
  Opts.Gpu = Gpu;
  Opts.MeasuredOnly = MeasuredOnly;
  ScoreReport Report = ExitOnErr(computeScores(Bundle, Sets, Opts));
  Report.PublicPath = PublicPath;
  Report.InputErrors = InputErrors;
  for (const std::string &W : Report.Warnings)
    warn(W);

  std::error_code EC;
  ToolOutputFile Out(OutputPath, EC, sys::fs::OF_Text);
  if (EC)
    ExitOnErr(err("cannot write '" + OutputPath + "': " + EC.message()));
  switch (OutFormat) {
  case Format::Text:
    printText(Out.os(), Report);
    break;
  case Format::Markdown:
    printMarkdown(Out.os(), Report);
    break;
  case Format::JSON:
    Out.os() << formatv("{0:2}", toJSON(Report)) << "\n";
    break;
  case Format::HTML:
    printHTML(Out.os(), Report);
    break;
  }
  Out.keep();
  if (!InputErrors.empty()) {
    error(Twine(InputErrors.size()) +
          " malformed result line(s) were not scored; the report covers the "
          "rest");
    return 1;
  }
  return 0;
}
