//===- AtrexClang.cpp - atrex-lint as a clang plugin ----------------------===//
//
// Part of atrex. Runs the same model builder, checks and policy as
// atrex-lint inside a normal compile:
//
//   clang++-22 -fplugin=AtrexClang.so [-fplugin-arg-atrex-policy=FILE]
//       [-fplugin-arg-atrex-entry=NAME[,NAME]] [-fplugin-arg-atrex-json=FILE]
//       -c k.cu
//
// Findings are warnings (so -Werror promotes them), notes stay notes; a
// submission that is not adopted gets one more warning with its verdict.
// Only the host compilation of CUDA/HIP is analysed (the device pass sees no
// launches).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Analysis.h"
#include "atrex/Lint/ModelBuilder.h"
#include "atrex/Lint/Policy.h"
#include "atrex/Lint/Report.h"
#include "atrex/Support/JSONFile.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;
using namespace atrex::lint;

namespace {

class PluginConsumer : public ASTConsumer {
public:
  PluginConsumer(CompilerInstance &CI, std::shared_ptr<Policy> P,
                 AnalysisOptions Opts, std::string JsonOut)
      : CI(CI), Pol(std::move(P)), Opts(std::move(Opts)),
        JsonOut(std::move(JsonOut)) {
    Inner = createModelConsumer(CI, *Pol, M);
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    Inner->HandleTranslationUnit(Ctx);
    if (CI.getDiagnostics().hasErrorOccurred())
      M.Errors.push_back("the translation unit has compiler errors");
    SubmissionResult R = analyze(M, *Pol, Opts);
    if (!M.Files.empty())
      R.Path = M.Files.front();
    emit(R);
    if (!JsonOut.empty())
      if (Error Err = atrex::writeJSONFile(JsonOut, toJSON({R})))
        report(DiagnosticsEngine::Error, {},
               "atrex: " + toString(std::move(Err)));
  }

private:
  SourceLocation loc(const SourcePos &P) {
    if (!P.isValid())
      return {};
    SourceManager &SM = CI.getSourceManager();
    OptionalFileEntryRef FE = CI.getFileManager().getOptionalFileRef(P.File);
    if (!FE)
      return {};
    return SM.translateFileLineCol(*FE, P.Line, P.Column ? P.Column : 1);
  }

  void report(DiagnosticsEngine::Level L, SourceLocation Loc,
              StringRef Message) {
    DiagnosticsEngine &D = CI.getDiagnostics();
    // Custom diagnostics are outside clang's -Werror mapping: honour it here.
    if (L == DiagnosticsEngine::Warning && D.getWarningsAsErrors())
      L = DiagnosticsEngine::Error;
    diag::Severity S =
        L == DiagnosticsEngine::Error     ? diag::Severity::Error
        : L == DiagnosticsEngine::Warning ? diag::Severity::Warning
        : L == DiagnosticsEngine::Remark  ? diag::Severity::Remark
                                          : diag::Severity::Ignored;
    unsigned Class =
        L == DiagnosticsEngine::Error     ? DiagnosticIDs::CLASS_ERROR
        : L == DiagnosticsEngine::Warning ? DiagnosticIDs::CLASS_WARNING
        : L == DiagnosticsEngine::Remark  ? DiagnosticIDs::CLASS_REMARK
                                          : DiagnosticIDs::CLASS_NOTE;
    unsigned ID = D.getDiagnosticIDs()->getCustomDiagID(
        DiagnosticIDs::CustomDiagDesc(S, "%0", Class));
    D.Report(Loc, ID) << Message;
  }

