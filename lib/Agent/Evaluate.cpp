//===- Evaluate.cpp - lint, gate and S_i of one candidate -----------------===//
//
// Part of atrex. See include/atrex/Agent/Evaluate.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Evaluate.h"
#include "atrex-rt/Protocol.h"
#include "atrex/Agent/Process.h"
#include "atrex/Score/Score.h"
#include "atrex/Suite/Suite.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

namespace protocol = atrex::rt::protocol;

using namespace llvm;

namespace atrex::agent {

static std::vector<std::string> strings(const json::Array *A, size_t Max = 10) {
  std::vector<std::string> Out;
  if (A)
    for (const json::Value &V : *A)
      if (auto S = V.getAsString(); S && Out.size() < Max)
        Out.push_back(S->str());
  return Out;
}

Error parseLintReport(StringRef Text, Evaluation &E) {
  auto V = json::parse(Text);
  if (!V)
    return createStringError("not JSON: " + toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  const json::Array *Subs = O ? O->getArray("submissions") : nullptr;
  if (!O || O->getString("tool") != "atrex-lint" || !Subs || Subs->size() != 1)
    return createStringError("not an atrex-lint report of one submission");
  const json::Object *S = (*Subs)[0].getAsObject();
  auto Verdict = S ? S->getString("verdict") : std::nullopt;
  if (!Verdict)
    return createStringError("the submission has no verdict");
  E.LintVerdict = Verdict->str();
  E.LintReasons = strings(S->getArray("reasons"));
  E.LintErrors = strings(S->getArray("errors"), 5);
  return Error::success();
}

Error parseGateResult(StringRef Line, Evaluation &E) {
  auto V = json::parse(Line);
  if (!V)
    return createStringError("not JSON: " + toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O || O->getString("schema") != "atrex-gate-result/1")
    return createStringError("not an atrex-gate-result/1 line");
  auto Status = O->getString("status");
  if (!Status)
    return createStringError("no status");
  E.GateStatus = Status->str();
  E.GateStage = O->getString("stage").value_or("").str();
  E.GateReason = O->getString("reason").value_or("").str();
  E.GateVerdict = O->getString("verdict").value_or(protocol::kUnknown).str();
  if (const json::Object *Perf = O->getObject("performance"))
    if (auto M = Perf->getNumber("median_us"))
      E.MedianUs = *M;
  return Error::success();
}

std::string lintCacheFile(StringRef CacheDir, StringRef Source,
                          StringRef Operator) {
  SmallString<256> F(CacheDir);
  sys::path::append(F, suite::sha256Hex(Source) + "." + Operator + ".json");
  return std::string(F);
}

Error storeLintCache(StringRef CacheFile, StringRef Report) {
  StringRef Dir = sys::path::parent_path(CacheFile);
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC,
                             "cannot create '" + Dir + "': " + EC.message());
  // Written whole, then renamed: a reader never sees half a report.
  std::string Tmp =
      (CacheFile + ".tmp" + Twine(sys::Process::getProcessId())).str();
  if (Error E = writeFile(Tmp, Report))
    return E;
  if (std::error_code EC = sys::fs::rename(Tmp, CacheFile))
    return createStringError(EC, "cannot rename '" + Tmp + "' to '" +
                                     CacheFile + "': " + EC.message());
  return Error::success();
}

static std::string firstLine(StringRef Text) {
  return Text.trim().split('\n').first.str();
}

Expected<Evaluation> evaluate(const Problem &P, StringRef SourceFile,
                              StringRef Dir, StringRef Name,
                              const EvalOptions &O) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC,
                             "cannot create '" + Dir + "': " + EC.message());
  Evaluation E;
  // Static verdict: from the lint cache (keyed by the source's SHA-256 and
  // the entry) when it has it, else from atrex-lint (then cached).
  std::string LintOut = (Dir + "/lint.json").str();
  std::string LintErr = (Dir + "/lint.err").str();
  auto Source = readFile(SourceFile);
  if (!Source)
    return Source.takeError();
  std::string CacheFile =
      O.LintCache.empty()
          ? std::string()
          : lintCacheFile(O.LintCache, *Source,
                          O.LintDsl.empty()
                              ? P.Operator
                              : P.Operator + "|dsl=" + join(O.LintDsl, ","));
  if (!CacheFile.empty() && sys::fs::exists(CacheFile)) {
    auto Text = readFile(CacheFile);
    if (!Text)
      return Text.takeError();
    if (Error Err = writeFile(LintOut, *Text))
      return std::move(Err);
    E.LintCached = true;
    if (Error Err = parseLintReport(*Text, E)) {
      E.LintVerdict = protocol::kError;
      E.LintError = CacheFile + ": " + toString(std::move(Err));
    }
  } else if (O.LintPath.empty()) {
    E.LintVerdict = protocol::kError;
    E.LintError = "atrex-lint: not found, and the source is not in the lint "
                  "cache '" +
                  O.LintCache + "'";
  } else {
    // The entry: the operator's function, except for a Python submission
    // whose harness entry (ModelNew.forward, custom_kernel) atrex-lint finds
    // itself.
    std::vector<std::string> Args = {"atrex-lint", "--format=json",
                                     "--mode=submission"};
    bool HarnessEntry = false;
    if (SourceFile.ends_with(".py")) {
      auto Text = readFile(SourceFile);
      if (!Text)
        return Text.takeError();
      HarnessEntry = suite::pythonSubmissionFormat(*Text) != "entry";
    }
    if (!HarnessEntry)
      Args.push_back("--entry=" + P.Operator);
    if (!O.LintDsl.empty())
      Args.push_back("--dsl=" + join(O.LintDsl, ","));
    Args.push_back(SourceFile.str());
    ProcessResult L =
        runProcess(O.LintPath, Args, {}, LintOut, LintErr, O.LintTimeoutS);
    auto LintText = readFile(LintOut);
    if (!L.ExitStatus || *L.ExitStatus == 64 || !LintText) {
      std::string Why = !L.ExitStatus ? L.Error
                        : !LintText   ? toString(LintText.takeError())
                                      : "usage or input error";
      if (LintText)
        consumeError(LintText.takeError());
      if (auto Err = readFile(LintErr); Err && !StringRef(*Err).trim().empty())
        Why += ": " + tail(*Err, 2, 300);
      else if (!Err)
        consumeError(Err.takeError());
      E.LintVerdict = protocol::kError;
      E.LintError = "atrex-lint: " + Why;
    } else if (Error Err = parseLintReport(*LintText, E)) {
      E.LintVerdict = protocol::kError;
      E.LintError = LintOut + ": " + toString(std::move(Err));
    } else if (!CacheFile.empty()) {
      if (Error Err = storeLintCache(CacheFile, *LintText))
        return std::move(Err);
    }
  }

  if (O.NoGate) {
    E.Measured = false;
    return E;
  }
  // Dynamic verdict and time: a plan of this one submission and problem.
  json::Object Shape;
  for (const auto &[K, V] : P.Shape)
    Shape[K] = V;
  json::Object Settings{{"gpu", P.Gpu}};
  for (const auto &[K, V] : O.GateSettings)
    Settings[K] = V;
  json::Object Plan{
      {"schema", "atrex-gate-plan/1"},
      {"settings", std::move(Settings)},
      {"submissions",
       json::Array{json::Object{
           {"name", Name},
           {"source", SourceFile},
           {"operator", P.Operator},
           {"lang", "cuda"},
           {"problems", json::Array{json::Object{
                            {"id", P.Id},
                            {"shape", std::move(Shape)},
                            {"floor_s", P.FloorS},
                            {"extra", json::Object{{"phase", P.Phase}}}}}}}}}};
  E.PlanFile = (Dir + "/plan.json").str();
  E.ResultsFile = (Dir + "/results.jsonl").str();
  if (Error Err = writeFile(
          E.PlanFile,
          formatv("{0:2}", json::Value(std::move(Plan))).str() + "\n"))
    return std::move(Err);
  sys::fs::remove(E.ResultsFile);
  std::vector<std::string> Args = {O.GatePath, "--quiet",  "--plan",
                                   E.PlanFile, "--out",    E.ResultsFile,
                                   "--cache",  O.GateCache};
  if (!O.GateWorker.empty()) {
    Args.push_back("--worker");
    Args.push_back(O.GateWorker);
  }
  std::string GateErr = (Dir + "/gate.err").str();
  ProcessResult G =
      runProcess(O.GatePath, Args, {}, "", GateErr, O.GateTimeoutS);
  E.Measured = true;
  auto Results = readFile(E.ResultsFile);
  std::string Line = Results ? firstLine(*Results) : "";
  if (!Results)
    consumeError(Results.takeError());
  if (Line.empty()) {
    std::string Why = !G.ExitStatus
                          ? G.Error
                          : "exit status " + std::to_string(*G.ExitStatus) +
                                ", no result line";
    if (auto Err = readFile(GateErr); Err && !StringRef(*Err).trim().empty())
      Why += ": " + tail(*Err, 3, 400);
    else if (!Err)
      consumeError(Err.takeError());
    E.GateStatus = protocol::kError;
    E.GateVerdict = protocol::kUnknown;
    E.GateError = "atrex-gate: " + Why;
  } else if (Error Err = parseGateResult(Line, E)) {
    E.GateStatus = protocol::kError;
    E.GateVerdict = protocol::kUnknown;
    E.GateError = E.ResultsFile + ":1: " + toString(std::move(Err));
  }
  if (E.GateStatus == protocol::kPass && E.MedianUs && *E.MedianUs > 0) {
    E.STime = score::speedScore(P.TRooflineS, *E.MedianUs * 1e-6);
    E.S = E.GateVerdict == protocol::kAdopted ? *E.STime : 0.0;
  } else {
    E.S = 0.0;
  }
  return E;
}

