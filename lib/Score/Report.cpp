//===- Report.cpp - text, Markdown and JSON score reports -----------------===//
//
// Part of atrex. See include/atrex/Score/Report.h and docs/reports.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Score/Report.h"
#include "ReportUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cstdio>

using namespace llvm;
using namespace atrex::score;
using namespace atrex::score::rep;

std::string atrex::score::scopeLine(const ScoreReport &R) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.1f%%", 100.0 * R.ScopeWeightShare);
  return std::to_string(R.Problems.size()) + " of " +
         std::to_string(R.SuiteProblems) +
         " problems of the suite (those with a result), " + Buf +
         " of its weight; weights renormalised over them";
}

std::string atrex::score::rep::num(std::optional<double> V, int Digits) {
  if (!V)
    return "-";
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "%.*f", Digits, *V);
  return Buf;
}

std::string atrex::score::rep::pct(std::optional<double> V) {
  if (!V)
    return "-";
  return formatv("{0:F1}%", *V * 100).str();
}

std::string atrex::score::rep::us(std::optional<double> Seconds) {
  if (!Seconds)
    return "-";
  return formatv("{0:F3}", *Seconds * 1e6).str();
}

std::string atrex::score::rep::modeLabel(const SetScore &S) {
  return S.Baseline ? BaselineLabel : "strict";
}

std::string atrex::score::rep::adoption(const SetScore &S) {
  return pct(S.StaticAdoption) + " / " + pct(S.DynamicAdoption) + " / " +
         pct(S.BothAdoption);
}

std::string atrex::score::rep::dslAdoption(const SetScore &S) {
  if (S.DslAdoption.empty())
    return "none";
  std::vector<std::pair<double, std::string>> Order;
  for (const auto &[D, Share] : S.DslAdoption)
    Order.push_back({-Share, D});
  llvm::sort(Order);
  std::string Out;
  for (const auto &[NegShare, D] : Order)
    Out += (Out.empty() ? "" : ", ") + D + " " + pct(-NegShare);
  return Out;
}

json::Value atrex::score::rep::dslAdoptionJSON(const SetScore &S) {
  if (!S.StaticAdoption)
    return nullptr;
  json::Object O;
  for (const auto &[D, Share] : S.DslAdoption)
    O[D] = Share;
  return std::move(O);
}

std::string atrex::score::rep::gpuLine(const ScoreReport &R) {
  std::string Ceiling = R.GpuInfo.Measured ? "measured" : "datasheet";
  return formatv("{0} ({1}); S_i under the {2} ceiling, suspicious below the "
                 "datasheet floor",
                 R.Gpu, R.GpuInfo.FullName, Ceiling)
      .str();
}

std::string atrex::score::rep::commitmentLine(const ScoreReport &R) {
  if (R.PublicPath.empty())
    return R.Commitment + " (not checked: no public bundle given)";
  return R.Commitment + " (verified against '" + R.PublicPath + "')";
}

Table atrex::score::rep::leaderboard(const ScoreReport &R) {
  Table T;
  T.Header = {"set",     "mode",
              "S_agg",   "prefill",
              "decode",  "memory",
              "compute", "correct",
              "pass",    "adoption static/dynamic/both",
              "results", "missing"};
  T.Numeric = {false, false, true, true, true, true,
               true,  true,  true, true, true, true};
  for (const SetScore &S : R.Sets)
    T.Rows.push_back(
        {S.Name, modeLabel(S), num(S.SAgg), num(S.Phases.at("prefill").SAgg),
         num(S.Phases.at("decode").SAgg), num(S.Regimes.at("memory").SAgg),
         num(S.Regimes.at("compute").SAgg), pct(S.CorrectnessRate),
         pct(S.PassRate), adoption(S),
         std::to_string(S.Results) + "/" + std::to_string(S.Problems.size()),
         std::to_string(S.Missing.size())});
  return T;
}

Table atrex::score::rep::operatorTable(const SetScore &S) {
  Table T;
  T.Header = {"operator",  "problems", "weight",   "results", "correct",
              "pass rate", "adopted",  "median S", "S_agg"};
  T.Numeric = {false, true, true, true, true, true, true, true, true};
  for (const OperatorScore &O : S.Operators)
    T.Rows.push_back({O.Operator, std::to_string(O.Problems),
                      pct(O.WeightShare), std::to_string(O.Results),
                      std::to_string(O.Correct), pct(O.passRate()),
                      std::to_string(O.Adopted), num(O.MedianS), num(O.SAgg)});
  return T;
}

