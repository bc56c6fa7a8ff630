//===- atrex-lint.cpp - prove own GPU kernels, flag delegation ------------===//
//
// Part of atrex. The thin driver: options, policy, reports, exit status.
// See docs/atrex-lint.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Checks.h"
#include "atrex/Lint/Driver.h"
#include "atrex/Lint/FlyDSL.h"
#include "atrex/Lint/Policy.h"
#include "atrex/Lint/Report.h"
#include "atrex/Support/DataPath.h"
#include "atrex/Support/Families.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/YAMLParser.h"

using namespace llvm;
using namespace atrex::lint;
using atrex::familiesOf;
using atrex::loadFamilies;
using atrex::OperatorFamily;

static cl::OptionCategory Cat("atrex-lint options");

static cl::list<std::string> Inputs(cl::Positional, cl::desc("<file>..."),
                                    cl::cat(Cat));
static cl::opt<std::string>
    CompileCommands("p",
                    cl::desc("Build directory holding compile_commands.json "
                             "(or the file itself)"),
                    cl::value_desc("path"), cl::cat(Cat));
static cl::list<std::string>
    Entries("entry", cl::CommaSeparated,
            cl::desc("Entry point(s) (default: every host function with "
                     "external linkage)"),
            cl::value_desc("name"), cl::cat(Cat));
static cl::opt<std::string>
    PolicyFile("policy",
               cl::desc("Policy: a built-in name (default, strict) or a file "
                        "(YAML or JSON)"),
               cl::value_desc("name|file"), cl::cat(Cat));
static cl::opt<std::string> ModeOpt(
    "mode",
    cl::desc("What the inputs are: submission (a harness calls the entry), "
             "program (entry 'main'), library (no entry), or auto (default: "
             "detected per file, the policy's 'mode' if it sets one)"),
    cl::value_desc("submission|program|library|auto"), cl::init("auto"),
    cl::cat(Cat));
enum class Format { Text, JSON, SARIF };
static cl::opt<Format> OutFormat(
    "format", cl::desc("Output format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "clang-style diagnostics"),
               clEnumValN(Format::JSON, "json", "atrex-lint JSON (schema 1)"),
               clEnumValN(Format::SARIF, "sarif", "SARIF 2.1.0")),
    cl::cat(Cat));
static cl::opt<std::string> SrcRoot(
    "srcroot",
    cl::desc("SARIF: write artifact URIs relative to this directory as "
             "%SRCROOT% (default: the repository holding the current "
             "directory, else the current directory; 'none': absolute URIs)"),
    cl::value_desc("dir"), cl::cat(Cat));
static cl::opt<std::string> OutFile("o", cl::desc("Write the report here"),
                                    cl::value_desc("file"), cl::init("-"),
                                    cl::cat(Cat));
static cl::opt<unsigned> Jobs("j", cl::desc("Files analysed in parallel"),
                              cl::init(0), cl::cat(Cat));
static cl::opt<unsigned> TimeoutOpt(
    "timeout",
    cl::desc("Per-file limit in seconds of wall clock: a file that runs past "
             "it ends 'unknown' (default 300 when several files are linted, "
             "none for one file; 0: no limit)"),
    cl::value_desc("seconds"), cl::init(300), cl::cat(Cat));
static cl::opt<unsigned> MaxRssOpt(
    "max-rss",
    cl::desc("Per-file limit of resident memory in MiB: a file that needs more "
             "ends 'unknown' (default 8192 when several files are linted, "
             "none for one file; 0: no limit)"),
    cl::value_desc("MiB"), cl::init(8192), cl::cat(Cat));
static cl::opt<std::string>
    Submission("submission",
               cl::desc("Treat all inputs as one submission with this name"),
               cl::value_desc("name"), cl::cat(Cat));
static cl::opt<bool> Inventory("inventory",
                               cl::desc("List kernels and entry points"),
                               cl::cat(Cat));
static cl::opt<bool> NoSnippets("no-snippets",
                                cl::desc("No source line under diagnostics"),
                                cl::cat(Cat));
static cl::opt<bool>
    CompilerWarnings("compiler-warnings",
                     cl::desc("Show the compiler's own warnings"),
                     cl::cat(Cat));
