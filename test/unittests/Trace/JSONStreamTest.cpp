//===- JSONStreamTest.cpp - streaming chrome-trace reader -----------------===//

#include "atrex/Trace/JSONStream.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <string>
#include <vector>

using namespace atrex::trace;
using namespace llvm;

namespace {

struct Collected {
  std::vector<std::string> Texts;
  std::vector<uint64_t> Offsets;
};

Expected<Collected> collect(StringRef Doc, size_t Chunk) {
  Collected C;
  Error E = streamTraceEventsFromBuffer(
      "doc.json", Doc,
      [&](StringRef Text, uint64_t Off) {
        C.Texts.push_back(Text.str());
        C.Offsets.push_back(Off);
        return Error::success();
      },
      Chunk);
  if (E)
    return std::move(E);
  return C;
}

const char *Doc = R"({"schemaVersion": 1,
 "deviceProperties": [{"name": "a ] } [ {", "x": [1, 2, {"y": null}]}],
 "traceEvents": [
  {"ph": "X", "name": "a \"quoted\" } name", "ts": 1.5, "dur": 2},
  {"ph": "i", "args": {"nested": [[1, 2], [], {"k": "\\"}]}},
  {}
 ],
 "traceName": "t"}
)";

TEST(JSONStreamTest, SameEventsAtEveryChunkSize) {
  auto Ref = collect(Doc, 1 << 20);
  ASSERT_TRUE(bool(Ref)) << toString(Ref.takeError());
  ASSERT_EQ(Ref->Texts.size(), 3u);
  EXPECT_EQ(
      Ref->Texts[0],
      R"({"ph": "X", "name": "a \"quoted\" } name", "ts": 1.5, "dur": 2})");
  EXPECT_EQ(Ref->Texts[2], "{}");
  StringRef D(Doc);
  for (size_t I = 0; I < 3; ++I)
    EXPECT_TRUE(D.substr(Ref->Offsets[I]).starts_with(Ref->Texts[I]));
  // Chunk boundaries fall inside strings, escapes and numbers.
  for (size_t Chunk = 16; Chunk < 80; ++Chunk) {
    auto C = collect(Doc, Chunk);
    ASSERT_TRUE(bool(C)) << toString(C.takeError());
    EXPECT_EQ(C->Texts, Ref->Texts) << "chunk " << Chunk;
    EXPECT_EQ(C->Offsets, Ref->Offsets) << "chunk " << Chunk;
  }
}

TEST(JSONStreamTest, EveryTruncationIsAnErrorWithItsOffset) {
  std::string Full(Doc);
  // Cutting the document anywhere before its final '}' must fail, naming the
  // byte where the input ended.
  size_t Last = Full.rfind('}');
  for (size_t Cut = 0; Cut < Last; ++Cut) {
    auto C = collect(StringRef(Full).substr(0, Cut), 16);
    ASSERT_FALSE(bool(C)) << "cut at " << Cut;
    std::string Msg = toString(C.takeError());
    EXPECT_NE(Msg.find("doc.json: byte "), std::string::npos) << Msg;
  }
  auto Whole = collect(Full, 16);
  EXPECT_TRUE(bool(Whole));
  if (!Whole)
    consumeError(Whole.takeError());
}

TEST(JSONStreamTest, StructuralErrors) {
  auto Expect = [](StringRef D, StringRef Msg) {
    auto C = collect(D, 7);
    ASSERT_FALSE(bool(C)) << D.str();
    EXPECT_EQ(toString(C.takeError()), Msg.str());
  };
  Expect(R"({"traceEvents": [{"a": 1} {"b": 2}]})",
         "doc.json: byte 26: expected ',' or ']' after an event, found '{'");
  Expect(R"({"traceEvents": [{"a" 1}]})",
         "doc.json: byte 22: expected ':' after an object key, found '1'");
  Expect(R"({"x": 1})", "doc.json: byte 8: no \"traceEvents\" array in the "
                        "trace");
  Expect(R"([1, 2])", "doc.json: byte 0: expected '{' at the start of the "
                      "trace, found '['");
  Expect(R"({"traceEvents": []} extra)",
         "doc.json: byte 20: unexpected data after the top-level object");
  Expect(R"({"traceEvents": [{"a": "\q"}]})",
         "doc.json: byte 24: invalid escape '\\q'");
}

TEST(JSONStreamTest, ReadsFilesInChunks) {
  SmallString<128> Path;
  int FD;
  ASSERT_FALSE(sys::fs::createTemporaryFile("trace", "json", FD, Path));
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << "{\"traceEvents\": [";
    for (int I = 0; I < 5000; ++I)
      OS << (I ? "," : "") << "{\"ph\": \"X\", \"ts\": " << I << "}";
    OS << "]}";
  }
  uint64_t Count = 0, Bytes = 0;
  Error E = streamTraceEvents(
      Path,
      [&](StringRef Text, uint64_t) {
        ++Count;
        return Error::success();
      },
      &Bytes, 4096);
  EXPECT_FALSE(bool(E)) << toString(std::move(E));
  EXPECT_EQ(Count, 5000u);
  uint64_t Size = 0;
  ASSERT_FALSE(sys::fs::file_size(Path, Size));
  EXPECT_EQ(Bytes, Size);
  sys::fs::remove(Path);
}

} // namespace