Table atrex::score::rep::regimeTable(const SetScore &S) {
  Table T;
  T.Header = {"part", "problems", "weight share", "S_agg"};
  T.Numeric = {false, true, true, true};
  for (StringRef Phase : {"prefill", "decode"}) {
    const PartScore &P = S.Phases.at(Phase.str());
    T.Rows.push_back({("phase " + Phase).str(), std::to_string(P.Problems),
                      pct(P.WeightShare), num(P.SAgg)});
  }
  for (StringRef Regime : {"memory", "compute"}) {
    const PartScore &P = S.Regimes.at(Regime.str());
    T.Rows.push_back({(Regime + "-bound").str(), std::to_string(P.Problems),
                      pct(P.WeightShare), num(P.SAgg)});
  }
  return T;
}

Table atrex::score::rep::problemTable(const SetScore &S) {
  Table T;
  T.Header = {"problem",   "operator", "phase", "regime", "weight", "T_roof us",
              "T_meas us", "verdict",  "lint",  "S",      "note"};
  T.Numeric = {false, false, false, false, true, true,
               true,  false, false, true,  false};
  for (const ProblemScore &P : S.Problems) {
    std::string Note = P.ZeroDetail;
    if (P.ResultCount > 1)
      Note += (Note.empty() ? "" : "; ") + std::to_string(P.ResultCount) +
              " results, latest scored";
    if (P.Result && P.Result->TimingSource == "attributed" && P.TMeasuredS)
      Note +=
          (Note.empty() ? "" : "; ") + std::string("timed under attribution") +
          (P.Result->CleanWhy.empty() ? "" : " (" + P.Result->CleanWhy + ")");
    T.Rows.push_back(
        {P.Problem->Id, P.Problem->Operator, P.Problem->Phase, P.Roof->Regime,
         formatv("{0:F4}", P.Weight).str(), us(P.Roof->TRooflineS),
         us(P.TMeasuredS), P.Result ? P.Result->Verdict : "-",
         P.StaticVerdict.empty() ? "-" : P.StaticVerdict, num(P.S), Note});
  }
  return T;
}

Table atrex::score::rep::operatorComparison(const ScoreReport &R) {
  Table T;
  T.Header = {"operator", "problems", "weight"};
  T.Numeric = {false, true, true};
  for (const SetScore &S : R.Sets) {
    T.Header.push_back(S.Name + " median S");
    T.Header.push_back(S.Name + " pass");
    T.Numeric.push_back(true);
    T.Numeric.push_back(true);
  }
  if (R.Sets.empty())
    return T;
  for (size_t I = 0; I < R.Sets[0].Operators.size(); ++I) {
    const OperatorScore &O = R.Sets[0].Operators[I];
    std::vector<std::string> Row = {O.Operator, std::to_string(O.Problems),
                                    pct(O.WeightShare)};
    for (const SetScore &S : R.Sets) {
      Row.push_back(num(S.Operators[I].MedianS));
      Row.push_back(pct(S.Operators[I].passRate()));
    }
    T.Rows.push_back(std::move(Row));
  }
  return T;
}

static void printTextTable(raw_ostream &OS, const Table &T,
                           StringRef Indent = "") {
  std::vector<size_t> W(T.Header.size());
  for (size_t C = 0; C < T.Header.size(); ++C) {
    W[C] = T.Header[C].size();
    for (const auto &Row : T.Rows)
      W[C] = std::max(W[C], Row[C].size());
  }
  auto Line = [&](const std::vector<std::string> &Cells) {
    std::string L = Indent.str();
    for (size_t C = 0; C < Cells.size(); ++C) {
      bool Last = C + 1 == Cells.size();
      size_t Pad = W[C] - Cells[C].size();
      if (T.Numeric[C])
        L += std::string(Pad, ' ') + Cells[C];
      else
        L += Cells[C] + (Last ? "" : std::string(Pad, ' '));
      if (!Last)
        L += "  ";
    }
    OS << StringRef(L).rtrim() << "\n";
  };
  Line(T.Header);
  for (const auto &Row : T.Rows)
    Line(Row);
}

