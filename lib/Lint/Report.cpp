//===- Report.cpp - text, JSON and SARIF reports --------------------------===//

#include "atrex/Lint/Report.h"
#include "atrex/Lint/Checks.h"
#include "atrex/Lint/Policy.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/Sarif.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/TextDiagnostic.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;
using namespace llvm;
using namespace atrex::lint;

namespace {
/// Reopens source files to turn (file, line, column) back into locations.
class SourceFiles {
public:
  SourceFiles()
      : FM(FileSystemOptions(), vfs::getRealFileSystem()),
        Diags(DiagnosticIDs::create(), DiagOpts, new IgnoringDiagConsumer(),
              /*ShouldOwnClient=*/true),
        SM(Diags, FM) {}

  /// An invalid location when the file cannot be read.
  SourceLocation loc(const SourcePos &P) {
    if (!P.isValid())
      return {};
    auto It = IDs.find(P.File);
    FileID ID;
    if (It != IDs.end()) {
      ID = It->second;
    } else {
      if (Expected<FileEntryRef> FE = FM.getFileRef(P.File))
        ID = SM.createFileID(*FE, SourceLocation(), SrcMgr::C_User);
      else
        consumeError(FE.takeError());
      IDs[P.File] = ID;
    }
    if (ID.isInvalid())
      return {};
    return SM.translateLineCol(ID, P.Line, P.Column ? P.Column : 1);
  }

  CharSourceRange range(const SourcePos &P) {
    SourceLocation L = loc(P);
    if (L.isInvalid())
      return {};
    return CharSourceRange::getCharRange(L, L.getLocWithOffset(1));
  }

  DiagnosticOptions DiagOpts;
  FileManager FM;
  DiagnosticsEngine Diags;
  SourceManager SM;
  LangOptions LO;

private:
  StringMap<FileID> IDs;
};

DiagnosticsEngine::Level level(Severity S) {
  switch (S) {
  case Severity::Error:
    return DiagnosticsEngine::Error;
  case Severity::Warning:
    return DiagnosticsEngine::Warning;
  default:
    return DiagnosticsEngine::Note;
  }
}

std::string joinPath(const std::vector<std::string> &Path) {
  std::string S;
  for (size_t I = 0; I < Path.size(); ++I)
    S += (I ? " -> '" : "'") + Path[I] + "'";
  return S;
}
} // namespace

void atrex::lint::writeText(const std::vector<SubmissionResult> &Results,
                            const TextOptions &Opts, raw_ostream &OS) {
  SourceFiles Src;
  Src.DiagOpts.ShowColors = Opts.Color;
  Src.DiagOpts.ShowCarets = Opts.Snippets;
  auto Emit = [&](TextDiagnostic &TD, const SourcePos &P,
                  DiagnosticsEngine::Level L, StringRef Msg) {
    SourceLocation Loc = Src.loc(P);
    if (Loc.isInvalid()) {
      if (P.File.empty())
        OS << "atrex-lint: ";
      else
        OS << P.str() << ": ";
      TextDiagnostic::printDiagnosticLevel(OS, L, Opts.Color);
      OS << Msg << "\n";
      return;
    }
    TD.emitDiagnostic(FullSourceLoc(Loc, Src.SM), L, Msg, {}, {});
  };

  for (const SubmissionResult &R : Results) {
    OS << R.Rendered;
    for (const Finding &F : R.Findings) {
      // One renderer per finding and its notes: notes at the finding's
      // location get no second snippet, and TextDiagnostic defers part of
      // its output until it is destroyed.
      TextDiagnostic TD(OS, Src.LO, Src.DiagOpts);
      Emit(TD, F.Pos, level(F.Sev), F.Message + " [" + F.Check + "]");
      for (const FindingNote &N : F.Notes)
        Emit(TD, N.Pos, DiagnosticsEngine::Note, N.Message);
      if (F.CallPath.size() > 1)
        Emit(TD, F.Pos, DiagnosticsEngine::Note,
             "reached from entry " + joinPath(F.CallPath));
    }
    if (Opts.Inventory) {
      for (const KernelInfo &K : R.Kernels)
        OS << R.Path << ": kernel '" << K.Name << "' at " << K.Pos.str()
           << (K.Launched ? ": launched" : ": not launched")
           << (K.Dsl.empty() ? "" : " (" + dslDisplayName(K.Dsl).str() + ")")
           << "\n";
      for (const std::string &E : R.Entries)
        OS << R.Path << ": entry '" << E << "'\n";
    }
    if (!R.ModeReason.empty()) {
      OS << R.Path << ": ";
      TextDiagnostic::printDiagnosticLevel(OS, DiagnosticsEngine::Note,
                                           Opts.Color);
      OS << modeNote(R) << "\n";
    }
    OS << R.Path << ": verdict: " << verdictName(R.V);
    if (!R.Reasons.empty()) {
      OS << " (";
      for (size_t I = 0; I < R.Reasons.size(); ++I)
        OS << (I ? "; " : "") << R.Reasons[I];
      OS << ")";
    }
    OS << "\n";
  }
}

