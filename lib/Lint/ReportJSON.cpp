//===- ReportJSON.cpp - JSON and plain-text reports (no clang) ------------===//
//
// Part of atrex. The report writers that need no clang libraries, so that the
// LLVM pass plugin can use them inside opt.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Report.h"

using namespace llvm;
using namespace atrex::lint;

void atrex::lint::writePlainText(const std::vector<SubmissionResult> &Results,
                                 bool Inventory, raw_ostream &OS) {
  for (const SubmissionResult &R : Results) {
    OS << R.Rendered;
    for (const Finding &F : R.Findings) {
      OS << (F.Pos.File.empty() ? R.Path : F.Pos.str()) << ": "
         << severityName(F.Sev) << ": " << F.Message << " [" << F.Check
         << "]\n";
      if (F.CallPath.size() > 1) {
        OS << (F.Pos.File.empty() ? R.Path : F.Pos.str())
           << ": note: reached from entry ";
        for (size_t I = 0; I < F.CallPath.size(); ++I)
          OS << (I ? " -> '" : "'") << F.CallPath[I] << "'";
        OS << "\n";
      }
    }
    if (Inventory) {
      for (const KernelInfo &K : R.Kernels)
        OS << R.Path << ": kernel '" << K.Name << "'"
           << (K.Launched ? ": launched" : ": not launched") << "\n";
      for (const std::string &E : R.Entries)
        OS << R.Path << ": entry '" << E << "'\n";
    }
    if (!R.ModeReason.empty())
      OS << R.Path << ": note: " << modeNote(R) << "\n";
    OS << R.Path << ": verdict: " << verdictName(R.V);
    for (size_t I = 0; I < R.Reasons.size(); ++I)
      OS << (I ? "; " : " (") << R.Reasons[I];
    OS << (R.Reasons.empty() ? "" : ")") << "\n";
  }
}

static json::Value posJSON(const SourcePos &P) {
  return json::Object{{"path", P.File}, {"line", P.Line}, {"column", P.Column}};
}

json::Value atrex::lint::toJSON(const std::vector<SubmissionResult> &Results) {
  json::Array Subs;
  unsigned Counts[5] = {0, 0, 0, 0, 0};
  for (const SubmissionResult &R : Results) {
    ++Counts[static_cast<int>(R.V)];
    json::Array Findings;
    for (const Finding &F : R.Findings) {
      json::Array Notes;
      for (const FindingNote &N : F.Notes)
        Notes.push_back(json::Object{{"location", posJSON(N.Pos)},
                                     {"message", N.Message}});
      json::Object O{{"check", F.Check},
                     {"severity", severityName(F.Sev)},
                     {"message", F.Message},
                     {"path", F.Pos.File},
                     {"line", F.Pos.Line},
                     {"column", F.Pos.Column},
                     {"implies", F.Sev >= Severity::Warning
                                     ? verdictName(F.implied())
                                     : StringRef("adopted")},
                     {"call_path", json::Array(F.CallPath)}};
      if (!F.Library.empty())
        O["library"] = F.Library;
      if (!F.Symbol.empty())
        O["symbol"] = F.Symbol;
      if (!Notes.empty())
        O["notes"] = std::move(Notes);
      Findings.push_back(std::move(O));
    }
    json::Array Kernels;
    for (const KernelInfo &K : R.Kernels)
      Kernels.push_back(json::Object{{"name", K.Name},
                                     {"location", posJSON(K.Pos)},
                                     {"launched", K.Launched},
                                     {"template_instance",
                                      K.TemplateInstance}});
    Subs.push_back(json::Object{
        {"path", R.Path},
        {"files", json::Array(R.Files)},
        {"verdict", verdictName(R.V)},
        {"mode", modeName(R.Mode)},
        {"mode_reason", R.ModeReason},
        {"reasons", json::Array(R.Reasons)},
        {"findings", std::move(Findings)},
        {"kernels", std::move(Kernels)},
        {"entries", json::Array(R.Entries)},
        {"errors", json::Array(R.Errors)},
        {"seconds", R.Seconds}});
  }
  json::Object Summary;
  for (Verdict V : {Verdict::Adopted, Verdict::NoKernel, Verdict::Fallback,
                    Verdict::Suspicious, Verdict::Unknown})
    Summary[verdictName(V)] = Counts[static_cast<int>(V)];
  return json::Object{{"tool", "atrex-lint"},
                      {"schema_version", 1},
                      {"submissions", std::move(Subs)},
                      {"summary", std::move(Summary)}};
}

