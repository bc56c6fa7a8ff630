//===- Stage.h - The gate's stages and the worker runs they make -*- C++
//-*-===//
//
// A gate stage is one step of what atrex-gate does with the units of one
// submission: compile, the attributed run (correctness, performance and
// attribution in the worker), the clean timing run, the memcheck run, the
// floor check. Each is one class (name, whether the plan enables it, run on
// the group's units), listed once, in order, in gateStages() (Stages.cpp);
// the driver runs them in that order and writes the results. Stages share
// the group's UnitStates and run workers through WorkerRunner
// (docs/gate.md, "Worker batches"); docs/contributing.md, "Adding a gate
// stage", walks through adding one.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_STAGE_H
#define ATREX_RT_STAGE_H

#include "atrex-rt/Compile.h"
#include "atrex-rt/GateRun.h"
#include "atrex-rt/Json.h"
#include "atrex-rt/Plan.h"
#include "atrex-rt/Protocol.h"
#include "atrex-rt/Supervisor.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace atrex::rt {

/// One unit's result under construction, and what its worker runs gave.
struct UnitState {
  const Unit *u = nullptr;
  Json r; // the result line so far
  std::string status = protocol::kError, stage = protocol::kStageCompile,
              reason, verdict = protocol::kUnknown;
  uint64_t seed = 0;
  Json sideEffects = Json::object(), workerSeconds = Json::object();
  double workerWall = 0; // the unit's share of its worker runs' wall time
  CleanRunPlan clean;
  bool passing() const { return status == protocol::kPass; }
  /// Fails (or errs) the unit with `out`, the reason prefixed by `prefix`.
  void take(const Outcome &out, const std::string &prefix = "");
};

/// One unit of a worker run, with its per-unit job options (graphs,
/// device_wide, kernel_time_calls).
struct BatchItem {
  UnitState *st;
  Json options;
};

/// Runs atrex-gate-worker processes over the units of one submission
/// (docs/gate.md, "Worker batches"): one worker runs them in order; after a
/// unit that did not pass (or that forged a report line or left processes
/// behind) the units left go to a fresh worker, so a crash costs the unit it
/// happened in. Records each unit's side effects and worker seconds under
/// the run kind.
/// What runs a Python submission's worker (docs/gate.md, "Python
/// submissions"): the interpreter (ATREX_GATE_PYTHON, else the one whose torch
/// the runtime was built against), the host script next to `worker` and the
/// worker library in the build's lib/.
struct PythonWorker {
  std::string python, script, core;
};
PythonWorker pythonWorker(const std::string &worker);

class WorkerRunner {
public:
  WorkerRunner(const Plan &plan, std::string worker, std::string jobDir,
               std::string cacheDir);
  std::vector<WorkerRun>
  run(const std::string &runKind, const CompileResult &cr,
      const std::vector<BatchItem> &items,
      const std::map<std::string, std::string> &extraEnv = {},
      const std::vector<std::string> &wrapper = {},
      double wallSeconds = 0) const;
  const std::string &jobDir() const { return jobDir_; }
  /// --device-lock: every worker run holds an exclusive flock on this file
  /// (compiles do not), so gates sharing one GPU measure one at a time.
  void setDeviceLock(std::string path) { deviceLock_ = std::move(path); }

private:
  const Plan &plan_;
  std::string worker_, jobDir_, cacheDir_, deviceLock_;
  Limits lim_;
};

/// What the stages of one submission's group share.
struct GroupContext {
  const Plan &plan;
  const Submission &sub;
  std::vector<UnitState> &states;
  const WorkerRunner &workers;
  /// The submission's compile result (compiled once, ahead of the runs).
  const CompileResult &compile;
};

/// One stage of the gate. run() sees every unit of the group and acts on
/// those it applies to (most: the units still passing); it decides a unit's
/// status, stage and reason only when the unit fails there.
class Stage {
public:
  virtual ~Stage() = default;
  /// The stage's name (docs/gate.md, "Stages").
  virtual std::string_view name() const = 0;
  /// Whether the plan's settings turn the stage on.
  virtual bool enabled(const PlanSettings &) const { return true; }
  virtual void run(GroupContext &group) const = 0;
};

/// The gate's stages in the order they run.
const std::vector<const Stage *> &gateStages();

} // namespace atrex::rt

#endif // ATREX_RT_STAGE_H
