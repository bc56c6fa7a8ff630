//===- RuntimeJson.cpp - fuzz the runtime's own JSON reader ---------------===//
//
// Part of atrex. The input is a JSON document for atrex::rt::Json::parse
// (runtime/lib/support/Json.cpp, the reader of plans, results and tensor
// directories on the execution side: nlohmann-json's SAX parser with the
// runtime's nesting limit and duplicate-key check, nlohmann's serializer). A
// document that parses is written compact and indented; what is written must
// read back, and write again the same (numbers are written with 9 significant
// digits, non-finite ones as null, so the first reading need not equal the
// document).
//
//===----------------------------------------------------------------------===//

#include "atrex-rt/Json.h"

#include <cstdint>
#include <exception>
#include <string>

using atrex::rt::Json;
using atrex::rt::JsonError;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  Json J;
  try {
    J = Json::parse(Text, "fuzz.json");
  } catch (const JsonError &E) {
    // "<what>:<line>:<col>: message"
    if (std::string(E.what()).rfind("fuzz.json:", 0) != 0)
      __builtin_trap();
    return 0;
  }
  for (int Indent : {-1, 2}) {
    std::string Out = J.dump(Indent);
    Json Back;
    try {
      Back = Json::parse(Out, "dump");
    } catch (const JsonError &) {
      __builtin_trap(); // what the writer writes, the reader reads
    }
    if (Back.dump(Indent) != Out)
      __builtin_trap();
  }
  return 0;
}
