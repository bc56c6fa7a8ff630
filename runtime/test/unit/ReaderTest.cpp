//===- ReaderTest.cpp - readers of hostile input: fuzzing regressions -----===//
//
// Inputs found by fuzzing the execution side's JSON and plan readers
// (fuzz/RuntimePlan.cpp, fuzz/RuntimeJson.cpp; docs/fuzzing.md). Each was
// undefined behaviour or an escaping exception; each is now an error that
// names the file and the entry.
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/Json.h"
#include "atrex-rt/Plan.h"

#include <gtest/gtest.h>
#include <string>

using namespace atrex::rt;

namespace {
std::string planError(const std::string &text) {
  try {
    parsePlan(Json::parse(text), "p.json");
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}
} // namespace

// "rss_mb": -1 and sizes past 2^43 MiB were shifted into bytes (a negative
// or overflowing left shift).
TEST(ReaderFuzz, PlanSizesOutOfRange) {
  for (const char *key : {"rss_mb", "file_mb", "address_space_mb"})
    for (const char *value : {"-1", "9223372036854775807", "8796093022208"}) {
      std::string text = std::string(R"({"settings":{")") + key +
                         "\":" + value + R"(},"submissions":[]})";
      EXPECT_EQ(planError(text).rfind(
                    std::string("p.json: settings.") + key +
                        ": expected a size in MiB from 0 to 8796093022207",
                    0),
                0u)
          << text << ": " << planError(text);
    }
  EXPECT_NE(
      planError(R"({"settings":{"rss_mb":8796093022207},"submissions":[]})")
          .find("submissions: must be a non-empty array"),
      std::string::npos);
}

// A result whose keys have the wrong types: what is wrong, not a JsonError
// escaping validateResult.
TEST(ReaderFuzz, ResultKeysOfTheWrongType) {
  EXPECT_EQ(validateResult(Json::parse(R"({"schema":-9223372036854775808})")),
            "key 'schema': expected a string, found integer");
  EXPECT_EQ(
      validateResult(Json::parse(
          R"({"schema":"atrex-gate-result/1","unit":0,"submission":"s","problem":"p",)"
          R"("status":["pass"],"stage":"done","verdict":"adopted"})")),
      "key 'status': expected a string, found array");
}
