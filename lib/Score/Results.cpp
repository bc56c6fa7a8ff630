//===- Results.cpp - gate result lines and lint reports -------------------===//
//
// Part of atrex. See include/atrex/Score/Results.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Score/Results.h"
#include "atrex-rt/Protocol.h"
#include "atrex/Support/JSON.h"
#include <set>

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace protocol = atrex::rt::protocol;

using namespace llvm;
using namespace atrex::score;

static Error err(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

bool GateResult::correct() const {
  if (CorrectnessOk)
    return *CorrectnessOk;
  return Stage == "performance" || Stage == "done";
}

Expected<GateResult> atrex::score::parseResultLine(StringRef Text) {
  Expected<json::Value> Doc = json::parse(Text);
  if (!Doc)
    return err("invalid JSON: " + toString(Doc.takeError()));
  const json::Object *O = Doc->getAsObject();
  if (!O)
    return err("not a JSON object");
  std::optional<StringRef> Schema = O->getString("schema");
  if (!Schema)
    return err(std::string("missing \"schema\" (expected \"") +
               protocol::kResultSchema + "\")");
  if (*Schema != protocol::kResultSchema)
    return err("schema is \"" + *Schema + "\", expected \"" +
               protocol::kResultSchema + "\"");
  GateResult R;
  const json::Object *P = O->getObject("problem");
  if (!P)
    return err("missing \"problem\" object");
  std::optional<StringRef> Id = P->getString("id");
  if (!Id || Id->empty())
    return err("missing \"problem.id\"");
  R.ProblemId = Id->str();
  R.ProblemOperator = P->getString("operator").value_or("").str();
  if (const json::Value *Shape = P->get("shape"))
    R.ProblemShape = *Shape;
  if (const json::Object *S = O->getObject("submission")) {
    R.SubmissionName = S->getString("name").value_or("").str();
    R.Source = S->getString("source").value_or("").str();
    R.SubmissionOperator = S->getString("operator").value_or("").str();
  }
  std::optional<StringRef> Status = O->getString("status");
  if (!Status || llvm::none_of(protocol::kStatuses,
                               [&](const char *K) { return *Status == K; }))
    return err("\"status\" must be \"pass\", \"fail\" or \"error\"");
  R.Status = Status->str();
  // The rules of docs/formats/gate-result.schema.json that the gate's own
  // validator (runtime/lib/support/Plan.cpp) also enforces.
  for (const char *K : {"unit", "submission", "stage", "verdict"})
    if (!O->get(K))
      return err(std::string("missing \"") + K + "\"");
  R.Stage = O->getString("stage").value_or("").str();
  if (!is_contained(protocol::kStages, StringRef(R.Stage)))
    return err("unknown stage \"" + R.Stage + "\"");
  R.Reason = O->getString("reason").value_or("").str();
  if (R.Status != protocol::kPass && R.Reason.empty())
    return err("a result with status \"" + R.Status + "\" needs a \"reason\"");
  if (R.Status == protocol::kPass) {
    const json::Object *Perf = O->getObject("performance");
    if (!Perf || !Perf->get("median_us"))
      return err("a passing result needs \"performance.median_us\"");
  }
  R.Verdict = O->getString("verdict").value_or(protocol::kUnknown).str();
  static const auto &Verdicts = protocol::kVerdicts;
  if (!is_contained(Verdicts, StringRef(R.Verdict)))
    return err("unknown verdict \"" + R.Verdict + "\"");
  R.StartedAt = O->getString("started_at").value_or("").str();
  if (const json::Object *Env = O->getObject("env"))
    R.Gpu = Env->getString("gpu").value_or("").str();
  if (const json::Object *C = O->getObject("correctness"))
    R.CorrectnessOk = C->getBoolean("ok");
  if (const json::Object *Perf = O->getObject("performance"))
    if (const json::Value *M = Perf->get("median_us"))
      if (M->kind() != json::Value::Null) {
        std::optional<double> N = M->getAsNumber();
        if (!N || !(*N > 0))
          return err("\"performance.median_us\" is not a positive number");
        R.MedianUs = *N;
      }
  if (const json::Object *Perf = O->getObject("performance"))
    if (const json::Object *C = Perf->getObject("clean_run")) {
      bool Used = C->getBoolean("used").value_or(false);
      R.TimingSource = Used ? "clean" : "attributed";
      if (!Used)
        R.CleanWhy = C->getString("why").value_or("").str();
    }
  return R;
}

ResultsFile atrex::score::parseResults(StringRef Name, StringRef Text) {
  ResultsFile F;
  unsigned LineNo = 0;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    ++LineNo;
    Line = Line.trim();
    if (Line.empty())
      continue;
    Expected<GateResult> R = parseResultLine(Line);
    if (!R) {
      F.Errors.push_back(
          (Name + ":" + Twine(LineNo) + ": " + toString(R.takeError())).str());
      continue;
    }
    R->File = Name.str();
    R->Line = LineNo;
    F.Results.push_back(std::move(*R));
  }
  return F;
}

Expected<ResultsFile> atrex::score::loadResults(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return err("cannot read '" + Path + "': " + Buf.getError().message());
  return parseResults(Path, (*Buf)->getBuffer());
}

