//===- GateRun.h - The gate parent's decisions about a unit ------*- C++
//-*-===//
//
// What atrex-gate decides from its worker runs, kept out of the driver so
// that it is unit-tested without processes: resuming from a results file,
// the outcome of a worker run, and the clean timing run.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_GATERUN_H
#define ATREX_RT_GATERUN_H

#include "atrex-rt/Json.h"
#include "atrex-rt/Plan.h"
#include "atrex-rt/Supervisor.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace atrex::rt {

/// The identity of a unit in a results file: index, submission and problem.
std::string unitKey(int64_t index, const std::string &submission,
                    const std::string &problem);
/// The identity of a plan's unit, and of the unit a result line is for.
std::string unitKey(const Unit &unit);
std::string unitKey(const Json &result);

/// One line of a results file, numbered from 1.
struct ResultLine {
  int line = 0;
  std::string text;
  Json result; // parsed gate result (empty for a torn line)
  std::string
      error; // a torn line: why it does not parse ("FILE:LINE:COL: ...")
};
/// The lines of a results file in file order: gate results, and torn lines
/// (a run killed while writing: not JSON) kept apart. Empty lines are
/// skipped. A line that parses but is not a gate result (no unit,
/// submission or problem) throws, naming the file and line; so does an
/// unreadable file.
struct ResultFile {
  std::vector<ResultLine> results, torn;
};
ResultFile readResultFile(const std::string &path);

/// A result line that counts as the unit's result: any status but "error"
/// (an "error" is the gate's fault, and --resume runs the unit again).
bool isFinalResult(const Json &result);

/// The units that already have a result other than "error" in a results
/// file (for --resume). A torn line (a run killed while writing) is skipped
/// and named in `warnings`; a line that parses but is not a gate result
/// throws, naming the file and line.
std::set<std::string> completedUnits(const std::string &path,
                                     std::vector<std::string> &warnings);

/// Appends one line under an exclusive lock (several gates may share a file);
/// after a torn last line the new one starts on a line of its own.
void appendResultLine(const std::string &path, const std::string &line);

/// One run of atrex-gate-worker: how it ended, its last complete report line,
/// and whether the watchdog ended it during the gate's own work (the
/// worker's phase byte was 'g').
struct WorkerRun {
  ChildResult child;
  bool haveReport = false;
  bool gateTimedOut = false;
  int forgedLines =
      0; // report lines without the run's key (see lastReportLine)
  Json report;
};

/// The last complete JSON object line of a worker's report bytes. With a
/// `key` (the secret the parent gave this worker run on stdin), only lines
/// `<key> <json>` count; every other non-empty line was not written by the
/// gate (the candidate shares the worker's file descriptors) and is counted
/// in `forged`.
bool lastReportLine(const std::string &bytes, Json &report,
                    const std::string &key = "", int *forged = nullptr);

/// A fresh secret for one worker run's report lines (32 hex digits).
std::string reportKey();

/// SipHash-2-4 of `size` bytes under the 128-bit key (k0, k1).
uint64_t sipHash24(uint64_t k0, uint64_t k1, const void *data, size_t size);

/// The seed of unit `index` of a run: SipHash-2-4 keyed by the run's seed, so
/// that the seeds of units already in the results file (which a candidate can
/// read) tell nothing about the seeds of the others. 63 bits.
uint64_t unitSeedOf(uint64_t runSeed, int64_t index);

struct Outcome {
  std::string status, stage, reason; // status "" when nothing is decided
};

/// A worker run's status (pass/fail/error), stage and reason.
Outcome outcomeOf(const WorkerRun &run);

/// The report of one worker process that runs several units (docs/gate.md,
/// "Worker batches"), read as it arrives. The worker runs the job's units in
/// order, so every line with the run's key belongs to the current unit: the
/// first of the job without a final line (one with "status"). A keyed line
/// whose "unit" names another unit, and every line without the key, is
/// counted as forged for the current unit (after the last unit's final line:
/// for the last unit).
class BatchReport {
public:
  BatchReport(std::vector<int64_t> units, std::string key);
  /// Reads the complete lines of `bytes` (the whole report so far) not read
  /// yet; returns the positions (in the job) of the units whose final line
  /// arrived among them.
  std::vector<size_t> feed(const std::string &bytes);
  size_t size() const { return units_.size(); }
  /// Units with a final line, counted from the job's first.
  size_t finished() const { return finished_; }
  /// The current unit's position (== size() when every unit has finished).
  size_t current() const { return finished_; }
  int64_t unit(size_t pos) const { return units_[pos]; }
  const Json *last(size_t pos) const {
    return have_[pos] ? &last_[pos] : nullptr;
  }
  int forged(size_t pos) const { return forged_[pos]; }
  /// True once the unit's final line says anything but pass, or a line was
  /// forged during it: the worker is not trusted with the next unit.
  bool failed(size_t pos) const;

private:
  std::vector<int64_t> units_;
  std::string key_;
  size_t read_ = 0, finished_ = 0;
  std::vector<Json> last_;
  std::vector<bool> have_;
  std::vector<int> forged_;
};

