//===- Plan.h - Gate plans and result records -------------------*- C++ -*-===//
#ifndef ATREX_RT_PLAN_H
#define ATREX_RT_PLAN_H

#include "atrex-rt/Json.h"
#include "atrex-rt/OpSpecs.h"
#include "atrex-rt/Protocol.h"

#include <optional>
#include <string>
#include <vector>

namespace atrex::rt {

using protocol::kPlanSchema;
using protocol::kResultSchema;

struct Problem {
  std::string id; // "<operator>/<K=V,...>" unless given
  std::string op;
  ShapeMap shape;
  double floorSeconds = 0; // impossibility floor (0: unknown)
  Json extra;              // passed through to results (e.g. phase, weight)
};

struct Submission {
  std::string name;   // defaults to the source's file name
  std::string source; // path, resolved against the plan's directory
  std::string op;
  std::string lang = "cuda";
  std::string
      expectedVerdict; // optional: checked, reported as "expected_verdict_met"
  std::vector<std::string> extraFlags; // extra nvcc flags
  // lang "python" (docs/gate.md, "Python submissions"): how the submission is
  // called (kernelbench: ModelNew(...).forward(*inputs) returns the outputs;
  // gpumode: custom_kernel(inputs) returns them; entry: a function with the
  // card's destination-passing signature) and the name called (defaults:
  // ModelNew, custom_kernel, the operator's name).
  std::string format;
  std::string entry;
  std::vector<Problem> problems;
};

struct PlanSettings {
  std::string arch = "sm_90";
  double compileSeconds = 300;
  double problemSeconds = 120;
  int64_t rssBytes = 32LL << 30;
  int64_t fileSizeBytes = 1LL << 30;
  int64_t addressSpaceBytes = 0;
  bool privateNetwork = true;
  // Workers see every file system read-only but their job directory and the
  // gate's JIT caches (a mount namespace; needs root: docs/gate.md,
  // "Isolation").
  bool readOnlyView = true;
  // The ghost-replay check after the correctness trials (docs/gate.md,
  // "Integrity checks").
  bool ghostReplay = true;
  // The clocks stage: a unit timed while the GPU slowed its clocks (thermal,
  // hardware slowdown, power brake) is the gate's error (docs/gate.md,
  // "Stages").
  bool clockCheck = true;
  int trials = 4;
  double warmupMs = 100;
  int minReps = 10;
  int maxReps = 500;
  double maxTimedSeconds = 2;
  double targetRelErr = 0.01;
  double graphBelowUs = 10;
  int recheck = 3;
  bool rotateInputs = true; // rotate among input sets covering 3x the L2
  // Device-side sleep (clock cycles) ahead of each timed call's start event, so
  // the call is enqueued before the GPU reaches the event (hides the host gap).
  int64_t gapSleepCycles = 100000;
  // Time passing units in a second worker run without the Sanitizer
  // subscription (see atrex-gate.cpp, docs/gate.md); its median is used when
  // within cleanTimingTolerance of the attributed run's.
  bool cleanTiming = true;
  double cleanTimingTolerance = 0.1;
  // Calls whose kernels CUPTI times in the clean run of a unit that launched
  // own and foreign kernels (the own-time share); 0: not measured.
  int ownShareCalls = 10;
  // Cap (MiB) on the GPU memory torch's caching allocator may hold for a
  // worker (gate and candidate tensors together); 0: no cap.
  int64_t gpuMb = 0;
  // A third worker run of the correctness trials under compute-sanitizer's
  // memcheck (out-of-bounds and misaligned accesses that happen to pass).
  bool memcheck = false;
  double memcheckSeconds = 900;
  std::string seedSource = "random"; // "random" or "fixed"
  uint64_t seed = 0;                 // with "fixed"
  std::string gpu;                   // expected GPU name substring (optional)
  std::string cacheDir;              // default: <out dir>/.atrex-gate-cache
  std::string
      hipInclude; // lang hip: patched HIP include dir (resolveHipInclude)
};

struct Plan {
  std::string path, dir;
  PlanSettings settings;
  std::vector<Submission> submissions;
};

// One (submission, problem) pair; the unit of sharding and of a result line.
struct Unit {
  size_t index;
  const Submission *submission;
  const Problem *problem;
};

// Parses and validates a plan; errors name the file and the offending entry.
Plan loadPlan(const std::string &path);
Plan parsePlan(const Json &j, const std::string &path);
/// Every key a plan's "settings" may hold (one table in Plan.cpp).
std::vector<std::string> settingKeys();
/// The settings the worker reads from its job document ("settings").
Json workerSettingsJson(const PlanSettings &s);
std::vector<Unit> allUnits(const Plan &plan);
// Units with index % count == shard (0 <= shard < count).
std::vector<Unit> shardUnits(const Plan &plan, int shard, int count);
// Parses "i/n"; throws on malformed text.
std::pair<int, int> parseShard(const std::string &text);

// Validates a result line against the result schema; returns "" when valid,
// otherwise what is wrong.
std::string validateResult(const Json &result);

} // namespace atrex::rt

#endif // ATREX_RT_PLAN_H
