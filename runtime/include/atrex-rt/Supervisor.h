//===- Supervisor.h - Run a child process under limits ----------*- C++ -*-===//
//
// Runs one child (a compiler, a gate worker) in its own process group with
// resource limits and a watchdog, captures its stdout/stderr tails and the
// report it writes on file descriptor 3, and explains how it ended. Only the
// parent writes results: the child's report is data to validate.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_SUPERVISOR_H
#define ATREX_RT_SUPERVISOR_H

#include "atrex-rt/Json.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace atrex::rt {

struct Limits {
  double wallSeconds = 60;       // watchdog: kill the process group after this
  double cpuSeconds = 0;         // RLIMIT_CPU (0: none)
  int64_t addressSpaceBytes = 0; // RLIMIT_AS (0: none; CUDA needs a huge one)
  int64_t fileSizeBytes = 0;     // RLIMIT_FSIZE (0: none)
  int64_t rssBytes = 0;          // resident-set watchdog, polled (0: none)
  int64_t openFiles = 0;         // RLIMIT_NOFILE (0: inherit)
  bool privateNetwork =
      false; // unshare(CLONE_NEWNET) before exec, where allowed
  // A private mount namespace in which every file system is read-only except
  // `writablePaths` (and their subtrees), set up before exec where allowed
  // (root, CAP_SYS_ADMIN, Linux 5.12+ mount_setattr). Best effort, like
  // privateNetwork: the outcome is ChildResult::readOnlyView. Writes to
  // character devices (/dev/nvidia*) are not affected by a read-only mount.
  bool readOnlyView = false;
  std::vector<std::string> writablePaths;
  // Make this process a child subreaper and, once the child has ended, kill
  // and reap every process left that escaped its process group (setsid,
  // setpgid, double fork). Only while no other child of this process runs.
  bool killOrphans = false;
  size_t outputTailBytes = 16384;
  size_t reportMaxBytes = 64 << 20;
};

struct ChildResult {
  // Continued: not an end of the process. One unit of a worker that runs
  // several (docs/gate.md, "Worker batches"): the worker reported the unit's
  // end and went on; the record is the gate's account of that unit.
  enum class End {
    Exited,
    Signaled,
    TimedOut,
    MemoryExceeded,
    SpawnFailed,
    Continued
  };
  End end = End::SpawnFailed;
  int exitCode = -1;
  int signal = 0;
  double wallSeconds = 0;
  int64_t peakRssBytes = 0;
  bool privateNetwork = false;   // whether the network namespace was created
  bool readOnlyView = false;     // whether the read-only mount view was set up
  std::string readOnlyViewError; // why not, when it was asked for and failed
  int orphansKilled =
      0; // processes left behind outside the group (killOrphans)
  std::string stdoutTail, stderrTail;
  std::string report; // bytes written to fd 3
  bool reportTruncated = false;
  std::string spawnError;
  // Seconds from the start at which a ReportHook last restarted the watchdog's
  // clock (0: never); the wall-clock limit counts from there.
  double clockRestartedAt = 0;
  bool stoppedByHook = false; // ended because a ReportHook asked for it

  bool succeeded() const {
    return (end == End::Exited && exitCode == 0) || end == End::Continued;
  }
  // One line saying how the child ended ("crashed: segmentation fault
  // (SIGSEGV)", ...).
  std::string reason() const;
  Json toJson() const;
};

/// What a ReportHook asks for: restart the wall-clock watchdog's clock (a
/// worker that runs several units has a limit per unit), or end the child now.
struct Progress {
  bool restartClock = false;
  bool stop = false;
};
/// Called while the child runs, each time new bytes arrived on its report
/// channel (fd 3); `sofar` holds the report bytes, the output tails and the
/// peak resident set up to now.
using ReportHook =
    std::function<Progress(pid_t child, const ChildResult &sofar)>;

/// While `child` (the leader of its own process group) runs: kills the
/// processes that left its group — descendants of `child` in another process
/// group (setsid, setpgid) and, under PR_SET_CHILD_SUBREAPER, orphans
/// reparented to this process outside that group (a double fork) — and
/// returns how many. Processes still in the group are left alone.
int killEscaped(pid_t child);

/// The contents of a /proc file, or "" when it cannot be read (no such
/// process, or it ended while being read). Never throws.
std::string readProcFile(const std::string &path);

/// Kills the process group of every child runSupervised is running now, from
/// any thread (async-signal-safe: for the parent's SIGTERM handler, so that a
/// gate ended by a time limit or a job scheduler takes its workers with it).
void killRunningChildren();

// argv[0] is the program (searched in PATH when it has no '/').
// `stdinData` is written to the child's stdin, which is then closed.
// `env` entries are added to (or replace in) the inherited environment;
// entries in `unsetEnv` are removed.
ChildResult runSupervised(const std::vector<std::string> &argv,
                          const Limits &limits,
                          const std::string &stdinData = "",
                          const std::string &workDir = "",
                          const std::map<std::string, std::string> &env = {},
                          const std::vector<std::string> &unsetEnv = {},
                          const ReportHook &onReport = {});

} // namespace atrex::rt

#endif // ATREX_RT_SUPERVISOR_H