/// What the gate saw at the end of one unit of a batch (the moment its final
/// line arrived): seconds from the worker's start, its peak resident set so
/// far, and the processes found outside its group and killed then.
struct UnitMark {
  double endSeconds = 0;
  int64_t peakRssBytes = 0;
  int orphansKilled = 0;
};

/// After a batch's worker ended: the WorkerRun of each unit it decided, in job
/// order. Units with a final line get a ChildResult of their own
/// (End::Continued, their own wall time from the previous unit's end, their
/// mark's peak and orphans); the process's own end (crash, hang, memory, exit)
/// goes to the first unit without a final line, so that a crash costs that
/// unit only, or, when every unit finished or the last one to finish did not
/// pass (the worker then exits), to that last one (with the processes left
/// at the very end). `gateTimedOut` (the phase file named the
/// gate's own work when the watchdog struck) applies to that unit. When the
/// gate stopped the worker (`child.stoppedByHook`, after a unit failed), the
/// units after the last finished one are not decided. The units not decided
/// (the returned vector is shorter than the job) run again in a fresh worker.
std::vector<WorkerRun> decideBatch(const BatchReport &report,
                                   const ChildResult &child,
                                   const std::vector<UnitMark> &marks,
                                   bool gateTimedOut);

/// The clean timing run (docs/gate.md, "Clean timing run"): for a passing,
/// attributed result, runs `runClean` and takes its median into
/// `result.performance` when within settings.cleanTimingTolerance of the
/// attributed one (the attributed figures move to `performance.attributed`);
/// records what happened in `performance.clean_run`. When the attributed run
/// saw side streams, `runClean` gets graphs = false, its time counts only
/// when measured device-wide (every rep a CUPTI span) and is taken whenever it
/// is not below 1 - tolerance of the attributed one; without a device-wide
/// span the attributed time stands, unless a stream was destroyed before the
/// gate could time it (then the outcome is the gate's `error`). When the
/// attributed run's timed calls launched own and foreign kernels, `runClean`
/// gets settings.ownShareCalls (else 0): the number of calls whose kernels the
/// clean run times with CUPTI, joined by applyKernelTimes. Returns the clean
/// run's outcome when it failed (the unit then fails), else an Outcome with an
/// empty status.
Outcome applyCleanTiming(
    Json &result, const PlanSettings &settings,
    const std::function<WorkerRun(int ownShareCalls, bool graphs)> &runClean);

/// The two halves of applyCleanTiming, for a clean run made apart from the
/// decision (one clean worker for all the units of a submission):
/// planCleanRun says whether the unit gets a clean run and with what (graphs,
/// the own-time share's calls; it notes on the attribution when those calls
/// are off), applyCleanRun takes the run's report into the result.
struct CleanRunPlan {
  bool run = false;
  int ownShareCalls = 0;
  bool graphs = true; // false: side streams (device-wide spans, no graphs)
};
CleanRunPlan planCleanRun(Json &result, const PlanSettings &settings);
Outcome applyCleanRun(Json &result, const PlanSettings &settings,
                      const CleanRunPlan &plan, const WorkerRun &run);

/// True when the timed calls launched own and foreign kernels (the own-time
/// share is not decided by the attribution alone).
bool mixedOwnForeign(const Json &attribution);

/// The own-time share of a mixed unit (docs/gate.md, "Own-time share"): joins
/// the clean run's per-kernel durations (`kernelTimes`, the worker's
/// `kernel_times`: {calls, kernels: [{name, launches, total_us}]} or {error})
/// with the attributed run's kernels by name, and sets in `attribution`
/// `own_time_share` (or null with `own_time_share_why` and, when names could
/// not all be matched, `own_time_share_range`), `own_time_share_source` and
/// `kernel_times` (each kernel with `own`: true, false or null).
void applyKernelTimes(Json &attribution, const Json *kernelTimes);

/// What a compute-sanitizer memcheck log says: `{summary_found, errors,
/// first?: the first error with its location}`.
Json parseMemcheckLog(const std::string &log);

/// The memcheck run (settings.memcheck, docs/gate.md "Memcheck"): records
/// `memcheck` in the result; returns a failing Outcome when memcheck found
/// errors in a run that otherwise passed, else an empty one (an inconclusive
/// run — crash, limit, no summary — is recorded, not held against the unit).
Outcome applyMemcheck(Json &result, const WorkerRun &run,
                      const std::string &log);

/// Whether a timer symbol that resolves outside CUDA's own libraries was
/// bound so before the submission's library was loaded and loading it left
/// the binding as it was (same address, same file): the worker's environment
/// did it (a profiler the operator attached, such as Nsight Compute's CUDA
/// injection, or an LD_PRELOAD), not the submission, whose code had not run.
/// The worker's timer check (docs/gate.md, "Integrity checks") records such a
/// library under `timer_symbols.injected_by_environment` instead of failing
/// the unit. (Matching the file against CUDA_INJECTION64_PATH/LD_PRELOAD, the
/// first rule, exempted nothing under ncu: H200 2026-12-02d.)
bool boundBeforeSubmission(const std::string &fileBefore,
                           const void *addrBefore, const std::string &fileAfter,
                           const void *addrAfter);

} // namespace atrex::rt

#endif // ATREX_RT_GATERUN_H