void atrex::score::printText(raw_ostream &OS, const ScoreReport &R) {
  OS << "atrex score: suite " << (R.Suite.empty() ? "-" : R.Suite) << ", "
     << R.Problems.size() << " problems\n";
  if (R.Scope == "measured")
    OS << "scope: " << scopeLine(R) << "\n";
  OS << "gpu: " << gpuLine(R) << "\n";
  OS << "sealed bundle: " << R.SealedPath << " " << commitmentLine(R) << "\n";
  OS << "weights: " << R.WeightsPath;
  if (!R.WeightsSource.empty())
    OS << " (" << R.WeightsSource << ")";
  OS << "\n\n";
  printTextTable(OS, leaderboard(R));
  for (const SetScore &S : R.Sets)
    if (S.Baseline)
      OS << "'" << S.Name << "' is scored as a " << BaselineLabel
         << ": fallback and no-kernel verdicts are not zeroed\n";
  if (R.Sets.size() > 1) {
    OS << "\noperators across sets\n";
    printTextTable(OS, operatorComparison(R));
  }
  for (const SetScore &S : R.Sets) {
    OS << "\nset '" << S.Name << "' (" << modeLabel(S) << "): " << S.Results
       << " of " << S.Problems.size() << " problems have results, " << S.Scored
       << " scored above 0, " << S.Suspicious << " suspicious\n";
    OS << "  results: " << join(S.ResultFiles, ", ") << "\n";
    if (!S.FilledFrom.empty())
      OS << "  filled: " << S.Filled
         << " problem(s) without a result take set '" << S.FilledFrom
         << "''s results\n";
    if (!S.LintFile.empty())
      OS << "  lint: " << S.LintFile << "\n";
    if (S.StaticAdoption)
      OS << "  static adoption by kernel DSL: " << dslAdoption(S) << "\n";
    printTextTable(OS, regimeTable(S), "  ");
    OS << "\n";
    printTextTable(OS, operatorTable(S), "  ");
    OS << "\n";
    printTextTable(OS, problemTable(S), "  ");
    if (!S.Missing.empty())
      OS << "  missing (" << S.Missing.size() << "): " << join(S.Missing, ", ")
         << "\n";
  }
  if (!R.Warnings.empty()) {
    OS << "\nwarnings\n";
    for (const std::string &W : R.Warnings)
      OS << "  " << W << "\n";
  }
  if (!R.InputErrors.empty()) {
    OS << "\ninput errors (those lines were not scored)\n";
    for (const std::string &E : R.InputErrors)
      OS << "  " << E << "\n";
  }
}

static std::string mdCell(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (C == '|')
      Out += "\\|";
    else if (C == '\n')
      Out += ' ';
    else
      Out += C;
  }
  return Out;
}

static void printMdTable(raw_ostream &OS, const Table &T) {
  OS << "|";
  for (const std::string &H : T.Header)
    OS << " " << mdCell(H) << " |";
  OS << "\n|";
  for (bool N : T.Numeric)
    OS << (N ? "---:|" : "---|");
  OS << "\n";
  for (const auto &Row : T.Rows) {
    OS << "|";
    for (const std::string &C : Row)
      OS << " " << mdCell(C) << " |";
    OS << "\n";
  }
}

