//===- Process.h - subprocesses of the agent loop ---------------*- C++ -*-===//
//
// Part of atrex. The backend's command, atrex-lint and atrex-gate run as
// subprocesses (llvm::sys::ExecuteAndWait) with their output in files.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_AGENT_PROCESS_H
#define ATREX_AGENT_PROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace atrex::agent {

struct ProcessResult {
  std::optional<int> ExitStatus; ///< none: killed by a signal or timed out
  bool TimedOut = false;
  std::string Error; ///< could not start, signal, timeout ("" otherwise)
  double WallS = 0;
};

/// Runs \p Program with \p Args (Args[0] is the program's name), the
/// current environment with \p SetEnv added or replaced, stdin from
/// /dev/null and stdout/stderr to the given files ("" keeps them).
ProcessResult
runProcess(llvm::StringRef Program, llvm::ArrayRef<std::string> Args,
           llvm::ArrayRef<std::pair<std::string, std::string>> SetEnv,
           llvm::StringRef StdoutFile, llvm::StringRef StderrFile,
           unsigned TimeoutS = 0);

/// The file's text, or an error naming it.
/// A sibling tool of the executable \p SelfExe: beside it, then in the
/// runtime's build beside it (build/runtime/bin next to build/bin), then on
/// PATH; "" when none is found.
std::string findSiblingTool(llvm::StringRef Name, llvm::StringRef SelfExe);

llvm::Expected<std::string> readFile(llvm::StringRef Path);
/// Writes \p Text to \p Path (replacing it), or an error naming it.
llvm::Error writeFile(llvm::StringRef Path, llvm::StringRef Text);
/// The last \p MaxLines lines of \p Text (at most \p MaxChars characters).
std::string tail(llvm::StringRef Text, unsigned MaxLines = 20,
                 size_t MaxChars = 2000);

} // namespace atrex::agent

#endif // ATREX_AGENT_PROCESS_H