std::string failureKind(const Evaluation &E) {
  namespace kind = failure;
  if (!E.LintError.empty() || !E.GateError.empty() ||
      E.GateStatus == protocol::kError)
    return kind::kError;
  if (E.Measured && E.GateStatus != protocol::kPass) {
    if (E.GateStage == protocol::kStageCompile)
      return kind::kCompile;
    if (E.GateVerdict == protocol::kSuspicious)
      return kind::kSuspicious;
    return E.GateStage == protocol::kStageCorrectness ? kind::kWrongOutput
                                                      : kind::kFailed;
  }
  if (!E.Measured && E.LintVerdict == protocol::kUnknown &&
      !E.LintErrors.empty())
    return kind::kCompile;
  if (E.LintVerdict == protocol::kSuspicious ||
      E.GateVerdict == protocol::kSuspicious)
    return kind::kSuspicious;
  if (E.LintVerdict != protocol::kAdopted ||
      (E.Measured && E.GateVerdict != protocol::kAdopted))
    return kind::kFallback;
  if (!E.Measured)
    return kind::kUnmeasured;
  if (!E.MedianUs)
    return kind::kFailed;
  return "";
}

std::string diagnosis(const Evaluation &E) {
  std::string Lint = "lint " + E.LintVerdict;
  if (!E.LintError.empty())
    Lint += " (" + E.LintError + ")";
  else if (!E.LintReasons.empty())
    Lint += " (" + join(E.LintReasons, "; ") + ")";
  if (!E.Measured)
    return Lint + "; not measured (--no-gate)";
  std::string Gate = "gate " + E.GateStatus;
  if (!E.GateError.empty())
    Gate += " (" + E.GateError + ")";
  else {
    if (!E.GateStage.empty() && E.GateStatus != protocol::kPass)
      Gate += " at " + E.GateStage;
    Gate += ", verdict " + E.GateVerdict;
    if (E.MedianUs)
      Gate += formatv(", median {0:F2} us", *E.MedianUs).str();
    if (!E.GateReason.empty())
      Gate += " (" + E.GateReason + ")";
  }
  return Gate + "; " + Lint;
}