void atrex::score::printMarkdown(raw_ostream &OS, const ScoreReport &R) {
  OS << "# atrex score: " << (R.Suite.empty() ? "-" : R.Suite) << "\n\n";
  OS << "- problems: " << R.Problems.size() << "\n";
  if (R.Scope == "measured")
    OS << "- scope: " << scopeLine(R) << "\n";
  OS << "- GPU: " << gpuLine(R) << "\n";
  OS << "- sealed bundle: `" << R.SealedPath << "` " << commitmentLine(R)
     << "\n";
  OS << "- weights: `" << R.WeightsPath << "`";
  if (!R.WeightsSource.empty())
    OS << " (" << R.WeightsSource << ")";
  OS << "\n\n## Leaderboard\n\n";
  printMdTable(OS, leaderboard(R));
  for (const SetScore &S : R.Sets)
    if (S.Baseline)
      OS << "\n`" << S.Name << "` is scored as a **" << BaselineLabel
         << "**: fallback and no-kernel verdicts are not zeroed.\n";
  if (R.Sets.size() > 1) {
    OS << "\n## Operators across sets\n\n";
    printMdTable(OS, operatorComparison(R));
  }
  for (const SetScore &S : R.Sets) {
    OS << "\n## Set `" << S.Name << "` (" << modeLabel(S) << ")\n\n";
    OS << S.Results << " of " << S.Problems.size() << " problems have results, "
       << S.Scored << " scored above 0, " << S.Suspicious
       << " suspicious. Results: ";
    for (size_t I = 0; I < S.ResultFiles.size(); ++I)
      OS << (I ? ", `" : "`") << S.ResultFiles[I] << "`";
    if (!S.LintFile.empty())
      OS << "; lint: `" << S.LintFile << "`";
    OS << ".";
    if (!S.FilledFrom.empty())
      OS << " " << S.Filled << " problem(s) without a result take set `"
         << S.FilledFrom << "`'s results (`--fill`).";
    OS << "\n\n";
    if (S.StaticAdoption)
      OS << "Static adoption by kernel DSL: " << dslAdoption(S) << ".\n\n";
    printMdTable(OS, regimeTable(S));
    OS << "\n### Operators\n\n";
    printMdTable(OS, operatorTable(S));
    OS << "\n### Problems\n\n";
    printMdTable(OS, problemTable(S));
    if (!S.Missing.empty())
      OS << "\nMissing (" << S.Missing.size() << "): " << join(S.Missing, ", ")
         << "\n";
  }
  if (!R.Warnings.empty()) {
    OS << "\n## Warnings\n\n";
    for (const std::string &W : R.Warnings)
      OS << "- " << mdCell(W) << "\n";
  }
  if (!R.InputErrors.empty()) {
    OS << "\n## Input errors\n\nThese lines were not scored.\n\n";
    for (const std::string &E : R.InputErrors)
      OS << "- " << mdCell(E) << "\n";
  }
}

static json::Value opt(std::optional<double> V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}

static json::Value partJSON(const PartScore &P) {
  return json::Object{{"problems", P.Problems},
                      {"weight_share", P.WeightShare},
                      {"s_agg", opt(P.SAgg)}};
}

static json::Value ceilingsJSON(const Ceilings &C) {
  json::Array Peaks;
  for (const Peak &P : C.Peaks)
    Peaks.push_back(json::Object{
        {"engine", P.Engine}, {"dtype", P.Dtype}, {"tflops", P.Tflops}});
  return json::Object{{"hbm_tbps", C.HbmTbps}, {"peaks", std::move(Peaks)}};
}

