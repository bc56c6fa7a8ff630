//===- Report.h - score reports: text, Markdown, JSON, HTML ------*- C++
//-*-===//
//
// Part of atrex. Writers for a ScoreReport; docs/reports.md describes each
// format, and the JSON schema `atrex-score/1`.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SCORE_REPORT_H
#define ATREX_SCORE_REPORT_H

#include "atrex/Score/Score.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace atrex {
namespace score {

/// "N of M problems of the suite (those with a result), X% of its weight;
/// weights renormalised over them" for a measured-only report.
std::string scopeLine(const ScoreReport &R);

void printText(llvm::raw_ostream &OS, const ScoreReport &R);
void printMarkdown(llvm::raw_ostream &OS, const ScoreReport &R);
/// The `atrex-score/1` document.
llvm::json::Value toJSON(const ScoreReport &R);
/// One self-contained page: inline CSS, JavaScript and SVG, no external
/// resources.
void printHTML(llvm::raw_ostream &OS, const ScoreReport &R);

/// Colour of a verdict in the HTML plot and legend ("#rrggbb").
llvm::StringRef verdictColor(llvm::StringRef Verdict);

} // namespace score
} // namespace atrex

#endif // ATREX_SCORE_REPORT_H
