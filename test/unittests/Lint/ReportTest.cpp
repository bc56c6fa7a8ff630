//===- ReportTest.cpp - JSON, SARIF and text reports ----------------------===//

#include "atrex/Lint/Report.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace atrex::lint;
using namespace llvm;

namespace {

class ReportTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createTemporaryFile("report", "cu", Path));
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << "void f() {\n  cublasSgemm_v2(h);\n}\n";
    R.Path = std::string(Path);
    R.Files = {R.Path};
    Finding F;
    F.Check = "atrex-delegation-vendor";
    F.Sev = Severity::Warning;
    F.Message = "call to 'cublasSgemm_v2' delegates compute to cuBLAS";
    F.Pos = {R.Path, 2, 3};
    F.Library = "cuBLAS";
    F.Symbol = "cublasSgemm_v2";
    F.CallPath = {"entry", "f"};
    R.Findings.push_back(F);
    decideVerdict(R);
  }
  void TearDown() override { sys::fs::remove(Path); }

  SmallString<128> Path;
  SubmissionResult R;
};

TEST_F(ReportTest, JSONSchema) {
  json::Value V = toJSON({R});
  json::Object *O = V.getAsObject();
  ASSERT_NE(O, nullptr);
  EXPECT_EQ(O->getInteger("schema_version"), 1);
  json::Array *Subs = O->getArray("submissions");
  ASSERT_NE(Subs, nullptr);
  ASSERT_EQ(Subs->size(), 1u);
  json::Object *S = (*Subs)[0].getAsObject();
  EXPECT_EQ(S->getString("path"), R.Path);
  EXPECT_EQ(S->getString("verdict"), "fallback");
  json::Array *Fs = S->getArray("findings");
  ASSERT_EQ(Fs->size(), 1u);
  json::Object *F = (*Fs)[0].getAsObject();
  EXPECT_EQ(F->getString("check"), "atrex-delegation-vendor");
  EXPECT_EQ(F->getInteger("line"), 2);
  EXPECT_EQ(F->getString("implies"), "fallback");
  EXPECT_EQ(F->getArray("call_path")->size(), 2u);
  EXPECT_EQ(O->getObject("summary")->getInteger("fallback"), 1);
}

TEST_F(ReportTest, SARIFDocument) {
  json::Value V = toSARIF({R});
  json::Object *Doc = V.getAsObject();
  ASSERT_NE(Doc, nullptr);
  EXPECT_EQ(Doc->getString("version"), "2.1.0");
  json::Array *Runs = Doc->getArray("runs");
  ASSERT_EQ(Runs->size(), 1u);
  json::Object *Run = (*Runs)[0].getAsObject();
  json::Array *Results = Run->getArray("results");
  ASSERT_EQ(Results->size(), 1u);
  json::Object *Res = (*Results)[0].getAsObject();
  EXPECT_EQ(Res->getString("ruleId"), "atrex-delegation-vendor");
  EXPECT_EQ(Res->getString("level"), "warning");
  json::Object *Loc = (*Res->getArray("locations"))[0].getAsObject()->getObject(
      "physicalLocation");
  ASSERT_NE(Loc, nullptr);
  EXPECT_EQ(Loc->getObject("region")->getInteger("startLine"), 2);
  EXPECT_EQ(Loc->getObject("region")->getInteger("startColumn"), 3);
  // Every check is a rule.
  EXPECT_GE(
      Run->getObject("tool")->getObject("driver")->getArray("rules")->size(),
      10u);
}

TEST_F(ReportTest, TextIsClangStyle) {
  std::string S;
  raw_string_ostream OS(S);
  TextOptions TO;
  writeText({R}, TO, OS);
  OS.flush();
  std::string Head = R.Path + ":2:3: warning: call to 'cublasSgemm_v2' "
                              "delegates compute to cuBLAS "
                              "[atrex-delegation-vendor]";
  EXPECT_EQ(S.find(Head), 0u) << S;
  EXPECT_NE(S.find("cublasSgemm_v2(h);"), std::string::npos) << S;
  EXPECT_NE(S.find("note: reached from entry 'entry' -> 'f'"),
            std::string::npos);
  EXPECT_NE(S.find(R.Path + ": verdict: fallback"), std::string::npos) << S;
}

TEST_F(ReportTest, MissingSourceStillReports) {
  R.Findings[0].Pos.File = "/nonexistent/x.cu";
  std::string S;
  raw_string_ostream OS(S);
  writeText({R}, TextOptions(), OS);
  OS.flush();
  EXPECT_NE(S.find("/nonexistent/x.cu:2:3: warning:"), std::string::npos) << S;
  json::Value V = toSARIF({R});
  EXPECT_NE(V.getAsObject(), nullptr);
}

} // namespace