/// Rewrites every artifactLocation whose uri lies under \p Prefix (a file://
/// URI ending in '/') relative to the base id %SRCROOT%.
static void relativize(json::Value &V, StringRef Prefix) {
  if (json::Object *O = V.getAsObject()) {
    // Results' physicalLocation.artifactLocation; artifacts[].location.
    for (StringRef Key : {"artifactLocation", "location"})
      if (json::Object *Loc = O->getObject(Key))
        if (std::optional<StringRef> U = Loc->getString("uri"))
          if (U->starts_with(Prefix)) {
            std::string Rel = U->drop_front(Prefix.size()).str();
            (*Loc)["uri"] = Rel;
            (*Loc)["uriBaseId"] = "%SRCROOT%";
          }
    for (auto &KV : *O)
      relativize(KV.second, Prefix);
  } else if (json::Array *A = V.getAsArray()) {
    for (json::Value &E : *A)
      relativize(E, Prefix);
  }
}

json::Value atrex::lint::toSARIF(const std::vector<SubmissionResult> &Results,
                                 StringRef SrcRoot) {
  SourceFiles Src;
  SarifDocumentWriter W(Src.SM);
  W.createRun("atrex-lint", "atrex-lint static analyzer for GPU kernels",
              "0.1.0");
  StringMap<size_t> RuleIdx;
  for (const CheckInfo &C : allChecks())
    RuleIdx[C.Name] =
        W.createRule(SarifRule::create()
                         .setRuleId(C.Name)
                         .setName(C.Name)
                         .setDescription(C.Summary)
                         .setHelpURI(("docs/checks/" + C.Name + ".md").str()));
  for (const SubmissionResult &R : Results) {
    for (const Finding &F : R.Findings) {
      auto It = RuleIdx.find(F.Check);
      if (It == RuleIdx.end())
        continue;
      SarifResult Res = SarifResult::create(It->second)
                            .setRuleId(F.Check)
                            .setDiagnosticMessage(F.Message)
                            .setDiagnosticLevel(F.Sev == Severity::Error
                                                    ? SarifResultLevel::Error
                                                : F.Sev == Severity::Warning
                                                    ? SarifResultLevel::Warning
                                                    : SarifResultLevel::Note);
      CharSourceRange Range = Src.range(F.Pos);
      if (Range.isValid())
        Res = Res.addLocations({Range});
      if (F.CallPath.size() > 1 && Range.isValid()) {
        ThreadFlow TF =
            ThreadFlow::create()
                .setRange(Range)
                .setImportance(ThreadFlowImportance::Important)
                .setMessage("reached from entry " + joinPath(F.CallPath));
        Res = Res.setThreadFlows({TF});
      }
      W.appendResult(Res);
    }
  }
  json::Object Doc = W.createDocument();
  // Record each submission's verdict as a run property.
  if (json::Array *Runs = Doc.getArray("runs"))
    if (!Runs->empty())
      if (json::Object *Run = (*Runs)[0].getAsObject()) {
        json::Array Verdicts;
        for (const SubmissionResult &R : Results)
          Verdicts.push_back(
              json::Object{{"path", R.Path}, {"verdict", verdictName(R.V)}});
        (*Run)["properties"] = json::Object{{"verdicts", std::move(Verdicts)}};
        if (!SrcRoot.empty()) {
          // The URIs SarifDocumentWriter writes: file:// plus the
          // percent-encoded absolute path.
          std::string Root = clang::SarifDocumentWriter::fileNameToURI(
              SrcRoot.ends_with("/") ? SrcRoot.drop_back() : SrcRoot);
          Root += "/";
          json::Value RunV(std::move(*Run));
          relativize(RunV, Root);
          *Run = std::move(*RunV.getAsObject());
          (*Run)["originalUriBaseIds"] =
              json::Object{{"%SRCROOT%", json::Object{{"uri", Root}}}};
        }
      }
  return Doc;
}
