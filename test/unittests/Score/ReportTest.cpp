//===- ReportTest.cpp - text, Markdown, JSON and HTML reports -------------===//

#include "atrex/Score/Report.h"
#include "ScoreTestUtil.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <regex>

using namespace atrex::score;
using namespace atrex::score::test;
using namespace llvm;

namespace {

ScoreReport report() {
  SubmissionSet Strict =
      set("naive",
          {passed("a", 20), passed("b", 20, "fallback"),
           result("c", "fail", "correctness", "unknown", std::nullopt, false)});
  SubmissionSet Base =
      set("production",
          {passed("a", 10, "no-kernel"), passed("b", 40, "fallback"),
           passed("c", 80, "fallback"), passed("d", 5, "fallback")},
          /*Baseline=*/true);
  auto R = computeScores(bundle(), {Strict, Base}, ScoreOptions());
  EXPECT_TRUE(bool(R));
  R->InputErrors.push_back("r.jsonl:7: invalid JSON: x");
  return std::move(*R);
}

template <typename Fn> std::string render(Fn F) {
  ScoreReport R = report();
  std::string S;
  raw_string_ostream OS(S);
  F(OS, R);
  return S;
}

TEST(ReportTest, Text) {
  std::string T = render(printText);
  // naive: a 0.5 * 0.25 = 0.125; production: 0.25*1 + 0.25*0.5 + 0.375*0.5 +
  // 0.125*1 = 0.6875.
  EXPECT_NE(T.find("atrex score: suite unit, 4 problems"), std::string::npos);
  EXPECT_NE(T.find("naive       strict                           0.125"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("production  baseline (delegation permitted)  0.688"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("'production' is scored as a baseline (delegation "
                   "permitted)"),
            std::string::npos);
  EXPECT_NE(T.find("missing (1): d"), std::string::npos);
  EXPECT_NE(T.find("r.jsonl:7: invalid JSON: x"), std::string::npos);
}

TEST(ReportTest, Markdown) {
  std::string M = render(printMarkdown);
  EXPECT_NE(M.find("| naive | strict | 0.125 |"), std::string::npos) << M;
  EXPECT_NE(M.find("| production | baseline (delegation permitted) | 0.688 |"),
            std::string::npos);
  EXPECT_NE(M.find("## Set `production` (baseline (delegation permitted))"),
            std::string::npos);
  EXPECT_NE(M.find("|---|---|---:|"), std::string::npos);
}

TEST(ReportTest, JSON) {
  ScoreReport R = report();
  json::Value V = toJSON(R);
  // Round trip through text, as a reader would see it.
  std::string S;
  raw_string_ostream OS(S);
  OS << V;
  auto P = json::parse(S);
  ASSERT_TRUE(bool(P));
  const json::Object *O = P->getAsObject();
  EXPECT_EQ(O->getString("schema"), std::optional<StringRef>("atrex-score/1"));
  const json::Array *Sets = O->getArray("sets");
  ASSERT_EQ(Sets->size(), 2u);
  const json::Object *Naive = (*Sets)[0].getAsObject();
  EXPECT_EQ(Naive->getNumber("s_agg"), std::optional<double>(0.125));
  EXPECT_EQ(Naive->getBoolean("baseline"), std::optional<bool>(false));
  const json::Object *Prod = (*Sets)[1].getAsObject();
  EXPECT_EQ(Prod->getString("mode"),
            std::optional<StringRef>("baseline (delegation permitted)"));
  EXPECT_EQ(Prod->getObject("adoption")->get("static")->kind(),
            json::Value::Null);
  const json::Array *Problems = Naive->getArray("problems");
  ASSERT_EQ(Problems->size(), 4u);
  EXPECT_EQ((*Problems)[1].getAsObject()->getString("zero_reason"),
            std::optional<StringRef>("verdict"));
  EXPECT_EQ(O->getArray("input_errors")->size(), 1u);
}

TEST(ReportTest, HTMLIsSelfContained) {
  std::string H = render(printHTML);
  EXPECT_EQ(H.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(H.find("<svg id=\"roofline\""), std::string::npos);
  EXPECT_NE(H.find("data-atrex-ready"), std::string::npos);
  EXPECT_NE(H.find("<table id=\"leaderboard\">"), std::string::npos);
  EXPECT_NE(H.find("<span class=\"tag\">baseline (delegation permitted)"),
            std::string::npos);
  // No external resource of any kind.
  for (const char *Bad : {"src=", "<link", "@import", "https://"})
    EXPECT_EQ(H.find(Bad), std::string::npos) << Bad;
  std::smatch M;
  std::regex Http("http://[^\"]*");
  std::string Rest = H;
  while (std::regex_search(Rest, M, Http)) {
    EXPECT_EQ(M.str(), "http://www.w3.org/2000/svg");
    Rest = M.suffix();
  }
  // One point per (set, problem) with a time: naive a, b; production 4.
  size_t Points = 0;
  for (size_t At = H.find("class=\"pt\""); At != std::string::npos;
       At = H.find("class=\"pt\"", At + 1))
    ++Points;
  EXPECT_EQ(Points, 6u);
  // Points are coloured by verdict.
  EXPECT_NE(
      H.find("fill=\"" + verdictColor("adopted").str() + "\" class=\"pt\""),
      std::string::npos);
  EXPECT_NE(
      H.find("fill=\"" + verdictColor("no-kernel").str() + "\" class=\"pt\""),
      std::string::npos);
}

TEST(ReportTest, HTMLEscapes) {
  SubmissionSet S = set("<b>&\"x\"", {passed("a", 20)});
  auto R = computeScores(bundle(), {S}, ScoreOptions());
  ASSERT_TRUE(bool(R));
  std::string H;
  raw_string_ostream OS(H);
  printHTML(OS, *R);
  EXPECT_EQ(H.find("<b>&\"x\""), std::string::npos);
  EXPECT_NE(H.find("&lt;b&gt;&amp;&quot;x&quot;"), std::string::npos);
}

TEST(ReportTest, VerdictColorsDiffer) {
  std::vector<std::string> Colors;
  for (const char *V :
       {"adopted", "fallback", "no-kernel", "suspicious", "unknown"})
    Colors.push_back(verdictColor(V).str());
  llvm::sort(Colors);
  EXPECT_EQ(std::unique(Colors.begin(), Colors.end()), Colors.end());
}

} // namespace