json::Value atrex::score::toJSON(const ScoreReport &R) {
  json::Array Problems;
  for (const SuiteProblem &P : R.Problems) {
    const Roofline &Roof = P.Rooflines.at(R.Gpu);
    Problems.push_back(
        json::Object{{"id", P.Id},
                     {"operator", P.Operator},
                     {"phase", P.Phase},
                     {"weight", R.Weights.at(P.Id)},
                     {"regime", Roof.Regime},
                     {"ceiling", Roof.Ceiling},
                     {"intensity", Roof.Intensity},
                     {"flops_total", Roof.FlopsTotal},
                     {"bytes", Roof.Bytes},
                     {"t_roofline_s", Roof.TRooflineS},
                     {"t_roofline_nofloor_s", Roof.noFloorS()},
                     {"t_roofline_datasheet_s", Roof.TDatasheetS},
                     {"t_floor_s", Roof.floorS()}});
  }
  json::Array Sets;
  for (const SetScore &S : R.Sets) {
    json::Array Ops, Ps;
    for (const OperatorScore &O : S.Operators)
      Ops.push_back(json::Object{{"operator", O.Operator},
                                 {"problems", O.Problems},
                                 {"results", O.Results},
                                 {"correct", O.Correct},
                                 {"passed", O.Passed},
                                 {"adopted", O.Adopted},
                                 {"scored", O.Scored},
                                 {"pass_rate", O.passRate()},
                                 {"weight_share", O.WeightShare},
                                 {"median_s", O.MedianS},
                                 {"s_agg", opt(O.SAgg)}});
    for (const ProblemScore &P : S.Problems) {
      json::Object PO{{"id", P.Problem->Id},
                      {"operator", P.Problem->Operator},
                      {"phase", P.Problem->Phase},
                      {"regime", P.Roof->Regime},
                      {"weight", P.Weight},
                      {"phase_weight", P.PhaseWeight},
                      {"s", P.S},
                      {"s_nofloor", P.SNoFloor},
                      {"zero_reason", P.ZeroReason.empty()
                                          ? json::Value(nullptr)
                                          : json::Value(P.ZeroReason)},
                      {"detail", P.ZeroDetail},
                      {"correct", P.Correct},
                      {"passed", P.Passed},
                      {"suspicious", P.Suspicious},
                      {"dynamic_adopted", P.DynamicAdopted},
                      {"static_verdict", P.StaticVerdict.empty()
                                             ? json::Value(nullptr)
                                             : json::Value(P.StaticVerdict)},
                      {"static_dsls", json::Array(P.StaticDsls)},
                      {"t_roofline_s", P.Roof->TRooflineS},
                      {"t_measured_s", opt(P.TMeasuredS)},
                      {"achieved_flops", opt(P.AchievedFlops)},
                      {"results", P.ResultCount}};
      if (P.Result) {
        const GateResult &G = *P.Result;
        PO["result"] =
            json::Object{{"file", G.File},
                         {"line", G.Line},
                         {"status", G.Status},
                         {"stage", G.Stage},
                         {"verdict", G.Verdict},
                         {"reason", G.Reason},
                         {"started_at", G.StartedAt},
                         {"gpu", G.Gpu},
                         {"timing_source", G.TimingSource.empty()
                                               ? json::Value(nullptr)
                                               : json::Value(G.TimingSource)},
                         {"submission", G.SubmissionName},
                         {"source", G.Source}};
      } else {
        PO["result"] = nullptr;
      }
      Ps.push_back(std::move(PO));
    }
    json::Object Phases, Regimes;
    for (const auto &[K, P] : S.Phases)
      Phases[K] = partJSON(P);
    for (const auto &[K, P] : S.Regimes)
      Regimes[K] = partJSON(P);
    Sets.push_back(json::Object{
        {"name", S.Name},
        {"baseline", S.Baseline},
        {"mode", modeLabel(S)},
        {"result_files", S.ResultFiles},
        {"filled_from", S.FilledFrom.empty() ? json::Value(nullptr)
                                             : json::Value(S.FilledFrom)},
        {"filled", S.Filled},
        {"lint_file",
         S.LintFile.empty() ? json::Value(nullptr) : json::Value(S.LintFile)},
        {"s_agg", S.SAgg},
        {"s_agg_nofloor", S.SAggNoFloor},
        {"phases", std::move(Phases)},
        {"regimes", std::move(Regimes)},
        {"correctness_rate", S.CorrectnessRate},
        {"pass_rate", S.PassRate},
        {"adoption", json::Object{{"static", opt(S.StaticAdoption)},
                                  {"dynamic", S.DynamicAdoption},
                                  {"both", opt(S.BothAdoption)},
                                  {"by_dsl", dslAdoptionJSON(S)}}},
        {"counts", json::Object{{"problems", S.Problems.size()},
                                {"results", S.Results},
                                {"missing", S.Missing.size()},
                                {"scored", S.Scored},
                                {"suspicious", S.Suspicious}}},
        {"missing", S.Missing},
        {"operators", std::move(Ops)},
        {"problems", std::move(Ps)},
        {"warnings", S.Warnings}});
  }
  json::Object Hw{{"name", R.GpuInfo.Name},
                  {"full_name", R.GpuInfo.FullName},
                  {"datasheet", ceilingsJSON(R.GpuInfo.Datasheet)},
                  {"measured", R.GpuInfo.Measured
                                   ? ceilingsJSON(*R.GpuInfo.Measured)
                                   : json::Value(nullptr)}};
  return json::Object{
      {"schema", "atrex-score/1"},
      {"suite", R.Suite},
      {"sealed", json::Object{{"path", R.SealedPath},
                              {"commitment", R.Commitment},
                              {"public", R.PublicPath.empty()
                                             ? json::Value(nullptr)
                                             : json::Value(R.PublicPath)},
                              {"verified", !R.PublicPath.empty()},
                              {"weights", R.WeightsPath},
                              {"weights_source", R.WeightsSource}}},
      {"scope",
       json::Object{{"kind", R.Scope},
                    {"problems", static_cast<int64_t>(R.Problems.size())},
                    {"suite_problems", static_cast<int64_t>(R.SuiteProblems)},
                    {"weight_share", R.ScopeWeightShare}}},
      {"gpu", R.Gpu},
      {"gpu_selected_by", R.GpuSelectedBy},
      {"hardware", std::move(Hw)},
      {"problems", std::move(Problems)},
      {"sets", std::move(Sets)},
      {"warnings", R.Warnings},
      {"input_errors", R.InputErrors}};
}