static cl::opt<bool>
    NoPCH("no-pch",
          cl::desc("Do not precompile torch header prefixes (cache: "
                   "$ATREX_CACHE_DIR/pch or ~/.cache/atrex/pch)"),
          cl::cat(Cat));
static cl::opt<bool> PrintCommand(
    "print-command",
    cl::desc("Print the clang command line used for each input and exit"),
    cl::cat(Cat));
static cl::opt<bool> DumpPolicy("dump-policy",
                                cl::desc("Print the effective policy"),
                                cl::cat(Cat));
static cl::opt<bool> ListChecks("list-checks", cl::desc("List the checks"),
                                cl::cat(Cat));
static cl::opt<bool>
    ShowToolchain("print-toolchain",
                  cl::desc("Print the detected CUDA/HIP/torch paths"),
                  cl::cat(Cat));

static cl::opt<std::string> FlyCompile(
    "flydsl-compile",
    cl::desc("FlyDSL files: trace and compile the entry without a GPU in a "
             "sandboxed child process and add the IR evidence (auto: where "
             "flydsl and an lld 22 are installed; on; off). Default: "
             "$ATREX_FLYDSL_COMPILE, else auto"),
    cl::value_desc("auto|on|off"), cl::cat(Cat));
static cl::opt<std::string>
    FlyDumps("flydsl-dumps",
             cl::desc("FlyDSL: read the IR evidence from this FLYDSL_DUMP_DIR "
                      "instead of tracing"),
             cl::value_desc("dir"), cl::cat(Cat));
static cl::opt<std::string> FlyInputs(
    "flydsl-inputs",
    cl::desc("FlyDSL trace inputs, JSON or @file: {\"init\": [...], "
             "\"inputs\": [...]}, each a number, a shape list or "
             "{\"shape\": [...], \"dtype\": \"float16\"} (default: "
             "get_inputs()/get_init_inputs(), else from the signature)"),
    cl::value_desc("json|@file"), cl::cat(Cat));
static cl::opt<unsigned> FlyTimeout(
    "flydsl-timeout",
    cl::desc("FlyDSL trace: wall-clock limit in seconds (default 120)"),
    cl::value_desc("seconds"), cl::init(120), cl::cat(Cat));
static cl::opt<unsigned>
    FlyMaxMem("flydsl-max-mem",
              cl::desc("FlyDSL trace: address-space limit in MiB (default "
                       "16384)"),
              cl::value_desc("MiB"), cl::init(16384), cl::cat(Cat));
static cl::opt<std::string>
    FlyKeep("flydsl-keep",
            cl::desc("FlyDSL trace: keep its scratch directory (dumps, log, "
                     "result) here"),
            cl::value_desc("dir"), cl::cat(Cat));
static cl::list<std::string> DslOpt(
    "dsl",
    cl::desc("Kernel DSLs the track accepts, comma-separated (flydsl, "
             "triton, cuda, ...: docs/atrex-lint.md); a launched kernel in "
             "another is atrex-kernel-off-dsl. Replaces the policy's 'dsl'"),
    cl::CommaSeparated, cl::value_desc("names"), cl::cat(Cat));
static cl::opt<std::string> OperatorOpt(
    "operator",
    cl::desc("The problem's operator (a suite operator): its family "
             "(--families) decides family checks (a GEMM: launched kernels "
             "must multiply-add)"),
    cl::value_desc("name"), cl::cat(Cat));
