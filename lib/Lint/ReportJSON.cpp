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
           << (K.Launched ? ": launched" : ": not launched")
           << (K.Dsl.empty() ? "" : " (" + dslDisplayName(K.Dsl).str() + ")")
           << "\n";
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

json::Value atrex::lint::submissionToJSON(const SubmissionResult &R,
                                          bool Complete) {
  json::Array Findings;
  for (const Finding &F : R.Findings) {
    json::Array Notes;
    for (const FindingNote &N : F.Notes)
      Notes.push_back(
          json::Object{{"location", posJSON(N.Pos)}, {"message", N.Message}});
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
                                   {"template_instance", K.TemplateInstance},
                                   {"dsl", K.Dsl}});
  json::Object O{{"path", R.Path},
                 {"files", json::Array(R.Files)},
                 {"verdict", verdictName(R.V)},
                 {"mode", modeName(R.Mode)},
                 {"mode_reason", R.ModeReason},
                 {"reasons", json::Array(R.Reasons)},
                 {"findings", std::move(Findings)},
                 {"kernels", std::move(Kernels)},
                 {"entries", json::Array(R.Entries)},
                 {"errors", json::Array(R.Errors)},
                 {"seconds", R.Seconds}};
  if (Complete) {
    O["rendered"] = R.Rendered;
    O["launches_visible"] = R.LaunchesVisible;
  }
  return O;
}

namespace {
/// Reads the fields toJSON writes; the first missing or mistyped field is
/// the error.
class Reader {
public:
  explicit Reader(const json::Object &O, std::string Where)
      : O(O), Where(std::move(Where)) {}
  std::string str(StringRef K) {
    if (std::optional<StringRef> S = O.getString(K))
      return S->str();
    fail(K, "a string");
    return "";
  }
  double num(StringRef K) {
    if (std::optional<double> D = O.getNumber(K))
      return *D;
    fail(K, "a number");
    return 0;
  }
  bool boolean(StringRef K) {
    if (std::optional<bool> B = O.getBoolean(K))
      return *B;
    fail(K, "a boolean");
    return false;
  }
  std::vector<std::string> strs(StringRef K) {
    std::vector<std::string> Out;
    const json::Array *A = O.getArray(K);
    if (!A) {
      fail(K, "an array");
      return Out;
    }
    for (const json::Value &V : *A) {
      if (std::optional<StringRef> S = V.getAsString())
        Out.push_back(S->str());
      else
        fail(K, "an array of strings");
    }
    return Out;
  }
  const json::Array *array(StringRef K, bool Optional = false) {
    const json::Array *A = O.getArray(K);
    if (!A && !(Optional && !O.get(K)))
      fail(K, "an array");
    return A;
  }
  SourcePos pos(StringRef K) {
    SourcePos P;
    const json::Object *L = O.getObject(K);
    if (!L) {
      fail(K, "an object");
      return P;
    }
    Reader R(*L, Where + "." + K.str());
    P.File = R.str("path");
    P.Line = static_cast<unsigned>(R.num("line"));
    P.Column = static_cast<unsigned>(R.num("column"));
    take(R);
    return P;
  }
  void take(Reader &Inner) {
    if (Error.empty())
      Error = std::move(Inner.Error);
  }
  void fail(StringRef K, StringRef What) {
    if (Error.empty())
      Error = Where + "." + K.str() + " is not " + What.str();
  }
  const json::Object &O;
  std::string Where;
  std::string Error;
};
} // namespace

Expected<SubmissionResult>
atrex::lint::submissionFromJSON(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return createStringError(inconvertibleErrorCode(),
                             "a submission is not a JSON object");
  Reader R(*O, "submission");
  SubmissionResult S;
  S.Path = R.str("path");
  S.Files = R.strs("files");
  std::string VName = R.str("verdict");
  if (std::optional<Verdict> Vd = parseVerdict(VName))
    S.V = *Vd;
  else if (R.Error.empty())
    R.Error = "submission.verdict '" + VName + "' is not a verdict";
  std::string MName = R.str("mode");
  if (std::optional<AnalysisMode> M = parseMode(MName))
    S.Mode = *M;
  else if (R.Error.empty())
    R.Error = "submission.mode '" + MName + "' is not a mode";
  S.ModeReason = R.str("mode_reason");
  S.Reasons = R.strs("reasons");
  S.Entries = R.strs("entries");
  S.Errors = R.strs("errors");
  S.Seconds = R.num("seconds");
  if (O->get("rendered"))
    S.Rendered = R.str("rendered");
  if (O->get("launches_visible"))
    S.LaunchesVisible = R.boolean("launches_visible");
  if (const json::Array *Fs = R.array("findings"))
    for (const json::Value &FV : *Fs) {
      const json::Object *FO = FV.getAsObject();
      if (!FO) {
        R.fail("findings", "an array of objects");
        break;
      }
      Reader FR(*FO, "submission.findings[" +
                         std::to_string(S.Findings.size()) + "]");
      Finding F;
      F.Check = FR.str("check");
      std::string Sev = FR.str("severity");
      if (std::optional<Severity> Sv = parseSeverity(Sev))
        F.Sev = *Sv;
      else
        FR.fail("severity", "a severity");
      F.Message = FR.str("message");
      F.Pos.File = FR.str("path");
      F.Pos.Line = static_cast<unsigned>(FR.num("line"));
      F.Pos.Column = static_cast<unsigned>(FR.num("column"));
      F.CallPath = FR.strs("call_path");
      if (FO->get("library"))
        F.Library = FR.str("library");
      if (FO->get("symbol"))
        F.Symbol = FR.str("symbol");
      if (const json::Array *Ns = FR.array("notes", /*Optional=*/true))
        for (const json::Value &NV : *Ns) {
          const json::Object *NO = NV.getAsObject();
          if (!NO) {
            FR.fail("notes", "an array of objects");
            break;
          }
          Reader NR(*NO, FR.Where + ".notes");
          FindingNote N;
          N.Pos = NR.pos("location");
          N.Message = NR.str("message");
          FR.take(NR);
          F.Notes.push_back(std::move(N));
        }
      R.take(FR);
      S.Findings.push_back(std::move(F));
    }
  if (const json::Array *Ks = R.array("kernels"))
    for (const json::Value &KV : *Ks) {
      const json::Object *KO = KV.getAsObject();
      if (!KO) {
        R.fail("kernels", "an array of objects");
        break;
      }
      Reader KR(*KO, "submission.kernels");
      KernelInfo K;
      K.Name = KR.str("name");
      K.Pos = KR.pos("location");
      K.Launched = KR.boolean("launched");
      K.TemplateInstance = KR.boolean("template_instance");
      if (std::optional<StringRef> D = KO->getString("dsl")) // since 2026-12
        K.Dsl = D->str();
      R.take(KR);
      S.Kernels.push_back(std::move(K));
    }
  if (!R.Error.empty())
    return createStringError(inconvertibleErrorCode(), R.Error);
  return S;
}

json::Value atrex::lint::toJSON(const std::vector<SubmissionResult> &Results) {
  json::Array Subs;
  unsigned Counts[5] = {0, 0, 0, 0, 0};
  for (const SubmissionResult &R : Results) {
    ++Counts[static_cast<int>(R.V)];
    Subs.push_back(submissionToJSON(R, /*Complete=*/false));
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
