//===- RuntimePlan.cpp - fuzz the gate's plan and result readers ----------===//
//
// Part of atrex. The input is a gate plan (atrex-gate-plan/1, docs/gate.md)
// read by the execution side's parser (runtime/lib/support/Plan.cpp) and
// split into units and shards as atrex-gate does; the same document is
// validated as a result line. Errors are exceptions whose message names
// the plan.
//
//===----------------------------------------------------------------------===//

#include "atrex-rt/Json.h"
#include "atrex-rt/Plan.h"

#include <cstdint>
#include <exception>
#include <string>

using namespace atrex::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const std::string Path = "/nonexistent/fuzz/plan.json";
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  Json J;
  try {
    J = Json::parse(Text, Path);
  } catch (const JsonError &) {
    return 0;
  }
  (void)validateResult(J);
  try {
    Plan P = parsePlan(J, Path);
    size_t Sharded = 0;
    for (int Shard = 0; Shard < 3; ++Shard)
      Sharded += shardUnits(P, Shard, 3).size();
    if (Sharded != allUnits(P).size())
      __builtin_trap(); // the shards partition the units
  } catch (const std::runtime_error &E) {
    if (std::string(E.what()).rfind(Path, 0) != 0)
      __builtin_trap(); // every plan error names the plan
  }
  return 0;
}