Expected<std::vector<LintSubmission>>
atrex::score::parseLintReport(StringRef Name, StringRef Text) {
  Expected<json::Value> Doc = json::parse(Text);
  if (!Doc)
    return err("'" + Name + "': invalid JSON: " + toString(Doc.takeError()));
  const json::Object *Root = Doc->getAsObject();
  if (!Root)
    return err("'" + Name + "': not a JSON object");
  if (Root->getString("tool") != std::optional<StringRef>("atrex-lint"))
    return err("'" + Name +
               "': not an atrex-lint report (\"tool\" is not "
               "\"atrex-lint\")");
  std::optional<int64_t> V = atrex::getInteger(*Root, "schema_version");
  if (V != std::optional<int64_t>(1))
    return err("'" + Name + "': unsupported atrex-lint schema_version " +
               (V ? Twine(*V) : Twine("(missing)")) + " (expected 1)");
  const json::Array *Subs = Root->getArray("submissions");
  if (!Subs)
    return err("'" + Name + "': no \"submissions\" array");
  std::vector<LintSubmission> Out;
  for (size_t I = 0; I < Subs->size(); ++I) {
    const json::Object *S = (*Subs)[I].getAsObject();
    if (!S)
      return err("'" + Name + "': submissions[" + Twine(I) +
                 "] is not an object");
    LintSubmission L;
    L.Path = S->getString("path").value_or("").str();
    std::optional<StringRef> Verdict = S->getString("verdict");
    if (!Verdict)
      return err("'" + Name + "': submissions[" + Twine(I) +
                 "] has no \"verdict\"");
    L.Verdict = Verdict->str();
    if (const json::Array *Files = S->getArray("files"))
      for (const json::Value &F : *Files)
        if (std::optional<StringRef> FS = F.getAsString())
          L.Files.push_back(FS->str());
    if (const json::Array *Entries = S->getArray("entries"))
      for (const json::Value &E : *Entries)
        if (std::optional<StringRef> ES = E.getAsString())
          L.Entries.push_back(ES->str());
    std::set<std::string> Dsls;
    if (const json::Array *Ks = S->getArray("kernels"))
      for (const json::Value &K : *Ks)
        if (const json::Object *KO = K.getAsObject())
          if (KO->getBoolean("launched").value_or(false))
            if (std::optional<StringRef> D = KO->getString("dsl");
                D && !D->empty())
              Dsls.insert(D->str());
    L.KernelDsls.assign(Dsls.begin(), Dsls.end());
    Out.push_back(std::move(L));
  }
  return Out;
}

Expected<std::vector<LintSubmission>>
atrex::score::loadLintReport(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return err("cannot read '" + Path + "': " + Buf.getError().message());
  return parseLintReport(Path, (*Buf)->getBuffer());
}

/// True when \p Long ends with the path components of \p Short.
static bool pathSuffix(StringRef Long, StringRef Short) {
  if (Short.empty() || Long.empty())
    return false;
  if (Long == Short)
    return true;
  if (Long.size() > Short.size() && Long.ends_with(Short) &&
      sys::path::is_separator(Long[Long.size() - Short.size() - 1]))
    return true;
  return false;
}

/// The only element of \p Lint that \p Pred accepts, or null when none or
/// several do.
template <typename PredT>
static const LintSubmission *unique(const std::vector<LintSubmission> &Lint,
                                    PredT Pred, bool &Ambiguous) {
  const LintSubmission *Found = nullptr;
  for (const LintSubmission &L : Lint)
    if (Pred(L)) {
      if (Found) {
        Ambiguous = true;
        return nullptr;
      }
      Found = &L;
    }
  return Found;
}

const LintSubmission *
atrex::score::matchLint(const std::vector<LintSubmission> &Lint,
                        const GateResult &R) {
  auto Paths = [](const LintSubmission &L) {
    std::vector<StringRef> P;
    if (!L.Path.empty())
      P.push_back(L.Path);
    for (const std::string &F : L.Files)
      P.push_back(F);
    return P;
  };
  bool Ambiguous = false;
  // Path equality, then one path ending with the other's components.
  if (!R.Source.empty()) {
    if (const LintSubmission *L = unique(
            Lint,
            [&](const LintSubmission &L) {
              return is_contained(Paths(L), StringRef(R.Source));
            },
            Ambiguous))
      return L;
    if (const LintSubmission *L = unique(
            Lint,
            [&](const LintSubmission &L) {
              return any_of(Paths(L), [&](StringRef P) {
                return pathSuffix(P, R.Source) || pathSuffix(R.Source, P);
              });
            },
            Ambiguous))
      return L;
    StringRef Base = sys::path::filename(R.Source);
    if (const LintSubmission *L = unique(
            Lint,
            [&](const LintSubmission &L) {
              return any_of(Paths(L), [&](StringRef P) {
                return sys::path::filename(P) == Base;
              });
            },
            Ambiguous))
      return L;
  }
  // `atrex-lint --submission=NAME` reports NAME as the path.
  if (!R.SubmissionName.empty())
    if (const LintSubmission *L = unique(
            Lint,
            [&](const LintSubmission &L) { return L.Path == R.SubmissionName; },
            Ambiguous))
      return L;
  // The entry point is named like the operator (docs/submission-contract.md).
  StringRef Op =
      R.SubmissionOperator.empty() ? R.ProblemOperator : R.SubmissionOperator;
  if (!Op.empty())
    if (const LintSubmission *L = unique(
            Lint,
            [&](const LintSubmission &L) {
              return is_contained(L.Entries, Op);
            },
            Ambiguous))
      return L;
  return nullptr;
}
