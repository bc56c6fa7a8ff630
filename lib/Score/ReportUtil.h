//===- ReportUtil.h - tables shared by the report writers -------*- C++ -*-===//
//
// Part of atrex. Internal to lib/Score: the tables every format shows, as
// cells of text, so that text, Markdown and HTML agree.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LIB_SCORE_REPORTUTIL_H
#define ATREX_LIB_SCORE_REPORTUTIL_H

#include "atrex/Score/Score.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace atrex {
namespace score {
namespace rep {

struct Table {
  std::vector<std::string> Header;
  std::vector<bool> Numeric; ///< right-aligned columns
  std::vector<std::vector<std::string>> Rows;
};

std::string num(std::optional<double> V, int Digits = 3);
std::string pct(std::optional<double> V);
/// Seconds as microseconds with 3 decimals.
std::string us(std::optional<double> Seconds);
std::string modeLabel(const SetScore &S);
/// "static / dynamic / both" adoption rates.
std::string adoption(const SetScore &S);
/// "flydsl 43.8%, triton 12.5%" (SetScore::DslAdoption, largest first).
std::string dslAdoption(const SetScore &S);
/// {"flydsl": 0.438, ...}, or null without a lint report.
llvm::json::Value dslAdoptionJSON(const SetScore &S);
std::string gpuLine(const ScoreReport &R);
std::string commitmentLine(const ScoreReport &R);

Table leaderboard(const ScoreReport &R);
Table operatorComparison(const ScoreReport &R);
Table operatorTable(const SetScore &S);
Table regimeTable(const SetScore &S);
Table problemTable(const SetScore &S);

} // namespace rep
} // namespace score
} // namespace atrex

#endif // ATREX_LIB_SCORE_REPORTUTIL_H