static json::Value optNumber(const std::optional<double> &V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}
static json::Value optString(const std::string &S) {
  return S.empty() ? json::Value(nullptr) : json::Value(S);
}
static json::Array array(const std::vector<std::string> &V) {
  json::Array A;
  for (const std::string &S : V)
    A.push_back(S);
  return A;
}

json::Object toJSON(const Evaluation &E) {
  json::Object Gate{{"measured", E.Measured}};
  if (E.Measured) {
    Gate["status"] = E.GateStatus;
    Gate["stage"] = optString(E.GateStage);
    Gate["reason"] = optString(E.GateReason);
    Gate["verdict"] = E.GateVerdict;
    Gate["median_us"] = optNumber(E.MedianUs);
    Gate["error"] = optString(E.GateError);
    Gate["plan"] = E.PlanFile;
    Gate["results"] = E.ResultsFile;
  }
  return json::Object{{"lint", json::Object{{"verdict", E.LintVerdict},
                                            {"reasons", array(E.LintReasons)},
                                            {"errors", array(E.LintErrors)},
                                            {"error", optString(E.LintError)},
                                            {"cached", E.LintCached}}},
                      {"gate", std::move(Gate)},
                      {"s", optNumber(E.S)},
                      {"s_time", optNumber(E.STime)}};
}

Expected<Evaluation> evaluationFromJSON(const json::Object &O) {
  Evaluation E;
  const json::Object *Lint = O.getObject("lint");
  const json::Object *Gate = O.getObject("gate");
  if (!Lint || !Gate)
    return createStringError("evaluation without 'lint' or 'gate'");
  auto Verdict = Lint->getString("verdict");
  if (!Verdict)
    return createStringError("evaluation: lint without a verdict");
  E.LintVerdict = Verdict->str();
  E.LintReasons = strings(Lint->getArray("reasons"));
  E.LintErrors = strings(Lint->getArray("errors"));
  E.LintError = Lint->getString("error").value_or("").str();
  E.LintCached = Lint->getBoolean("cached").value_or(false);
  E.Measured = Gate->getBoolean("measured").value_or(false);
  if (E.Measured) {
    auto Status = Gate->getString("status");
    if (!Status)
      return createStringError("evaluation: measured gate without a status");
    E.GateStatus = Status->str();
    E.GateStage = Gate->getString("stage").value_or("").str();
    E.GateReason = Gate->getString("reason").value_or("").str();
    E.GateVerdict =
        Gate->getString("verdict").value_or(protocol::kUnknown).str();
    E.GateError = Gate->getString("error").value_or("").str();
    E.PlanFile = Gate->getString("plan").value_or("").str();
    E.ResultsFile = Gate->getString("results").value_or("").str();
    if (auto M = Gate->getNumber("median_us"))
      E.MedianUs = *M;
  }
  if (auto S = O.getNumber("s"))
    E.S = *S;
  if (auto S = O.getNumber("s_time"))
    E.STime = *S;
  return E;
}

} // namespace atrex::agent
