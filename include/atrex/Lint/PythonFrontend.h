//===- PythonFrontend.h - atrex-lint for Python submissions -----*- C++ -*-===//
//
// Part of atrex. Reads the Python formats GPU kernels are submitted in:
// KernelBench (`ModelNew` with CUDA/HIP strings passed to
// `torch.utils.cpp_extension.load_inline`), GPU MODE (`custom_kernel(data)`)
// and Triton (`@triton.jit` kernels launched as `kernel[grid](...)`). The
// Python file is parsed with tree-sitter; its functions, calls and launches
// join the C++ model of the extracted sources (parsed by the same Clang
// front end as a .cu file, with `#line` directives that map every position
// back to the Python file), so the same checks, policy, verdicts and reports
// apply. See docs/python-frontend.md.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_PYTHONFRONTEND_H
#define ATREX_LINT_PYTHONFRONTEND_H

#include "atrex/Lint/Analysis.h"
#include "atrex/Lint/Finding.h"
#include "atrex/Lint/Model.h"
#include "llvm/ADT/StringRef.h"
#include <functional>
#include <string>

namespace atrex {
namespace lint {
class Policy;

/// Parses C++/CUDA/HIP text as the file \p Path (its extension picks the
/// language; the file need not exist) into \p Out, appending the compiler's
/// rendered diagnostics to \p Rendered.
using SourceParser =
    std::function<void(llvm::StringRef Path, llvm::StringRef Content,
                       Model &Out, std::string &Rendered)>;

/// True for the files the Python front end reads (`.py`).
bool isPythonFile(llvm::StringRef Path);

/// Lints one Python submission: parses it, reconstructs and parses the
/// sources of every `load_inline`/`load` call through \p ParseCxx, runs the
/// checks of \p P (with the Python rules of docs/python-frontend.md) from the
/// Python entry (`ModelNew.forward`, else `custom_kernel`, else every
/// module-level function; `Opts.Entries` overrides) and decides the verdict.
/// Problems with the input (unreadable file, syntax errors, sources that are
/// not constant strings) are errors of the result, never lost results.
SubmissionResult lintPythonFile(llvm::StringRef File, const Policy &P,
                                const AnalysisOptions &Opts,
                                const SourceParser &ParseCxx);

/// The policy used for Python files: \p P with the Python rules inserted
/// before the built-in default's rules (after the rules of a policy file).
/// A policy with `inherit: none` is returned unchanged.
Policy pythonPolicy(const Policy &P);

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_PYTHONFRONTEND_H