  void emit(const SubmissionResult &R) {
    for (const Finding &F : R.Findings) {
      SourceLocation Loc = loc(F.Pos);
      std::string Msg = F.Message + " [" + F.Check + "]";
      if (F.Sev < Severity::Warning) {
        // Notes of the policy are informative: keep them out of -Werror.
        report(DiagnosticsEngine::Remark, Loc, Msg);
        continue;
      }
      report(DiagnosticsEngine::Warning, Loc, Msg);
      for (const FindingNote &N : F.Notes)
        report(DiagnosticsEngine::Note, loc(N.Pos), N.Message);
      if (F.CallPath.size() > 1) {
        std::string Path;
        for (size_t I = 0; I < F.CallPath.size(); ++I)
          Path += (I ? " -> '" : "'") + F.CallPath[I] + "'";
        report(DiagnosticsEngine::Note, Loc, "reached from entry " + Path);
      }
    }
    if (R.V == Verdict::Adopted)
      return;
    std::string Msg = "atrex verdict: " + verdictName(R.V).str();
    for (size_t I = 0; I < R.Reasons.size(); ++I)
      Msg += (I ? "; " : " (") + R.Reasons[I];
    if (!R.Reasons.empty())
      Msg += ")";
    SourceManager &SM = CI.getSourceManager();
    report(DiagnosticsEngine::Warning,
           SM.getLocForStartOfFile(SM.getMainFileID()),
           Msg + " [atrex-verdict]");
  }

  CompilerInstance &CI;
  std::shared_ptr<Policy> Pol;
  AnalysisOptions Opts;
  std::string JsonOut;
  Model M;
  std::unique_ptr<ASTConsumer> Inner;
};

class AtrexAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    if (CI.getLangOpts().CUDAIsDevice)
      return std::make_unique<ASTConsumer>(); // host pass only
    return std::make_unique<PluginConsumer>(CI, Pol, Opts, JsonOut);
  }

  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    auto Error = [&](const std::string &Msg) {
      unsigned ID =
          D.getDiagnosticIDs()->getCustomDiagID(DiagnosticIDs::Error, "%0");
      D.Report(ID) << Msg;
      return false;
    };
    Pol = std::make_shared<Policy>(Policy::getDefault());
    // A compiler sees library code: no entry, each function on its own
    // (docs/atrex-lint.md, Analysis modes), unless told otherwise.
    Opts.Mode = AnalysisMode::Library;
    Opts.ModeReason = "the clang plugin's default (-fplugin-arg-atrex-mode=)";
    for (const std::string &A : Args) {
      StringRef Arg = A;
      if (Arg.consume_front("mode=")) {
        if (Arg == "auto") {
          Opts.Mode.reset();
          Opts.ModeReason.clear();
        } else if (std::optional<AnalysisMode> M = parseMode(Arg)) {
          Opts.Mode = M;
          Opts.ModeReason = "set with -fplugin-arg-atrex-mode=" + Arg.str();
        } else {
          return Error("atrex: mode must be submission, program, library or "
                       "auto, not '" +
                       Arg.str() + "'");
        }
      } else if (Arg.consume_front("policy=")) {
        Expected<Policy> P = Policy::load(Arg);
        if (!P)
          return Error(toString(P.takeError()));
        *Pol = std::move(*P);
      } else if (Arg.consume_front("entry=")) {
        SmallVector<StringRef, 4> Names;
        Arg.split(Names, ',', -1, false);
        for (StringRef N : Names)
          Opts.Entries.push_back(N.str());
        // Named entries are what a harness calls.
        if (Opts.Mode == AnalysisMode::Library) {
          Opts.Mode = AnalysisMode::Submission;
          Opts.ModeReason = "the entry is named with -fplugin-arg-atrex-entry=";
        }
      } else if (Arg.consume_front("json=")) {
        JsonOut = Arg.str();
      } else if (Arg == "help") {
        errs() << "atrex clang plugin: -fplugin-arg-atrex-policy=NAME|FILE, "
                  "-fplugin-arg-atrex-entry=NAME[,NAME], "
                  "-fplugin-arg-atrex-mode=library|submission|program|auto "
                  "(default library; a named entry implies submission), "
                  "-fplugin-arg-atrex-json=FILE\n";
      } else {
        return Error("atrex: unknown plugin argument '" + A +
                     "' (expected policy=, entry=, mode=, json= or help)");
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

private:
  std::shared_ptr<Policy> Pol;
  AnalysisOptions Opts;
  std::string JsonOut;
};

} // namespace

static FrontendPluginRegistry::Add<AtrexAction>
    X("atrex", "atrex-lint checks: own kernels, delegation, evasion");
