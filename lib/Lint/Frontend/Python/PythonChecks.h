//===- PythonChecks.h - checks only Python submissions need -----*- C++ -*-===//
//
// Part of atrex. Facts the Python front end records per function that the
// C++ model has no slot for (attribute and global writes, stream contexts),
// and the checks that report them, one class each, on the reachability of
// the shared model.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LIB_LINT_PYTHON_PYTHONCHECKS_H
#define ATREX_LIB_LINT_PYTHON_PYTHONCHECKS_H

#include "atrex/Lint/Check.h"
#include "atrex/Lint/Policy.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace atrex {
namespace lint {

struct PythonFunctionFacts {
  /// A write that outlives the call: `self.x = ...`, `CACHE[k] = ...`,
  /// `global G`, a memoising decorator.
  struct StateWrite {
    SourcePos Pos;
    std::string Name;   ///< `self.cache`, `CACHE`
    std::string What;   ///< `attribute`, `global`, `memoised result`
    bool Risky = false; ///< can hold outputs (tensors, containers)
  };
  /// A side stream entered or created (`torch.cuda.Stream()`,
  /// `with torch.cuda.stream(s):`).
  struct StreamUse {
    SourcePos Pos;
    std::string Name;
  };
  /// A harness input overwritten in place (`data[...] = ...`,
  /// `x.copy_(...)`) by a function that returns something else.
  struct InputWrite {
    SourcePos Pos;
    std::string Name;  ///< as written: `data`, `a`
    std::string Input; ///< the input it is: `data`, `data[0]`
    std::string How;   ///< as spelled: "('data[...] = ...')"
  };
  std::vector<StateWrite> StateWrites;
  std::vector<InputWrite> InputWrites;
  std::vector<StreamUse> StreamUses;
  /// The function joins streams back (`torch.cuda.synchronize()`,
  /// `wait_stream`, `wait_event`, `.synchronize()`).
  bool Joins = false;
};

struct PythonFacts {
  std::map<std::string, PythonFunctionFacts> Functions; ///< by function key
  /// Calls of extension functions, linked to their C++ definitions once the
  /// extension's sources are parsed.
  struct PendingSite {
    std::string Holder;
    size_t Index;
    unsigned Extension;
    std::string Name;
  };
  std::vector<PendingSite> PendingSites;
  /// What the body of a DSL kernel (FlyDSL's `@flyc.kernel`, Triton's
  /// `@triton.jit`) does with the values it loads, read from the Python
  /// (atrex-kernel-no-compute). Only kernels whose whole body was read (own
  /// helpers included) are here.
  struct KernelWork {
    /// Loads, copies and stores only: no arithmetic operator, no matrix or
    /// math call on a loaded value.
    bool MovesOnly = false;
    unsigned Moves = 0; ///< copy/load/store calls and element reads/writes
  };
  std::map<std::string, KernelWork> Kernels; ///< by kernel key
};

/// \p PyP (a pythonPolicy) with the rules of program mode before the Python
/// rules: a program's `__main__` generates its inputs (`torch.randn`,
/// `torch.arange`, `x.normal_()`, ...) and compares results
/// (`torch.allclose`, `torch.testing.assert_close`): glue, not the
/// operator's compute. Unchanged with `inherit: none`.
Policy pythonProgramPolicy(const Policy &PyP);

/// atrex-evasion-static-state, atrex-evasion-side-stream and
/// atrex-evasion-input-write for Python.
std::vector<std::unique_ptr<LintCheck>>
createPythonChecks(const PythonFacts &Facts);

} // namespace lint
} // namespace atrex

#endif
