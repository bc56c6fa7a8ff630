//===- Isolation.h - run analyses in child processes with limits -*- C++
//-*-===//
//
// Part of atrex. A pathological input (a 5 MB single line, 200,000
// redefinitions, a macro that expands to billions of tokens) can keep clang
// busy for minutes or take all memory. atrex-lint analyses each file of a
// batch in a forked child process under a wall-clock and a resident-memory
// limit, so that such a file ends `unknown` naming the limit while the other
// files of the run are unaffected.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_ISOLATION_H
#define ATREX_LINT_ISOLATION_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include <string>
#include <vector>

namespace atrex {
namespace lint {

struct ChildLimits {
  unsigned Seconds = 0;   ///< wall clock per task; 0: none
  unsigned MaxRssMiB = 0; ///< resident set size per task; 0: none
  /// Each task's child leads a process group of its own, and the group is
  /// killed when a limit is reached and when the task ends: what the task
  /// started (a Python it ran) does not outlive it.
  bool OwnProcessGroup = false;
};

struct ChildOutcome {
  bool OK = false;    ///< the task ran to its end and returned Output
  std::string Output; ///< what the task returned (OK only)
  /// Why it did not (!OK), as a phrase: "ran past the 300 s limit
  /// (--timeout)", "used more than 8192 MiB (--max-rss)", "crashed (signal
  /// 11: Segmentation fault)", "exited with status 3".
  std::string Failure;
  double Seconds = 0;
  unsigned PeakRssMiB = 0; ///< as sampled (every 50 ms)
};

/// Runs Task(0) ... Task(N-1), each in a child forked from this process, at
/// most \p Jobs at a time, and returns their outcomes in order. Must be
/// called while this process runs no other threads. The children share
/// nothing with each other; a task's output travels back through a pipe.
std::vector<ChildOutcome>
runInChildren(size_t N, unsigned Jobs, const ChildLimits &Limits,
              llvm::function_ref<std::string(size_t)> Task);

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_ISOLATION_H
