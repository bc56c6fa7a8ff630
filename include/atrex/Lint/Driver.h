//===- Driver.h - lint files or a compilation database ----------*- C++ -*-===//

#ifndef ATREX_LINT_DRIVER_H
#define ATREX_LINT_DRIVER_H

#include "atrex/Lint/Analysis.h"
#include "atrex/Lint/Finding.h"
#include "atrex/Lint/Isolation.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <string>
#include <vector>

namespace atrex {
namespace lint {
class Policy;

/// Where the CUDA, HIP, PyTorch and Clang pieces live on this machine.
struct Toolchain {
  std::string CudaPath;     ///< empty when not found
  unsigned CudaVersion = 0; ///< CUDA_VERSION of its cuda.h (13000); 0: unknown
  std::string ResourceDir;  ///< clang's resource directory
  std::vector<std::string> TorchIncludes;
  std::string PythonInclude;
  std::string HipInclude; ///< directory holding hip/hip_runtime.h
  /// Directory holding cutlass/cutlass.h and cute/tensor.hpp (PyPI
  /// nvidia-cutlass, or $ATREX_CUTLASS_INCLUDE); empty when not found.
  std::string CutlassInclude;
  /// Directories holding tvm/ffi/*.h and dlpack/dlpack.h (PyPI
  /// apache-tvm-ffi: tvm_ffi/include, tvm_ffi/3rdparty/dlpack/include, or
  /// $ATREX_TVM_FFI_INCLUDE, ':'-separated); empty when not found. Added
  /// only to files that include a header they hold and that their project
  /// does not ship (a note says so).
  std::vector<std::string> TvmFfiIncludes;
  /// atrex-lint's own parsing headers (the HIP prelude, stand-ins for
  /// headers no package provides), written to the cache; empty if unwritable.
  std::string BuiltinHeaders;
};

/// The directories that would hold \p Missing (an include spelled in
/// \p File that was not found), searched as a build of its project would
/// have set them: the file's ancestors up to the repository root (a
/// directory holding .git, .hg or .svn), each with its conventional include
/// folders (include/, Common/, common/, inc/, src/, ...) and the include/ of
/// each of its sub-directories. Nearest first; empty when none holds it.
std::vector<std::string> inferIncludeDirs(llvm::StringRef File,
                                          llvm::StringRef Missing);

/// Detects the toolchain once per process (environment: CUDA_PATH,
/// CUDA_HOME, ATREX_TORCH_INCLUDE, ATREX_PYTHON, ROCM_PATH).
const Toolchain &detectToolchain();

/// The clang arguments atrex-lint uses for a source file, before the
/// user's extra arguments: language by extension (.cu/.cuh CUDA, .hip HIP,
/// otherwise C++), host-only parsing, CUDA/HIP/torch/Python include paths.
std::vector<std::string> defaultArguments(llvm::StringRef File,
                                          const Toolchain &TC,
                                          bool CompilerWarnings);

/// Rewrites an nvcc or hipcc command line from a compilation database into
/// clang arguments (keeps -I/-D/-isystem/-std, drops device-code options).
std::vector<std::string> translateCommand(const std::vector<std::string> &Args,
                                          llvm::StringRef File,
                                          const Toolchain &TC,
                                          bool CompilerWarnings);

struct LintOptions {
  std::vector<std::string> Files;
  /// Directory holding compile_commands.json, or the file itself.
  std::string CompileCommands;
  std::vector<std::string> ExtraArgs;
  AnalysisOptions Analysis;
  unsigned Jobs = 0; ///< 0: hardware concurrency
  /// Non-empty: all inputs form one submission of this name (cross-file
  /// reachability); otherwise each file is its own submission.
  std::string Submission;
  bool CompilerWarnings = false;
  bool Color = false;
  /// Directory of precompiled torch prefixes; empty disables them.
  std::string PCHDir;
  /// Analyse each file (or, with Submission, the whole submission) in a
  /// child process under these limits; a task that runs past one is a result
  /// with verdict `unknown` naming the limit (docs/atrex-lint.md).
  bool Isolate = false;
  ChildLimits Limits;
  /// Called on the result of each Python file after its static analysis
  /// (with the file and the policy), where the file is analysed: the FlyDSL
  /// IR evidence (include/atrex/Lint/FlyDSL.h), which the atrex-lint tool
  /// sets. Empty: none.
  std::function<void(SubmissionResult &, llvm::StringRef, const Policy &)>
      PythonEvidence;
};

/// The default PCH directory: $ATREX_CACHE_DIR/pch, else
/// $XDG_CACHE_HOME/atrex/pch, else ~/.cache/atrex/pch.
std::string defaultPCHDir();

/// The clang command line atrex-lint parses \p File with (without the
/// precompiled prefix), for --print-command and the benchmarks.
llvm::Expected<std::vector<std::string>> commandFor(llvm::StringRef File,
                                                    const LintOptions &Opts);

/// Lints every input and returns one result per submission, in input order.
/// Per-file problems (unreadable, does not parse, analysis crashed) are
/// results with errors and verdict `unknown`, never lost.
llvm::Expected<std::vector<SubmissionResult>> runLint(const LintOptions &Opts,
                                                      const Policy &P);

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_DRIVER_H