static cl::opt<std::string> FamiliesFile(
    "families", cl::desc("Operator families (default kb/families.yaml)"),
    cl::value_desc("file"), cl::init("kb/families.yaml"), cl::cat(Cat));

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // Everything after `--` goes to the compiler.
  std::vector<std::string> Extra;
  int Argc = argc;
  for (int I = 1; I < argc; ++I)
    if (StringRef(argv[I]) == "--") {
      Argc = I;
      for (int J = I + 1; J < argc; ++J)
        Extra.push_back(argv[J]);
      break;
    }
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(
      Argc, argv,
      "atrex-lint: proves that GPU kernel submissions define and launch their "
      "own kernels,\nand flags delegation to PyTorch or vendor libraries and "
      "evasion.\n\n  atrex-lint [options] <file>... [-- <compiler flags>]\n\n"
      "Exit status: 0 all adopted, 1 no-kernel, 2 fallback, 3 suspicious, "
      "4 unknown,\n64 usage or input error (the worst submission decides).\n");
  ExitOnError Exit("atrex-lint: error: ", 64);

  if (ListChecks) {
    for (const CheckInfo &C : allChecks())
      outs() << C.Name << ": " << C.Summary << "\n";
    return 0;
  }
  Policy P = PolicyFile.empty() ? Policy::getDefault()
                                : Exit(Policy::load(PolicyFile));
  for (const std::string &D : DslOpt)
    if (dslDisplayName(D).empty())
      Exit(createStringError(inconvertibleErrorCode(),
                             "--dsl names '%s'; a kernel DSL is one of %s",
                             D.c_str(), knownDslNames().c_str()));
  if (!DslOpt.empty())
    P.Dsls = DslOpt;
  std::optional<AnalysisMode> Mode;
  if (ModeOpt != "auto") {
    Mode = parseMode(ModeOpt);
    if (!Mode)
      Exit(createStringError(inconvertibleErrorCode(),
                             "--mode must be submission, program, library or "
                             "auto, not '%s'",
                             ModeOpt.c_str()));
  }
  if (DumpPolicy) {
    outs() << P.toYAML();
    return 0;
  }
  if (ShowToolchain) {
    const Toolchain &TC = detectToolchain();
    outs() << "cuda: " << (TC.CudaPath.empty() ? "(not found)" : TC.CudaPath)
           << "\nresource-dir: " << TC.ResourceDir << "\nhip-include: "
           << (TC.HipInclude.empty() ? "(not found)" : TC.HipInclude)
           << "\ncutlass-include: "
           << (TC.CutlassInclude.empty() ? "(not found)" : TC.CutlassInclude)
           << "\ntvm-ffi-include:";
    for (const std::string &I : TC.TvmFfiIncludes)
      outs() << " " << I;
    outs() << (TC.TvmFfiIncludes.empty() ? " (not found)" : "")
           << "\nbuiltin-headers: "
           << (TC.BuiltinHeaders.empty() ? "(not written)" : TC.BuiltinHeaders)
           << "\npython-include: "
           << (TC.PythonInclude.empty() ? "(not found)" : TC.PythonInclude)
           << "\ntorch-include:";
    for (const std::string &I : TC.TorchIncludes)
      outs() << " " << I;
    outs() << (TC.TorchIncludes.empty() ? " (not found)\n" : "\n");
    return 0;
  }

  // LLVM's own --color option decides; files never get colors.
  bool UseColor = OutFile == "-" && WithColor(outs()).colorsEnabled();
  LintOptions Opts;
  Opts.Files.assign(Inputs.begin(), Inputs.end());
  Opts.CompileCommands = CompileCommands;
  Opts.ExtraArgs = Extra;
  Opts.Analysis.Entries.assign(Entries.begin(), Entries.end());
  Opts.Analysis.Mode = Mode;
  if (Mode)
    Opts.Analysis.ModeReason = "set with --mode=" + ModeOpt;
  Opts.Jobs = Jobs;
  Opts.Submission = Submission;
  Opts.CompilerWarnings = CompilerWarnings;
  Opts.Color = UseColor;
  if (!NoPCH)
    Opts.PCHDir = defaultPCHDir();
  // Each file in a child process under the limits: in runs of several files
  // (a compile database, a directory's files) by default, for one file when
  // a limit is given.
  bool Batch =
      Inputs.size() > 1 || (Inputs.empty() && !CompileCommands.empty());
  bool Explicit =
      TimeoutOpt.getNumOccurrences() || MaxRssOpt.getNumOccurrences();
  Opts.Limits.Seconds = TimeoutOpt;
  Opts.Limits.MaxRssMiB = MaxRssOpt;
  Opts.Isolate = (Batch || Explicit) && (TimeoutOpt || MaxRssOpt);
  if (PrintCommand) {
    for (const std::string &F : Opts.Files) {
      std::vector<std::string> CL = Exit(commandFor(F, Opts));
      for (size_t I = 0; I < CL.size(); ++I)
        outs() << (I ? " " : "") << CL[I];
      outs() << "\n";
    }
    return 0;
  }
  // The FlyDSL IR evidence, run where each Python file is analysed.
  flydsl::Options Fly;
  std::string FlyMode = FlyCompile;
  if (!FlyCompile.getNumOccurrences())
    if (const char *E = getenv("ATREX_FLYDSL_COMPILE"))
      FlyMode = E;
  if (FlyMode.empty() || FlyMode == "auto")
    Fly.Compile = flydsl::Options::Mode::Auto;
  else if (FlyMode == "on")
    Fly.Compile = flydsl::Options::Mode::On;
  else if (FlyMode == "off")
    Fly.Compile = flydsl::Options::Mode::Off;
  else
    Exit(createStringError(inconvertibleErrorCode(),
                           "--flydsl-compile must be auto, on or off, not "
                           "'%s'",
                           FlyMode.c_str()));
  Fly.Dumps = FlyDumps;
  Fly.Keep = FlyKeep;
  Fly.Seconds = FlyTimeout;
  Fly.MaxMemMiB = FlyMaxMem;
  Fly.InputsJSON = FlyInputs;
  if (StringRef(FlyInputs).starts_with("@")) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> B =
        MemoryBuffer::getFile(StringRef(FlyInputs).drop_front());
    if (!B)
      Exit(createStringError(B.getError(), "cannot read '%s'",
                             FlyInputs.c_str() + 1));
    Fly.InputsJSON = (*B)->getBuffer().str();
  }
  if (!Fly.InputsJSON.empty())
    if (Expected<json::Value> J = json::parse(Fly.InputsJSON); !J)
      Exit(createStringError(inconvertibleErrorCode(),
                             "--flydsl-inputs is not JSON: %s",
                             toString(J.takeError()).c_str()));
  if (!OperatorOpt.empty()) {
    std::string Fam = atrex::dataPath(FamiliesFile, ATREX_SOURCE_DIR, argv[0]);
    std::vector<OperatorFamily> Families = Exit(loadFamilies(Fam));
    std::vector<const OperatorFamily *> Of = familiesOf(Families, OperatorOpt);
    if (Of.empty())
      Exit(createStringError(inconvertibleErrorCode(),
                             "--operator: '%s' is in no family of '%s'",
                             OperatorOpt.c_str(), Fam.c_str()));
    Fly.Operator = OperatorOpt;
    for (const OperatorFamily *F : Of)
      if (is_contained(F->Requires, atrex::MultiplyAddRequirement)) {
        Fly.Gemm = true;
        Fly.MultiplyAddFamily = F->Name;
      }
  }
  Opts.PythonEvidence = [Fly](SubmissionResult &R, StringRef File,
                              const Policy &Pol) {
    flydsl::addEvidence(R, File, Pol, Fly);
  };
  std::vector<SubmissionResult> Results = Exit(runLint(Opts, P));

  std::error_code EC;
  ToolOutputFile Out(OutFile, EC, sys::fs::OF_TextWithCRLF);
  if (EC)
    Exit(createStringError(EC, "cannot write '%s': %s", OutFile.c_str(),
                           EC.message().c_str()));
  switch (OutFormat) {
  case Format::Text: {
    TextOptions TO;
    TO.Color = UseColor;
    TO.Snippets = !NoSnippets;
    TO.Inventory = Inventory;
    writeText(Results, TO, Out.os());
    break;
  }
  case Format::JSON:
    Out.os() << formatv("{0:2}", toJSON(Results)) << "\n";
    break;
  case Format::SARIF: {
    std::string Root = SrcRoot;
    if (Root.empty()) {
      SmallString<256> Dir;
      sys::fs::current_path(Dir);
      Root = std::string(Dir);
      for (SmallString<256> D = Dir; !D.empty();) {
        if (sys::fs::exists(D + "/.git")) {
          Root = std::string(D);
          break;
        }
        StringRef Parent = sys::path::parent_path(D);
        if (Parent == D)
          break;
        D = Parent;
      }
    } else if (Root == "none") {
      Root.clear();
    } else {
      SmallString<256> Abs(Root);
      sys::fs::make_absolute(Abs);
      sys::path::remove_dots(Abs, true);
      Root = std::string(Abs);
    }
    Out.os() << formatv("{0:2}", toSARIF(Results, Root)) << "\n";
  } break;
  }
  Out.keep();

  int RC = 0;
  for (const SubmissionResult &R : Results)
    RC = std::max(RC, exitCodeFor(R.V));
  return RC;
}
